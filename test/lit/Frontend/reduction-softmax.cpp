// Softmax along rows is one kernel: the max and the sum of exp(x - max),
// one online logsumexp stage (kiln-online-logsumexp), and the output map,
// each reading x.
// RUN: %kilnc --emit=fused-mlir %s -o - | FileCheck %s
// RUN: %kilnc --fusion-report %s | FileCheck %s --check-prefix=REPORT
#include <kiln/kiln.hpp>

KILN_FUSE kiln::array<float> softmax(const kiln::array<float> &x) {
  auto m = kiln::max(x, -1, true);
  auto e = kiln::exp(x - m);
  return e / kiln::sum(e, -1, true);
}
// CHECK: func.func @kiln_reduction_softmax_{{[0-9a-f]+}}_softmax_0_0(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK: %[[LSE:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<?x?xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: kiln.combine <logsumexp>({{.*}}), (%[[X]])
// CHECK-NOT: kiln.combine
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%arg0, %[[LSE]]#0, %[[LSE]]#1 :
// CHECK: math.exp
// CHECK: arith.divf
// CHECK-NOT: linalg.generic
// CHECK: return

// REPORT: 1 fused expression, 1 kernel
// REPORT: softmax {{.*}}axis -1, keepdims{{ *}}8 B
