// Which reductions share a kernel: the same axes and keepdims, and one
// iteration space. A reduction of a reduction, or one over other axes,
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

// CHECK: 7 fused expressions, 7 kernels
// CHECK-DAG: nested {{.*}}_nested_0_0 {{.*}}1 op {{.*}}axis -1
// CHECK-DAG: nested {{.*}}_nested_0_1 {{.*}}1 op {{.*}}all axes
// CHECK-DAG: two_axes {{.*}}_two_axes_1_0 {{.*}}1 op {{.*}}axis 1, keepdims
// CHECK-DAG: two_axes {{.*}}_two_axes_1_1 {{.*}}2 ops {{.*}}2 arrays {{.*}}axis 0, keepdims {{.*}}12 B
// CHECK-DAG: misaligned {{.*}}_misaligned_2_0 {{.*}}2 ops {{.*}}2 arrays {{.*}}axis -1 {{.*}}4 B + 8 B/kept
// CHECK-DAG: same_axes {{.*}}_same_axes_3_0 {{.*}}3 ops {{.*}}1 array {{.*}}axis 1
// CHECK-DAG: bias {{.*}}_bias_4_0 {{.*}}4 ops {{.*}}2 arrays {{.*}}axis -1 {{.*}}4 B + 8 B/kept
