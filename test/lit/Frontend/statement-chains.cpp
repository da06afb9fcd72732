// Plain statements fuse across statements (StatementChain.h): a local used
// only as an operand of later elementwise operations in a run of
// side-effect-free statements is inlined and its declaration removed. A
// statement with effects, a use that is not an operand, a write or a lambda
// keeps the local.
// RUN: %kilnc --fusion-report %s | FileCheck %s --check-prefix=REPORT
// RUN: %kilnc --emit=cpp %s | FileCheck %s
#include <kiln/kiln.hpp>
#include <cstdio>

using f32 = kiln::array<float>;
float scale(float v);

// REPORT-LABEL: statement-chains.cpp: {{[0-9]+}} fused expressions
// REPORT-DAG: :[[@LINE+5]]:{{.*}} three {{.*}} 3 ops of 3 statements  2 arrays + 1 scalar
// CHECK-LABEL: f32 three(
f32 three(const f32 &x, const f32 &y, float a) {
  auto t = a * x;
  auto u = t + y;
  auto z = kiln::sqrt(u);
  return z;
}
// CHECK-NOT: auto t
// CHECK-NOT: auto u
// CHECK: auto z = ::kiln::detail::call_fused<float>({{.*}}{::kiln::detail::in(x), ::kiln::detail::in(y)}, {::kiln::detail::scalar(a)});

// A scalar declared in the run, a reduction consumer, an update in place,
// a loop body: one kernel each.
// REPORT-DAG: scalar_between {{.*}} 3 ops of 2 statements
f32 scalar_between(const f32 &x) {
  auto t = x * 2.0f;
  const float c = 0.5f;
  return t + c * x;
}
// REPORT-DAG: reduced {{.*}} 4 ops of 2 statements  1 array {{ *}}all axes
float reduced(const f32 &x) {
  auto d = x - 1.0f;
  return kiln::sum(d * d).item();
}
// REPORT-DAG: updated {{.*}} 2 ops of 2 statements  2 arrays, writes x
void updated(f32 &x, const f32 &y) {
  auto t = y * 2.0f;
  x += t;
}
// REPORT-DAG: looped {{.*}} 2 ops of 2 statements
void looped(f32 &x, int n) {
  for (int i = 0; i < n; ++i) {
    auto t = x * 0.5f;
    x = t + 1.0f;
  }
}

// A consumer that calls a function on side-effect-free arguments: the
// function runs after its arguments, so the chain fuses into them.
// REPORT-DAG: printed_sum {{.*}} 4 ops of 2 statements
void printed_sum(const f32 &x) {
  auto d = x - 1.0f;
  std::printf("%g\n", kiln::sum(d * d).item());
}

// Not fused across: each of these keeps `t` and has two kernels.
// REPORT-DAG: printed {{.*}} 1 op {{ *}}1 array
// CHECK-LABEL: f32 printed(
// CHECK-NEXT: auto t = ::kiln::detail::call_fused
f32 printed(const f32 &x) {
  auto t = x * 2.0f;
  std::printf("between\n"); // output: ordered against the computation
  return t + 1.0f;
}
// CHECK-LABEL: f32 user_call(
// CHECK-NEXT: auto t = ::kiln::detail::call_fused
f32 user_call(const f32 &x) {
  auto t = x * 2.0f;
  return t + scale(1.0f); // a user function might write x
}
// CHECK-LABEL: f32 effect_in_argument(
// CHECK-NEXT: auto t = ::kiln::detail::call_fused
f32 use(const f32 &a, float b);
f32 effect_in_argument(const f32 &x) {
  auto t = x * 2.0f;
  return use(t + 1.0f, scale(1.0f)); // scale() may run first and write x
}
// CHECK-LABEL: f32 viewed(
// CHECK-NEXT: auto t = ::kiln::detail::call_fused
f32 viewed(const f32 &x) {
  auto t = x * 2.0f;
  return t + t.T(); // a view of t needs its storage
}
// CHECK-LABEL: f32 written(
// CHECK-NEXT: auto t = ::kiln::detail::call_fused
f32 written(const f32 &x) {
  auto t = x * 2.0f;
  t += 1.0f;
  return t * t;
}
// CHECK-LABEL: f32 in_lambda(
// CHECK-NEXT: auto t = ::kiln::detail::call_fused
f32 in_lambda(const f32 &x) {
  auto t = x * 2.0f;
  auto later = [&] { return t + 1.0f; };
  return later();
}
// CHECK-LABEL: f32 random_between(
// CHECK-NEXT: auto t = ::kiln::detail::call_fused
f32 random_between(const f32 &x, kiln::random::generator &g) {
  auto t = x * 2.0f;
  auto r = g.random<float>(x.shape()); // draws in program order
  return t + r;
}
// CHECK-LABEL: f32 other_block(
// CHECK-NEXT: auto t = ::kiln::detail::call_fused
f32 other_block(const f32 &x, bool b) {
  auto t = x * 2.0f;
  if (b) return t + 1.0f;
  return x;
}
// CHECK-LABEL: f32 scalar_changed(
// CHECK-NEXT: auto t = ::kiln::detail::call_fused
f32 scalar_changed(const f32 &x, float a) {
  auto t = x * a;
  a = 3.0f;
  return t + a;
}
