// kiln::fft on a GPU beside cuFFT called directly on the same cached plan
// (the overhead Kiln adds) and, in gpu_fft_cupy.py, CuPy: complex64 4096
// batched transforms of 4096 points, one transform of 2^24, float32 rfft of
// 4096 x 4096 (batched rows), and a 2-d complex64 2048^2 fft2; each as
// milliseconds and as bandwidth (input + output bytes) over the same run's
// device copy of the input's bytes. A check against the inverse transform
// (round trip) runs first; a failed check exits 1. One JSON line each.
#include "bench.hpp"

#include <kiln/fft.hpp>

#include "runtime/fft/cufft.hpp"
#include "runtime/fft/plan_cache.hpp"

#include <cmath>
#include <complex>
#include <cstdio>

namespace {

using c64 = std::complex<float>;
int failures = 0;

double round_trip_error(const kiln::array<c64> &x) {
  const auto back = kiln::fft::ifft(kiln::fft::fft(x));
  double worst = 0;
  const auto a = x.to_vector(), b = back.to_vector();
  for (std::size_t i = 0; i < a.size(); i += 97)
    worst = std::max(worst, double(std::abs(a[i] - b[i])));
  return worst;
}

void row(const char *name, double ms, double bytes, double copy_gbps) {
  const double gbps = bytes / (ms * 1e-3) / 1e9;
  std::printf("{\"suite\": \"gpu_fft\", \"name\": \"%s\", \"ms\": %.4f, \"gbps\": %.1f, \"of_copy\": %.3f}\n", name, ms,
              gbps, gbps / copy_gbps);
  std::fflush(stdout);
}

/// The same transform as kiln::fft::fft(x) on a C-contiguous complex64 batch
/// of `batch` x `n`, by cuFFT directly on Kiln's cached plan into `out`.
void direct_c2c(const kiln::array<c64> &x, kiln::array<c64> &out, long long n, long long batch,
                const kiln::array<std::uint8_t> &work) {
  namespace plans = kiln::detail::fft_plans;
  plans::key k;
  k.device = x.device().index();
  k.type = CUFFT_C2C;
  k.rank = 1;
  k.n = {n, 0, 0};
  k.batch = batch;
  const auto plan = plans::acquire(k);
  const auto &lib = kiln::detail::cufft::require();
  lib.cufftSetStream(plan->handle, static_cast<cudaStream_t>(kiln::stream::current(x.device()).native_handle()));
  lib.cufftSetWorkArea(plan->handle, work.data());
  lib.cufftExecC2C(plan->handle, reinterpret_cast<cufftComplex *>(x.data()), reinterpret_cast<cufftComplex *>(out.data()),
                   CUFFT_FORWARD);
}

} // namespace

int main() {
  if (kiln::cuda_device_count() == 0) {
    std::printf("{\"suite\": \"gpu_fft\", \"skipped\": \"no CUDA GPU\"}\n");
    return 0;
  }
  const kiln::device gpu = kiln::device::cuda(0);
  kiln::set_current_device(gpu);
  auto rng = kiln::random::default_rng(5);
  auto complex_random = [&](const kiln::shape &s) {
    return (rng.random<float>(s).astype<c64>() + rng.random<float>(s).astype<c64>() * c64(0, 1)).to(gpu);
  };
  const auto work = kiln::zeros<std::uint8_t>({std::int64_t(1) << 28}, gpu); // ample for these plans

  struct shape2 {
    long long batch, n;
    const char *name;
  };
  for (const shape2 s : {shape2{4096, 4096, "fft c64 4096x4096 (batched)"}, shape2{1, 1 << 24, "fft c64 2^24"}}) {
    const kiln::array<c64> x = complex_random({s.batch, s.n}).reshape(s.batch == 1 ? kiln::shape{s.n} : kiln::shape{s.batch, s.n});
    const double err = round_trip_error(x);
    failures += !(err < 1e-4);
    const double bytes = 2.0 * double(x.nbytes());
    kiln::array<c64> copy_out = kiln::empty<c64>(x.shape(), gpu);
    const double copy_ms = bench::median_ms([&] { kiln::copyto(copy_out, x); });
    const double copy_gbps = bytes / (copy_ms * 1e-3) / 1e9;
    kiln::array<c64> y;
    const double kiln_ms = bench::median_ms([&] { y = kiln::fft::fft(x); });
    kiln::array<c64> out = kiln::empty<c64>(x.shape(), gpu);
    const double direct_ms = bench::median_ms([&] { direct_c2c(x, out, s.n, s.batch, work); });
    std::printf("{\"suite\": \"gpu_fft\", \"name\": \"%s\", \"check\": %.3g}\n", s.name, err);
    row((std::string(s.name) + " copy").c_str(), copy_ms, bytes, copy_gbps);
    row((std::string(s.name) + " kiln").c_str(), kiln_ms, bytes, copy_gbps);
    row((std::string(s.name) + " cufft direct").c_str(), direct_ms, bytes, copy_gbps);
  }
  { // rfft of 4096 rows of 4096 float32
    const auto x = rng.random<float>({4096, 4096}).to(gpu);
    const double bytes = double(x.nbytes()) + 4096.0 * 2049 * 8;
    kiln::array<float> copy_out = kiln::empty<float>(x.shape(), gpu);
    const double copy_ms = bench::median_ms([&] { kiln::copyto(copy_out, x); });
    const double copy_gbps = 2.0 * double(x.nbytes()) / (copy_ms * 1e-3) / 1e9;
    kiln::array<c64> y;
    row("rfft f32 4096x4096 kiln", bench::median_ms([&] { y = kiln::fft::rfft(x); }), bytes, copy_gbps);
    const auto back = kiln::fft::irfft(y, 4096);
    double worst = 0;
    const auto a = x.to_vector(), b = back.to_vector();
    for (std::size_t i = 0; i < a.size(); i += 101)
      worst = std::max(worst, double(std::abs(a[i] - b[i])));
    failures += !(worst < 1e-5);
    std::printf("{\"suite\": \"gpu_fft\", \"name\": \"rfft f32 4096x4096\", \"check\": %.3g}\n", worst);
  }
  { // fft2 of 2048^2 complex64
    const auto x = complex_random({2048, 2048});
    const double bytes = 2.0 * double(x.nbytes());
    kiln::array<c64> copy_out = kiln::empty<c64>(x.shape(), gpu);
    const double copy_ms = bench::median_ms([&] { kiln::copyto(copy_out, x); });
    kiln::array<c64> y;
    row("fft2 c64 2048^2 kiln", bench::median_ms([&] { y = kiln::fft::fft2(x); }), bytes,
        bytes / (copy_ms * 1e-3) / 1e9);
  }
  return failures ? 1 : 0;
}
