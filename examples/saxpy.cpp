// SAXPY, the "hello world" of GPU computing: a * x + y, once as a KILN_FUSE
// function and once as a plain statement, each fused by kilnc into one
// kernel, checked against a float64 reference computed on the host.
#include "check.hpp"

#include <algorithm>
#include <cmath>

KILN_FUSE kiln::array<float> saxpy(float a, const kiln::array<float> &x,
                                   const kiln::array<float> &y) {
  return a * x + y;
}

/// max_i |got_i - ref_i| / (|a x_i| + |y_i|): the error relative to the size
/// of the terms, which stays meaningful where a x + y cancels to near zero.
static double max_relative_error(const std::vector<float> &got,
                                 const std::vector<double> &ref,
                                 const std::vector<double> &scale) {
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i)
    worst = std::max(worst, std::abs(double(got[i]) - ref[i]) /
                                std::max(scale[i], 1e-30));
  return worst;
}

int main() {
  const std::int64_t n = (1 << 20) + 3; // not a multiple of any vector width
  auto rng = kiln::random::default_rng(2024);
  kiln::array<float> x = rng.random<float>({n});
  kiln::array<float> y = rng.normal<float>({n}, 0.0f, 2.0f);
  const float a = 2.5f;

  kiln::array<float> z_function = saxpy(a, x, y);
  kiln::array<float> z_statement = a * x + y; // plain statement: fused too

  std::vector<float> hx = x.to_vector(), hy = y.to_vector();
  std::vector<double> ref(hx.size()), scale(hx.size());
  for (std::size_t i = 0; i < hx.size(); ++i) {
    ref[i] = double(a) * double(hx[i]) + double(hy[i]);
    scale[i] = std::abs(double(a) * double(hx[i])) + std::abs(double(hy[i]));
  }
  if (z_function.shape() != kiln::shape{n} ||
      z_statement.shape() != kiln::shape{n}) {
    std::printf("saxpy: FAILED (wrong result shape)\n");
    return 1;
  }
  double err_function = max_relative_error(z_function.to_vector(), ref, scale);
  double err_statement =
      max_relative_error(z_statement.to_vector(), ref, scale);
  std::printf(
      "saxpy: max relative error %.3g (KILN_FUSE function), %.3g (statement)\n",
      err_function, err_statement);
  return example::report("saxpy", std::max(err_function, err_statement), 1e-6,
                         ref.size());
}
