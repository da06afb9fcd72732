// A convolution fused with its elementwise producer and consumer (issue 26:
// the tutorial's blur followed by a threshold is one kernel) on a GPU,
// beside the same work unfused in Kiln (the runtime's convolve2d, then the
// threshold), CuPy and PyTorch (gpu_stencil_peers.py, same run): 4096^2
// float32, filters of 3x3, 5x5 and 7x7 (stencil kernels) and 4x4 (no
// kernel: the group's unfused form, producer and consumer kernels around
// the runtime's convolution), mode
// same, boundary symm and wrap, as bandwidth (image read, result written)
// over the device copy. Each result is checked at a sample of pixels
// against a float64 sum. One JSON line each.
#include "bench.hpp"

#include <kiln/signal.hpp>

#include <cmath>
#include <cstdio>

namespace sg = kiln::signal;
using f32 = kiln::array<float>;

KILN_FUSE f32 blur_threshold(const f32 &img, const f32 &k, float t) {
  auto b = sg::convolve2d(img, k, sg::mode::same, sg::boundary::symm);
  return kiln::where(b > t, 1.0f, 0.0f);
}

KILN_FUSE f32 blur_threshold_wrap(const f32 &img, const f32 &k, float t) {
  auto b = sg::convolve2d(img, k, sg::mode::same, sg::boundary::wrap);
  return kiln::where(b > t, 1.0f, 0.0f);
}

/// A producer too: gamma-correct, blur, threshold.
KILN_FUSE f32 gamma_blur_threshold(const f32 &img, const f32 &k, float t) {
  auto b = sg::convolve2d(img * img, k, sg::mode::same, sg::boundary::symm);
  return kiln::where(b > t, 1.0f, 0.0f);
}

namespace {
int failures = 0;

/// The blur of `img` (squared when `square`) at a sample of pixels, in
/// float64, against the thresholded result (pixels within 1e-5 of the
/// threshold skipped).
bool check(const std::vector<float> &img, const std::vector<float> &out,
           std::int64_t n, std::int64_t k, const std::vector<float> &taps,
           float t, bool wrap, bool square) {
  auto fold = [&](std::int64_t x) {
    if (wrap)
      return ((x % n) + n) % n;
    return x < 0 ? -x - 1 : x >= n ? 2 * n - 1 - x : x;
  };
  for (std::int64_t i = 0; i < n; i += 509)
    for (std::int64_t j = 0; j < n; j += 331) {
      double s = 0;
      for (std::int64_t p = 0; p < k; ++p)
        for (std::int64_t q = 0; q < k; ++q) {
          double v =
              img[fold(i + (k - 1) / 2 - p) * n + fold(j + (k - 1) / 2 - q)];
          s += (square ? v * v : v) * taps[p * k + q];
        }
      if (std::abs(s - t) > 1e-5 && (s > t ? 1.0f : 0.0f) != out[i * n + j])
        return false;
    }
  return true;
}
} // namespace

int main() {
  if (kiln::cuda_device_count() == 0) {
    std::printf("{\"suite\": \"gpu_stencil\", \"skipped\": \"no CUDA GPU\"}\n");
    return 0;
  }
  const kiln::device gpu = kiln::device::cuda(0);
  kiln::set_current_device(gpu);
  auto rng = kiln::random::default_rng(5);
  const std::int64_t n = 4096;
  const auto img = rng.random<float>({n, n}, gpu);
  auto copy_out = kiln::empty<float>({n, n}, gpu);
  const double bytes = 2.0 * double(img.nbytes());
  const double copy_ms = bench::median_ms([&] { kiln::copyto(copy_out, img); });
  const double copy_gbps = bytes / (copy_ms * 1e-3) / 1e9;
  std::printf("{\"suite\": \"gpu_stencil\", \"name\": \"copy 4096^2 f32\", "
              "\"ms\": %.4f, \"gbps\": %.1f}\n",
              copy_ms, copy_gbps);
  const std::vector<float> host_img = img.to_vector();
  auto report = [&](const char *name, const char *impl, double ms) {
    const double gbps = bytes / (ms * 1e-3) / 1e9;
    std::printf("{\"suite\": \"gpu_stencil\", \"name\": \"%s\", \"impl\": "
                "\"%s\", \"ms\": %.4f, \"gbps\": %.1f, "
                "\"of_copy\": %.3f}\n",
                name, impl, ms, gbps, gbps / copy_gbps);
  };
  // The mode as a value kilnc cannot see: the runtime's convolve2d, unfused.
  volatile int same = 1;
  const sg::mode runtime_mode = same ? sg::mode::same : sg::mode::full;
  for (std::int64_t k : {5, 3, 7, 4}) {
    const auto taps = kiln::full<float>({k, k}, 1.0f / float(k * k), gpu);
    const float t = 0.5f;
    char name[96];
    for (int variant = 0; variant < 3; ++variant) {
      if (variant > 0 && k != 5)
        continue;
      const bool wrap = variant == 1, square = variant == 2;
      f32 out;
      auto fused = [&] {
        out = wrap     ? blur_threshold_wrap(img, taps, t)
              : square ? gamma_blur_threshold(img, taps, t)
                       : blur_threshold(img, taps, t);
      };
      const double ms = bench::median_ms(fused);
      if (!check(host_img, out.to_vector(), n, k, taps.to_vector(), t, wrap,
                 square)) {
        std::printf("{\"suite\": \"gpu_stencil\", \"error\": \"wrong result "
                    "for %lldx%lld\"}\n",
                    static_cast<long long>(k), static_cast<long long>(k));
        ++failures;
      }
      std::snprintf(name, sizeof name,
                    "%sblur+threshold 4096^2 f32 %lldx%lld %s",
                    square ? "square+" : "", static_cast<long long>(k),
                    static_cast<long long>(k), wrap ? "wrap" : "symm");
      const char *impl = k == 4 ? "kiln (unfused form)" : "kiln fused";
      report(name, impl, ms);
      // Ten calls back to back: the GPU's time per call once the host's
      // enqueueing runs ahead of it.
      report(name, k == 4 ? "kiln (unfused form) x10" : "kiln fused x10", bench::median_ms([&] {
                                       for (int i = 0; i < 10; ++i)
                                         fused();
                                     }) / 10.0);
      if (variant == 0) {
        const double unfused = bench::median_ms([&] {
          auto b = sg::convolve2d(img, taps, runtime_mode, sg::boundary::symm);
          out = kiln::where(b > t, 1.0f, 0.0f);
        });
        report(name, "kiln unfused", unfused);
      }
    }
  }
  return failures ? 1 : 0;
}
