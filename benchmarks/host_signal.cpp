// kiln::signal on the host backend beside SciPy on the same machine
// (host_signal_scipy.py): convolve2d of a 4096 x 4096 float32 image with a
// 5 x 5 box filter (same, symm: the tutorial's blur) and with 3 x 3 (same,
// fill), and convolve of 2^20 float64 values with 31 taps. Median wall time
// of 5 runs after 1. One JSON line each.
#include "bench.hpp"

#include <kiln/kiln.hpp>
#include <kiln/signal.hpp>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {
/// The median of 5 runs after 1 (SciPy's side, host_signal_scipy.py, times the
/// same).
double median_ms(const std::function<void()> &f) {
  return bench::host_median_ms(f, 5, 1);
}
void report(const char *name, double ms) {
  std::printf("{\"suite\": \"host_signal\", \"name\": \"%s\", \"impl\": \"kiln\", \"ms\": %.3f}\n", name, ms);
  std::fflush(stdout);
}
} // namespace

int main() {
  const kiln::device host = kiln::device::host();
  auto rng = kiln::random::default_rng(3);
  const auto img = rng.random<float>({4096, 4096}, host);
  const auto box5 = kiln::full<float>({5, 5}, 1.0f / 25, host), box3 = kiln::full<float>({3, 3}, 1.0f / 9, host);
  namespace sig = kiln::signal;
  report("convolve2d 4096^2 f32 5x5 same symm",
         median_ms([&] { (void)sig::convolve2d(img, box5, sig::mode::same, sig::boundary::symm); }));
  report("convolve2d 4096^2 f32 3x3 same fill", median_ms([&] { (void)sig::convolve2d(img, box3, sig::mode::same); }));
  const auto x = rng.random<double>({1 << 20}, host), taps = rng.random<double>({31}, host);
  report("convolve 2^20 f64 31 taps direct",
         median_ms([&] { (void)sig::convolve(x, taps, sig::mode::full, sig::method::direct); }));
  return 0;
}
