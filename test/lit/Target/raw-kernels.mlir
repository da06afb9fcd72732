// Raw kernels on both targets. In PTX the kernel is an .entry with its
// parameters in order, shared memory is the one `.extern .shared` array,
// syncthreads is bar.sync, a shuffle is shfl.sync over the full warp with
// CUDA's clamp (31 for down); ptxas accepts it. On the host, the exported wrappers
// `<k>_host(args, ctx)` for every kernel and `<k>_host_block` for one that
// does not synchronize; the forms themselves are internal (the baseline copy
// inlined away, the x86-64-v3 copy an internal function the wrapper calls
// when the CPU has AVX2).
// RUN: %kiln-translate --ptx %s -o %t.ptx
// RUN: %FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas %t.ptx -o %t.sm80.cubin %}
// RUN: %kiln-translate --host-ir %s | %FileCheck %s --check-prefix=IR

module {
  func.func @reduce(%x: !llvm.ptr, %out: !llvm.ptr) attributes {kiln.raw_kernel, kiln.static_shared = 1024 : i64, kiln.synchronizes} {
    %t = gpu.thread_id x
    %i = arith.index_cast %t : index to i64
    %s = kiln.shared_memory {offset = 0 : i64} : !llvm.ptr
    %src = llvm.getelementptr %x[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %v = llvm.load %src : !llvm.ptr -> f32
    %dst = llvm.getelementptr %s[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %v, %dst : f32, !llvm.ptr
    gpu.barrier
    %c16 = arith.constant 16 : i32
    %c32 = arith.constant 32 : i32
    %w = llvm.load %dst : !llvm.ptr -> f32
    %r, %ok = gpu.shuffle down %w, %c16, %c32 : f32
    %sum = arith.addf %w, %r : f32
    llvm.store %sum, %out : f32, !llvm.ptr
    return
  }
  func.func @scale(%a: f32, %y: !llvm.ptr) attributes {kiln.raw_kernel, kiln.static_shared = 0 : i64} {
    %t = gpu.thread_id x
    %i = arith.index_cast %t : index to i64
    %p = llvm.getelementptr %y[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %v = llvm.load %p : !llvm.ptr -> f32
    %m = arith.mulf %a, %v : f32
    llvm.store %m, %p : f32, !llvm.ptr
    return
  }
}

// PTX: .extern .shared .align 16 .b8 kiln_raw_shared[];
// PTX: .visible .entry reduce(
// PTX-NEXT: .param .u64 {{.*}}reduce_param_0,
// PTX-NEXT: .param .u64 {{.*}}reduce_param_1
// PTX: kiln_raw_shared
// PTX: bar.sync 0;
// PTX: shfl.sync.down.b32 {{.*}}, 16, 31, -1;
// PTX: .visible .entry scale(
// PTX-NEXT: .param .f32 scale_param_0,

// IR-DAG: define void @reduce_host(ptr {{.*}}, ptr {{.*}})
// IR-DAG: call void @kiln_raw_syncthreads(
// IR-DAG: call i64 @kiln_raw_shfl(
// IR-DAG: define void @scale_host(ptr {{.*}}, ptr {{.*}})
// IR-DAG: define void @scale_host_block(ptr {{.*}}, ptr {{.*}})
// IR-NOT: reduce_host_block
// IR-NOT: define {{.*}}@reduce_thread(
// IR-DAG: define internal {{.*}}@reduce_thread.x86_64_v3(
