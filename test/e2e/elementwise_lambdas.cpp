// kiln::elementwise and kiln::elementwise_into with C++ lambdas, compiled by
// kilnc and run on the current device (host in CI, the GPU under
// scripts/device-check.sh), each against a double reference on random data:
// a generic lambda on three dtypes (CuPy's type placeholder), captures and
// control flow, broadcasting with scalars, views, <cmath> and std::max,
// bool and narrowing results, fused with array operations and a reduction
// (an L2 norm per row is one kernel), inside a KILN_FUSE function, and
// written into an existing array.
#include "e2e.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

using namespace e2e;

/// The squared difference of each row, fused with its reduction.
KILN_FUSE kiln::array<float> row_distance(const kiln::array<float> &x, const kiln::array<float> &y) {
  return kiln::sqrt(kiln::sum(kiln::elementwise([](float a, float b) { return (a - b) * (a - b); }, x, y), -1));
}

/// A generic lambda in a template: one kernel per instantiation.
template <class T> kiln::array<T> axpb(const kiln::array<T> &x, T a, T b) {
  return kiln::elementwise([](auto v, auto s, auto t) { return v * s + t; }, x, a, b);
}

int main() {
  const std::int64_t m = 37, n = 129; // odd sizes: vector tails and partial blocks
  auto rng = kiln::random::default_rng(11);
  kiln::array<float> x = rng.normal<float>({m, n}, 0.0, 2.0), y = rng.normal<float>({m, n}, 1.0, 1.0);
  kiln::array<double> xd = rng.normal<double>({m, n}, 0.0, 2.0), yd = rng.normal<double>({m, n}, 0.5, 1.0);
  kiln::array<std::int32_t> xi = rng.integers<std::int32_t>(-1000, 1000, {m, n});
  kiln::array<std::int32_t> yi = rng.integers<std::int32_t>(-1000, 1000, {m, n});
  const std::vector<float> hx = x.to_vector(), hy = y.to_vector();
  const std::vector<double> hxd = xd.to_vector(), hyd = yd.to_vector();
  const std::vector<std::int32_t> hxi = xi.to_vector(), hyi = yi.to_vector();
  const std::size_t count = static_cast<std::size_t>(m * n);

  // One generic lambda, three dtypes: one kernel each, result in the
  // lambda's C++ type.
  auto square_plus = [](auto a, auto b) { return a * a + b; };
  expect("generic float32", kiln::elementwise(square_plus, x, y), count,
         [&](std::size_t i) { return double(hx[i]) * hx[i] + hy[i]; }, 1e-6);
  expect("generic float64", kiln::elementwise(square_plus, xd, yd), count,
         [&](std::size_t i) { return hxd[i] * hxd[i] + hyd[i]; }, 1e-15);
  kiln::array<std::int32_t> gi = kiln::elementwise(square_plus, xi, yi);
  expect("generic int32", gi, count, [&](std::size_t i) { return double(hxi[i]) * hxi[i] + hyi[i]; }, 0);

  // std::trunc (math.trunc: LLVM's trunc on both backends), exact, -0.0 kept.
  expect("std::trunc float32", kiln::elementwise([](float v) { return std::trunc(v * 3.0f); }, x), count,
         [&](std::size_t i) { return double(std::trunc(hx[i] * 3.0f)); }, 0);
  kiln::array<double> td = kiln::elementwise([](double v) { return std::trunc(v) + std::copysign(1.0, v); }, xd);
  expect("std::trunc float64", td, count, [&](std::size_t i) { return std::trunc(hxd[i]) + std::copysign(1.0, hxd[i]); },
         0);

  // Captures (by value and by reference), locals, if/else, a loop with
  // break, early return, <cmath>.
  float lo = -1.5f;
  const int steps = 4;
  auto clipped = kiln::elementwise(
      [=, &lo](float v) {
        if (v < lo)
          return lo;
        float r = v;
        for (int k = 0; k < steps; ++k) {
          if (r > 100.0f)
            break;
          r = r * 0.5f + std::exp(-std::fabs(r));
        }
        return r;
      },
      x);
  expect("captures and control flow", clipped, count, [&](std::size_t i) {
    if (hx[i] < -1.5f) return -1.5;
    float r = hx[i];
    for (int k = 0; k < 4; ++k) {
      if (r > 100.0f) break;
      r = r * 0.5f + std::exp(-std::fabs(r));
    }
    return double(r);
  }, 1e-6);

  // An implicit capture ([=]) of a variable that is not a constant.
  float gain = static_cast<float>(m) / 10.0f;
  expect("implicit capture", kiln::elementwise([=](float v) { return v * gain; }, x), count,
         [&](std::size_t i) { return double(hx[i] * (37.0f / 10.0f)); }, 1e-6);

  // Broadcasting: a column (m, 1), a row (n,), an int scalar and a double scalar.
  kiln::array<double> col = rng.normal<double>({m, 1}, 0.0, 1.0);
  kiln::array<float> row = rng.normal<float>({n}, 0.0, 1.0);
  const std::vector<double> hcol = col.to_vector();
  const std::vector<float> hrow = row.to_vector();
  auto bc = kiln::elementwise([](double a, float b, int k, double s) { return a * s + b - k; }, col, row, 3, 0.25);
  expect("broadcast column x row x scalars", bc, count, [&](std::size_t i) {
    return hcol[i / n] * 0.25 + double(hrow[i % n]) - 3;
  }, 1e-12);

  // A transposed view and std::max / std::min helpers.
  kiln::array<float> xt = x.T();
  auto mx = kiln::elementwise([](float a, float b) { return std::max(a, 0.0f) + std::min(b, 1.0f); }, xt, y.T());
  expect("views and std::max", mx, count, [&](std::size_t k) {
    std::size_t j = k / m, i = k % m; // element (j, i) of the transpose is (i, j)
    return double(std::max(hx[i * n + j], 0.0f)) + std::min(hy[i * n + j], 1.0f);
  }, 1e-6);

  // bool and narrowing results; an int8 argument.
  kiln::array<bool> positive = kiln::elementwise([](float a, float b) { return a > b; }, x, y);
  expect("bool result", positive.astype<std::int32_t>(), count,
         [&](std::size_t i) { return hx[i] > hy[i] ? 1.0 : 0.0; }, 0);
  kiln::array<std::int8_t> small = rng.integers<std::int8_t>(-100, 100, {m, n});
  const std::vector<std::int8_t> hs = small.to_vector();
  kiln::array<std::uint8_t> magnitude =
      kiln::elementwise([](std::int8_t v) -> std::uint8_t { return v < 0 ? -v : v; }, small);
  expect("int8 to uint8", magnitude, count, [&](std::size_t i) { return std::abs(double(hs[i])); }, 0);

  // Fused with array operations around it, and with a reduction.
  auto mixed = kiln::exp(x * 0.1f) + kiln::elementwise(square_plus, x, y) * 2.0f;
  expect("fused with operations", mixed, count, [&](std::size_t i) {
    return std::exp(double(hx[i]) * 0.1) + 2.0 * (double(hx[i]) * hx[i] + hy[i]);
  }, 1e-5);
  auto dist = row_distance(x, y);
  expect("KILN_FUSE L2 distance per row", dist, m, [&](std::size_t i) {
    double s = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      double d = double(hx[i * n + j]) - hy[i * n + j];
      s += d * d;
    }
    return std::sqrt(s);
  }, 1e-5);
  auto norm = kiln::sqrt(kiln::sum(kiln::elementwise([](double v) { return v * v; }, xd)));
  expect("L2 norm of everything", norm, 1, [&](std::size_t) {
    double s = 0;
    for (double v : hxd) s += v * v;
    return std::sqrt(s);
  }, 1e-12);

  // A template: one kernel per instantiation.
  expect("template float", axpb<float>(x, 2.0f, -1.0f), count,
         [&](std::size_t i) { return double(hx[i]) * 2 - 1; }, 1e-6);
  expect("template double", axpb<double>(xd, -0.5, 3.0), count,
         [&](std::size_t i) { return hxd[i] * -0.5 + 3; }, 1e-15);

  // Into an existing array: float results converted to out's float64, and
  // into a view (every other column).
  kiln::array<double> out = kiln::zeros<double>({m, n});
  kiln::elementwise_into(out, [](float a, float b) { return a - b; }, x, y);
  expect("elementwise_into float64", out, count, [&](std::size_t i) { return double(hx[i] - hy[i]); }, 1e-12);
  kiln::array<float> half = kiln::zeros<float>({m, n});
  kiln::elementwise_into(half.slice({kiln::all, kiln::range(0, n, 2)}), [](float a) { return a + 1.0f; },
                         x.slice({kiln::all, kiln::range(0, n, 2)}));
  expect("elementwise_into a view", half, count, [&](std::size_t i) {
    return (i % n) % 2 == 0 ? double(hx[i] + 1.0f) : 0.0;
  }, 1e-6);

  return finish("elementwise_lambdas");
}
