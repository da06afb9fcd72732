// A value read from an array before a write into it keeps what it read
// (issue 24): in a KILN_FUSE function, in a template and in plain code, for
// every form that writes into an array (compound assignment, mask and index
// scatters and updates, assign, fill, copyto, put, elementwise_into, writes
// through views), `u = r + 0.75` computed before the write must not see it,
// whatever kilnc inlines. Each result is compared with a double reference
// of NumPy's order on random data, on the current device (host in CI, the
// GPU under scripts/device-check.sh).
#include "e2e.hpp"

#include <complex>
#include <cstdint>

using namespace e2e;
using f64 = kiln::array<double>;
using c128 = kiln::array<std::complex<double>>;
using b8 = kiln::array<bool>;
using i64 = kiln::array<std::int64_t>;

// The program, and one of each write form after the read.
KILN_FUSE f64 masked_add(const f64 &a, const b8 &m) {
  auto r = a.copy();
  auto u = r + 0.75; // must see r before the update
  r[m] += 0.75;
  return kiln::maximum(r, u);
}
KILN_FUSE f64 masked_set(const f64 &a, const b8 &m) {
  auto r = a.copy();
  auto u = r + 0.75;
  r[m] = -2.0;
  return u - r;
}
KILN_FUSE c128 masked_set_complex(const c128 &a, const b8 &m) {
  auto r = a.copy();
  auto u = r + 0.75;
  r[m] = std::complex<double>(1.0, -1.0);
  return u * r;
}
KILN_FUSE f64 indexed_set(const f64 &a, const i64 &idx) {
  auto r = a.copy();
  auto u = r + 0.75;
  r[idx] = 5.0;
  return u - r;
}
KILN_FUSE f64 indexed_add(const f64 &a, const i64 &idx) {
  auto r = a.copy();
  auto u = r + 0.75;
  r[idx] += 5.0;
  return u - r;
}
KILN_FUSE f64 assigned(const f64 &a, const f64 &b) {
  auto r = a.copy();
  auto u = r + 0.75;
  r.assign(b * 2.0);
  return u - r;
}
KILN_FUSE f64 filled(const f64 &a) {
  auto r = a.copy();
  auto u = r + 0.75;
  r.fill(3.0);
  return u - r;
}
KILN_FUSE f64 copied_to(const f64 &a, const f64 &b) {
  auto r = a.copy();
  auto u = r + 0.75;
  kiln::copyto(r, b);
  return u - r;
}
KILN_FUSE f64 put_into(const f64 &a, const i64 &idx) {
  auto r = a.copy();
  auto u = r + 0.75;
  kiln::put(r, idx, 9.0);
  return u - r;
}
KILN_FUSE f64 into(const f64 &a, const f64 &b) {
  auto r = a.copy();
  auto u = r + 0.75;
  kiln::elementwise_into(r, [](double v) { return v * v; }, b);
  return u - r;
}
KILN_FUSE f64 compound(const f64 &a) {
  auto r = a.copy();
  auto u = r + 0.75;
  r *= 3.0;
  return u - r;
}
KILN_FUSE f64 through_slice(const f64 &a) {
  auto r = a.copy();
  auto u = r + 0.75;
  r.slice({kiln::range(1, 3)}) += 10.0; // a view of r
  return u - r;
}
KILN_FUSE f64 through_view_variable(const f64 &a, const b8 &mt) {
  auto r = a.copy();
  auto u = r + 0.75;
  auto v = r.T(); // another name for r's data
  v[mt] = 0.0;
  return u - r;
}
// Reads chained through two locals, then the write: both keep what they read.
KILN_FUSE f64 chained(const f64 &a, const b8 &m) {
  auto r = a.copy();
  auto u = r + 0.75;
  auto w = u * 2.0;
  r[m] = 100.0;
  return w - r;
}
// A read after the write sees it; a local used by the write itself is read
// before it (one kernel for both).
KILN_FUSE f64 read_after(const f64 &a, const b8 &m) {
  auto r = a.copy();
  r[m] = 100.0;
  auto u = r + 0.75;
  auto d = u * 2.0;
  r += d;
  return r;
}
template <class T> kiln::array<T> masked_template(const kiln::array<T> &a, const b8 &m) {
  auto r = a.copy();
  auto u = r + T(0.75);
  r[m] += T(0.75);
  return kiln::maximum(r, u);
}
// Plain code: the same forms in one function.
f64 plain(const f64 &a, const b8 &m, const i64 &idx) {
  auto r = a.copy();
  auto u = r + 0.75;
  r[m] += 0.75;
  auto v = r * 2.0;
  r[idx] = 5.0;
  auto w = r - 1.0;
  r.fill(2.0);
  return u + v + w + r;
}

int main() {
  const std::int64_t m = 6, n = 7, count = m * n;
  auto rng = kiln::random::default_rng(24);
  f64 a = rng.normal<double>({m, n}, 1.0, 2.0), b = rng.normal<double>({m, n}, 0.0, 1.0);
  b8 mask = rng.random<double>({m, n}) > 0.5;
  b8 maskT = rng.random<double>({n, m}) > 0.5;
  i64 idx = kiln::asarray<std::int64_t>(std::vector<std::int64_t>{4, 1, -1}, kiln::shape{3});
  i64 flat = kiln::asarray<std::int64_t>(std::vector<std::int64_t>{0, 17, 41, -2}, kiln::shape{4});
  const std::vector<double> ha = a.to_vector(), hb = b.to_vector();
  const std::vector<bool> hm = [&] {
    std::vector<bool> v;
    for (bool x : mask.to_vector()) v.push_back(x);
    return v;
  }();
  const std::vector<bool> hmT = [&] {
    std::vector<bool> v;
    for (bool x : maskT.to_vector()) v.push_back(x);
    return v;
  }();
  auto row = [&](std::size_t i) { return std::int64_t(i) / n; };
  auto col = [&](std::size_t i) { return std::int64_t(i) % n; };
  auto inRows = [&](std::size_t i, std::initializer_list<std::int64_t> rows) {
    for (std::int64_t r : rows)
      if (row(i) == (r + m) % m) return true;
    return false;
  };
  const std::size_t N = static_cast<std::size_t>(count);

  expect("masked += (the issue's program)", masked_add(a, mask), N, [&](std::size_t i) {
    double r = ha[i] + (hm[i] ? 0.75 : 0.0);
    return std::max(r, ha[i] + 0.75);
  }, 1e-12);
  expect("masked =", masked_set(a, mask), N, [&](std::size_t i) { return ha[i] + 0.75 - (hm[i] ? -2.0 : ha[i]); },
         1e-12);
  {
    c128 ac = a.astype<std::complex<double>>() + b.astype<std::complex<double>>() * std::complex<double>(0, 1);
    expect("masked = (complex)", masked_set_complex(ac, mask), N, [&](std::size_t i) {
      std::complex<double> x(ha[i], hb[i]);
      std::complex<double> r = hm[i] ? std::complex<double>(1.0, -1.0) : x;
      return (x + 0.75) * r;
    }, 1e-12);
  }
  expect("indices =", indexed_set(a, idx), N,
         [&](std::size_t i) { return ha[i] + 0.75 - (inRows(i, {4, 1, -1}) ? 5.0 : ha[i]); }, 1e-12);
  expect("indices +=", indexed_add(a, idx), N,
         [&](std::size_t i) { return ha[i] + 0.75 - (inRows(i, {4, 1, -1}) ? ha[i] + 5.0 : ha[i]); }, 1e-12);
  expect("assign", assigned(a, b), N, [&](std::size_t i) { return ha[i] + 0.75 - 2.0 * hb[i]; }, 1e-12);
  expect("fill", filled(a), N, [&](std::size_t i) { return ha[i] + 0.75 - 3.0; }, 1e-12);
  expect("copyto", copied_to(a, b), N, [&](std::size_t i) { return ha[i] + 0.75 - hb[i]; }, 1e-12);
  expect("put", put_into(a, flat), N, [&](std::size_t i) {
    bool hit = i == 0 || i == 17 || i == 41 || i == N - 2;
    return ha[i] + 0.75 - (hit ? 9.0 : ha[i]);
  }, 1e-12);
  expect("elementwise_into", into(a, b), N, [&](std::size_t i) { return ha[i] + 0.75 - hb[i] * hb[i]; }, 1e-12);
  expect("*=", compound(a), N, [&](std::size_t i) { return ha[i] + 0.75 - 3.0 * ha[i]; }, 1e-12);
  expect("slice +=", through_slice(a), N,
         [&](std::size_t i) { return ha[i] + 0.75 - (inRows(i, {1, 2}) ? ha[i] + 10.0 : ha[i]); }, 1e-12);
  expect("view variable, masked =", through_view_variable(a, maskT), N, [&](std::size_t i) {
    // r.T()[mt] = 0: element (i, j) of r is element (j, i) of the view.
    bool hit = hmT[static_cast<std::size_t>(col(i) * m + row(i))];
    return ha[i] + 0.75 - (hit ? 0.0 : ha[i]);
  }, 1e-12);
  expect("two locals before the write", chained(a, mask), N,
         [&](std::size_t i) { return (ha[i] + 0.75) * 2.0 - (hm[i] ? 100.0 : ha[i]); }, 1e-12);
  expect("reads after the write", read_after(a, mask), N, [&](std::size_t i) {
    double r = hm[i] ? 100.0 : ha[i];
    return r + (r + 0.75) * 2.0;
  }, 1e-12);
  expect("template", masked_template<double>(a, mask), N, [&](std::size_t i) {
    return std::max(ha[i] + (hm[i] ? 0.75 : 0.0), ha[i] + 0.75);
  }, 1e-12);
  expect("plain code", plain(a, mask, idx), N, [&](std::size_t i) {
    double r = ha[i] + (hm[i] ? 0.75 : 0.0);
    double u = ha[i] + 0.75, v = r * 2.0;
    if (inRows(i, {4, 1, -1})) r = 5.0;
    double w = r - 1.0;
    return u + v + w + 2.0;
  }, 1e-12);
  // The arguments are untouched (every function wrote into a copy).
  expect("argument a unchanged", a, N, [&](std::size_t i) { return ha[i]; }, 0.0);
  return finish("e2e_write_order");
}
