// What a kiln::elementwise lambda may not do: a clang-style error at the
// construct, saying what is not supported; kilnc exits 1.
// RUN: not %kilnc --emit=mlir %s -o %t 2>&1 | FileCheck %s
#include <kiln/kiln.hpp>

#include <vector>

using F = kiln::array<float>;

F thread_builtin(const F &x) {
  return kiln::elementwise([](float v) { return v + kiln::thread_idx().x; }, x);
}
// CHECK: elementwise-lambda.cpp:[[@LINE-2]]:53: error: kiln::thread_idx is not supported in a kiln::elementwise lambda (it runs once per element; thread built-ins belong in a KILN_RAWKERNEL function)

F writes_capture(const F &x) {
  float acc = 0;
  return kiln::elementwise([&](float v) { acc = v; return v; }, x);
}
// CHECK: elementwise-lambda.cpp:[[@LINE-2]]:43: error: a kiln::elementwise lambda cannot assign to the captured variable 'acc' (copy it into a local)

F captures_array(const F &x, const F &y) {
  return kiln::elementwise([&](float v) { return v; }, x) + kiln::elementwise([=](float v) { return v + y.size(); }, x);
}
// CHECK: elementwise-lambda.cpp:[[@LINE-2]]:105: error: a lambda of kiln::elementwise captures scalars only; 'y' is a 'const F' (pass arrays as arguments)

F named_capturing(const F &x) {
  float k = 2;
  auto f = [k](float v) { return v * k; };
  return kiln::elementwise(f, x);
}
// CHECK: elementwise-lambda.cpp:[[@LINE-2]]:28: error: a lambda that captures variables must be written in the kiln::elementwise call itself (kilnc passes the captured values at the call); or pass them as arguments

float scale(float v) { return v * 3; }
F function_pointer(const F &x) { return kiln::elementwise(&scale, x); }
// CHECK: elementwise-lambda.cpp:[[@LINE-1]]:59: error: kiln::elementwise takes a lambda, whose body kilnc compiles into the kernel (not a function pointer or another callable)

F throws(const F &x) {
  return kiln::elementwise([](float v) { if (v < 0) throw 1; return v; }, x);
}
// CHECK: elementwise-lambda.cpp:[[@LINE-2]]:53: error: exceptions ('throw') are not supported in a kiln::elementwise lambda

F uses_vector(const F &x) {
  return kiln::elementwise([](float v) { std::vector<float> t(3); return v; }, x);
}
// CHECK: elementwise-lambda.cpp:[[@LINE-2]]:61: error: type 'class std::vector<float>' is not supported in a kiln::elementwise lambda (scalars: bool, integers, float, double)

int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
kiln::array<int> recursion(const kiln::array<int> &x) {
  return kiln::elementwise([](int v) { return fact(v); }, x);
}
// CHECK: elementwise-lambda.cpp:[[@LINE-4]]:43: error: 'fact' calls itself (recursion is not supported in a kiln::elementwise lambda)

F mutable_lambda(const F &x) {
  return kiln::elementwise([n = 0](float v) mutable { return v + n++; }, x);
}
// CHECK: elementwise-lambda.cpp:[[@LINE-2]]:28: error: a 'mutable' lambda is not supported by kiln::elementwise (each element runs the lambda afresh)
