// kiln::reduce with lambdas: map and post are element functions called by
// the kernel's maps, combine a third one that `kiln.combine <custom>` names
// with the identity constant; the row normalization is one reduction kernel.
// RUN: %kilnc --emit=mlir %s -o - | FileCheck %s
// RUN: %kilnc --emit=fused-mlir %s -o - | FileCheck %s --check-prefix=FUSED
// RUN: %kilnc --emit=ptx %s -o - | FileCheck %s --check-prefix=PTX
#include <kiln/kiln.hpp>
#include <cmath>

KILN_FUSE kiln::array<float> normalize(const kiln::array<float> &x) {
  auto norm = kiln::reduce(x, [](float v) { return v * v; }, [](float a, float b) { return a + b; }, 0.0f,
                           [](float s) { return std::sqrt(s); }, -1, true);
  return x / norm;
}

kiln::array<int> colmax(const kiln::array<int> &x) {
  return kiln::reduce(x, [](int v) { return v; }, [](int a, int b) { return a > b ? a : b; }, -2147483647 - 1,
                      [](int v) { return v; }, 0);
}

// CHECK-DAG: func.func private @kiln_reduce_lambda_{{[0-9a-f]+}}_combine{{[0-9]+}}(%arg0: f32, %arg1: f32) -> f32 attributes {always_inline, kiln.element_function
// CHECK-DAG: kiln.combine <custom>(%{{.*}}), (%{{.*}}) {combiner = @kiln_reduce_lambda_{{[0-9a-f]+}}_combine{{[0-9]+}}, identity = 0.000000e+00 : f32
// CHECK-DAG: func.func private @kiln_reduce_lambda_{{[0-9a-f]+}}_combine{{[0-9]+}}(%arg0: i32, %arg1: i32) -> i32
// CHECK-DAG: kiln.combine <custom>(%{{.*}}), (%{{.*}}) {combiner = @kiln_reduce_lambda_{{[0-9a-f]+}}_combine{{[0-9]+}}, identity = -2147483648 : i32

// One kernel for the map, the fold, the post and the division.
// FUSED-LABEL: func.func @kiln_reduce_lambda_{{[0-9a-f]+}}_normalize_0_0
// FUSED: kiln.combine <custom>
// FUSED: arith.divf
// FUSED-NOT: func.func @kiln_reduce_lambda_{{[0-9a-f]+}}_normalize_0_1

// Every kernel has the lambdas inlined: no calls in the PTX.
// PTX-NOT: call.uni
// PTX: .entry kiln_reduce_lambda_{{[0-9a-f]+}}_normalize_0_0
// PTX-NOT: call.uni
