// Softmax along rows is one kernel: two reductions (max, then the sum of
// exp(x - max), one level later) and the output map, each reading x.
// RUN: %kilnc --emit=fused-mlir %s -o - | FileCheck %s
// RUN: %kilnc --fusion-report %s | FileCheck %s --check-prefix=REPORT
#include <kiln/kiln.hpp>

KILN_FUSE kiln::array<float> softmax(const kiln::array<float> &x) {
  auto m = kiln::max(x, -1, true);
  auto e = kiln::exp(x - m);
  return e / kiln::sum(e, -1, true);
}
// CHECK: func.func @kiln_reduction_softmax_{{[0-9a-f]+}}_softmax_0_0(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<?x?xf32>)
// CHECK: kiln.combine <max>
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%arg0, %[[MAX]] : tensor<?x?xf32>, tensor<?xf32>)
// CHECK: arith.subf
// CHECK-NEXT: math.exp
// CHECK-NEXT: kiln.combine <sum>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%arg0, %[[MAX]], %[[SUM]] :
// CHECK: math.exp
// CHECK: arith.divf
// CHECK-NOT: linalg.generic
// CHECK: return

// REPORT: 1 fused expression, 1 kernel
// REPORT: softmax {{.*}}axis -1, keepdims{{ *}}8 B
