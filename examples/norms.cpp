// The reductions of the CuPy tutorials: an L2 norm (`cupy.linalg.norm`),
// row dot products (`cupy.sum(x * y, axis=-1)`, one kernel that never
// writes x * y), column means (`y.mean(axis=0)`), the total and the mean of
// the data, and the position of each row's largest element, each checked
// against a float64 reference computed on the host.
#include "check.hpp"

#include <algorithm>
#include <cmath>

using f32 = kiln::array<float>;

KILN_FUSE f32 row_dot(const f32 &x, const f32 &y) { return kiln::sum(x * y, -1); }

int main() {
  const std::int64_t rows = 1000, cols = 4099;
  auto rng = kiln::random::default_rng(11);
  f32 x = rng.random<float>({rows, cols});
  f32 y = rng.normal<float>({rows, cols}, 1.0f, 2.0f);

  float l2 = kiln::linalg::norm(x).item();       // a 0-d array; item() reads it
  f32 dots = row_dot(x, y);                         // KILN_FUSE: one kernel
  f32 col_means = y.mean(0);                        // member form, axis 0
  float total = kiln::sum(x).item(), mean = x.mean().item();
  kiln::array<std::int64_t> where = kiln::argmax(y, -1);

  std::vector<float> hx = x.to_vector(), hy = y.to_vector();
  double ref_l2 = 0, ref_total = 0;
  std::vector<double> ref_dots(rows, 0.0), ref_means(cols, 0.0);
  std::vector<std::int64_t> ref_where(rows, 0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      const double a = hx[r * cols + c], b = hy[r * cols + c];
      ref_l2 += a * a;
      ref_total += a;
      ref_dots[r] += a * b;
      ref_means[c] += b / double(rows);
      if (b > hy[r * cols + ref_where[r]])
        ref_where[r] = c;
    }
  ref_l2 = std::sqrt(ref_l2);
  const double n = double(rows * cols);
  int rc = example::report("linalg::norm(x)", std::abs(l2 - ref_l2) / ref_l2, 1e-6, hx.size());
  rc |= example::report("sum(x * y, -1)", example::relative_error(dots.to_vector(), ref_dots), 1e-6, rows);
  rc |= example::report("y.mean(0)", example::relative_error(col_means.to_vector(), ref_means), 1e-6, cols);
  rc |= example::report("sum(x)", std::abs(total - ref_total) / ref_total, 1e-6, hx.size());
  rc |= example::report("x.mean()", std::abs(mean - ref_total / n) / (ref_total / n), 1e-6, hx.size());
  rc |= example::report("argmax(y, -1)", where.to_vector() == ref_where ? 0.0 : 1.0, 0.0, rows);
  return rc;
}
