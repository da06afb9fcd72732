// sum(x * y, -1) is one kernel: the product is folded into the reduction and
// never written.
// RUN: %kilnc --emit=mlir %s -o - | FileCheck %s --check-prefix=BEFORE
// RUN: %kilnc --emit=fused-mlir %s -o - | FileCheck %s --check-prefix=AFTER
// RUN: %kilnc --fusion-report %s | FileCheck %s --check-prefix=REPORT
#include <kiln/kiln.hpp>

KILN_FUSE kiln::array<float> dot_rows(const kiln::array<float> &x, const kiln::array<float> &y) {
  return kiln::sum(x * y, -1);
}
// BEFORE: func.func @kiln_reduction_sum_xy_{{[0-9a-f]+}}_dot_rows_0_0(%{{.*}}: tensor<?x?xf32>, %{{.*}}: tensor<?x?xf32>) -> tensor<?xf32> attributes {kiln.reduction_kernel}
// BEFORE-COUNT-3: linalg.generic
// BEFORE-NOT: linalg.generic

// AFTER: func.func @kiln_reduction_sum_xy_{{[0-9a-f]+}}_dot_rows_0_0(
// AFTER-SAME: kiln.reduction_kernel
// AFTER: linalg.generic
// AFTER-SAME: iterator_types = ["parallel", "reduction"]
// AFTER-SAME: ins(%arg0, %arg1 : tensor<?x?xf32>, tensor<?x?xf32>)
// AFTER: arith.mulf
// AFTER-NEXT: kiln.combine <sum>
// AFTER-NOT: linalg.generic
// AFTER: return

// REPORT: 1 fused expression, 1 kernel
// REPORT: dot_rows {{.*}}2 ops {{.*}}axis -1{{ *}}8 B
