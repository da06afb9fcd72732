// MLIR's elementwise fusion turns a chain through inlined locals into one
// linalg.generic that reads each input once.
// RUN: %kilnc --emit=mlir %s -o - | FileCheck %s --check-prefix=BEFORE
// RUN: %kilnc --emit=fused-mlir %s -o - | FileCheck %s --check-prefix=AFTER
#include <kiln/kiln.hpp>

KILN_FUSE kiln::array<float> chain(const kiln::array<float> &x, const kiln::array<float> &y) {
  auto a = kiln::sin(x) * kiln::cos(y);
  auto b = a + 0.5f * x;
  return kiln::sqrt(kiln::abs(b)) - y / 4.0f;
}
// BEFORE-COUNT-9: linalg.generic
// BEFORE-NOT: linalg.generic
// AFTER: func.func @kiln_fused_mlir_chain_{{[0-9a-f]+}}_chain_0_0(%{{.*}}: tensor<?xf32>, %{{.*}}: tensor<?xf32>) -> tensor<?xf32>
// AFTER-COUNT-1: linalg.generic
// AFTER-NOT: linalg.generic
// AFTER-DAG: math.sin
// AFTER-DAG: math.cos
// AFTER: math.sqrt
