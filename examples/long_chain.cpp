// A long elementwise chain (eight operations, two inputs, a scalar and a
// transposed view): kilnc fuses the whole function into a single kernel that
// reads each input once and writes the output once.
#include "check.hpp"

KILN_FUSE kiln::array<float> chain(const kiln::array<float> &x, const kiln::array<float> &y, float scale) {
  auto a = kiln::sin(x) * kiln::cos(y);       // 3 operations
  auto b = a + scale * x;                     // 2 more
  return kiln::sqrt(kiln::abs(b)) - y / 4.0f; // 3 more
}

int main() {
  const std::int64_t n = 512;
  auto rng = kiln::random::default_rng(3);
  kiln::array<float> x = rng.random<float>({n, n});
  kiln::array<float> y = rng.random<float>({n, n});

  // y.T() is a view: the kernel reads it with swapped strides, no copy.
  kiln::array<float> z = chain(x, y.T(), 0.5f);

  std::vector<float> hx = x.to_vector(), hy = y.to_vector();
  std::vector<double> ref(hx.size());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double xv = hx[i * n + j], yv = hy[j * n + i];
      double b = std::sin(xv) * std::cos(yv) + 0.5 * xv;
      ref[i * n + j] = std::sqrt(std::abs(b)) - yv / 4.0;
    }
  return example::report("long_chain", example::relative_error(z.to_vector(), ref), 1e-5, ref.size());
}
