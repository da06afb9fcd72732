// Operations NumPy has no loop for are compile-time errors where the types
// are known: clang's diagnostic at the call, and a note naming the
// constraint (an integer operand, or a result that is not bool) that the
// operand fails. NumPy raises "ufunc 'gcd' did not contain a loop ...".
// RUN: not %kilnc -c %s -o %t.o 2>&1 | FileCheck %s
#include <kiln/kiln.hpp>

void f(const kiln::array<double> &x, const kiln::array<std::int32_t> &i,
       const kiln::array<bool> &b) {
  auto g = kiln::gcd(x, 2);
  // CHECK: ufunc-types.cpp:[[@LINE-1]]:12: error: no matching function for call to 'gcd'
  // CHECK: note: because 'kiln::array<double>' does not satisfy 'integral_operand'
  auto l = kiln::lcm(b, b);
  // CHECK: ufunc-types.cpp:[[@LINE-1]]:12: error: no matching function for call to 'lcm'
  // CHECK: note: because '!std::is_same_v<arith_result_t<kiln::array<bool>, kiln::array<bool>>, bool>' evaluated to false
  auto a = kiln::bitwise_and(x, i);
  // CHECK: ufunc-types.cpp:[[@LINE-1]]:12: error: no matching function for call to 'bitwise_and'
  // CHECK: note: because 'kiln::array<double>' does not satisfy 'integral_operand'
  auto s = x << 2;
  // CHECK: ufunc-types.cpp:[[@LINE-1]]:14: error: invalid operands to binary expression ('const kiln::array<double>' and 'int')
  auto n = ~x;
  // CHECK: ufunc-types.cpp:[[@LINE-1]]:12: error: invalid argument type 'const kiln::array<double>' to unary expression
  auto e = kiln::ldexp(x, 2.5);
  // CHECK: ufunc-types.cpp:[[@LINE-1]]:12: error: no matching function for call to 'ldexp'
  // CHECK: note: because 'double' does not satisfy 'integral_operand'
  auto m = kiln::frexp(kiln::array<std::complex<float>>());
  // CHECK: ufunc-types.cpp:[[@LINE-1]]:12: error: no matching function for call to 'frexp'
}
