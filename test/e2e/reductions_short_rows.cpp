// Reductions along short rows (3 to 1024 elements) and down narrow columns
// (inner dimensions of 1 to 100 elements), compiled by kilnc, against
// double references on random data: on a GPU such rows take fewer lanes
// than a warp (1 to 32 a row), and such columns fewer threads across a tile
// (the runtime's choice), so these check every lane width, the groups past
// the last row (their warp still shuffles), one- and two-level programs,
// Welford moments, kept and full-space outputs, split columns, aligned and
// unaligned rows and every dtype width.
#include "e2e.hpp"

#include <cmath>
#include <tuple>

using namespace e2e;
using C = std::complex<double>;
using f32 = kiln::array<float>;
using f64 = kiln::array<double>;

KILN_FUSE f32 var_std(const f32 &x) { return kiln::var(x, -1) + kiln::std(x, -1); }
KILN_FUSE f32 log_softmax(const f32 &x) {
  auto m = kiln::max(x, -1, true);
  auto s = x - m;
  return s - kiln::log(kiln::sum(kiln::exp(s), -1, true));
}
KILN_FUSE f64 mean_i64(const kiln::array<std::int64_t> &x) { return kiln::mean(x, -1); }
KILN_FUSE kiln::array<std::int8_t> max_i8(const kiln::array<std::int8_t> &x) { return kiln::max(x, -1); }
KILN_FUSE kiln::array<std::complex<float>> sum_c64(const kiln::array<std::complex<float>> &x) {
  return kiln::sum(x, -1);
}

KILN_FUSE f32 var_mean0(const f32 &x) { return kiln::var(x, 0) - kiln::mean(x, 0); }
KILN_FUSE f32 rms_norm1(const f32 &x) { return x * (1.0f / kiln::sqrt(kiln::mean(x * x, 1, true) + 1e-6f)); }
KILN_FUSE f32 logsumexp0(const f32 &x) {
  auto m = kiln::max(x, 0, true);
  return kiln::log(kiln::sum(kiln::exp(x - m), 0)) + kiln::max(x, 0);
}

// The general layout (reduced elements not contiguous): short stepped
// rows, columns of a stepped view (a thread a column), short rows of a
// transposed view.
KILN_FUSE f64 var_step_rows(const kiln::array<std::int64_t> &x) {
  return kiln::var(x.slice({kiln::all, kiln::all, kiln::range(std::nullopt, std::nullopt, 2)}), -1);
}
KILN_FUSE f32 min_step_cols(const f32 &x) {
  return kiln::min(x.slice({kiln::all, kiln::range(std::nullopt, std::nullopt, 2)}), 0) +
         kiln::mean(x.slice({kiln::all, kiln::range(std::nullopt, std::nullopt, 2)}), 0);
}
KILN_FUSE f32 lse_t(const f32 &x) {
  auto m = kiln::max(x.T(), -1, true);
  return kiln::log(kiln::sum(kiln::exp(x.T() - m), -1)) + kiln::max(x.T(), -1);
}
KILN_FUSE f64 max_mixed(const kiln::array<std::int8_t> &a, const f64 &b) { return kiln::max(a * b.T(), -1); }

namespace {

/// Rows of `n` doubles from `h` (row-major, `cols` a row).
template <class T> double at(const std::vector<T> &h, std::int64_t cols, std::int64_t i, std::int64_t j) {
  return double(h[i * cols + j]);
}

} // namespace

int main() {
  auto rng = kiln::random::default_rng(2411);
  // Row lengths around every lane width's switch (items a lane ~4), and
  // row counts that leave a block's last groups past the end.
  for (std::int64_t n : {1, 2, 3, 4, 5, 7, 8, 9, 14, 16, 17, 31, 32, 33, 63, 64, 100, 127, 128, 255, 256, 513, 1024}) {
    const std::int64_t rows = 1003 + 7 * n;
    f32 x = rng.normal<float>({rows, n});
    std::vector<float> h = x.to_vector();
    const std::string shape = " of (" + std::to_string(rows) + ", " + std::to_string(n) + ")";
    std::vector<double> mean(rows, 0.0), var(rows, 0.0), mx(rows, -1e300), lse(rows, 0.0);
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        mean[i] += at(h, n, i, j) / double(n);
        mx[i] = std::max(mx[i], at(h, n, i, j));
      }
      for (std::int64_t j = 0; j < n; ++j) {
        var[i] += (at(h, n, i, j) - mean[i]) * (at(h, n, i, j) - mean[i]) / double(n);
        lse[i] += std::exp(at(h, n, i, j) - mx[i]);
      }
    }
    expect("var(x, -1) + std(x, -1)" + shape, var_std(x), rows,
           [&](auto i) { return C(var[i] + std::sqrt(var[i])); }, 2e-5);
    expect("log_softmax(x)" + shape, log_softmax(x), rows * n, [&](auto k) {
      const std::int64_t i = std::int64_t(k) / n;
      return C(double(h[k]) - mx[i] - std::log(lse[i]));
    }, 2e-5);
  }
  for (std::int64_t n : {3, 6, 14, 40}) {
    const std::int64_t rows = 4099;
    kiln::array<std::int64_t> a = rng.integers<std::int64_t>(-1000000, 1000000, {rows, n});
    kiln::array<std::int8_t> b = rng.integers<std::int8_t>(-120, 120, {rows, n});
    kiln::array<std::complex<float>> c =
        (rng.normal<float>({rows, n}) + kiln::full<std::complex<float>>({rows, n}, {0.f, 1.f}) * rng.normal<float>({rows, n}));
    std::vector<std::int64_t> ha = a.to_vector();
    std::vector<std::int8_t> hb = b.to_vector();
    std::vector<std::complex<float>> hc = c.to_vector();
    const std::string shape = " of (" + std::to_string(rows) + ", " + std::to_string(n) + ")";
    expect("mean(int64, -1)" + shape, mean_i64(a), rows, [&](auto i) {
      double s = 0;
      for (std::int64_t j = 0; j < n; ++j)
        s += at(ha, n, std::int64_t(i), j);
      return C(s / double(n));
    }, 1e-12);
    expect("max(int8, -1)" + shape, max_i8(b), rows, [&](auto i) {
      double m = -1e300;
      for (std::int64_t j = 0; j < n; ++j)
        m = std::max(m, at(hb, n, std::int64_t(i), j));
      return C(m);
    }, 0);
    expect("sum(complex64, -1)" + shape, sum_c64(c), rows, [&](auto i) {
      C s = 0;
      for (std::int64_t j = 0; j < n; ++j)
        s += C(hc[std::int64_t(i) * n + j]);
      return s;
    }, 1e-5);
  }
  // Narrow columns: reductions over axis 0 (kept rows of n elements), split
  // where the columns are few and long, and over the middle axis.
  for (std::int64_t n : {1, 2, 3, 5, 7, 8, 9, 16, 33, 64, 100}) {
    for (std::int64_t rows : {std::int64_t(517), std::int64_t(200003)}) {
      f32 x = rng.normal<float>({rows, n});
      std::vector<float> h = x.to_vector();
      const std::string shape = " of (" + std::to_string(rows) + ", " + std::to_string(n) + ")";
      std::vector<double> mean(n, 0.0), var(n, 0.0), mx(n, -1e300), se(n, 0.0);
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          mean[j] += at(h, n, i, j) / double(rows);
          mx[j] = std::max(mx[j], at(h, n, i, j));
        }
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          var[j] += (at(h, n, i, j) - mean[j]) * (at(h, n, i, j) - mean[j]) / double(rows);
          se[j] += std::exp(at(h, n, i, j) - mx[j]);
        }
      expect("var(x, 0) - mean(x, 0)" + shape, var_mean0(x), n, [&](auto j) { return C(var[j] - mean[j]); }, 2e-5);
      expect("logsumexp(x, 0)" + shape, logsumexp0(x), n, [&](auto j) { return C(mx[j] + std::log(se[j])); }, 2e-5);
    }
  }
  // (301, 57, n): narrow column tiles; (1500, 8, 128) and (700, 61, 20):
  // short columns, a GPU thread each.
  for (auto [outer, mid, inner] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{301, 57, 1}, {301, 57, 3},
                                   {301, 57, 7}, {301, 57, 12}, {301, 57, 40}, {1500, 8, 128}, {700, 61, 20}}) {
    f32 x = rng.normal<float>({outer, mid, inner});
    std::vector<float> h = x.to_vector();
    std::vector<double> ms(outer * inner, 0.0);
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t m = 0; m < mid; ++m)
        for (std::int64_t i = 0; i < inner; ++i) {
          const double v = h[(o * mid + m) * inner + i];
          ms[o * inner + i] += v * v / double(mid);
        }
    expect("rms_norm over axis 1 of (" + std::to_string(outer) + ", " + std::to_string(mid) + ", " +
               std::to_string(inner) + ")",
           rms_norm1(x), outer * mid * inner,
           [&](auto k) {
             const std::int64_t o = std::int64_t(k) / (mid * inner), i = std::int64_t(k) % inner;
             return C(double(h[k]) / std::sqrt(ms[o * inner + i] + 1e-6));
           }, 2e-5);
  }
  // General layouts.
  for (std::int64_t n : {3, 7, 14, 40}) {
    const std::int64_t d0 = 1001, d1 = 8;
    kiln::array<std::int64_t> a = rng.integers<std::int64_t>(-1000, 1000, {d0, d1, n});
    std::vector<std::int64_t> ha = a.to_vector();
    const std::int64_t m = (n + 1) / 2;
    expect("var(x[:, :, ::2], -1) of (1001, 8, " + std::to_string(n) + ")", var_step_rows(a), d0 * d1, [&](auto k) {
      double mean = 0, var = 0;
      for (std::int64_t j = 0; j < m; ++j)
        mean += double(ha[k * n + 2 * j]) / double(m);
      for (std::int64_t j = 0; j < m; ++j)
        var += (double(ha[k * n + 2 * j]) - mean) * (double(ha[k * n + 2 * j]) - mean) / double(m);
      return C(var);
    }, 1e-12);
  }
  for (std::int64_t rows : {1, 17, 1751}) {
    const std::int64_t cols = 2 * 1033;
    f32 x = rng.normal<float>({rows, cols});
    std::vector<float> h = x.to_vector();
    expect("min(x[:, ::2], 0) + mean(x[:, ::2], 0) of (" + std::to_string(rows) + ", 2066)", min_step_cols(x), cols / 2,
           [&](auto j) {
             double mn = 1e300, mean = 0;
             for (std::int64_t i = 0; i < rows; ++i) {
               mn = std::min(mn, at(h, cols, i, 2 * std::int64_t(j)));
               mean += at(h, cols, i, 2 * std::int64_t(j)) / double(rows);
             }
             return C(mn + mean);
           }, 2e-5);
  }
  for (std::int64_t n : {1, 3, 5, 33}) {
    const std::int64_t len = 100003;
    f32 x = rng.normal<float>({n, len}); // x.T(): (len, n), its rows len elements apart in memory
    std::vector<float> h = x.to_vector();
    expect("logsumexp(x.T(), -1) of x (" + std::to_string(n) + ", 100003)", lse_t(x), len, [&](auto i) {
      double mx = -1e300, se = 0;
      for (std::int64_t j = 0; j < n; ++j)
        mx = std::max(mx, at(h, len, j, std::int64_t(i)));
      for (std::int64_t j = 0; j < n; ++j)
        se += std::exp(at(h, len, j, std::int64_t(i)) - mx);
      return C(mx + std::log(se));
    }, 2e-5);
  }
  {
    const std::int64_t d0 = 5003, d1 = 16, n = 7;
    kiln::array<std::int8_t> a = rng.integers<std::int8_t>(-100, 100, {d0, d1, n});
    f64 b = rng.normal<double>({n, d1, d0});
    std::vector<std::int8_t> ha = a.to_vector();
    std::vector<double> hb = b.to_vector();
    expect("max(a * b.T(), -1) of (5003, 16, 7)", max_mixed(a, b), d0 * d1, [&](auto k) {
      const std::int64_t i = std::int64_t(k) / d1, j = std::int64_t(k) % d1;
      double mx = -1e300;
      for (std::int64_t l = 0; l < n; ++l)
        mx = std::max(mx, double(ha[k * n + l]) * hb[(l * d1 + j) * d0 + i]);
      return C(mx);
    }, 1e-12);
  }
  return finish("reductions_short_rows");
}
