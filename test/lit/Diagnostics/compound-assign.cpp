// Compound assignments kilnc can tell are wrong at compile time: NumPy's
// 'same_kind' casting error (the result's dtype cannot be written into the
// destination's), writing into an operation's result (a temporary), and
// writing into an array declared const.
// RUN: not %kilnc --emit=mlir %s -o %t 2>&1 | FileCheck %s
#include <kiln/kiln.hpp>

void int_divide(kiln::array<std::int32_t> &k) {
  k /= 2;
}
// CHECK: compound-assign.cpp:[[@LINE-2]]:3: error: Cannot cast ufunc 'divide' output from dtype('float64') to dtype('int32') with casting rule 'same_kind'

void float_into_int(kiln::array<std::int64_t> &k, const kiln::array<float> &x) {
  k += x * 2.0f;
}
// CHECK: compound-assign.cpp:[[@LINE-2]]:3: error: Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64') with casting rule 'same_kind'

void signed_into_unsigned(kiln::array<std::uint8_t> &u, const kiln::array<std::int8_t> &s) {
  u -= s;
}
// CHECK: compound-assign.cpp:[[@LINE-2]]:3: error: Cannot cast ufunc 'subtract' output from dtype('int32') to dtype('uint8') with casting rule 'same_kind'

void temporary(const kiln::array<float> &x, const kiln::array<float> &y) {
  (x + y) *= 2.0f;
}
// CHECK: compound-assign.cpp:[[@LINE-2]]:4: error: this writes into the result of an array operation, a temporary that is discarded at the end of the statement; write into a named array or a view of one

void const_param(const kiln::array<float> &x, const kiln::array<float> &y) {
  x += y;
}
// CHECK: compound-assign.cpp:[[@LINE-2]]:3: error: 'x' is a const kiln::array; code kilnc compiles does not write into it (+=): declare it without const (an array is a handle, so a non-const copy writes into the same data)

void const_local_fill() {
  const auto z = kiln::zeros<double>({4});
  z.fill(1.0);
  z.assign(kiln::ones<double>({4}));
}
// CHECK: compound-assign.cpp:[[@LINE-3]]:3: error: 'z' is a const kiln::array; code kilnc compiles does not write into it (fill)
// CHECK: compound-assign.cpp:[[@LINE-3]]:3: error: 'z' is a const kiln::array; code kilnc compiles does not write into it (assign)
