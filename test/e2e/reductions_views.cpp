// Reductions of transposed, reversed and stepped views, compiled by kilnc,
// against double references on random data (issue 24's campaign): float32
// sums stay accurate in every layout (pairwise, as NumPy sums, never one
// long running sum), the reduced and kept dimensions walk memory forwards in
// its own order (except argmax/argmin's index, which counts in NumPy's
// order), and a result follows its input's memory order as NumPy's order
// 'K' does.
#include "e2e.hpp"

using namespace e2e;
using C = std::complex<double>;
using f32 = kiln::array<float>;
using i64 = kiln::array<std::int64_t>;

namespace {

auto all = kiln::all;
kiln::range rev(std::nullopt, std::nullopt, -1), step2(std::nullopt, std::nullopt, 2);

} // namespace

KILN_FUSE f32 sum_t(const f32 &x) { return kiln::sum(x.T()); }
KILN_FUSE f32 sum_rev(const f32 &x) { return kiln::sum(x.slice({rev})); }
KILN_FUSE f32 sum_step(const f32 &x) { return kiln::sum(x.slice({all, step2})); }
KILN_FUSE f32 sum_step_rows(const f32 &x) { return kiln::sum(x.slice({all, step2}), -1); }
// Reduced dimensions that never merge: the general layout, split.
KILN_FUSE f32 sum_step2d(const f32 &x) { return kiln::sum(x.slice({step2, step2})); }
KILN_FUSE f32 center_step2d(const f32 &x) {
  auto v = x.slice({step2, step2});
  return v - kiln::mean(v);
}
KILN_FUSE f32 mean_t0(const f32 &x) { return kiln::mean(x.T(), 0); }
KILN_FUSE f32 sum_flip_cols(const f32 &x) { return kiln::sum(x.slice({rev, rev}), 0); }
KILN_FUSE f32 center_t(const f32 &x) { return x.T() - kiln::max(x.T(), -1, true); }
KILN_FUSE f32 max_t3(const f32 &c) { return kiln::max(c.transpose({2, 0, 1}), 0); }
// Several levels over a stepped view (on sm_90, long rows go to a cluster
// of blocks that keeps them in shared memory).
KILN_FUSE f32 softmax_step(const f32 &x) {
  auto v = x.slice({all, step2});
  auto m = kiln::max(v, -1, true);
  auto e = kiln::exp(v - m);
  return e / kiln::sum(e, -1, true);
}
// A kept-shaped result kilnc computes in the full space (b's rank is not
// known at compile time): written once per kept element.
KILN_FUSE f32 kept_in_disguise(const f32 &x, const f32 &b) {
  auto t0 = kiln::log(x.T());
  auto t1 = kiln::min(x.T(), 0);
  return kiln::sum(t0, 0) + t1 + b;
}
KILN_FUSE i64 argmax_rev(const f32 &x) { return kiln::argmax(x.slice({rev})); }
KILN_FUSE i64 argmax_t(const f32 &x) { return kiln::argmax(x.T()); }
KILN_FUSE i64 argmax_rev0(const f32 &x) { return kiln::argmax(x.slice({rev}), 0); }
KILN_FUSE kiln::array<std::uint8_t> max_clip_t(const kiln::array<std::uint8_t> &x) {
  return kiln::max(kiln::clip(x.T(), std::uint8_t(1), std::uint8_t(5)), 0);
}

int main() {
  constexpr std::int64_t R = 2048, N = 4096; // 8 Mi elements: long enough that a running float sum drifts
  auto rng = kiln::random::default_rng(24);
  f32 x = rng.random<float>({R, N}) + 1.0f; // [1, 2)
  std::vector<float> h = x.to_vector();
  auto at = [&](std::int64_t i, std::int64_t j) { return double(h[i * N + j]); };

  double total = 0, stepped = 0, stepped2d = 0;
  std::vector<double> stepRows(R, 0.0), colSums(N, 0.0);
  for (std::int64_t i = 0; i < R; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      total += at(i, j);
      colSums[j] += at(i, j);
      if (j % 2 == 0 && i % 2 == 0)
        stepped2d += at(i, j);
      if (j % 2 == 0) {
        stepped += at(i, j);
        stepRows[i] += at(i, j);
      }
    }
  // float32 sums, relative: pairwise keeps ~1e-7; a running sum of 8 Mi
  // values in [1, 2) is off by ~1e-3 (and by 1/3 for a constant 1.5).
  const double tol = 1e-5;
  expect("sum(x.T())", sum_t(x), 1, [&](auto) { return C(total); }, tol);
  expect("sum(x[::-1])", sum_rev(x), 1, [&](auto) { return C(total); }, tol);
  expect("sum(x[:, ::2])", sum_step(x), 1, [&](auto) { return C(stepped); }, tol);
  expect("sum(x[::2, ::2])", sum_step2d(x), 1, [&](auto) { return C(stepped2d); }, tol);
  {
    const double mu = stepped2d / double(R / 2 * (N / 2));
    expect("v - mean(v), v = x[::2, ::2]", center_step2d(x), R / 2 * (N / 2), [&](auto k) {
      return C(at(2 * (std::int64_t(k) / (N / 2)), 2 * (std::int64_t(k) % (N / 2))) - mu);
    }, 1e-6);
  }
  expect("sum(x[::2, ::2]) of a (0, 6) array", sum_step2d(kiln::zeros<float>({0, 6})), 1, [&](auto) { return C(0.0); }, 0);
  expect("sum(x[:, ::2], -1)", sum_step_rows(x), R, [&](auto i) { return C(stepRows[i]); }, tol);
  expect("mean(x.T(), 0)", mean_t0(x), R, [&](auto i) {
    double s = 0;
    for (std::int64_t j = 0; j < N; ++j)
      s += at(std::int64_t(i), j);
    return C(s / N);
  }, tol);
  expect("sum(x[::-1, ::-1], 0)", sum_flip_cols(x), N, [&](auto j) { return C(colSums[N - 1 - j]); }, tol);
  f32 ones = kiln::full<float>({R, N}, 1.5f);
  expect("sum(x.T()) of 1.5s", sum_t(ones), 1, [&](auto) { return C(1.5 * R * N); }, tol);
  expect("sum(x[:, ::2]) of 1.5s", sum_step(ones), 1, [&](auto) { return C(1.5 * R * N / 2); }, tol);

  {
    constexpr std::int64_t SR = 140, SN = 40001; // 20001 elements a row, odd
    f32 w = rng.normal<float>({SR, SN});
    std::vector<float> hw = w.to_vector();
    std::vector<double> want(SR * ((SN + 1) / 2));
    const std::int64_t M = (SN + 1) / 2;
    for (std::int64_t i = 0; i < SR; ++i) {
      double mx = -1e300, se = 0;
      for (std::int64_t j = 0; j < M; ++j)
        mx = std::max(mx, double(hw[i * SN + 2 * j]));
      for (std::int64_t j = 0; j < M; ++j)
        se += std::exp(double(hw[i * SN + 2 * j]) - mx);
      for (std::int64_t j = 0; j < M; ++j)
        want[i * M + j] = std::exp(double(hw[i * SN + 2 * j]) - mx) / se;
    }
    expect("softmax(x[:, ::2])", softmax_step(w), SR * M, [&](auto k) { return C(want[k]); }, 1e-5);
  }

  for (auto [r, n] : {std::pair<std::int64_t, std::int64_t>{2048, 4096}, {300007, 3}}) { // rows; rows split over chunks
    f32 y = rng.random<float>({n, r}) + 1.0f, b = rng.normal<float>({n});
    std::vector<float> hy = y.to_vector(), hb = b.to_vector();
    std::string what = "sum(log(y.T()), 0) + min(y.T(), 0) + b, y (" + std::to_string(n) + ", " + std::to_string(r) + ")";
    expect(what, kept_in_disguise(y, b), n, [&](auto i) {
      double s = 0, m = 1e300;
      for (std::int64_t j = 0; j < r; ++j) {
        s += std::log(double(hy[i * r + j]));
        m = std::min(m, double(hy[i * r + j]));
      }
      return C(s + m + hb[i]);
    }, 1e-5);
  }

  // A full-space result of a transposed input: NumPy's order 'K' (the
  // input's memory order), the values of the logical (N, R) array.
  std::vector<double> rowMax(N, -1e300);
  for (std::int64_t i = 0; i < R; ++i)
    for (std::int64_t j = 0; j < N; ++j)
      rowMax[j] = std::max(rowMax[j], at(i, j));
  f32 centered = center_t(x);
  expect("x.T() - max(x.T(), -1, true)", centered, N * R,
         [&](auto k) { return C(at(std::int64_t(k) % R, std::int64_t(k) / R) - rowMax[k / R]); }, 0);
  ++checks;
  if (centered.shape() != kiln::shape{N, R} || centered.strides() != kiln::shape{1, N}) {
    ++failures;
    std::printf("FAIL x.T() - max(...): strides (%lld, %lld), NumPy's order K gives (1, %lld)\n",
                (long long)centered.strides()[0], (long long)centered.strides()[1], (long long)N);
  }

  // max over the first axis of a transposed 3-d view: the kept axes in the
  // input's memory order (one contiguous kept dimension).
  constexpr std::int64_t A = 24, B = 40, D = 56;
  f32 cube = rng.normal<float>({A, B, D});
  std::vector<float> hc = cube.to_vector();
  expect("max(c.transpose({2,0,1}), 0)", max_t3(cube), A * B, [&](auto k) {
    double m = -1e300;
    for (std::int64_t d = 0; d < D; ++d)
      m = std::max(m, double(hc[k * D + d]));
    return C(m);
  }, 0);

  kiln::array<std::uint8_t> u = rng.integers<std::uint8_t>(0, 9, {300, 200});
  std::vector<std::uint8_t> hu = u.to_vector();
  expect("max(clip(u.T(), 1, 5), 0) uint8", max_clip_t(u), 300, [&](auto i) {
    int m = 0;
    for (std::int64_t j = 0; j < 200; ++j)
      m = std::max(m, std::clamp(int(hu[i * 200 + j]), 1, 5));
    return C(m);
  }, 0);

  // argmax counts in NumPy's order whatever the memory order: ties (a
  // constant array) give the first index of the view, not of memory.
  f32 small = rng.normal<float>({33, 65});
  std::vector<float> hs = small.to_vector();
  auto flatMax = [&](auto idx) { // first index of the maximum in view order
    std::int64_t best = 0;
    for (std::int64_t k = 1; k < 33 * 65; ++k)
      if (hs[idx(k)] > hs[idx(best)])
        best = k;
    return best;
  };
  expect("argmax(x[::-1])", argmax_rev(small), 1,
         [&](auto) { return C(double(flatMax([](std::int64_t k) { return (32 - k / 65) * 65 + k % 65; }))); }, 0);
  expect("argmax(x.T())", argmax_t(small), 1,
         [&](auto) { return C(double(flatMax([](std::int64_t k) { return (k % 33) * 65 + k / 33; }))); }, 0);
  f32 level = kiln::full<float>({33, 65}, 2.0f);
  expect("argmax(x[::-1]) of ties", argmax_rev(level), 1, [&](auto) { return C(0.0); }, 0);
  expect("argmax(x.T()) of ties", argmax_t(level), 1, [&](auto) { return C(0.0); }, 0);
  expect("argmax(x[::-1], 0)", argmax_rev0(small), 65, [&](auto j) {
    std::int64_t best = 0;
    for (std::int64_t i = 1; i < 33; ++i)
      if (hs[(32 - i) * 65 + j] > hs[(32 - best) * 65 + j])
        best = i;
    return C(double(best));
  }, 0);
  return finish("reductions_views");
}
