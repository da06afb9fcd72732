// kiln::signal on a GPU beside CuPy (gpu_signal_cupy.py, same run):
// convolve2d of a 4096 x 4096 float32 image with a 5 x 5 box filter, mode
// same, boundary symm (the tutorial's blur) and fill, as bandwidth (image
// read, output written) over the device copy of the image; a 3 x 3 and a
// 7 x 7 filter; fftconvolve of 2048^2 with a 64^2 filter. Each result is
// checked on a sample of pixels against a float64 sum first. One JSON line
// each.
#include "bench.hpp"

#include <kiln/signal.hpp>

#include <cmath>
#include <cstdio>

namespace {
int failures = 0;

/// The tutorial's same/symm blur at a sample of pixels, in float64.
double check(const std::vector<float> &img, const std::vector<float> &out, std::int64_t n, std::int64_t k) {
  auto at = [&](std::int64_t i, std::int64_t j) {
    auto fold = [&](std::int64_t x) { return x < 0 ? -x - 1 : x >= n ? 2 * n - 1 - x : x; };
    return double(img[fold(i) * n + fold(j)]);
  };
  double worst = 0;
  for (std::int64_t i = 0; i < n; i += 509)
    for (std::int64_t j = 0; j < n; j += 331) {
      double s = 0;
      for (std::int64_t p = 0; p < k; ++p)
        for (std::int64_t q = 0; q < k; ++q)
          s += at(i + (k - 1) / 2 - p, j + (k - 1) / 2 - q) / double(k * k);
      worst = std::max(worst, std::abs(s - out[i * n + j]));
    }
  return worst;
}
} // namespace

int main() {
  if (kiln::cuda_device_count() == 0) {
    std::printf("{\"suite\": \"gpu_signal\", \"skipped\": \"no CUDA GPU\"}\n");
    return 0;
  }
  const kiln::device gpu = kiln::device::cuda(0);
  kiln::set_current_device(gpu);
  auto rng = kiln::random::default_rng(3);
  const std::int64_t n = 4096;
  const auto img = rng.random<float>({n, n}, gpu);
  auto copy_out = kiln::empty<float>({n, n}, gpu);
  const double bytes = 2.0 * double(img.nbytes());
  const double copy_ms = bench::median_ms([&] { kiln::copyto(copy_out, img); });
  const double copy_gbps = bytes / (copy_ms * 1e-3) / 1e9;
  std::printf("{\"suite\": \"gpu_signal\", \"name\": \"copy 4096^2 f32\", \"ms\": %.4f, \"gbps\": %.1f}\n", copy_ms,
              copy_gbps);
  for (std::int64_t k : {5, 3, 7}) {
    const auto box = kiln::full<float>({k, k}, 1.0f / float(k * k), gpu);
    for (auto b : {kiln::signal::boundary::symm, kiln::signal::boundary::fill}) {
      if (k != 5 && b == kiln::signal::boundary::fill)
        continue;
      kiln::array<float> out;
      const double ms = bench::median_ms([&] { out = kiln::signal::convolve2d(img, box, kiln::signal::mode::same, b); });
      if (b == kiln::signal::boundary::symm) {
        const double err = check(img.to_vector(), out.to_vector(), n, k);
        failures += !(err < 1e-5);
      }
      const double gbps = bytes / (ms * 1e-3) / 1e9;
      // Ten calls back to back: the GPU's time per call once the host's
      // enqueueing runs ahead of it.
      const double ms10 = bench::median_ms([&] {
                            for (int i = 0; i < 10; ++i)
                              out = kiln::signal::convolve2d(img, box, kiln::signal::mode::same, b);
                          }) / 10.0;
      std::printf("{\"suite\": \"gpu_signal\", \"name\": \"convolve2d 4096^2 f32 %lldx%lld same %s\", \"impl\": \"kiln\", "
                  "\"ms\": %.4f, \"gbps\": %.1f, \"of_copy\": %.3f, \"ms_back_to_back\": %.4f}\n",
                  static_cast<long long>(k), static_cast<long long>(k),
                  b == kiln::signal::boundary::symm ? "symm" : "fill", ms, gbps, gbps / copy_gbps, ms10);
    }
  }
  const auto big = rng.random<float>({2048, 2048}, gpu), filt = rng.random<float>({64, 64}, gpu);
  kiln::array<float> conv;
  const double fft_ms = bench::median_ms([&] { conv = kiln::signal::fftconvolve(big, filt, kiln::signal::mode::same); });
  std::printf("{\"suite\": \"gpu_signal\", \"name\": \"fftconvolve 2048^2 f32 64^2 same\", \"impl\": \"kiln\", "
              "\"ms\": %.4f}\n",
              fft_ms);
  return failures ? 1 : 0;
}
