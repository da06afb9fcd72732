// The image cells of the CuPy tutorials in Kiln (003): a 1024 x 1024
// float32 grayscale image blurred by a normalized 3 x 3 box filter with
// scipy.signal.convolve2d(img, box, mode="same", boundary="symm"), its edges
// by the Sobel-like kernel, and a threshold of the blur, each checked
// against a float64 reference computed on the host. (A synthetic image
// stands in for image.jpg: smooth gradients with noise, values 0..255.)
// The blur followed by its threshold in a KILN_FUSE function is one kernel
// (kilnc's stencil family: the image read once, the mask written once).
#include "check.hpp"

#include <kiln/signal.hpp>

#include <cmath>
#include <vector>

namespace {

/// convolve2d(img, k, same, symm) at every pixel, in float64.
std::vector<double> reference(const std::vector<float> &img, std::int64_t n, const std::vector<float> &k) {
  auto fold = [&](std::int64_t x) { return x < 0 ? -x - 1 : x >= n ? 2 * n - 1 - x : x; };
  std::vector<double> out(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t p = 0; p < 3; ++p)
        for (std::int64_t q = 0; q < 3; ++q)
          s += double(img[fold(i + 1 - p) * n + fold(j + 1 - q)]) * k[p * 3 + q];
      out[i * n + j] = s;
    }
  return out;
}

} // namespace

/// The blur and its threshold: one kernel.
KILN_FUSE kiln::array<bool> bright_mask(const kiln::array<float> &img, const kiln::array<float> &box, float level) {
  return kiln::signal::convolve2d(img, box, kiln::signal::mode::same, kiln::signal::boundary::symm) > level;
}

int main() {
  const std::int64_t n = 1024;
  auto rng = kiln::random::default_rng(7);
  // The image: a gradient plus noise, 0..255.
  kiln::array<float> noise = rng.random<float>({n, n}) * 40.0f;
  std::vector<float> ramp(n * n);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      ramp[i * n + j] = float(215.0 * (0.5 + 0.5 * std::sin(0.01 * double(i)) * std::cos(0.013 * double(j))));
  kiln::array<float> img = kiln::asarray<float>(std::span<const float>(ramp.data(), ramp.size()), {n, n}) + noise;

  // box_kernel_np = ones((3, 3)) / 9; edge_kernel_np = [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]
  const std::vector<float> box_v(9, 1.0f / 9.0f), edge_v = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
  kiln::array<float> box = kiln::asarray<float>(std::span<const float>(box_v.data(), 9), {3, 3});
  kiln::array<float> edge = kiln::asarray<float>(std::span<const float>(edge_v.data(), 9), {3, 3});

  namespace sig = kiln::signal;
  kiln::array<float> blurred = sig::convolve2d(img, box, sig::mode::same, sig::boundary::symm);
  kiln::array<float> edges = sig::convolve2d(img, edge, sig::mode::same, sig::boundary::symm);
  kiln::array<bool> bright = bright_mask(img, box, 128.0f); // a threshold of the blur

  const std::vector<float> host_img = img.to_vector();
  const std::vector<double> want_blur = reference(host_img, n, box_v), want_edges = reference(host_img, n, edge_v);
  int rc = example::report("convolve2d(img, box, same, symm)", example::relative_error(blurred.to_vector(), want_blur),
                           1e-6, img.size());
  rc |= example::report("convolve2d(img, edge, same, symm)", example::relative_error(edges.to_vector(), want_edges),
                        1e-5, img.size());
  std::int64_t wrong = 0;
  const std::vector<bool> got = bright.to_vector();
  for (std::size_t i = 0; i < want_blur.size(); ++i)
    wrong += got[i] != (want_blur[i] > 128.0) && std::abs(want_blur[i] - 128.0) > 1e-3;
  rc |= example::report("blurred > 128", double(wrong), 0.0, img.size());
  return rc;
}
