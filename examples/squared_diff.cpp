// Squared difference, from CuPy's ElementwiseKernel tutorial:
// (x - y) * (x - y) as one fused kernel, here with y broadcast along rows.
#include "check.hpp"

KILN_FUSE kiln::array<float> squared_diff(const kiln::array<float> &x, const kiln::array<float> &y) {
  return (x - y) * (x - y);
}

int main() {
  const std::int64_t rows = 1000, cols = 257;
  auto rng = kiln::random::default_rng(1);
  kiln::array<float> x = rng.random<float>({rows, cols});
  kiln::array<float> y = rng.random<float>({cols}); // one row, broadcast to every row

  kiln::array<float> z = squared_diff(x, y);

  std::vector<float> hx = x.to_vector(), hy = y.to_vector();
  std::vector<double> ref(hx.size());
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      double d = double(hx[i * cols + j]) - double(hy[j]);
      ref[i * cols + j] = d * d;
    }
  if (z.shape() != kiln::shape{rows, cols}) return 1;
  return example::report("squared_diff", example::relative_error(z.to_vector(), ref), 1e-6, ref.size());
}
