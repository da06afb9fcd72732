// Reductions fused with the operations around them, compiled by kilnc,
// against double references on random data: sum(x*y,-1), softmax and layer
// norm (one kernel each, several passes over each row), norms, centering
// over columns (two levels), x / sum(x) (a full reduction read back), kept
// inputs after a reduction, cut groups (a reduction of a reduction, other
// axes), the eager fallback (shapes that do not fit the kernel), NaN rules,
// empty axes, errors, and sizes that split the reduced extent over blocks.
#include "reduce_ref.hpp"

#include <cstring>
#include <stdexcept>

using namespace e2e;
using C = std::complex<double>;
using f32 = kiln::array<float>;
using f64 = kiln::array<double>;

KILN_FUSE f32 dot_rows(const f32 &x, const f32 &y) { return kiln::sum(x * y, -1); }

KILN_FUSE f32 softmax(const f32 &x) {
  auto m = kiln::max(x, -1, true);
  auto e = kiln::exp(x - m);
  return e / kiln::sum(e, -1, true);
}

KILN_FUSE f32 layer_norm(const f32 &x, const f32 &g, const f32 &b, float eps) {
  auto mu = kiln::mean(x, -1, true);
  auto v = kiln::var(x, -1, true);
  return (x - mu) / kiln::sqrt(v + eps) * g + b;
}

KILN_FUSE f32 l2_rows(const f32 &x) { return kiln::sqrt(kiln::sum(x * x, -1)); }
KILN_FUSE f32 center_columns(const f32 &x) { return x - kiln::mean(x, 0, true); }
KILN_FUSE f64 normalize(const f64 &x) { return x / kiln::sum(x); }
KILN_FUSE f32 rows_plus_bias(const f32 &x, const f32 &bias) { return kiln::sum(x, -1) * 2.0f + bias; }
KILN_FUSE f32 max_of_row_sums(const f32 &x) { return kiln::max(kiln::sum(x, -1)); }
KILN_FUSE f32 standardize_all(const f32 &x) { return (x - kiln::mean(x)) / kiln::std(x); }
// Issue 24: a reduction over the leading axis broadcast back without
// keepdims, and logsumexp's keepdims and plain maxes, each one kernel.
KILN_FUSE f32 center_no_keepdims(const f32 &x) { return x - kiln::mean(x, 0); }
KILN_FUSE f32 logsumexp(const f32 &x) {
  auto m = kiln::max(x, -1, true);
  return kiln::log(kiln::sum(kiln::exp(x - m), -1)) + kiln::max(x, -1);
}

namespace {

std::vector<double> hostd(const f32 &x) {
  std::vector<double> out;
  for (float v : x.to_vector())
    out.push_back(v);
  return out;
}

/// Rows of a row-major R x N host matrix.
void rows_case(std::int64_t R, std::int64_t N, std::uint64_t seed) {
  auto rng = kiln::random::default_rng(seed);
  f32 x = rng.normal<float>({R, N}, 0.0, 2.0), y = rng.random<float>({R, N});
  f32 g = rng.random<float>({N}), b = rng.normal<float>({N}, 0.0, 1.0);
  auto X = hostd(x), Y = hostd(y), G = hostd(g), B = hostd(b);
  std::string shape = "(" + std::to_string(R) + "," + std::to_string(N) + ")";
  std::vector<double> dot(R), l2(R), sm(R * N), ln(R * N);
  for (std::int64_t i = 0; i < R; ++i) {
    double s = 0, q = 0, mx = -1e300, mu = 0, var = 0, se = 0;
    for (std::int64_t j = 0; j < N; ++j) {
      double v = X[i * N + j];
      s += v * Y[i * N + j];
      q += v * v;
      mx = std::max(mx, v);
      mu += v;
    }
    mu /= double(N);
    for (std::int64_t j = 0; j < N; ++j) {
      double v = X[i * N + j];
      se += std::exp(v - mx);
      var += (v - mu) * (v - mu);
    }
    var /= double(N);
    dot[i] = s;
    l2[i] = std::sqrt(q);
    for (std::int64_t j = 0; j < N; ++j) {
      double v = X[i * N + j];
      sm[i * N + j] = std::exp(v - mx) / se;
      ln[i * N + j] = (v - mu) / std::sqrt(var + 1e-5) * G[j] + B[j];
    }
  }
  expect("sum(x*y,-1) " + shape, dot_rows(x, y), R, [&](auto i) { return C(dot[i]); }, 1e-4);
  expect("l2 rows " + shape, l2_rows(x), R, [&](auto i) { return C(l2[i]); }, 1e-5);
  expect("norm(x, 2, -1) " + shape, kiln::linalg::norm(x, 2, -1), R, [&](auto i) { return C(l2[i]); }, 1e-5);
  expect("softmax " + shape, softmax(x), R * N, [&](auto i) { return C(sm[i]); }, 1e-5);
  expect("layer_norm " + shape, layer_norm(x, g, b, 1e-5f), R * N, [&](auto i) { return C(ln[i]); }, 2e-4);
  // A row vector broadcast against the rows inside the reduction.
  std::vector<double> dg(R, 0.0);
  for (std::int64_t i = 0; i < R; ++i)
    for (std::int64_t j = 0; j < N; ++j)
      dg[i] += X[i * N + j] * G[j];
  expect("sum(x*row,-1) " + shape, dot_rows(x, g), R, [&](auto i) { return C(dg[i]); }, 1e-4);
}

void columns_case(std::int64_t R, std::int64_t N, std::uint64_t seed) {
  auto rng = kiln::random::default_rng(seed);
  f32 x = rng.normal<float>({R, N}, 1.0, 3.0);
  auto X = hostd(x);
  std::vector<double> mean(N, 0.0);
  for (std::int64_t i = 0; i < R; ++i)
    for (std::int64_t j = 0; j < N; ++j)
      mean[j] += X[i * N + j];
  for (double &m : mean)
    m /= double(R);
  std::string shape = "(" + std::to_string(R) + "," + std::to_string(N) + ")";
  expect("mean(x, 0) " + shape, kiln::mean(x, 0), N, [&](auto j) { return C(mean[j]); }, 1e-5);
  expect("x - mean(x, 0, true) " + shape, center_columns(x), R * N,
         [&](auto i) { return C(X[i] - mean[i % N]); }, 1e-4);
  expect("x - mean(x, 0) " + shape, center_no_keepdims(x), R * N,
         [&](auto i) { return C(X[i] - mean[i % N]); }, 1e-4);
  std::vector<double> lse(R);
  for (std::int64_t i = 0; i < R; ++i) {
    double mx = -1e300, s = 0;
    for (std::int64_t j = 0; j < N; ++j) mx = std::max(mx, X[i * N + j]);
    for (std::int64_t j = 0; j < N; ++j) s += std::exp(X[i * N + j] - mx);
    lse[i] = std::log(s) + mx;
  }
  expect("logsumexp rows " + shape, logsumexp(x), R, [&](auto i) { return C(lse[i]); }, 1e-5);
}

void full_case(std::int64_t n, std::uint64_t seed) {
  auto rng = kiln::random::default_rng(seed);
  f64 x = rng.random<double>({n});
  auto X = x.to_vector();
  double total = 0;
  for (double v : X)
    total += v;
  expect("x / sum(x) (" + std::to_string(n) + ")", normalize(x), std::size_t(n),
         [&](auto i) { return C(X[i] / total); }, 1e-12);
  f32 y = rng.normal<float>({n}, 3.0, 2.0);
  auto Y = hostd(y);
  double mu = 0, var = 0;
  for (double v : Y)
    mu += v;
  mu /= double(n);
  for (double v : Y)
    var += (v - mu) * (v - mu);
  var /= double(n);
  expect("(x - mean) / std (" + std::to_string(n) + ")", standardize_all(y), std::size_t(n),
         [&](auto i) { return C((Y[i] - mu) / std::sqrt(var)); }, 1e-4);
}

/// float32 sums are pairwise (tree) sums: within 1e-6 of the float64 sum of
/// 2^24 uniform floats (2^28 on a GPU), and the same bits every run.
/// Column sums (`_rcols`) of 2^22 x 4 uniform float32: pairwise down each
/// column (a sequential float32 sum would be off by ~1e-4), same bits twice.
void column_accuracy_case() {
  const std::int64_t R = std::int64_t(1) << 22, N = 4;
  auto rng = kiln::random::default_rng(98);
  f32 x = rng.random<float>({R, N});
  auto X = x.to_vector();
  std::vector<long double> ref(N, 0);
  for (std::int64_t i = 0; i < R * N; ++i)
    ref[i % N] += X[i];
  auto got = kiln::sum(x, 0).to_vector(), again = kiln::sum(x, 0).to_vector();
  double worst = 0;
  for (std::int64_t j = 0; j < N; ++j)
    worst = std::max(worst, std::abs(double((got[j] - ref[j]) / ref[j])));
  ++checks;
  bool same = std::memcmp(got.data(), again.data(), N * sizeof(float)) == 0;
  if (worst > 1e-6 || !same) {
    ++failures;
    std::printf("FAIL float32 column sums of %lld rows: relative error %g, repeat %s\n", (long long)R, worst,
                same ? "same" : "differs");
  } else {
    std::printf("float32 column sums of %lld rows: relative error %.3g, same bits twice\n", (long long)R, worst);
  }
}

void accuracy_case() {
  const std::int64_t n = kiln::current_device().is_cuda() ? (std::int64_t(1) << 28) : (std::int64_t(1) << 24);
  auto rng = kiln::random::default_rng(99);
  f32 x = rng.random<float>({n});
  long double ref = 0;
  for (float v : x.to_vector())
    ref += v;
  float got = kiln::sum(x).item(), again = kiln::sum(x).item();
  ++checks;
  double rel = std::abs(double(got - ref) / double(ref));
  if (rel > 1e-6 || std::memcmp(&got, &again, sizeof got) != 0) {
    ++failures;
    std::printf("FAIL float32 sum of %lld uniform: relative error %g, repeat %s\n", (long long)n, rel,
                std::memcmp(&got, &again, sizeof got) ? "differs" : "same");
  } else {
    std::printf("float32 sum of %lld uniform floats: relative error %.3g, same bits twice\n", (long long)n, rel);
  }
}

template <class F> void expect_error(const std::string &what, const std::string &message, F f) {
  ++checks;
  try {
    f();
    std::printf("FAIL %s: no error\n", what.c_str());
    ++failures;
  } catch (const kiln::error &e) {
    if (std::string(e.what()).find(message) == std::string::npos) {
      std::printf("FAIL %s: '%s' does not say '%s'\n", what.c_str(), e.what(), message.c_str());
      ++failures;
    }
  }
}

void structure_cases() {
  auto rng = kiln::random::default_rng(7);
  f32 x = rng.normal<float>({6, 9}, 0.0, 1.0), bias = rng.random<float>({6});
  auto X = hostd(x), B = hostd(bias);
  std::vector<double> rs(6, 0.0);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 9; ++j)
      rs[i] += X[i * 9 + j];
  expect("sum(x,-1)*2 + bias (kept input)", rows_plus_bias(x, bias), 6, [&](auto i) { return C(rs[i] * 2 + B[i]); },
         1e-5);
  expect("max(sum(x,-1)) (a reduction of a reduction: two kernels)", max_of_row_sums(x), 1,
         [&](auto) { return C(*std::max_element(rs.begin(), rs.end())); }, 1e-5);
  // Other axes in one expression: each reduction its own kernel.
  f32 cs = kiln::sum(x, 0);
  auto CS = hostd(cs);
  double colsum0 = 0;
  for (int i = 0; i < 6; ++i)
    colsum0 += X[i * 9];
  expect("sum(x, 0)[0]", cs, 9, [&](auto j) {
    double s = 0;
    for (int i = 0; i < 6; ++i)
      s += X[i * 9 + j];
    return C(s);
  }, 1e-5);
  f32 both = kiln::sum(x, 0).sum() + kiln::sum(x, 1).max();
  double total = 0;
  for (double v : X)
    total += v;
  expect("sum(x,0).sum() + sum(x,1).max()", both, 1,
         [&](auto) { return C(total + *std::max_element(rs.begin(), rs.end())); }, 1e-5);
  // The fallback: a non-keepdims row result broadcast against the rows
  // aligns with the trailing axis (NumPy), which no kernel iteration space
  // describes; the eager form computes it.
  f32 sq = rng.normal<float>({5, 5}, 0.0, 1.0);
  auto SQ = hostd(sq);
  std::vector<double> sqr(5, 0.0);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j)
      sqr[i] += SQ[i * 5 + j];
  f32 misaligned = sq - kiln::sum(sq, -1);
  expect("x - sum(x, -1) on (5,5) (NumPy aligns trailing axes)", misaligned, 25,
         [&](auto i) { return C(SQ[i] - sqr[i % 5]); }, 1e-5);
  // keepdims and axes known only at run time.
  bool keep = rng.random<double>({1}).item() >= 0.0; // true, but not a constant
  kiln::axes ax(1);
  f32 k = kiln::sum(x, ax, keep);
  ++checks;
  if (!(k.shape() == kiln::shape{6, 1})) {
    ++failures;
    std::printf("FAIL run-time keepdims: shape %s\n", kiln::to_string(k.shape()).c_str());
  }
  expect("sum(x, ax, keep) values", k, 6, [&](auto i) { return C(rs[i]); }, 1e-5);
  // 0-d results mixed back in.
  f32 z = kiln::sum(x) * 2.0f - x.max();
  expect("sum(x)*2 - max(x) (0-d)", z, 1,
         [&](auto) { return C(2 * total - *std::max_element(X.begin(), X.end())); }, 1e-5);
  // isclose fused; allclose through it.
  f32 near = x * 1.0000001f; // within rtol of every element
  kiln::array<bool> close = kiln::isclose(x, near);
  expect("isclose", close, 54, [&](auto) { return C(1.0); }, 0);
  ++checks;
  if (!kiln::allclose(x, near) || kiln::allclose(x, x + 1.0f)) {
    ++failures;
    std::printf("FAIL allclose\n");
  }
}

void nan_and_empty_cases() {
  std::vector<float> v = {1.0f, std::nanf(""), 7.0f, std::nanf(""), -2.0f, 9.0f};
  f32 x = kiln::asarray<float>(std::span<const float>(v), {2, 3});
  expect("max with NaN", kiln::max(x, -1), 2, [&](auto) { return C(std::nan("")); }, 0);
  expect("argmax with NaN (first NaN)", kiln::argmax(x, -1), 2, [&](auto i) { return C(i == 0 ? 1.0 : 0.0); }, 0);
  expect("argmin with NaN (first NaN)", kiln::argmin(x, 1), 2, [&](auto i) { return C(i == 0 ? 1.0 : 0.0); }, 0);
  f32 e = kiln::zeros<float>({4, 0});
  expect("sum of an empty axis", kiln::sum(e, 1), 4, [&](auto) { return C(0.0); }, 0);
  expect("prod of an empty axis", kiln::prod(e, 1), 4, [&](auto) { return C(1.0); }, 0);
  expect("mean of an empty axis", kiln::mean(e, 1), 4, [&](auto) { return C(std::nan("")); }, 0);
  expect_error("max of an empty axis", "zero-size array to reduction operation maximum which has no identity",
               [&] { (void)kiln::max(e, 1); });
  expect_error("argmax of an empty axis", "attempt to get argmax of an empty sequence",
               [&] { (void)kiln::argmax(e, -1); });
  expect("max over the non-empty axis", kiln::max(e, 0), 0, [&](auto) { return C(0.0); }, 0);
  // Through a reference kilnc cannot see the rank (with it, these are
  // compile-time errors: test/lit/Diagnostics/reduction-axis.cpp).
  const f32 &any = x;
  expect_error("axis out of range", "axis 2 is out of bounds for array of dimension 2",
               [&] { (void)kiln::sum(any, 2); });
  expect_error("axis -3 out of range", "axis -3 is out of bounds for array of dimension 2",
               [&] { (void)kiln::mean(any, -3); });
  expect_error("duplicate axes", "duplicate value in 'axis'", [&] { (void)kiln::sum(any, {1, -1}); });
  kiln::axes two = {0, 1};
  expect_error("argmax over two axes", "argmax", [&] { (void)kiln::argmax(any, two); });
  f32 a = kiln::ones<float>({3, 4}), b = kiln::ones<float>({2, 4});
  expect_error("broadcast error inside a reduction", "could not be broadcast", [&] { (void)dot_rows(a, b); });
}

/// argmax/argmin along rows longer than the host's 128-element chunks (the
/// host scans a chunk again only when its extreme beats the row's so far):
/// NaNs mid-row, all -inf, all NaN, ties in different chunks, every chunk
/// better than the last, the extreme in the tail; fused with a map; int32
/// rows full of ties.
void arg_rows_case() {
  constexpr std::int64_t R = 6, N = 1031;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  auto rng = kiln::random::default_rng(21);
  std::vector<float> v = rng.random<float>({R, N}).to_vector();
  auto at = [&](std::int64_t i, std::int64_t j) -> float & { return v[i * N + j]; };
  at(0, 700) = nan;
  at(0, 900) = nan;
  for (std::int64_t j = 0; j < N; ++j) {
    at(1, j) = -inf;
    at(3, j) = float(j);
    at(5, j) = nan;
  }
  at(2, 300) = at(2, 100) = 5.0f;
  at(2, 1000) = at(2, 200) = -5.0f;
  at(4, 1030) = 9.0f;
  at(4, 1029) = -9.0f;
  f32 x = kiln::asarray<float>(std::span<const float>(v), {R, N});
  f32 y = rng.random<float>({R, N});
  host_nd<float> h = host_of(x);
  std::uint64_t rows = axes_mask({-1}, 2);
  expect_reduction("argmax of long rows", kiln::argmax(x, -1), h, rows, false, reduce_ref(h, rows, red::argmax), 0);
  expect_reduction("argmin of long rows", kiln::argmin(x, -1), h, rows, false, reduce_ref(h, rows, red::argmin), 0);
  f32 xy = x * 2.0f - y;
  host_nd<float> hxy = host_of(xy);
  expect_reduction("argmax(x * 2 - y) of long rows", kiln::argmax(x * 2.0f - y, -1), hxy, rows, false,
                   reduce_ref(hxy, rows, red::argmax), 0);
  kiln::array<std::int32_t> k = rng.integers<std::int32_t>(-3, 4, {R, N});
  host_nd<std::int32_t> hk = host_of(k);
  expect_reduction("argmax of int32 rows with ties", kiln::argmax(k, -1), hk, rows, false,
                   reduce_ref(hk, rows, red::argmax), 0);
  expect_reduction("argmin of int32 rows with ties", k.argmin(-1), hk, rows, false, reduce_ref(hk, rows, red::argmin),
                   0);
}

} // namespace

int main() {
  rows_case(1, 1, 1);
  rows_case(3, 31, 2);
  rows_case(37, 1029, 3);
  rows_case(64, 4096, 4);
  rows_case(5, 3000, 5);
  rows_case(2, 300007, 6); // split over blocks on a GPU
  // Long rows, more of them than an H100 has multiprocessors: a cluster of
  // 2 (80 KB rows) or 8 blocks (400 KB, odd: unaligned vectors) per row on
  // sm_90 (`_rrowsc`).
  rows_case(140, 20000, 7);
  rows_case(136, 100003, 8);
  columns_case(1, 33, 7);
  columns_case(257, 130, 8);
  columns_case(20011, 7, 9); // few columns: split on a GPU
  columns_case(300, 4100, 10); // host: a whole 4096-column tile and a partial one
  full_case(1, 10);
  full_case(1001, 11);
  full_case((1 << 20) + 7, 12); // split over blocks
  column_accuracy_case();
  accuracy_case();
  structure_cases();
  nan_and_empty_cases();
  arg_rows_case();
  return finish("reductions_fused");
}
