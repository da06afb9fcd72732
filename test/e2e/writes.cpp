// Writes into arrays in code kilnc compiles (issue 10, first part): compound
// assignment with a fused right-hand side (`x += a * y`: the product is a
// kernel, the update NumPy's in-place add), inside a KILN_FUSE function whose
// local is updated in place, assignment into a view and fill, on the current
// device (host in CI, the GPU under scripts/device-check.sh), against double
// references on random data.
#include "e2e.hpp"

#include <cstdint>

using namespace e2e;

KILN_FUSE kiln::array<float> scaled_update(const kiln::array<float> &x, const kiln::array<float> &y) {
  auto t = x * 2.0f; // kept as storage: updated below
  t += kiln::exp(y) * 0.5f;
  return t;
}

int main() {
  const std::int64_t m = 33, n = 65;
  auto rng = kiln::random::default_rng(17);
  kiln::array<float> x = rng.normal<float>({m, n}, 0.0, 1.0), y = rng.normal<float>({m, n}, 0.0, 1.0);
  const std::vector<float> hx = x.to_vector(), hy = y.to_vector();
  const std::size_t count = static_cast<std::size_t>(m * n);

  auto z = x.copy();
  z += 2.5f * y; // saxpy in place
  expect("x += a * y", z, count, [&](std::size_t i) { return double(hx[i]) + 2.5 * hy[i]; }, 1e-6);

  expect("KILN_FUSE local updated in place", scaled_update(x, y), count,
         [&](std::size_t i) { return 2.0 * hx[i] + 0.5 * std::exp(double(hy[i])); }, 1e-5);

  // Every other row gets y's row 0 broadcast (converted to double); the rest 1.
  auto d = kiln::ones<double>({m, n});
  d.slice({kiln::range(0, m, 2), kiln::all}).assign(y.slice({kiln::range(0, 1), kiln::all}));
  expect("assign into a view", d, count, [&](std::size_t i) {
    return (i / n) % 2 == 0 ? double(hy[i % n]) : 1.0;
  }, 0);
  d.fill(-3);
  expect("fill", d, count, [](std::size_t) { return -3.0; }, 0);
  return finish("writes");
}
