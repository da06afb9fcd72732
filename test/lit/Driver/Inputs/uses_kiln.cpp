// A small Kiln program (one fused kernel) for the driver tests.
#include <cstdio>
#include <kiln/kiln.hpp>

KILN_FUSE kiln::array<float> axpy(float a, const kiln::array<float> &x,
                                  const kiln::array<float> &y) {
  return a * x + y;
}

int main() {
  kiln::array<float> x = kiln::full<float>({3}, 1.0f),
                     y = kiln::ones<float>({3});
  std::printf("2.5 + 1 = %g\n",
              static_cast<double>(axpy(2.5f, x, y).to_vector()[2]));
  return 0;
}
