// A reduction's constant axes checked at compile time, with NumPy's words:
// out of range where the operand's rank is known (created with a braced
// shape, reshaped, a local never modified), duplicates, and argmax over
// several axes.
// RUN: not %kilnc -c %s -o %t.o 2>&1 | FileCheck %s
#include <kiln/kiln.hpp>
using f32 = kiln::array<float>;

f32 out_of_range() {
  f32 x = kiln::zeros<float>({3, 4});
  // CHECK: reduction-axis.cpp:[[@LINE+1]]:23: error: axis 2 is out of bounds for array of dimension 2
  return kiln::sum(x, 2);
}

f32 negative(const f32 &y) {
  auto m = y.reshape({2, 3, 4});
  // CHECK: reduction-axis.cpp:[[@LINE+1]]:31: error: axis -4 is out of bounds for array of dimension 3
  return kiln::mean(m * 2.0f, -4);
}

f32 after_a_reduction() {
  auto x = kiln::ones<float>({5, 6, 7});
  auto s = kiln::sum(x, 0); // rank 2
  // CHECK: reduction-axis.cpp:[[@LINE+1]]:23: error: axis 2 is out of bounds for array of dimension 2
  return kiln::max(s, 2, true);
}

f32 duplicates(const f32 &x) {
  // CHECK: reduction-axis.cpp:[[@LINE+1]]:23: error: duplicate value in 'axis'
  return kiln::sum(x, {1, 1});
}

f32 duplicates_negative() {
  auto x = kiln::zeros<float>({2, 2});
  // CHECK: reduction-axis.cpp:[[@LINE+1]]:16: error: duplicate value in 'axis'
  return x.sum({1, -1});
}

kiln::array<std::int64_t> argmax_list(const f32 &x) {
  // CHECK: reduction-axis.cpp:[[@LINE+1]]:26: error: argmax takes a single axis or kiln::all, not a list of 2 axes
  return kiln::argmax(x, {0, 1});
}

// kiln::reduce: the axes are checked against its operand's rank (issue 24:
// the rank of its own result was used, so axis 1 of a 2-d array was "out of
// bounds for array of dimension 1").
f32 custom_reduce_ok() {
  auto x = kiln::ones<float>({3, 4});
  return kiln::reduce(x, [](float v) { return v; }, [](float a, float b) { return a + b; }, 0.0f,
                      [](float s) { return s; }, 1);
}
f32 custom_reduce_bad() {
  auto x = kiln::ones<float>({3, 4});
  // CHECK: reduction-axis.cpp:[[@LINE+2]]:50: error: axis 2 is out of bounds for array of dimension 2
  return kiln::reduce(x, [](float v) { return v; }, [](float a, float b) { return a + b; }, 0.0f,
                      [](float s) { return s; }, 2);
}

// In templates too, reported once for all instantiations.
template <class T> kiln::array<T> tmin(const kiln::array<T> &x) {
  // CHECK: reduction-axis.cpp:[[@LINE+1]]:23: error: duplicate value in 'axis'
  return kiln::min(x, {1, 1});
}
template <class T> kiln::array<std::int64_t> targmax(const kiln::array<T> &x) {
  // CHECK: reduction-axis.cpp:[[@LINE+1]]:26: error: argmax takes a single axis or kiln::all, not a list of 2 axes
  return kiln::argmax(x, {0, 1});
}
void instantiate(const f32 &x) {
  tmin(x);
  tmin(kiln::ones<double>({2, 2}));
  targmax(x);
}
// CHECK-NOT: duplicate value in 'axis'

// The rank of a parameter, or of a variable assigned later, is not known:
// no error here (the runtime checks).
f32 unknown(const f32 &x) { return kiln::sum(x, 5); }
f32 reassigned() {
  f32 x = kiln::zeros<float>({3});
  x = kiln::zeros<float>({3, 3, 3});
  return kiln::sum(x, 2);
}
// CHECK-NOT: error:
