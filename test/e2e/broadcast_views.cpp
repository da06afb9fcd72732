// Operands that are views and broadcasts: rows, columns, 0-d arrays,
// transposes, steps and negative steps, higher ranks that do not coalesce.
// The kernel must read each element where the strides say.
#include "e2e.hpp"

using namespace e2e;
using C = std::complex<double>;

int main() {
  auto rng = kiln::random::default_rng(41);
  const std::int64_t r = 37, c = 53;
  kiln::array<float> m = rng.random<float>({r, c});
  kiln::array<float> row = rng.random<float>({c});
  kiln::array<float> col = rng.random<float>({r, 1});
  kiln::array<float> zero_d = kiln::full<float>({}, 1.5f);
  std::vector<float> hm = m.to_vector(), hrow = row.to_vector(), hcol = col.to_vector();
  auto M = [&](std::int64_t i, std::int64_t j) { return double(hm[i * c + j]); };

  expect("matrix + row", m + row, r * c, [&](auto k) { return C(M(k / c, k % c) + hrow[k % c]); }, 1e-6);
  expect("matrix * column - 0-d", m * col - zero_d, r * c,
         [&](auto k) { return C(M(k / c, k % c) * hcol[k / c] - 1.5); }, 1e-6);
  expect("column + row (outer)", col + row, r * c, [&](auto k) { return C(double(hcol[k / c]) + hrow[k % c]); }, 1e-6);

  // 64 columns: whole vectors per row, so the `_rows` variant runs (a bias add).
  kiln::array<float> w = rng.random<float>({r, 64}), bias = rng.random<float>({64});
  std::vector<float> hw = w.to_vector(), hbias = bias.to_vector();
  expect("matrix + row (rows variant)", w * 2.0f + bias, r * 64,
         [&](auto k) { return C(2.0 * hw[k] + hbias[k % 64]); }, 1e-6);
  kiln::array<double> wd = rng.random<double>({5, 8, 6}), rowd = rng.random<double>({6});
  std::vector<double> hwd = wd.to_vector(), hrowd = rowd.to_vector();
  expect("3-d + row, float64 (rows variant)", wd - rowd, 5 * 8 * 6,
         [&](auto k) { return C(hwd[k] - hrowd[k % 6]); }, 1e-15);

  kiln::array<float> mt = m.T(); // (c, r), strides (1, c)
  expect("transpose", mt * 2.0f, c * r, [&](auto k) { return C(2 * M(k % r, k / r)); }, 1e-6);
  kiln::array<float> sq = m.slice({kiln::range(0, 37), kiln::range(0, 37)});
  expect("transposed + original", sq.T() + sq, 37 * 37, [&](auto k) { return C(M(k % 37, k / 37) + M(k / 37, k % 37)); }, 1e-6);

  kiln::array<float> stepped = m.slice({kiln::range(1, std::nullopt, 3), kiln::range(std::nullopt, std::nullopt, -2)});
  std::int64_t sr = (r - 1 + 2) / 3, sc = (c + 1) / 2;
  expect("steps and negative step", stepped + 1.0f, sr * sc,
         [&](auto k) { return C(M(1 + 3 * (k / sc), c - 1 - 2 * (k % sc)) + 1); }, 1e-6);

  // Rank 6 with a transposed middle: does not coalesce below rank 4.
  kiln::array<double> big = rng.random<double>({3, 2, 4, 3, 2, 5});
  kiln::array<double> perm = big.transpose({0, 2, 1, 4, 3, 5});
  std::vector<double> hb = big.to_vector();
  expect("rank 6 permuted", kiln::sqrt(perm) + 1.0, hb.size(), [&](auto k) {
    std::int64_t idx[6], dims[6] = {3, 4, 2, 2, 3, 5};
    for (int d = 5; d >= 0; --d) idx[d] = k % dims[d], k /= dims[d];
    std::int64_t src = ((((idx[0] * 2 + idx[2]) * 4 + idx[1]) * 3 + idx[4]) * 2 + idx[3]) * 5 + idx[5];
    return C(std::sqrt(hb[src]) + 1.0);
  }, 1e-12);
  return finish("broadcast_views");
}
