// End to end on the host backend: kilnc compiles and links the program, which
// runs its fused kernel on random data and compares with a double reference.
// RUN: %kilnc %s -o %t
// RUN: env KILN_DEVICE=host %t | FileCheck %s
#include <kiln/kiln.hpp>

#include <cmath>
#include <cstdio>

KILN_FUSE kiln::array<float> squared_diff(const kiln::array<float> &x, const kiln::array<float> &y) {
  return (x - y) * (x - y);
}

int main() {
  auto rng = kiln::random::default_rng(5);
  kiln::array<float> x = rng.random<float>({301, 67}), y = rng.random<float>({67});
  kiln::array<float> z = squared_diff(x, y);
  std::vector<float> hx = x.to_vector(), hy = y.to_vector(), hz = z.to_vector();
  double worst = 0;
  for (std::size_t i = 0; i < hx.size(); ++i) {
    double d = double(hx[i]) - double(hy[i % 67]);
    worst = std::max(worst, std::abs(hz[i] - d * d) / std::max(1e-30, d * d));
  }
  std::printf("device %s shape (%lld,%lld) max-rel-error-ok %d\n", z.device().str().c_str(),
              (long long)z.shape()[0], (long long)z.shape()[1], worst < 1e-6);
}
// CHECK: device host shape (301,67) max-rel-error-ok 1
