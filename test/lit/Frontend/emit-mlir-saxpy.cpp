// The frontend's stage: one linalg.generic per operation, rank-1 tensors,
// scalars by value, on a kiln.kernel function.
// RUN: %kilnc --emit=mlir %s -o - | FileCheck %s
#include <kiln/kiln.hpp>

KILN_FUSE kiln::array<float> saxpy(float a, const kiln::array<float> &x, const kiln::array<float> &y) {
  return a * x + y;
}
// CHECK-LABEL: func.func @kiln_emit_mlir_saxpy_{{[0-9a-f]+}}_saxpy_0_0(
// CHECK-SAME: %{{.*}}: tensor<?xf32>, %{{.*}}: tensor<?xf32>, %[[A:.*]]: f32) -> tensor<?xf32>
// CHECK-SAME: kiln.kernel
// CHECK: linalg.generic
// CHECK: arith.mulf %[[A]]
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: return
