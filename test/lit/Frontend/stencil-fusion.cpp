// A convolution in a KILN_FUSE body (convolve2d/correlate2d with mode::same)
// is a stencil group: its producer (x * x) and consumer (the threshold) are
// computed inside one raw kernel per filter size (3x3, 5x5, 7x7: loads of
// the producer's inputs, fused multiply-adds, the consumer, one store per
// output), called through kiln::detail::call_stencil; the producer and the
// consumer are also elementwise kernels of their own (`_p`, `_c`), the
// group's unfused form for calls no stencil kernel takes. A filter
// computed by operations, a reduction of the result and a non-constant mode
// are not part of it.
// RUN: %kilnc --emit=mlir %s -o - | FileCheck %s
// RUN: %kilnc --emit=cpp %s -o - | FileCheck %s --check-prefix=CPP
// RUN: %kilnc --emit=ptx %s -o - | FileCheck %s --check-prefix=PTX
// RUN: %kilnc --fusion-report --emit=cpp %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
#include <kiln/kiln.hpp>
#include <kiln/signal.hpp>

namespace sg = kiln::signal;
using f32 = kiln::array<float>;

KILN_FUSE f32 blur_threshold(const f32 &x, const f32 &k, float t) {
  auto b = sg::convolve2d(x * x, k, sg::mode::same, sg::boundary::symm);
  return kiln::where(b > t, 1.0f, 0.0f);
}

KILN_FUSE f32 normalized(const f32 &x, const f32 &k) {
  return kiln::sum(sg::correlate2d(x, k / kiln::sum(k), sg::mode::same, sg::boundary::fill, 2.0f));
}

f32 not_constant(const f32 &x, const f32 &k, sg::mode m) { return sg::convolve2d(x, k, m) + 1.0f; }

// CHECK-LABEL: func.func @kiln_stencil_fusion_{{[0-9a-f]+}}_blur_threshold_0_0_3x3(
// The output and its extents, x and its strides, the filter, t.
// CHECK-SAME: %arg0: !llvm.ptr, %arg1: i64, %arg2: i64, %arg3: !llvm.ptr, %arg4: i64, %arg5: i64, %arg6: !llvm.ptr, %arg7: f32)
// CHECK-SAME: kiln.raw_kernel
// CHECK: gpu.block_id x
// CHECK: llvm.load
// CHECK: arith.mulf {{.*}} fastmath<contract>
// CHECK: arith.addf {{.*}} fastmath<contract>
// CHECK: arith.cmpf ogt
// CHECK: llvm.store
// CHECK: func.func @kiln_stencil_fusion_{{[0-9a-f]+}}_blur_threshold_0_0_5x5(
// Beside the 5x5 and 7x7 kernels, the GPU-only tiled kernel of the same parameters: shared
// memory for two staging windows and the produced one (3 x 36 x 136
// floats), the next tile's window copied with cp.async, barriers around
// the producer's pass.
// CHECK: func.func @kiln_stencil_fusion_{{[0-9a-f]+}}_blur_threshold_0_0_5x5_tiled(%arg0: !llvm.ptr, %arg1: i64, %arg2: i64, %arg3: !llvm.ptr, %arg4: i64, %arg5: i64, %arg6: !llvm.ptr, %arg7: f32)
// CHECK-SAME: kiln.gpu_only, kiln.raw_kernel, kiln.static_shared = 58752 : i64, kiln.synchronizes
// CHECK: kiln.shared_memory {offset = 39168 : i64}
// CHECK: nvvm.cp.async.shared.global {{.*}}, 16, cache = cg
// CHECK: nvvm.cp.async.shared.global {{.*}}, 4, cache = ca
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK: arith.mulf {{.*}} fastmath<contract>
// CHECK: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// CHECK: gpu.barrier
// CHECK: func.func @kiln_stencil_fusion_{{[0-9a-f]+}}_blur_threshold_0_0_7x7(
// CHECK: func.func @kiln_stencil_fusion_{{[0-9a-f]+}}_blur_threshold_0_0_p(%arg0: tensor<?xf32>) -> tensor<?xf32>
// CHECK-SAME: kiln.kernel
// CHECK: arith.mulf
// CHECK: func.func @kiln_stencil_fusion_{{[0-9a-f]+}}_blur_threshold_0_0_c(%arg0: tensor<?xf32>, %arg1: f32) -> tensor<?xf32>
// CHECK-SAME: kiln.kernel
// CHECK: arith.cmpf ogt
// The filter's normalization (one reduction kernel) comes before the
// stencil, the sum of the result after it.
// CHECK: func.func @kiln_stencil_fusion_{{[0-9a-f]+}}_normalized_1_0(
// CHECK-SAME: kiln.reduction_kernel
// CHECK: func.func @kiln_stencil_fusion_{{[0-9a-f]+}}_normalized_1_1_3x3(
// CHECK: func.func @kiln_stencil_fusion_{{[0-9a-f]+}}_normalized_1_2(
// CHECK-SAME: kiln.reduction_kernel
// A mode known only at run time: the runtime's convolution, then `+ 1`.
// CHECK: func.func @kiln_stencil_fusion_{{[0-9a-f]+}}_not_constant_2_0(%arg0: tensor<?xf32>)
// CHECK-SAME: kiln.kernel

// CPP: return ::kiln::detail::call_stencil<float>(::__kiln_k_{{[0-9a-f]+}}_0(), {::kiln::detail::in(x)}, k, {::kiln::detail::scalar(t)});
// CPP: ::kiln::detail::call_stencil<float>(::__kiln_k_{{[0-9a-f]+}}_2(), {::kiln::detail::in(x)}, [](const auto &__kiln_a0, {{.*}}call_reduction
// CPP: sg::convolve2d(x, k, m)
// The tiled kernel's descriptor: no host form, its shared memory static.
// CPP: {{^}}const ::kiln::detail::raw_kernel kiln_raw_s0_1t = {
// CPP-NEXT: "kiln_stencil_fusion_{{[0-9a-f]+}}_blur_threshold_0_0", "kiln_stencil_fusion_{{[0-9a-f]+}}_blur_threshold_0_0_5x5_tiled",
// CPP: nullptr, nullptr,
// CPP-NEXT: 8, kiln_raw_bytes_s0_1t, 58752u, true};
// CPP: {{^}}const ::kiln::detail::stencil_kernel kiln_kernel_0 = {
// CPP-NEXT: "kiln_stencil_fusion_{{[0-9a-f]+}}_blur_threshold_0_0",
// CPP-NEXT: {{[{][{]}}&kiln_raw_s0_0, 3, 3, 8, nullptr}, {&kiln_raw_s0_1, 5, 5, 8, &kiln_raw_s0_1t}, {&kiln_raw_s0_2, 7, 7, 8, &kiln_raw_s0_2t{{[}][}]}},
// CPP-NEXT: 1, 1, kiln_types_0,
// The producer reads input 0; the consumer the convolution (-1) and scalar 0.
// CPP-NEXT: {&kiln_kernel_0p, 1, 0, kiln_stencil_inputs_0p, nullptr},
// CPP-NEXT: {&kiln_kernel_0c, 1, 1, kiln_stencil_inputs_0c, kiln_stencil_scalars_0c},
// CPP-NEXT: false, 2, -1, 0.0000000000000000e+00, 0.0000000000000000e+00};

// PTX: .entry kiln_stencil_fusion_{{[0-9a-f]+}}_blur_threshold_0_0_5x5(
// PTX: fma.rn.f32
// PTX: .entry kiln_stencil_fusion_{{[0-9a-f]+}}_blur_threshold_0_0_5x5_tiled(
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX: cp.async.wait_group 1;
// PTX: ld.shared.v4.b32
// PTX: fma.rn.f32
// PTX: st.global.v4.b32

// REPORT: stencil-fusion.cpp:{{[0-9]+}}:10 blur_threshold kiln_stencil_fusion_{{[0-9a-f]+}}_blur_threshold_0_0 4 ops of 2 statements 1 array + 1 scalar convolve2d symm
// REPORT: stencil-fusion.cpp:{{[0-9]+}}:20 normalized kiln_stencil_fusion_{{[0-9a-f]+}}_normalized_1_1 1 op 1 array correlate2d fill
