// In a KILN_FUSE body a local is inlined into its consumers only where no
// write into an array comes between its declaration and its uses (issue
// 24): a read before `r[m] += v`, `r[idx] = v`, `r.assign(...)`, `r.fill(v)`,
// `copyto`, `put`, `elementwise_into` or a write through a view is computed
// by its own kernel first; reads after the write, and a local consumed by the
// write itself, still fuse.
// RUN: %kilnc --fusion-report %s | FileCheck %s --check-prefix=REPORT
// RUN: %kilnc --emit=cpp %s | FileCheck %s
#include <kiln/kiln.hpp>

using f64 = kiln::array<double>;
using b8 = kiln::array<bool>;
using i64 = kiln::array<std::int64_t>;

// REPORT-LABEL: fuse-write-order.cpp: {{[0-9]+}} fused expressions
// CHECK-LABEL: f64 masked(
// CHECK: auto u = ::kiln::detail::call_fused<double>(
// REPORT-DAG: :[[@LINE+3]]:12 {{ *}}masked {{.*}} 1 op {{ *}}1 array
KILN_FUSE f64 masked(const f64 &a, const b8 &m) {
  auto r = a.copy();
  auto u = r + 0.75;
  r[m] += 0.75;
  return kiln::maximum(r, u);
}

// CHECK-LABEL: f64 indexed(
// CHECK: auto u = ::kiln::detail::call_fused<double>(
KILN_FUSE f64 indexed(const f64 &a, const i64 &idx) {
  auto r = a.copy();
  auto u = r + 0.75;
  r[idx] = 5.0;
  return u - r;
}

// CHECK-LABEL: f64 filled(
// CHECK: auto u = ::kiln::detail::call_fused<double>(
KILN_FUSE f64 filled(const f64 &a) {
  auto r = a.copy();
  auto u = r + 0.75;
  r.fill(3.0);
  return u - r;
}

// CHECK-LABEL: f64 copied(
// CHECK: auto u = ::kiln::detail::call_fused<double>(
KILN_FUSE f64 copied(const f64 &a, const f64 &b) {
  auto r = a.copy();
  auto u = r + 0.75;
  kiln::copyto(r, b);
  return u - r;
}

// CHECK-LABEL: f64 put_into(
// CHECK: auto u = ::kiln::detail::call_fused<double>(
KILN_FUSE f64 put_into(const f64 &a, const i64 &idx) {
  auto r = a.copy();
  auto u = r + 0.75;
  kiln::put(r, idx, 9.0);
  return u - r;
}

// CHECK-LABEL: f64 into(
// CHECK: auto u = ::kiln::detail::call_fused<double>(
KILN_FUSE f64 into(const f64 &a, const f64 &b) {
  auto r = a.copy();
  auto u = r + 0.75;
  kiln::elementwise_into(r, [](double v) { return v * v; }, b);
  return u - r;
}

// CHECK-LABEL: f64 view_write(
// CHECK: auto u = ::kiln::detail::call_fused<double>(
KILN_FUSE f64 view_write(const f64 &a, const b8 &mt) {
  auto r = a.copy();
  auto u = r + 0.75;
  auto v = r.T();
  v[mt] = 0.0;
  return u - r;
}

// Two locals before the write: one kernel for both, before it.
// REPORT-DAG: :[[@LINE+6]]:12 {{ *}}chained {{.*}} 2 ops of 2 statements
// CHECK-LABEL: f64 chained(
// CHECK: auto w = ::kiln::detail::call_fused<double>(
KILN_FUSE f64 chained(const f64 &a, const b8 &m) {
  auto r = a.copy();
  auto u = r + 0.75;
  auto w = u * 2.0;
  r[m] = 100.0;
  return w - r;
}

// Reads after the write fuse into the update that consumes them.
// REPORT-DAG: read_after {{.*}} 3 ops of 3 statements  1 array, writes r
// CHECK-LABEL: f64 read_after(
// CHECK-NOT: {{^ *}}auto u =
// CHECK-NOT: {{^ *}}auto d =
// CHECK: return r;
KILN_FUSE f64 read_after(const f64 &a, const b8 &m) {
  auto r = a.copy();
  r[m] = 100.0;
  auto u = r + 0.75;
  auto d = u * 2.0;
  r += d;
  return r;
}

// Without a write the body is one kernel, as before.
// REPORT-DAG: no_write {{.*}} 3 ops of 3 statements  1 array
KILN_FUSE f64 no_write(const f64 &a) {
  auto u = a + 0.75;
  auto w = u * 2.0;
  return w - 1.0;
}
