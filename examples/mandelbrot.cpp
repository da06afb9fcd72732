// Mandelbrot escape times on complex128 arrays. Each statement in the loop is
// a plain array full-expression that kilnc fuses into one kernel; the step
// function is a KILN_FUSE function on complex numbers.
#include "check.hpp"

#include <cstdint>

using cplx = std::complex<double>;

KILN_FUSE kiln::array<cplx> step(const kiln::array<cplx> &z, const kiln::array<cplx> &c) {
  return kiln::where(kiln::abs(z) <= 2.0, z * z + c, z);
}

int main() {
  const std::int64_t h = 200, w = 300;
  const int iterations = 60;
  kiln::array<double> re = kiln::linspace<double>(-2.0, 1.0, w).reshape({1, w});
  kiln::array<double> im = kiln::linspace<double>(-1.2, 1.2, h).reshape({h, 1});
  kiln::array<cplx> c = re + cplx(0.0, 1.0) * im; // broadcast to (h, w)
  kiln::array<cplx> z = kiln::zeros<cplx>({h, w});
  kiln::array<std::int32_t> escape = kiln::zeros<std::int32_t>({h, w});

  for (int i = 0; i < iterations; ++i) {
    escape = escape + (kiln::abs(z) <= 2.0).astype<std::int32_t>();
    z = step(z, c);
  }

  // Reference: the same iteration in double precision on the host.
  std::vector<double> hre = re.to_vector(), him = im.to_vector();
  std::vector<std::int32_t> got = escape.to_vector();
  std::size_t mismatches = 0;
  for (std::int64_t i = 0; i < h; ++i)
    for (std::int64_t j = 0; j < w; ++j) {
      cplx cc(hre[j], him[i]), zz = 0;
      std::int32_t count = 0;
      for (int k = 0; k < iterations; ++k) {
        bool inside = std::abs(zz) <= 2.0;
        count += inside;
        if (inside) zz = zz * zz + cc;
      }
      mismatches += got[i * w + j] != count;
    }
  // |z| computed as hypot or as sqrt(re^2 + im^2) may differ in the last ulp
  // exactly at |z| = 2; allow a handful of boundary points.
  double frac = double(mismatches) / double(h * w);
  return example::report("mandelbrot", frac, 1e-3, std::size_t(h * w));
}
