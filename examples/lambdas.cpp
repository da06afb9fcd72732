// CuPy's user-defined kernels as C++ lambdas: an ElementwiseKernel (a
// squared difference with a generic lambda, the tutorial's
// `T x, T y -> T z: z = (x - y) * (x - y)`) and a ReductionKernel (the L2
// norm of each row: map `x * x`, reduce `a + b`, post `sqrt(a)`, identity
// 0), each compiled by kilnc into the kernel around it and checked against
// a float64 reference computed on the host.
#include "check.hpp"

#include <cmath>

int main() {
  const std::int64_t rows = 500, cols = 2049;
  auto rng = kiln::random::default_rng(5);
  kiln::array<float> x = rng.normal<float>({rows, cols}, 0.0f, 1.5f);
  kiln::array<float> y = rng.random<float>({cols}); // broadcast along the rows

  // One generic lambda: the type placeholder T of ElementwiseKernel.
  auto squared_diff = [](auto a, auto b) { return (a - b) * (a - b); };
  kiln::array<float> z = kiln::elementwise(squared_diff, x, y);

  // The L2 norm of each row: one reduction kernel.
  kiln::array<float> l2 = kiln::reduce(x, [](float v) { return v * v; }, [](float a, float b) { return a + b; }, 0.0f,
                                       [](float s) { return std::sqrt(s); }, -1);

  std::vector<float> hx = x.to_vector(), hy = y.to_vector();
  std::vector<double> ref_z(rows * cols), ref_l2(rows, 0.0);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      const double a = hx[r * cols + c], d = a - hy[c];
      ref_z[r * cols + c] = d * d;
      ref_l2[r] += a * a;
    }
    ref_l2[r] = std::sqrt(ref_l2[r]);
  }
  int failed = example::report("elementwise squared_diff", example::relative_error(z.to_vector(), ref_z), 1e-6,
                               ref_z.size());
  failed |= example::report("reduce L2 norm of rows", example::relative_error(l2.to_vector(), ref_l2), 1e-6,
                            ref_l2.size());
  return failed;
}
