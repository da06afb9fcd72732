// The Mandelbrot set of the CuPy tutorial (../shared/tutorials, "Advanced
// Example: Mandelbrot Set"), written as its CuPy code is: a meshgrid, a
// boolean mask of the points still iterating, the masked update
// `Z[mask] = Z[mask] * Z[mask] + C[mask]` (one fused kernel that writes Z in
// place where the mask holds), smooth coloring of the points that escape,
// and an early exit when no point is left. Checked against the same
// algorithm written without masks as KILN_FUSE functions (where into new
// arrays), which must agree to the last bit.
#include "check.hpp"

#include <cstdint>

using cplx = std::complex<double>;

// The mask-free form: every point computes, `where` keeps the finished ones.
KILN_FUSE kiln::array<cplx> step(const kiln::array<cplx> &z, const kiln::array<cplx> &c,
                                 const kiln::array<bool> &active) {
  return kiln::where(active, z * z + c, z);
}
KILN_FUSE kiln::array<double> color(const kiln::array<double> &mat, const kiln::array<cplx> &z,
                                    const kiln::array<bool> &escaped, int n, double ln2) {
  return kiln::where(escaped, (n + 1) - kiln::log(kiln::log(kiln::abs(z))) / ln2, mat);
}

/// The tutorial's mandelbrot_cupy, line by line.
kiln::array<double> mandelbrot_masks(double x_min, double x_max, double y_min, double y_max, std::int64_t width,
                                     std::int64_t height, int max_iter) {
  auto x = kiln::linspace<double>(x_min, x_max, width);
  auto y = kiln::linspace<double>(y_min, y_max, height);
  auto [X, Y] = kiln::meshgrid(x, y, kiln::indexing::ij);
  kiln::array<cplx> C = X + cplx(0, 1) * Y;
  auto Z = kiln::zeros_like(C);
  auto mat = kiln::zeros<double>(C.shape());
  auto mask = kiln::ones<bool>(C.shape());
  for (int n = 0; n < max_iter; ++n) {
    Z[mask] = Z[mask] * Z[mask] + C[mask];
    kiln::array<bool> escaped = kiln::abs(Z) > 2.0;
    kiln::array<bool> newly_escaped = escaped && mask;
    if (kiln::any(newly_escaped).item()) {
      kiln::array<cplx> z_new = Z[newly_escaped];
      mat[newly_escaped] = (n + 1) - kiln::log(kiln::log(kiln::abs(z_new))) / std::log(2.0);
      mask[newly_escaped] = false;
    }
    if (!kiln::any(mask).item())
      break;
  }
  return mat;
}

kiln::array<double> mandelbrot_fused(double x_min, double x_max, double y_min, double y_max, std::int64_t width,
                                     std::int64_t height, int max_iter) {
  auto re = kiln::linspace<double>(x_min, x_max, width).reshape({width, 1});
  auto im = kiln::linspace<double>(y_min, y_max, height).reshape({1, height});
  kiln::array<cplx> c = re + cplx(0, 1) * im; // (width, height), as meshgrid's ij
  auto z = kiln::zeros_like(c);
  auto mat = kiln::zeros<double>(c.shape());
  auto active = kiln::ones<bool>(c.shape());
  for (int n = 0; n < max_iter; ++n) {
    z = step(z, c, active);
    kiln::array<bool> escaped = (kiln::abs(z) > 2.0) && active;
    mat = color(mat, z, escaped, n, std::log(2.0));
    active = active && !escaped;
    if (!kiln::any(active).item())
      break;
  }
  return mat;
}

int main() {
  const std::int64_t width = 600, height = 400;
  const int max_iter = 80;
  auto masked = mandelbrot_masks(-2.0, 1.0, -1.2, 1.2, width, height, max_iter);
  auto fused = mandelbrot_fused(-2.0, 1.0, -1.2, 1.2, width, height, max_iter);
  std::vector<double> a = masked.to_vector(), b = fused.to_vector();
  std::size_t differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    differ += a[i] != b[i];
  return example::report("mandelbrot_masks", double(differ) / double(a.size()), 0.0, a.size());
}
