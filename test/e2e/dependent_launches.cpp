// Back-to-back dependent kernels. On sm_90 the elementwise kernels launch
// before the kernel ahead of them on the stream has finished and wait inside
// (programmatic dependent launch, docs/kernel-abi.md "Launch rules"), so each
// case here has every kernel read what the one before it wrote, or write what
// it read, on 2^22 elements (many waves of blocks: a kernel that did not wait
// would read stale data): a chain of new arrays, updates in place, a
// transposing kernel (staged tiles, a persistent grid) between elementwise
// ones, a reduction feeding the next kernel, and the update chain captured in
// a graph and replayed twice on new data. Against double references on random
// data; on the host in CI, on the GPU under scripts/device-check.sh (with
// memcheck and racecheck).
#include "e2e.hpp"

#include <kiln/graph.hpp>

#include <cstdint>

using namespace e2e;
using f32 = kiln::array<float>;

KILN_FUSE f32 halve_add(const f32 &y, const f32 &x) { return y * 0.5f + x; }

int main() {
  const std::int64_t side = 2048, n = side * side;
  const std::size_t count = static_cast<std::size_t>(n);
  auto rng = kiln::random::default_rng(31);
  f32 x = rng.normal<float>({n}, 0.0, 1.0), y = rng.normal<float>({n}, 0.0, 1.0);
  const std::vector<float> hx = x.to_vector(), hy = y.to_vector();
  constexpr int steps = 32;

  { // A chain of new arrays: each kernel reads the array the one before wrote.
    f32 z = y;
    for (int k = 0; k < steps; ++k)
      z = halve_add(z, x);
    expect("z = z/2 + x, 32 new arrays", z, count, [&](std::size_t i) {
      double v = hy[i];
      for (int k = 0; k < steps; ++k) v = v * 0.5 + hx[i];
      return v;
    }, 1e-5);
  }
  { // Updates in place: each kernel reads and writes the same array.
    f32 z = y.copy();
    for (int k = 0; k < steps; ++k) {
      z += x;
      z *= 0.5f;
    }
    expect("z = (z + x)/2 in place, 64 kernels", z, count, [&](std::size_t i) {
      double v = hy[i];
      for (int k = 0; k < steps; ++k) v = (v + hx[i]) * 0.5;
      return v;
    }, 1e-5);
  }
  { // Transposes (the staged 2-d kernel) between updates in place.
    f32 m = y.reshape({side, side}).copy();
    for (int k = 0; k < 4; ++k) {
      m = m.T() * 0.5f + 1.0f;
      m -= 0.25f;
    }
    expect("m = m.T/2 + 1 - 1/4, 4 times", m, count, [&](std::size_t i) {
      // After an even number of transposes element (r, c) is y's (r, c).
      double v = hy[i];
      for (int k = 0; k < 4; ++k) v = v * 0.5 + 1.0 - 0.25;
      return v;
    }, 1e-6);
  }
  { // A reduction feeding the next elementwise kernel.
    f32 z = y.copy();
    double v = 0;
    std::vector<double> ref(hy.begin(), hy.end());
    for (int k = 0; k < 4; ++k) {
      z = z * 0.5f + kiln::mean(z);
      v = 0;
      for (double r : ref) v += r;
      const double mean = v / double(n);
      for (double &r : ref) r = r * 0.5 + mean;
    }
    expect("z = z/2 + mean(z), 4 times", z, count, [&](std::size_t i) { return ref[i]; }, 1e-5);
  }
  { // The update chain captured once and replayed twice on new data.
    kiln::stream s(kiln::current_device());
    kiln::stream_scope on_s(s);
    f32 z = y.copy(), w = x.copy();
    kiln::graph g = kiln::capture(s, [&] {
      for (int k = 0; k < steps; ++k) {
        z += w;
        z *= 0.5f;
      }
    });
    std::vector<double> ref(hy.begin(), hy.end());
    for (int round = 0; round < 2; ++round) {
      f32 fresh = rng.normal<float>({n}, 0.0, 1.0);
      const std::vector<float> hw = fresh.to_vector();
      w.copy_from_host(std::span<const float>(hw));
      g.launch(s);
      s.synchronize();
      for (std::size_t i = 0; i < count; ++i)
        for (int k = 0; k < steps; ++k) ref[i] = (ref[i] + hw[i]) * 0.5;
      expect("graph of 64 updates, replay " + std::to_string(round), z, count, [&](std::size_t i) { return ref[i]; },
             1e-5);
    }
  }
  return finish("e2e_dependent_launches");
}
