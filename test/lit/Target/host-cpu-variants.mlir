// The host object's CPU variants and vector math (compiler/Target/Host/
// CpuVariants.h): each exported wrapper tests the CPU once (cpuid, cached)
// and calls the x86-64-v3 copy of its variant (AVX2 + FMA: 8 lanes, the
// approximations' multiply-adds fused) or the baseline one (4 lanes, a
// multiply and an add). float32 sin/cos are libmvec's vector functions in
// the vectorized loops and the same functions on a splat in the scalar
// remainders, never the scalar libm sinf/cosf.
// REQUIRES: x86_64, libmvec
// RUN: %kiln-translate --host-ir %s | %FileCheck %s
// RUN: %kiln-translate --host-object %s -o %t.o
// RUN: llvm-objdump -dr --no-show-raw-insn %t.o | %FileCheck %s --check-prefix=ASM
// RUN: llvm-objdump -d --no-show-raw-insn %t.o | %FileCheck %s --check-prefix=CPUID

// CHECK-LABEL: define void @chain_contig_host(ptr
// CHECK: load atomic i32, ptr @kiln.host_cpu_level.cache monotonic
// CHECK: call {{.*}}i32 @kiln.host_cpu_detect()
// CHECK: icmp eq i32 %{{.*}}, 3
// CHECK: call fastcc void @chain_contig.x86_64_v3(
// The baseline copy, inlined into the wrapper: 4 lanes.
// CHECK: vector.body:
// CHECK-DAG: call <4 x float> @_ZGVbN4v_cosf(<4 x float>
// CHECK-DAG: call <4 x float> @_ZGVbN4v_sinf(<4 x float>
// CHECK-DAG: call <4 x float> @llvm.fmuladd.v4f32(
// The scalar remainder: the vector function on a splat.
// CHECK: middle.block:
// CHECK: call <4 x float> @_ZGVbN4v_sinf(<4 x float> %{{.*}}splat
// CHECK-LABEL: define internal fastcc void @chain_contig.x86_64_v3(
// CHECK-SAME: #[[V3:[0-9]+]]
// CHECK: vector.body:
// CHECK-DAG: call <8 x float> @_ZGVdN8v_cosf(<8 x float>
// CHECK-DAG: call <8 x float> @_ZGVdN8v_sinf(<8 x float>
// CHECK-DAG: call <8 x float> @llvm.fmuladd.v8f32(
// CHECK: call <8 x float> @_ZGVdN8v_sinf(<8 x float> %{{.*}}splat
// CHECK-LABEL: define internal {{.*}}i32 @kiln.host_cpu_detect()
// CHECK: call ptr @getenv(ptr {{.*}}@kiln.host_cpu.env)
// CHECK: asm sideeffect "cpuid"
// CHECK: asm sideeffect ".byte 0x0f, 0x01, 0xd0"
// CHECK: attributes #[[V3]] = {{.*}}"target-cpu"="x86-64-v3"
// CHECK-NOT: @sinf(
// CHECK-NOT: @cosf(
// CHECK-NOT: @llvm.sin.
// CHECK-NOT: @llvm.cos.

// ASM-LABEL: <chain_contig_host>:
// ASM: R_X86_64_PLT32 _ZGVbN4v_sinf
// ASM: mulps
// ASM-NOT: vfmadd
// ASM-LABEL: <chain_contig.x86_64_v3>:
// ASM: vfmadd{{[0-9]+}}ps {{.*}}%ymm
// ASM: R_X86_64_PLT32 _ZGVdN8v_sinf
// CPUID-LABEL: <kiln.host_cpu_detect>:
// CPUID: cpuid
// CPUID: xgetbv

#map = affine_map<(d0) -> (d0)>
module {
  func.func @chain(%arg0: tensor<?xf32>, %arg1: tensor<?xf32>) -> tensor<?xf32> attributes {kiln.kernel} {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?xf32>
    %0 = tensor.empty(%dim) : tensor<?xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%arg0, %arg1 : tensor<?xf32>, tensor<?xf32>) outs(%0 : tensor<?xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %2 = math.cos %x : f32
      %3 = math.log %y : f32
      %4 = arith.mulf %3, %2 : f32
      %5 = math.sin %y : f32
      %6 = math.exp %x : f32
      %7 = arith.mulf %6, %5 : f32
      %8 = arith.addf %7, %4 : f32
      %9 = math.tanh %8 : f32
      linalg.yield %9 : f32
    } -> tensor<?xf32>
    return %1 : tensor<?xf32>
  }
}
