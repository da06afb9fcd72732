// kiln-raw-kernels-to-gpu: a raw kernel becomes a gpu.func kernel of the same
// body; kiln.shared_memory is a byte of the module's one extern shared array
// (generic address), gpu.shuffle becomes nvvm.shfl.sync over the full warp
// with CUDA's segment width in the clamp operand.
// RUN: %kiln-opt %s --kiln-raw-kernels-to-gpu | FileCheck %s

module {
  func.func @k(%p: !llvm.ptr, %v: f32, %w: i32) attributes {kiln.raw_kernel, kiln.static_shared = 1024 : i64, kiln.synchronizes} {
    %s = kiln.shared_memory {offset = 16 : i64} : !llvm.ptr
    %d = kiln.shared_memory {offset = 1024 : i64, dynamic} : !llvm.ptr
    llvm.store %v, %s : f32, !llvm.ptr
    gpu.barrier
    %c1 = arith.constant 1 : i32
    %r, %ok = gpu.shuffle down %v, %c1, %w : f32
    %sel = arith.select %ok, %r, %v : f32
    %u, %ok2 = gpu.shuffle up %v, %c1, %w : f32
    llvm.store %sel, %d : f32, !llvm.ptr
    llvm.store %u, %p : f32, !llvm.ptr
    return
  }
}

// CHECK: module attributes {gpu.container_module}
// The host function is left for kiln-raw-kernels-to-host.
// CHECK: func.func @k(
// CHECK: gpu.module @kiln_kernels
// CHECK: llvm.mlir.global external @kiln_raw_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: gpu.func @k(%{{.*}}: !llvm.ptr, %{{.*}}: f32, %[[W:.*]]: i32) kernel
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @kiln_raw_shared : !llvm.ptr<3>
// CHECK: %[[GEN:.*]] = llvm.addrspacecast %[[BASE]] : !llvm.ptr<3> to !llvm.ptr
// CHECK: llvm.getelementptr %[[GEN]][16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.getelementptr %{{.*}}[1024] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: gpu.barrier
// CHECK: %[[SEG:.*]] = arith.subi %c32{{.*}}, %[[W]] : i32
// CHECK: %[[SH:.*]] = arith.shli %[[SEG]], %c8
// CHECK: %[[CLAMP:.*]] = arith.ori %[[SH]], %c31
// CHECK: nvvm.shfl.sync down %c-1{{.*}}, %{{.*}}, %{{.*}}, %[[CLAMP]] : f32 -> f32
// `up` clamps at the segment's first lane: no | 31.
// CHECK: %[[SEG2:.*]] = arith.subi
// CHECK: %[[SH2:.*]] = arith.shli %[[SEG2]]
// CHECK: nvvm.shfl.sync up %{{.*}}, %{{.*}}, %{{.*}}, %[[SH2]] : f32 -> f32
// CHECK: gpu.return
