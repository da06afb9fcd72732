// Complex ordering compiles to NumPy's lexicographic order (CLT): the real
// parts compare when neither imaginary part is NaN, the imaginary parts on a
// tie. (It was once a compile error while the eager runtime accepted it.)
// RUN: %kilnc --emit=mlir %s -o - | FileCheck %s
#include <kiln/kiln.hpp>

KILN_FUSE kiln::array<bool> less(const kiln::array<std::complex<float>> &a, const kiln::array<std::complex<float>> &b) {
  return a < b;
}
// CHECK-LABEL: func.func @{{.*}}less
// CHECK: linalg.generic
// CHECK-DAG: %[[AR:.*]] = complex.re %[[A:[a-z_0-9]+]] : complex<f32>
// CHECK-DAG: %[[AI:.*]] = complex.im %[[A]] : complex<f32>
// CHECK-DAG: %[[XR:.*]] = complex.re %[[X:[a-z_0-9]+]] : complex<f32>
// CHECK-DAG: %[[XI:.*]] = complex.im %[[X]] : complex<f32>
// CHECK: %[[ORD:.*]] = arith.cmpf ord, %[[AI]], %[[XI]] : f32
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[AR]], %[[XR]] : f32
// CHECK: %[[REAL:.*]] = arith.andi %[[LT]], %[[ORD]] : i1
// CHECK-DAG: %[[EQ:.*]] = arith.cmpf oeq, %[[AR]], %[[XR]] : f32
// CHECK-DAG: %[[ILT:.*]] = arith.cmpf olt, %[[AI]], %[[XI]] : f32
// CHECK: %[[TIE:.*]] = arith.andi %[[EQ]], %[[ILT]] : i1
// CHECK: arith.ori %[[REAL]], %[[TIE]] : i1
