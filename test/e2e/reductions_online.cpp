// Softmax, log-softmax and logsumexp, whose max and sum(exp(x - max)) kilnc
// fuses into one online pass (the `logsumexp` combiner,
// kiln-online-logsumexp), against double references of NumPy's two-pass
// form on random data: rows short and long (one block, clusters, split
// over blocks), columns, the whole array, two axes of a 3-d array (the
// general layout), float32 and float64, a scalar inside the exponent, and
// NumPy's special values: NaN, +inf (exp(inf - inf) is NaN), -inf beside
// finite values (adds 0) and rows of -inf only (NaN), in every chunk of a
// split row. Also the error of an empty reduction, max's.
#include "e2e.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

using namespace e2e;
using C = std::complex<double>;
using f32 = kiln::array<float>;
using f64 = kiln::array<double>;

KILN_FUSE f32 lse_rows(const f32 &x) {
  auto m = kiln::max(x, -1, true);
  return kiln::log(kiln::sum(kiln::exp(x - m), -1)) + kiln::max(x, -1);
}
KILN_FUSE f64 lse_rows64(const f64 &x) {
  auto m = kiln::max(x, -1, true);
  return kiln::log(kiln::sum(kiln::exp(x - m), -1)) + kiln::max(x, -1);
}
KILN_FUSE f32 lse_cols(const f32 &x) {
  auto m = kiln::max(x, 0, true);
  return kiln::log(kiln::sum(kiln::exp(x - m), 0)) + kiln::max(x, 0);
}
KILN_FUSE f32 lse_all(const f32 &x) {
  auto m = kiln::max(x);
  return kiln::log(kiln::sum(kiln::exp(x - m))) + m;
}
KILN_FUSE f32 softmax_rows(const f32 &x, float t) {
  auto m = kiln::max(x * t, -1, true);
  auto e = kiln::exp(x * t - m);
  return e / kiln::sum(e, -1, true);
}
KILN_FUSE f64 log_softmax_cols(const f64 &x) {
  auto s = x - kiln::max(x, 0, true);
  return s - kiln::log(kiln::sum(kiln::exp(s), 0, true));
}
KILN_FUSE f32 lse_outer(const f32 &x) { // axes (0, 2) of a 3-d array
  auto m = kiln::max(x, {0, 2}, true);
  return kiln::log(kiln::sum(kiln::exp(x - m), {0, 2})) + kiln::max(x, {0, 2});
}
// Not the pair (the sum's value is not exp(x - m)): two passes, still right.
KILN_FUSE f32 twice_rows(const f32 &x) {
  auto m = kiln::max(x, -1, true);
  return kiln::sum(kiln::exp(x - m) * 2.0f, -1);
}

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

/// NumPy's max (NaN propagates) and sum(exp(v - max)) of `v`.
std::pair<double, double> two_pass(const std::vector<double> &v) {
  double m = -inf;
  for (double x : v)
    m = std::isnan(m) || std::isnan(x) ? std::nan("") : std::max(m, x);
  double s = 0;
  for (double x : v)
    s += std::exp(x - m);
  return {m, s};
}

template <class T> std::vector<double> widened(const kiln::array<T> &x) {
  std::vector<double> out;
  for (T v : x.to_vector())
    out.push_back(double(v));
  return out;
}

/// Puts NumPy's special values in some rows of a row-major R x N matrix:
/// NaN, +inf, -inf beside finite values, all -inf; in the first, middle and
/// last element and at split-chunk edges (65536).
template <class T> void specials(std::vector<T> &h, std::int64_t R, std::int64_t N) {
  const T pinf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  auto at = [&](std::int64_t i, std::int64_t j) -> T & { return h[i * N + j]; };
  if (R < 6)
    return;
  at(1, N / 2) = nan;
  at(2, N - 1) = pinf;
  at(3, 0) = -pinf;
  at(3, N - 1) = -pinf;
  for (std::int64_t j = 0; j < N; ++j)
    at(4, j) = -pinf;
  at(5, std::min<std::int64_t>(N - 1, 65536)) = pinf;
  at(5, 0) = -pinf;
}

void check_rows(std::int64_t R, std::int64_t N, std::uint64_t seed, bool special) {
  auto rng = kiln::random::default_rng(seed);
  std::vector<float> h = rng.normal<float>({R, N}, 0.0, 3.0).to_vector();
  if (special)
    specials(h, R, N);
  f32 x = kiln::asarray<float>(std::span<const float>(h), {R, N});
  std::vector<double> lse(R), mx(R), se(R);
  for (std::int64_t i = 0; i < R; ++i) {
    std::vector<double> row(h.begin() + i * N, h.begin() + (i + 1) * N);
    std::tie(mx[i], se[i]) = two_pass(row);
    lse[i] = std::log(se[i]) + mx[i];
  }
  const std::string shape = " of (" + std::to_string(R) + ", " + std::to_string(N) + ")" + (special ? " with NaN/inf" : "");
  expect("logsumexp(x, -1)" + shape, lse_rows(x), R, [&](auto i) { return C(lse[i]); }, 2e-5);
  expect("sum(2 exp(x - max), -1)" + shape, twice_rows(x), R, [&](auto i) { return C(2 * se[i]); }, 2e-5);
  // softmax of x * t: its own max and sum.
  const float t = 0.5f;
  std::vector<double> mt(R), st(R);
  for (std::int64_t i = 0; i < R; ++i) {
    std::vector<double> row;
    for (std::int64_t j = 0; j < N; ++j)
      row.push_back(double(h[i * N + j] * t));
    std::tie(mt[i], st[i]) = two_pass(row);
  }
  expect("softmax(x * t, -1)" + shape, softmax_rows(x, t), R * N, [&](auto k) {
    const std::int64_t i = std::int64_t(k) / N;
    return C(std::exp(double(h[k] * t) - mt[i]) / st[i]);
  }, 2e-5);
  f64 x64 = x.astype<double>();
  expect("logsumexp(float64 x, -1)" + shape, lse_rows64(x64), R, [&](auto i) { return C(lse[i]); }, 1e-12);
}

void check_columns(std::int64_t R, std::int64_t N, std::uint64_t seed) {
  auto rng = kiln::random::default_rng(seed);
  f64 x = rng.normal<double>({R, N}, 0.0, 3.0);
  std::vector<double> h = x.to_vector();
  specials(h, std::min<std::int64_t>(R, 6), N); // the first rows' specials land in columns
  x = kiln::asarray<double>(std::span<const double>(h), {R, N});
  std::vector<double> mx(N), se(N), hf(h.size());
  for (std::size_t k = 0; k < h.size(); ++k)
    hf[k] = double(float(h[k]));
  std::vector<double> mf(N), sf(N);
  for (std::int64_t j = 0; j < N; ++j) {
    std::vector<double> col, colf;
    for (std::int64_t i = 0; i < R; ++i) {
      col.push_back(h[i * N + j]);
      colf.push_back(hf[i * N + j]);
    }
    std::tie(mx[j], se[j]) = two_pass(col);
    std::tie(mf[j], sf[j]) = two_pass(colf);
  }
  const std::string shape = " of (" + std::to_string(R) + ", " + std::to_string(N) + ")";
  expect("log_softmax(float64 x, 0)" + shape, log_softmax_cols(x), R * N, [&](auto k) {
    const std::int64_t j = std::int64_t(k) % N;
    return C(h[k] - mx[j] - std::log(se[j]));
  }, 1e-12);
  expect("logsumexp(x, 0)" + shape, lse_cols(x.astype<float>()), N,
         [&](auto j) { return C(std::log(sf[j]) + mf[j]); }, 2e-5);
}

void check_whole_and_general(std::uint64_t seed) {
  auto rng = kiln::random::default_rng(seed);
  for (std::int64_t n : {std::int64_t(1), std::int64_t(1000), std::int64_t(3000007)}) {
    f32 x = rng.normal<float>({n}, 0.0, 4.0);
    auto [m, s] = two_pass(widened(x));
    expect("logsumexp(x) of " + std::to_string(n), lse_all(x), 1, [&](auto) { return C(std::log(s) + m); }, 2e-5);
  }
  // A whole array with an inf in a late chunk, and one of -inf only.
  std::vector<float> h = rng.normal<float>({1 << 20}).to_vector();
  h[900000] = std::numeric_limits<float>::infinity();
  expect("logsumexp(x) with inf", lse_all(kiln::asarray<float>(std::span<const float>(h), {1 << 20})), 1,
         [&](auto) { return C(std::nan("")); }, 0);
  std::vector<float> lows(300000, -std::numeric_limits<float>::infinity());
  lows[123456] = 2.5f;
  expect("logsumexp(x) of -inf and one 2.5", lse_all(kiln::asarray<float>(std::span<const float>(lows), {300000})), 1,
         [&](auto) { return C(2.5); }, 1e-6);
  for (auto [a, b, c] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{3, 5, 7}, {40, 33, 1000}, {2000, 3, 64}}) {
    f32 x = rng.normal<float>({a, b, c}, 0.0, 3.0);
    std::vector<double> h = widened(x);
    std::vector<double> want(b);
    for (std::int64_t j = 0; j < b; ++j) {
      std::vector<double> group;
      for (std::int64_t i = 0; i < a; ++i)
        for (std::int64_t k = 0; k < c; ++k)
          group.push_back(h[(i * b + j) * c + k]);
      auto [m, s] = two_pass(group);
      want[j] = std::log(s) + m;
    }
    expect("logsumexp(x, {0, 2}) of (" + std::to_string(a) + ", " + std::to_string(b) + ", " + std::to_string(c) + ")",
           lse_outer(x), b, [&](auto j) { return C(want[j]); }, 2e-5);
  }
}

void check_empty() {
  ++checks;
  try {
    f32 e = kiln::zeros<float>({4, 0});
    f32 r = lse_rows(e);
    std::printf("FAIL logsumexp of an empty axis: no error (%zu elements)\n", std::size_t(r.size()));
    ++failures;
  } catch (const kiln::value_error &err) {
    if (std::string(err.what()).find("zero-size array to reduction operation maximum") == std::string::npos) {
      std::printf("FAIL logsumexp of an empty axis: %s\n", err.what());
      ++failures;
    }
  }
}

} // namespace

int main() {
  std::uint64_t seed = 77;
  for (auto [R, N] : {std::pair<std::int64_t, std::int64_t>{7, 5}, {9, 33}, {300, 1000}, {64, 4096}, {16, 40000},
                      {7, 200003}, {3000, 17}}) {
    check_rows(R, N, ++seed, false);
    check_rows(R, N, ++seed, true);
  }
  for (auto [R, N] : {std::pair<std::int64_t, std::int64_t>{6, 9}, {1000, 257}, {100003, 4}, {50000, 64}})
    check_columns(R, N, ++seed);
  check_whole_and_general(++seed);
  check_empty();
  return finish("reductions_online");
}
