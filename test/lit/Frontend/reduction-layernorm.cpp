// A layer norm is one kernel: the mean (a sum) and the variance (Welford)
// of each row in one pass, then the normalizing map reading gamma and beta.
// RUN: %kilnc --emit=fused-mlir %s -o - | FileCheck %s
#include <kiln/kiln.hpp>

KILN_FUSE kiln::array<float> layer_norm(const kiln::array<float> &x, const kiln::array<float> &g,
                                        const kiln::array<float> &b, float eps) {
  auto mu = kiln::mean(x, -1, true);
  auto v = kiln::var(x, -1, true);
  return (x - mu) / kiln::sqrt(v + eps) * g + b;
}
// CHECK: func.func @kiln_reduction_layernorm_{{[0-9a-f]+}}_layer_norm_0_0(%arg0: tensor<?x?xf32>, %arg1: tensor<?x?xf32>, %arg2: tensor<?x?xf32>, %arg3: f32) -> tensor<?x?xf32>
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]} ins(%arg0 : tensor<?x?xf32>)
// CHECK: kiln.combine <sum>
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]} ins(%arg0 : tensor<?x?xf32>)
// CHECK: kiln.combine <welford>
// CHECK: linalg.generic {{.*}}["parallel", "parallel"]} ins(%arg0, {{.*}}, %arg1, %arg2 :
// CHECK: math.sqrt
// CHECK-NOT: linalg.generic
// CHECK: return
