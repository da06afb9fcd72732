#include <kiln/kiln.hpp>
#include <cstdio>

#ifndef SCALE
#define SCALE 2
#endif

KILN_FUSE kiln::array<float> f(const kiln::array<float> &x) { return x * float(SCALE) + 1.0f; }

int main() {
#ifdef BREAK
  this is not C++;
#endif
  std::printf("%g\n", f(kiln::ones<float>({5})).to_vector()[4]);
  return 0;
}
