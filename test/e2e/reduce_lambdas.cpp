// kiln::reduce (CuPy's ReductionKernel) with lambdas, compiled by kilnc and
// run on the current device (host in CI, the GPU under
// scripts/device-check.sh), each against a double reference on random data:
// the tutorials' L2 norm of each row, a maximum through a custom combine,
// keepdims and several axes, a bool accumulator, a count whose map captures a
// threshold, a product over every axis, an operand that is itself an array
// expression (fused into the reduction), and a KILN_FUSE function that
// normalizes rows by their norm.
#include "e2e.hpp"
#include "reduce_ref.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

using namespace e2e;

/// Each row divided by its L2 norm (kiln::reduce fused with its consumer).
KILN_FUSE kiln::array<float> normalize_rows(const kiln::array<float> &x) {
  auto norm = kiln::reduce(x, [](float v) { return v * v; }, [](float a, float b) { return a + b; }, 0.0f,
                           [](float s) { return std::sqrt(s); }, -1, true);
  return x / norm;
}

int main() {
  const std::int64_t m = 37, n = 129, k = 5;
  auto rng = kiln::random::default_rng(21);
  kiln::array<float> x = rng.normal<float>({m, n}, 0.0, 2.0), y = rng.normal<float>({m, n}, 0.5, 1.0);
  kiln::array<double> t = rng.normal<double>({k, m, 3}, 0.0, 1.0);
  kiln::array<std::int32_t> ints = rng.integers<std::int32_t>(-100000, 100000, {m, n});
  const std::vector<float> hx = x.to_vector(), hy = y.to_vector();
  const std::vector<double> ht = t.to_vector();
  const std::vector<std::int32_t> hi = ints.to_vector();
  auto X = [&](std::int64_t i, std::int64_t j) { return double(hx[i * n + j]); };

  // The L2 norm of each row (the tutorial's ReductionKernel).
  auto l2 = kiln::reduce(x, [](float v) { return v * v; }, [](float a, float b) { return a + b; }, 0.0f,
                         [](float s) { return std::sqrt(s); }, -1);
  expect("L2 norm of each row", l2, m, [&](std::size_t i) {
    double s = 0;
    for (std::int64_t j = 0; j < n; ++j) s += X(i, j) * X(i, j);
    return std::sqrt(s);
  }, 1e-5);

  // A maximum of |v| per column through combine, ints, identity INT_MIN.
  auto colmax = kiln::reduce(ints, [](std::int32_t v) { return v < 0 ? -v : v; },
                             [](std::int32_t a, std::int32_t b) { return a > b ? a : b; },
                             std::numeric_limits<std::int32_t>::min(), [](std::int32_t v) { return v; }, 0);
  expect("max |v| of each column (int32)", colmax, n, [&](std::size_t j) {
    int best = std::numeric_limits<int>::min();
    for (std::int64_t i = 0; i < m; ++i) best = std::max(best, std::abs(hi[i * n + j]));
    return double(best);
  }, 0);

  // Several axes with keepdims, double: sum of squares over axes {0, 2}.
  auto ss = kiln::reduce(t, [](double v) { return v * v; }, [](double a, double b) { return a + b; }, 0.0,
                         [](double s) { return s; }, {0, 2}, true);
  expect("sum of squares over axes {0, 2}, keepdims", ss, m, [&](std::size_t j) {
    double s = 0;
    for (std::int64_t a = 0; a < k; ++a)
      for (std::int64_t c = 0; c < 3; ++c) s += ht[(a * m + j) * 3 + c] * ht[(a * m + j) * 3 + c];
    return s;
  }, 1e-12);
  ++checks;
  if (ss.shape() != kiln::shape{1, m, 1}) {
    std::printf("FAIL keepdims shape %s, expected (1, %lld, 1)\n", kiln::to_string(ss.shape()).c_str(),
                static_cast<long long>(m));
    ++failures;
  }

  // A bool accumulator: does any element of a row exceed a captured bound?
  float bound = 5.0f;
  auto over = kiln::reduce(x, [=](float v) { return v > bound; }, [](bool a, bool b) { return a || b; }, false,
                           [](bool b) { return b; }, -1);
  expect("any v > bound per row (bool)", over.astype<std::int32_t>(), m, [&](std::size_t i) {
    bool any = false;
    for (std::int64_t j = 0; j < n; ++j) any = any || X(i, j) > 5.0;
    return any ? 1.0 : 0.0;
  }, 0);

  // A count as int64, post converting to a fraction (post's type is the
  // output's).
  auto frac = kiln::reduce(x, [](float v) -> std::int64_t { return v > 0.0f; },
                           [](std::int64_t a, std::int64_t b) { return a + b; }, 0,
                           [=](std::int64_t c) { return double(c) / n; }, -1);
  expect("fraction of positives per row", frac, m, [&](std::size_t i) {
    int c = 0;
    for (std::int64_t j = 0; j < n; ++j) c += X(i, j) > 0;
    return double(c) / n;
  }, 1e-15);

  // An operand that is an array expression (fused into the reduction) and a
  // product over every axis of a small slice.
  auto dist = kiln::reduce(x - y, [](float d) { return d * d; }, [](float a, float b) { return a + b; }, 0.0f,
                           [](float s) { return std::sqrt(s); }, -1);
  expect("distance of rows of x and y", dist, m, [&](std::size_t i) {
    double s = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      double d = X(i, j) - hy[i * n + j];
      s += d * d;
    }
    return std::sqrt(s);
  }, 1e-5);
  kiln::array<double> small = rng.random<double>({4, 6}) + 0.5;
  const std::vector<double> hs = small.to_vector();
  auto product = kiln::reduce(small, [](double v) { return v; }, [](double a, double b) { return a * b; }, 1.0,
                              [](double p) { return p; });
  expect("product over every axis", product, 1, [&](std::size_t) {
    double p = 1;
    for (double v : hs) p *= v;
    return p;
  }, 1e-13);

  // Rows normalized by their norm, in one KILN_FUSE function.
  auto unit = normalize_rows(x);
  expect("rows over their norm (KILN_FUSE)", unit, m * n, [&](std::size_t e) {
    std::size_t i = e / n;
    double s = 0;
    for (std::int64_t j = 0; j < n; ++j) s += X(i, j) * X(i, j);
    return double(hx[e]) / std::sqrt(s);
  }, 1e-5);


  // Every axis of ranks 1-4, non-negative and negative, as constants (checked
  // against the operand's rank at compile time, issue 24), against a sum of
  // squares computed by reduce_ref.
  {
    kiln::array<double> r1 = rng.normal<double>({7}, 0.0, 1.0), r2 = rng.normal<double>({4, 6}, 0.0, 1.0);
    kiln::array<double> r3 = rng.normal<double>({3, 4, 5}, 0.0, 1.0), r4 = rng.normal<double>({2, 3, 4, 5}, 0.0, 1.0);
    auto sq = [](double v) { return v * v; };
    auto add = [](double a, double b) { return a + b; };
    auto id = [](double s) { return s; };
    auto check_axis = [&](const char *what, const kiln::array<double> &got, const kiln::array<double> &x, int axis) {
      auto h = host_of(x);
      for (auto &v : h.v) v *= v;
      const int rank = int(h.shape.size());
      const auto want = reduce_ref(h, std::uint64_t(1) << ((axis + rank) % rank), red::sum);
      expect(what, got, want.size(), [&](std::size_t i) { return want[i]; }, 1e-12);
    };
    check_axis("kiln::reduce rank 1 axis 0", kiln::reduce(r1, sq, add, 0.0, id, 0), r1, 0);
    check_axis("kiln::reduce rank 1 axis -1", kiln::reduce(r1, sq, add, 0.0, id, -1), r1, -1);
    check_axis("kiln::reduce rank 2 axis 0", kiln::reduce(r2, sq, add, 0.0, id, 0), r2, 0);
    check_axis("kiln::reduce rank 2 axis 1", kiln::reduce(r2, sq, add, 0.0, id, 1), r2, 1);
    check_axis("kiln::reduce rank 2 axis -2", kiln::reduce(r2, sq, add, 0.0, id, -2), r2, -2);
    check_axis("kiln::reduce rank 2 axis -1", kiln::reduce(r2, sq, add, 0.0, id, -1), r2, -1);
    check_axis("kiln::reduce rank 3 axis 0", kiln::reduce(r3, sq, add, 0.0, id, 0), r3, 0);
    check_axis("kiln::reduce rank 3 axis 1", kiln::reduce(r3, sq, add, 0.0, id, 1), r3, 1);
    check_axis("kiln::reduce rank 3 axis 2", kiln::reduce(r3, sq, add, 0.0, id, 2), r3, 2);
    check_axis("kiln::reduce rank 3 axis -3", kiln::reduce(r3, sq, add, 0.0, id, -3), r3, -3);
    check_axis("kiln::reduce rank 3 axis -2", kiln::reduce(r3, sq, add, 0.0, id, -2), r3, -2);
    check_axis("kiln::reduce rank 3 axis -1", kiln::reduce(r3, sq, add, 0.0, id, -1), r3, -1);
    check_axis("kiln::reduce rank 4 axis 0", kiln::reduce(r4, sq, add, 0.0, id, 0), r4, 0);
    check_axis("kiln::reduce rank 4 axis 1", kiln::reduce(r4, sq, add, 0.0, id, 1), r4, 1);
    check_axis("kiln::reduce rank 4 axis 2", kiln::reduce(r4, sq, add, 0.0, id, 2), r4, 2);
    check_axis("kiln::reduce rank 4 axis 3", kiln::reduce(r4, sq, add, 0.0, id, 3), r4, 3);
    check_axis("kiln::reduce rank 4 axis -4", kiln::reduce(r4, sq, add, 0.0, id, -4), r4, -4);
    check_axis("kiln::reduce rank 4 axis -3", kiln::reduce(r4, sq, add, 0.0, id, -3), r4, -3);
    check_axis("kiln::reduce rank 4 axis -2", kiln::reduce(r4, sq, add, 0.0, id, -2), r4, -2);
    check_axis("kiln::reduce rank 4 axis -1", kiln::reduce(r4, sq, add, 0.0, id, -1), r4, -1);
  }
  return finish("reduce_lambdas");
}
