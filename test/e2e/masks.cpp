// Masks and integer indices in code kilnc compiles (issue 10): the tutorial's
// masked update Z[mask] = Z[mask] * Z[mask] + C[mask] (one kernel writing Z
// where the mask holds), x[m] += v and x[m] = s, a mask of the leading axis
// (not fused: the statement runs as written), a shape mismatch (NumPy's
// index_error from the statement as written), a value over gathered arrays,
// and x[idx] as an operand of a fused expression; on the current device
// (host in CI, the GPU under scripts/device-check.sh) against double
// references on random data.
#include "e2e.hpp"

#include <cstdint>

using namespace e2e;
using cplx = std::complex<double>;

int main() {
  const std::int64_t m = 41, n = 57;
  const std::size_t count = static_cast<std::size_t>(m * n);
  auto rng = kiln::random::default_rng(23);
  kiln::array<double> re = rng.normal<double>({m, n}, 0.0, 0.5), im = rng.normal<double>({m, n}, 0.0, 0.5);
  kiln::array<cplx> Z = re + cplx(0, 1) * im;
  kiln::array<cplx> C = im + cplx(0, 0.25) * re;
  kiln::array<bool> mask = rng.random<double>({m, n}) < 0.5;
  const auto hz = Z.to_vector(), hc = C.to_vector();
  const auto hm = mask.to_vector();

  Z[mask] = Z[mask] * Z[mask] + C[mask];
  expect("Z[mask] = Z[mask]*Z[mask] + C[mask]", Z, count,
         [&](std::size_t i) { return hm[i] ? hz[i] * hz[i] + hc[i] : hz[i]; }, 1e-12);

  kiln::array<float> x = rng.normal<float>({m, n}, 0.0, 1.0);
  const auto hx = x.to_vector();
  auto y = x.copy();
  y[mask] += 2;
  expect("x[m] += 2", y, count, [&](std::size_t i) { return hm[i] ? double(hx[i]) + 2 : double(hx[i]); }, 1e-6);
  y[mask] = 0;
  expect("x[m] = 0", y, count, [&](std::size_t i) { return hm[i] ? 0.0 : double(hx[i]) + 0.0; }, 1e-6);

  // A mask of the leading axis selects rows: not fused, NumPy's answer.
  kiln::array<bool> rows = rng.random<double>({m}) < 0.3;
  const auto hr = rows.to_vector();
  auto w = x.copy();
  w[rows] = w[rows] * 3.0f;
  expect("x[row mask] = x[row mask] * 3", w, count,
         [&](std::size_t i) { return hr[i / n] ? double(hx[i] * 3.0f) : double(hx[i]); }, 1e-6);

  // A mask of another shape: the statement as written raises NumPy's error.
  ++checks;
  try {
    kiln::array<bool> small = kiln::ones<bool>({m, n - 1});
    w[small] = w[small] * 2.0f;
    std::printf("FAIL mask shape mismatch: no exception\n");
    ++failures;
  } catch (const kiln::index_error &) {
  }

  // A value over a gathered array that is not indexed by the mask.
  auto mat = kiln::zeros<double>({m, n});
  kiln::array<double> picked = re[mask];
  mat[mask] = 1.0 - kiln::exp(picked) / 2.0;
  expect("mat[m] = f(gathered)", mat, count,
         [&](std::size_t i) { return hm[i] ? 1.0 - std::exp(hz[i].real()) / 2.0 : 0.0; }, 1e-12);

  // x[idx] as an operand of a fused expression.
  kiln::array<std::int64_t> idx = rng.integers<std::int64_t>(-m, m, {9});
  const auto hi = idx.to_vector();
  kiln::array<float> g = kiln::abs(x[idx]) * 2.0f + 1.0f;
  expect("abs(x[idx]) * 2 + 1", g, static_cast<std::size_t>(9 * n), [&](std::size_t k) {
    std::int64_t r = hi[k / n] < 0 ? hi[k / n] + m : hi[k / n];
    return double(std::abs(hx[r * n + k % n]) * 2.0f + 1.0f);
  }, 1e-6);

  // Proxies are operands of every elementwise operation and reduction (issue
  // 24): unary minus, !, &&, ||, clip, where, astype, sum, max, mean, var and
  // kiln::all over x[m] and x[idx], fused where kilnc can.
  std::vector<double> sel; // x[mask] in C order
  std::vector<bool> bsel;  // (x > 0)[mask]
  std::vector<bool> csel;  // (x < 1)[mask]
  for (std::size_t i = 0; i < count; ++i)
    if (hm[i]) {
      sel.push_back(hx[i]);
      bsel.push_back(hx[i] > 0);
      csel.push_back(hx[i] < 1);
    }
  const std::size_t ns = sel.size();
  kiln::array<bool> pos = x > 0.0f, below = x < 1.0f;
  expect("-x[m]", kiln::array<float>(-x[mask]), ns, [&](std::size_t k) { return -sel[k]; }, 1e-6);
  expect("!b[m]", kiln::array<bool>(!pos[mask]), ns, [&](std::size_t k) { return double(!bsel[k]); }, 0.0);
  expect("b[m] && c[m]", kiln::array<bool>(pos[mask] && below[mask]), ns,
         [&](std::size_t k) { return double(bsel[k] && csel[k]); }, 0.0);
  expect("b[m] || c[m]", kiln::array<bool>(pos[mask] || below[mask]), ns,
         [&](std::size_t k) { return double(bsel[k] || csel[k]); }, 0.0);
  expect("clip(x[m], lo, hi)", kiln::array<float>(kiln::clip(x[mask], -0.5f, 0.5f)), ns,
         [&](std::size_t k) { return std::min(std::max(sel[k], -0.5), 0.5); }, 1e-6);
  expect("where(b[m], x[m], 0)", kiln::array<float>(kiln::where(pos[mask], x[mask], 0.0f)), ns,
         [&](std::size_t k) { return bsel[k] ? sel[k] : 0.0; }, 1e-6);
  expect("x[m].astype<double>() * 2", kiln::array<double>(x[mask].astype<double>() * 2.0), ns,
         [&](std::size_t k) { return 2.0 * sel[k]; }, 1e-12);
  double total = 0, top = -1e300;
  for (double v : sel) total += v, top = std::max(top, v);
  const double mu = total / double(ns);
  double ss = 0;
  for (double v : sel) ss += (v - mu) * (v - mu);
  expect("sum(x[m] * 2) + max(x[m])", kiln::array<float>(kiln::sum(x[mask] * 2.0f) + kiln::max(x[mask])), 1,
         [&](std::size_t) { return 2.0 * total + top; }, 1e-5);
  expect("mean(x[m]), var(x[m])", kiln::array<float>(kiln::mean(x[mask]) + kiln::var(x[mask])), 1,
         [&](std::size_t) { return mu + ss / double(ns); }, 1e-5);
  expect("all(b[m] || !b[m])", kiln::array<bool>(kiln::all(pos[mask] || !pos[mask])), 1,
         [&](std::size_t) { return 1.0; }, 0.0);
  expect("-x[idx]", kiln::array<float>(-x[idx]), static_cast<std::size_t>(9 * n), [&](std::size_t k) {
    std::int64_t r = hi[k / n] < 0 ? hi[k / n] + m : hi[k / n];
    return -double(hx[r * n + k % n]);
  }, 1e-6);
  return finish("masks");
}
