// FFTs on the host backend (pocketfft, on every thread for batches) beside
// NumPy on the same machine (host_fft_numpy.py): complex64 2^20 (one
// transform: one thread, as NumPy), complex64 256 batched transforms of
// 4096, float32 rfft of 2^20, complex128 fft2 1024^2. Median wall time of 9
// runs after 2. One JSON line each.
#include "bench.hpp"

#include <kiln/fft.hpp>
#include <kiln/kiln.hpp>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <vector>

namespace {

void report(const char *name, double ms) {
  std::printf("{\"suite\": \"host_fft\", \"name\": \"%s\", \"impl\": \"kiln\", \"ms\": %.3f}\n", name, ms);
  std::fflush(stdout);
}

} // namespace

int main() {
  const kiln::device host = kiln::device::host();
  auto rng = kiln::random::default_rng(3);
  using c64 = std::complex<float>;
  using c128 = std::complex<double>;
  auto complex_random = [&]<class C>(const kiln::shape &s) {
    using R = typename C::value_type;
    return rng.random<R>(s, host).template astype<C>() + rng.random<R>(s, host).template astype<C>() * C(0, 1);
  };
  const auto a = complex_random.operator()<c64>({1 << 20});
  report("fft complex64 2^20",
         bench::host_median_ms([&] { (void)kiln::fft::fft(a); }));
  const auto b = complex_random.operator()<c64>({256, 4096});
  report("fft complex64 256x4096",
         bench::host_median_ms([&] { (void)kiln::fft::fft(b); }));
  const auto r = rng.random<float>({1 << 20}, host);
  report("rfft float32 2^20",
         bench::host_median_ms([&] { (void)kiln::fft::rfft(r); }));
  const auto c = complex_random.operator()<c128>({1024, 1024});
  report("fft2 complex128 1024^2",
         bench::host_median_ms([&] { (void)kiln::fft::fft2(c); }));
  return 0;
}
