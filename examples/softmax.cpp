// Softmax of a batch of rows and a layer norm, the reductions every model
// needs (CuPy tutorial: "implement softmax for a 2D batch using ufuncs and
// broadcasting"). kilnc fuses each function into one kernel that reads a
// row from memory once: max, exp, sum and divide (softmax); mean, variance,
// normalize, scale and shift (layer norm). Checked against float64.
#include "check.hpp"

#include <algorithm>
#include <cmath>

using f32 = kiln::array<float>;

KILN_FUSE f32 softmax(const f32 &x) {
  f32 e = kiln::exp(x - kiln::max(x, -1, /*keepdims=*/true));
  return e / kiln::sum(e, -1, /*keepdims=*/true);
}

KILN_FUSE f32 layer_norm(const f32 &x, const f32 &gamma, const f32 &beta, float eps) {
  f32 mu = kiln::mean(x, -1, true);
  f32 var = kiln::var(x, -1, true);
  return (x - mu) / kiln::sqrt(var + eps) * gamma + beta;
}

int main() {
  const std::int64_t rows = 512, cols = 3000; // not a multiple of any vector width
  auto rng = kiln::random::default_rng(7);
  f32 x = rng.normal<float>({rows, cols}, 0.0f, 3.0f);
  f32 gamma = rng.random<float>({cols}), beta = rng.normal<float>({cols}, 0.0f, 1.0f);

  f32 p = softmax(x);
  f32 y = layer_norm(x, gamma, beta, 1e-5f);
  // Every row of a softmax sums to 1 (a plain statement, fused too).
  bool rows_sum_to_one = kiln::allclose(kiln::sum(p, -1), kiln::ones<float>({rows}), 1e-5, 1e-6);

  std::vector<float> hx = x.to_vector(), hg = gamma.to_vector(), hb = beta.to_vector();
  std::vector<double> ref_p(hx.size()), ref_y(hx.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    const float *row = &hx[r * cols];
    double mx = *std::max_element(row, row + cols), s = 0, mu = 0, m2 = 0;
    for (std::int64_t c = 0; c < cols; ++c) {
      s += std::exp(double(row[c]) - mx);
      mu += row[c];
    }
    mu /= double(cols);
    for (std::int64_t c = 0; c < cols; ++c)
      m2 += (row[c] - mu) * (row[c] - mu);
    const double inv = 1.0 / std::sqrt(m2 / double(cols) + 1e-5);
    for (std::int64_t c = 0; c < cols; ++c) {
      ref_p[r * cols + c] = std::exp(double(row[c]) - mx) / s;
      ref_y[r * cols + c] = (row[c] - mu) * inv * hg[c] + hb[c];
    }
  }
  int rc = example::report("softmax", example::relative_error(p.to_vector(), ref_p), 1e-6, ref_p.size());
  rc |= example::report("layer_norm", example::relative_error(y.to_vector(), ref_y), 1e-6, ref_y.size());
  std::printf("rows of the softmax sum to 1: %s\n", rows_sum_to_one ? "yes" : "NO");
  return rc | (rows_sum_to_one ? 0 : 1);
}
