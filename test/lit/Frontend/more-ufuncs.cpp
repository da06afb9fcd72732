// Issue 27's ufuncs as kilnc writes them: gcd is Euclid's loop on the
// magnitudes (scf.while with an unsigned remainder), clip with a None bound
// is NumPy's minimum (the bound on a tie, NaN from x), nan_to_num fills in
// the dtype's extremes, ldexp builds 2^n from its bits.
// RUN: %kilnc --emit=mlir %s -o - | FileCheck %s
#include <kiln/kiln.hpp>
#include <optional>

kiln::array<std::int32_t> g(const kiln::array<std::int32_t> &a, const kiln::array<std::int32_t> &b) {
  return kiln::gcd(a, b);
}
// CHECK-LABEL: func.func @kiln_more_ufuncs_{{.*}}_g_
// CHECK: arith.cmpi slt
// CHECK: arith.subi
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: arith.remui
// CHECK: scf.yield

kiln::array<float> c(const kiln::array<float> &x) { return kiln::clip(x, std::nullopt, 2.0f); }
// CHECK-LABEL: func.func @kiln_more_ufuncs_{{.*}}_c_
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[X:.*]], %[[HI:.*]] : f32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: %[[KEEP:.*]] = arith.ori %[[LT]], %[[NAN]] : i1
// CHECK: arith.select %[[KEEP]], %[[X]], %[[HI]] : f32

kiln::array<float> n(const kiln::array<float> &x) { return kiln::nan_to_num(x); }
// CHECK-LABEL: func.func @kiln_more_ufuncs_{{.*}}_n_
// CHECK-DAG: arith.constant 3.4028234663852886E+38 : f64
// CHECK-DAG: arith.constant -3.4028234663852886E+38 : f64
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf uno

kiln::array<double> l(const kiln::array<double> &x, const kiln::array<std::int64_t> &e) { return kiln::ldexp(x, e); }
// CHECK-LABEL: func.func @kiln_more_ufuncs_{{.*}}_l_
// CHECK: arith.shli
// CHECK: arith.bitcast {{.*}} : i64 to f64
// CHECK: arith.mulf
