// Writes into arrays on the GPU (built with kilnc; issue 10): the in-place
// update `x += a * y` (one kernel reading x and y, writing x), the masked
// update of the CuPy tutorial's Mandelbrot, concatenate, the integer gather
// `take` and the boolean-mask gather, on 2^28 float32 (2^27 per operand of
// concatenate). Bandwidth counts each operand read once and each result
// written once; report.py divides it by the device copy of the same run
// (peers_writes.py runs CuPy and PyTorch on the same workloads).
#include "bench.hpp"

#include <cstdint>

using f32 = kiln::array<float>;

int main() {
  if (!kiln::current_device().is_cuda()) {
    std::printf("{\"suite\": \"writes\", \"skipped\": \"no GPU\"}\n");
    return 0;
  }
  const std::int64_t n = std::int64_t(1) << 28;
  const double B = double(n) * 4;
  auto rng = kiln::random::default_rng(0);
  f32 x = rng.random<float>({n}), y = rng.random<float>({n});
  f32 out = kiln::empty<float>({n});
  bench::emit("writes", "kiln d2d copy (read+write)", bench::median_ms([&] { out.assign(x); }), 2 * B);

  // x += a * y: 4 bytes of x read, 4 of y read, 4 of x written per element.
  const float a = 1e-6f; // keeps x bounded over the repetitions
  bench::emit("writes", "kiln x += a*y", bench::median_ms([&] { x += a * y; }), 3 * B);
  // The same update written as a new array (allocates): for comparison.
  bench::emit("writes", "kiln x = x + a*y (new array)", bench::median_ms([&] { out = x + a * y; }), 3 * B);

  // The tutorial's masked update, half the mask set: one kernel reading the
  // mask (1 byte), z and c, writing z (13 bytes an element).
  f32 z = rng.random<float>({n}) * 0.5f, c = rng.random<float>({n}) * 1e-3f;
  kiln::array<bool> mask = rng.random<float>({n}) < 0.5f;
  bench::emit("writes", "kiln z[mask] = z[mask]*z[mask]+c[mask]",
              bench::median_ms([&] { z[mask] = z[mask] * z[mask] + c[mask]; }), 13.0 * double(n));

  // concatenate two 2^27 arrays: every byte read once and written once.
  const std::int64_t h = n / 2;
  f32 p = x.slice({kiln::range(0, h)}).copy(), q = y.slice({kiln::range(0, h)}).copy();
  bench::emit("writes", "kiln concatenate 2 x 2^27", bench::median_ms([&] { out = kiln::concatenate({p, q}); }), 2 * B);

  // take: 2^26 random int64 indices into 2^28 floats (8 B index, 4 B
  // gathered, 4 B written).
  const std::int64_t k = std::int64_t(1) << 26;
  kiln::array<std::int64_t> idx = rng.integers<std::int64_t>(0, n, {k});
  f32 taken;
  bench::emit("writes", "kiln take (2^26 random int64 of 2^28)", bench::median_ms([&] { taken = kiln::take(x, idx); }),
              16.0 * double(k));

  // The boolean-mask gather x[mask], half set (x 4 B and mask 1 B read,
  // half the elements written: 7 B an element).
  f32 picked;
  bench::emit("writes", "kiln x[mask] (half set)", bench::median_ms([&] { picked = x[mask]; }, 10), 7.0 * double(n));
  return 0;
}
