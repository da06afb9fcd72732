// NumPy promotion in kernels: an int32 array compared with a float scalar is
// compared in float64; int32 / int32 is true division in float64; a float32
// array times a double literal stays float32 (weak scalars, NEP 50).
// RUN: %kilnc --emit=mlir %s -o - | FileCheck %s
#include <kiln/kiln.hpp>

KILN_FUSE kiln::array<bool> cmp(const kiln::array<int> &i) { return i < 2.5; }
// CHECK-LABEL: func.func @{{.*}}_cmp_{{.*}}(%{{.*}}: tensor<?xi32>) -> tensor<?xi8>
// CHECK: arith.sitofp %{{.*}} : i32 to f64
// CHECK: arith.cmpf olt
// CHECK: arith.extui %{{.*}} : i1 to i8

KILN_FUSE kiln::array<double> divide(const kiln::array<int> &a, const kiln::array<int> &b) { return a / b; }
// CHECK-LABEL: func.func @{{.*}}_divide_
// CHECK: arith.sitofp %{{.*}} : i32 to f64
// CHECK: arith.divf %{{.*}} : f64

KILN_FUSE kiln::array<float> weak(const kiln::array<float> &x) { return x * 2.0; }
// CHECK-LABEL: func.func @{{.*}}_weak_
// CHECK: arith.mulf %{{.*}} : f32
