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
  return 0;
}
