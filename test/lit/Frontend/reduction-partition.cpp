// Which reductions share a kernel: the same axes (keepdims may differ), and
// one iteration space. A reduction of a reduction, or one over other axes,
// starts a kernel of its own (computed first, read as an input). A
// non-keepdims result next to an array keeps that array in the kept space
// (one kernel; shapes that do not fit take the eager form at run time).
// RUN: %kilnc --fusion-report %s | FileCheck %s
#include <kiln/kiln.hpp>
using f32 = kiln::array<float>;

KILN_FUSE f32 nested(const f32 &x) { return kiln::max(kiln::sum(x, -1)); }
KILN_FUSE f32 two_axes(const f32 &x) { return kiln::sum(x, 0, true) + kiln::sum(x, 1, true); }
KILN_FUSE f32 misaligned(const f32 &x) { return x - kiln::sum(x, -1); }
KILN_FUSE f32 same_axes(const f32 &x) { return kiln::max(x, 1) - kiln::min(x, 1); }
KILN_FUSE f32 bias(const f32 &x, const f32 &b) { return kiln::sqrt(kiln::sum(x * x, -1)) + b; }
// Issue 24. Reductions over the leading axes broadcast back without keepdims
// (NumPy aligns by trailing axes, the kept ones): one kernel, full space.
KILN_FUSE f32 center(const f32 &x) { return x - kiln::mean(x, 0); }
KILN_FUSE f32 center2(const f32 &x) { return x - kiln::mean(x, {1, 0}); }
// keepdims may differ between reductions of one kernel: logsumexp's two maxes.
KILN_FUSE f32 lse(const f32 &x) {
  auto m = kiln::max(x, -1, true);
  return kiln::log(kiln::sum(kiln::exp(x - m), -1)) + kiln::max(x, -1);
}
KILN_FUSE f32 mixed(const f32 &x) { return kiln::sum(x, 0) + kiln::max(x, 0, true); }
// (R,) + (R, 1) is NumPy's outer sum: the keepdims max is computed first.
KILN_FUSE f32 outer(const f32 &x) { return kiln::sum(x, -1) + kiln::max(x, -1, true); }

// CHECK: 13 fused expressions, 13 kernels
// CHECK-DAG: nested {{.*}}_nested_0_0 {{.*}}1 op {{.*}}axis -1
// CHECK-DAG: nested {{.*}}_nested_0_1 {{.*}}1 op {{.*}}all axes
// CHECK-DAG: two_axes {{.*}}_two_axes_1_0 {{.*}}1 op {{.*}}axis 1, keepdims
// CHECK-DAG: two_axes {{.*}}_two_axes_1_1 {{.*}}2 ops {{.*}}2 arrays {{.*}}axis 0, keepdims {{.*}}12 B
// CHECK-DAG: misaligned {{.*}}_misaligned_2_0 {{.*}}2 ops {{.*}}2 arrays {{.*}}axis -1 {{.*}}4 B + 8 B/kept
// CHECK-DAG: same_axes {{.*}}_same_axes_3_0 {{.*}}3 ops {{.*}}1 array {{.*}}axis 1
// CHECK-DAG: bias {{.*}}_bias_4_0 {{.*}}4 ops {{.*}}2 arrays {{.*}}axis -1 {{.*}}4 B + 8 B/kept
// CHECK-DAG: center {{.*}}_center_5_0 {{.*}}2 ops {{.*}}1 array {{.*}}axis 0 {{.*}}8 B
// CHECK-DAG: center2 {{.*}}_center2_6_0 {{.*}}2 ops {{.*}}1 array {{.*}}axes {1,0} {{.*}}8 B
// CHECK-DAG: lse {{.*}}_lse_7_0 {{.*}}7 ops of 2 statements {{.*}}1 array {{.*}}axis -1 {{.*}}4 B + 4 B/kept
// CHECK-DAG: mixed {{.*}}_mixed_8_0 {{.*}}3 ops {{.*}}1 array {{.*}}axis 0, keepdims
// CHECK-DAG: outer {{.*}}_outer_9_0 {{.*}}1 op {{.*}}axis -1, keepdims
// CHECK-DAG: outer {{.*}}_outer_9_1 {{.*}}2 ops {{.*}}2 arrays {{.*}}axis -1 
