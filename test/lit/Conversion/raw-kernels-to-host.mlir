// kiln-raw-kernels-to-host: a raw kernel becomes its one-thread host form
// @<k>_thread(params, ctx, tx, ty, tz) reading the rest of its coordinates
// from the runtime's raw_thread_ctx (block_idx at 12, block_dim at 24,
// grid_dim at 36, shared at 48) and calling the runtime for barriers and
// shuffles; a kernel that does not synchronize also gets @<k>_block, a loop
// over the block's threads. A kernel marked kiln.gpu_only (cp.async) has no
// host form and is dropped.
// RUN: %kiln-opt %s --kiln-raw-kernels-to-host | FileCheck %s
// CHECK-NOT: @gpu_only

module {
  func.func @gpu_only(%p: !llvm.ptr) attributes {kiln.gpu_only, kiln.raw_kernel, kiln.static_shared = 0 : i64} {
    nvvm.cp.async.commit.group
    return
  }
  func.func @sync(%p: !llvm.ptr, %v: f32) attributes {kiln.raw_kernel, kiln.static_shared = 16 : i64, kiln.synchronizes} {
    %s = kiln.shared_memory {offset = 4 : i64} : !llvm.ptr
    %t = gpu.thread_id y
    %b = gpu.block_id z
    %sum = arith.addi %t, %b : index
    %i = arith.index_cast %sum : index to i64
    %q = llvm.getelementptr %s[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %v, %q : f32, !llvm.ptr
    gpu.barrier
    %c2 = arith.constant 2 : i32
    %c32 = arith.constant 32 : i32
    %r, %ok = gpu.shuffle xor %v, %c2, %c32 : f32
    %sel = arith.select %ok, %r, %v : f32
    llvm.store %sel, %p : f32, !llvm.ptr
    return
  }
  func.func @plain(%p: !llvm.ptr) attributes {kiln.raw_kernel, kiln.static_shared = 0 : i64} {
    %g = gpu.grid_dim x
    %l = gpu.lane_id
    %s = arith.addi %g, %l : index
    %i = arith.index_cast %s : index to i32
    llvm.store %i, %p : i32, !llvm.ptr
    return
  }
}

// CHECK: func.func @sync_thread(%[[P:.*]]: !llvm.ptr, %[[V:.*]]: f32, %[[CTX:.*]]: !llvm.ptr, %[[TX:.*]]: i32, %[[TY:.*]]: i32, %[[TZ:.*]]: i32)
// CHECK-SAME: kiln.raw_host = "sync_host"
// CHECK-SAME: kiln.raw_params = 2
// CHECK: %[[SH:.*]] = llvm.getelementptr %[[CTX]][48] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: %[[BUF:.*]] = llvm.load %[[SH]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.getelementptr %[[BUF]][4] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: arith.index_castui %[[TY]] : i32 to index
// CHECK: llvm.getelementptr %[[CTX]][20] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.call @kiln_raw_syncthreads(%[[CTX]]) : (!llvm.ptr) -> ()
// CHECK: %[[BITS:.*]] = arith.bitcast %[[V]] : f32 to i32
// CHECK: %[[WIDE:.*]] = arith.extui %[[BITS]] : i32 to i64
// CHECK: %[[MODE:.*]] = arith.constant 3 : i32
// CHECK: llvm.call @kiln_raw_shfl(%[[CTX]], %[[WIDE]], %[[MODE]], %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, i32, i32, i32) -> i64
// CHECK: arith.trunci
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// A synchronizing kernel has no block form.
// CHECK-NOT: func.func @sync_block
// CHECK: func.func @plain_thread(%{{.*}}: !llvm.ptr, %[[CTX2:.*]]: !llvm.ptr, %[[X:.*]]: i32, %[[Y:.*]]: i32, %[[Z:.*]]: i32)
// CHECK: llvm.getelementptr %[[CTX2]][36]
// The lane: (tz * by + ty) * bx + tx, mod 32.
// CHECK: arith.muli %[[Z]]
// CHECK: arith.addi %{{.*}}, %[[Y]]
// CHECK: arith.addi %{{.*}}, %[[X]]
// CHECK: arith.andi %{{.*}}, %c31
// CHECK: func.func @plain_block(%[[P3:.*]]: !llvm.ptr, %[[CTX3:.*]]: !llvm.ptr)
// CHECK-SAME: kiln.raw_host = "plain_host_block"
// CHECK: scf.for %[[IZ:.*]] =
// CHECK: scf.for %[[IY:.*]] =
// CHECK: scf.for %[[IX:.*]] =
// CHECK: call @plain_thread(%[[P3]], %[[CTX3]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: llvm.func @kiln_raw_syncthreads(!llvm.ptr)
// CHECK: llvm.func @kiln_raw_shfl(!llvm.ptr, i64, i32, i32, i32) -> i64
// CHECK-NOT: gpu_only
