// What kiln::reduce's lambdas and identity may not be: a clang-style error
// at the argument; kilnc exits 1.
// RUN: not %kilnc --emit=mlir %s -o %t 2>&1 | FileCheck %s
#include <kiln/kiln.hpp>

using F = kiln::array<float>;

F captures_in_combine(const F &x, float w) {
  return kiln::reduce(x, [](float v) { return v; }, [=](float a, float b) { return a + w * b; }, 0.0f,
                      [](float s) { return s; }, -1);
}
// CHECK: reduce-lambda.cpp:[[@LINE-3]]:53: error: kiln::reduce's combine lambda cannot capture variables (it runs at every step of the reduction tree, in several kernels); pass values through map

F identity_not_constant(const F &x, float start) {
  return kiln::reduce(x, [](float v) { return v; }, [](float a, float b) { return a + b; }, start,
                      [](float s) { return s; }, -1);
}
// CHECK: reduce-lambda.cpp:[[@LINE-3]]:93: error: kiln::reduce's identity must be a constant (an integer or floating-point literal or constexpr value)

float square(float v) { return v * v; }
F map_not_a_lambda(const F &x) {
  return kiln::reduce(x, square, [](float a, float b) { return a + b; }, 0.0f, [](float s) { return s; }, -1);
}
// CHECK: reduce-lambda.cpp:[[@LINE-2]]:26: error: kiln::reduce takes a lambda, whose body kilnc compiles into the kernel (not a function pointer or another callable)

F thread_builtin_in_post(const F &x) {
  return kiln::reduce(x, [](float v) { return v; }, [](float a, float b) { return a + b; }, 0.0f,
                      [](float s) { return s + kiln::lane_id(); }, -1);
}
// CHECK: reduce-lambda.cpp:[[@LINE-2]]:48: error: kiln::lane_id is not supported in a kiln::elementwise lambda (it runs once per element; thread built-ins belong in a KILN_RAWKERNEL function)
