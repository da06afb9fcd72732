// Convolutions fused with their elementwise producers and consumers (the
// stencil family: convolve2d/correlate2d with mode::same in a KILN_FUSE body
// or a plain statement), compiled by kilnc, against double references on
// random data: each boundary, the three kernels (3x3, 5x5, 7x7 filters),
// correlate's conjugated taps, fill values, views (a transposed, sliced
// image; a transposed filter), integer and complex types, a filter computed
// first, a reduction of the result, and the unfused form (the producer's
// and the consumer's kernels around the runtime's convolution) where no
// stencil kernel applies (other filter sizes, even ones included; an image
// smaller than the filter; operands of other shapes).
#include "e2e.hpp"

#include <kiln/signal.hpp>

using namespace e2e;
namespace sg = kiln::signal;
using C = std::complex<double>;
using f32 = kiln::array<float>;
using f64 = kiln::array<double>;
using c64 = kiln::array<std::complex<float>>;
using i32 = kiln::array<int>;

KILN_FUSE f32 blur_threshold(const f32 &img, const f32 &k, float t) {
  auto b = sg::convolve2d(img * 2.0f, k, sg::mode::same, sg::boundary::symm);
  return kiln::where(b > t, 1.0f, 0.0f);
}

KILN_FUSE f64 sharpen(const f64 &x, const f64 &y, const f64 &k) {
  auto blurred = sg::convolve2d(kiln::exp(x) * y, k, sg::mode::same, sg::boundary::wrap);
  return x - 0.5 * blurred;
}

KILN_FUSE f32 correlate_fill(const f32 &x, const f32 &k, float fill) {
  return kiln::sqrt(kiln::abs(sg::correlate2d(x - 0.25f, k, sg::mode::same, sg::boundary::fill, fill)));
}

KILN_FUSE c64 complex_corr(const c64 &x, const c64 &k) {
  return sg::correlate2d(x * x, k, sg::mode::same, sg::boundary::fill, std::complex<double>(0.5, -1.0)) + x;
}

KILN_FUSE i32 int_wrap(const i32 &x, const i32 &k) {
  return sg::convolve2d(x * 3 - 1, k, sg::mode::same, sg::boundary::wrap) % 1000;
}

KILN_FUSE f32 normalized_blur(const f32 &x, const f32 &k) {
  return sg::convolve2d(x, k / kiln::sum(k), sg::mode::same, sg::boundary::symm);
}

/// An array as doubles (complex<double>), row-major.
template <class T> std::vector<C> values(const kiln::array<T> &a) {
  std::vector<C> out;
  for (const T &v : a.to_vector())
    out.push_back(widen(v));
  return out;
}

enum class Bd { fill, wrap, symm };

/// SciPy's correlate2d/convolve2d in mode same of an h x w image with a kh x kw
/// filter, in double.
std::vector<C> reference(const std::vector<C> &in, long h, long w, const std::vector<C> &taps, long kh, long kw,
                         bool correlate, Bd b, C fill) {
  auto map = [&](long i, long n) -> long {
    if (i >= 0 && i < n)
      return i;
    if (b == Bd::fill)
      return -1;
    if (b == Bd::wrap)
      return ((i % n) + n) % n;
    long m = ((i % (2 * n)) + 2 * n) % (2 * n);
    return m < n ? m : 2 * n - 1 - m;
  };
  long oy = (correlate ? kh / 2 : (kh - 1) / 2) - (kh - 1), ox = (correlate ? kw / 2 : (kw - 1) / 2) - (kw - 1);
  std::vector<C> out(static_cast<std::size_t>(h * w));
  for (long i = 0; i < h; ++i)
    for (long j = 0; j < w; ++j) {
      C s = 0;
      for (long p = 0; p < kh; ++p)
        for (long q = 0; q < kw; ++q) {
          long y = map(i + oy + p, h), x = map(j + ox + q, w);
          C v = y >= 0 && x >= 0 ? in[static_cast<std::size_t>(y * w + x)] : fill;
          C t = correlate ? std::conj(taps[static_cast<std::size_t>(p * kw + q)])
                          : taps[static_cast<std::size_t>((kh - 1 - p) * kw + (kw - 1 - q))];
          s += v * t;
        }
      out[static_cast<std::size_t>(i * w + j)] = s;
    }
  return out;
}

int main() {
  auto rng = kiln::random::default_rng(7);

  // The tutorial's blur + threshold, every kernel and a 4x4 filter (the
  // unfused form), on sizes that are not multiples of a block.
  for (long k : {3L, 5L, 7L, 4L}) {
    f32 img = rng.random<float>({67, 131}), taps = rng.random<float>({k, k});
    float t = 0.25f * static_cast<float>(k * k);
    f32 got = blur_threshold(img, taps, t);
    std::vector<C> x = values(img);
    for (C &v : x)
      v *= 2.0;
    std::vector<C> ref = reference(x, 67, 131, values(taps), k, k, false, Bd::symm, 0);
    // Values within rounding of the threshold may fall either way.
    expect("blur_threshold " + std::to_string(k), got, ref.size(), [&](std::size_t i) -> C {
      double v = ref[i].real();
      if (std::abs(v - t) < 1e-4 * t)
        return got.to_vector()[i];
      return v > t ? 1.0 : 0.0;
    }, 0);
  }

  // Producer over two inputs, consumer reading an input, wrap, 3x3 and a
  // 2x6 filter (even sizes, unfused: SciPy's centring).
  for (auto [kh, kw] : {std::pair{3L, 3L}, std::pair{2L, 6L}}) {
    f64 x = rng.random<double>({40, 33}), y = rng.random<double>({40, 33}), k = rng.random<double>({kh, kw});
    std::vector<C> xs = values(x), ys = values(y), prod(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i)
      prod[i] = std::exp(xs[i]) * ys[i];
    std::vector<C> ref = reference(prod, 40, 33, values(k), kh, kw, false, Bd::wrap, 0);
    expect("sharpen " + std::to_string(kh) + "x" + std::to_string(kw), sharpen(x, y, k), ref.size(),
           [&](std::size_t i) { return xs[i] - 0.5 * ref[i]; }, 1e-12);
  }

  // correlate2d with a fill value, 7x7 over an image smaller than the
  // filter in rows (unfused), and a transposed, sliced view as the image with
  // a transposed filter.
  {
    f32 x = rng.random<float>({5, 40}), k = rng.random<float>({7, 7});
    std::vector<C> xs = values(x);
    for (C &v : xs)
      v -= 0.25;
    std::vector<C> ref = reference(xs, 5, 40, values(k), 7, 7, true, Bd::fill, 1.5);
    expect("correlate_fill 5x40", correlate_fill(x, k, 1.5f), ref.size(),
           [&](std::size_t i) -> C { return std::sqrt(std::abs(ref[i])); }, 1e-5);

    f32 big = rng.random<float>({50, 30});
    f32 view = big.T().slice({kiln::range(2, 27), kiln::range(1, 49, 2)}); // 25 x 24, strided
    f32 k5 = rng.random<float>({5, 5}).T();
    std::vector<C> vs = values(view);
    for (C &v : vs)
      v -= 0.25;
    std::vector<C> ref2 = reference(vs, 25, 24, values(k5), 5, 5, true, Bd::fill, -2.0);
    expect("correlate_fill view", correlate_fill(view, k5, -2.0f), ref2.size(),
           [&](std::size_t i) -> C { return std::sqrt(std::abs(ref2[i])); }, 1e-5);
  }

  // Complex: correlate conjugates the taps; the fill value is complex.
  {
    auto cplx = [&](long r, long c) {
      return rng.random<float>({r, c}).astype<std::complex<float>>() +
             rng.random<float>({r, c}).astype<std::complex<float>>() * std::complex<float>(0, 1);
    };
    c64 x = cplx(21, 18), k = cplx(3, 3);
    std::vector<C> xs = values(x), sq(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i)
      sq[i] = xs[i] * xs[i];
    std::vector<C> ref = reference(sq, 21, 18, values(k), 3, 3, true, Bd::fill, C(0.5, -1.0));
    expect("complex_corr", complex_corr(x, k), ref.size(), [&](std::size_t i) { return ref[i] + xs[i]; }, 1e-5);
  }

  // Integers: exact, wrapping products, Python's remainder.
  {
    i32 x = rng.integers<int>(-50, 50, {30, 45}), k = rng.integers<int>(-9, 9, {5, 5});
    std::vector<C> xs = values(x);
    for (C &v : xs)
      v = v * 3.0 - 1.0;
    std::vector<C> ref = reference(xs, 30, 45, values(k), 5, 5, false, Bd::wrap, 0);
    expect("int_wrap", int_wrap(x, k), ref.size(), [&](std::size_t i) {
      long v = static_cast<long>(ref[i].real());
      long m = ((v % 1000) + 1000) % 1000;
      return C(static_cast<double>(m), 0);
    }, 0);
  }

  // A filter computed by its own kernels first.
  {
    f32 x = rng.random<float>({33, 64}), k = rng.random<float>({5, 5});
    std::vector<C> ks = values(k);
    C total = 0;
    for (C v : ks)
      total += v;
    for (C &v : ks)
      v /= total;
    std::vector<C> ref = reference(values(x), 33, 64, ks, 5, 5, false, Bd::symm, 0);
    expect("normalized_blur", normalized_blur(x, k), ref.size(), [&](std::size_t i) { return ref[i]; }, 1e-5);
  }

  // Plain statements fuse too: a reduction of the result (the convolution
  // is then a kernel of its own), and a consumer reading a row vector (other
  // shape: the unfused form runs, with NumPy's broadcasting).
  {
    f32 x = rng.random<float>({24, 50}), k = rng.random<float>({3, 3}), row = rng.random<float>({50});
    std::vector<C> ref = reference(values(x), 24, 50, values(k), 3, 3, false, Bd::symm, 0);
    f32 total = kiln::sum(sg::convolve2d(x, k, sg::mode::same, sg::boundary::symm));
    C want = 0;
    for (C v : ref)
      want += v;
    expect("sum of convolution", total, 1, [&](std::size_t) { return want; }, 1e-5);
    f32 scaled = sg::convolve2d(x, k, sg::mode::same, sg::boundary::symm) * row;
    std::vector<C> rs = values(row);
    expect("broadcast consumer (unfused)", scaled, ref.size(), [&](std::size_t i) { return ref[i] * rs[i % 50]; },
           1e-5);
  }

  // On a GPU, images whose rows are 4-element aligned run the tiled kernels
  // (100 x 264: interior tiles copied in pieces, edge tiles through the
  // boundary, a last column of tiles mostly outside the image, a last row
  // of tiles 4 rows high); a view starting one element in runs the column
  // kernels. Every filter size, boundary and dtype of the groups above.
  for (long k : {3L, 5L, 7L}) {
    const std::string n = " tiled " + std::to_string(k);
    f32 img = rng.random<float>({100, 268}), taps = rng.random<float>({k, k});
    for (bool shifted : {false, true}) {
      f32 x = img.slice({kiln::range(0, 100), kiln::range(shifted ? 1 : 0, shifted ? 265 : 264)});
      std::vector<C> xs = values(x), doubled = xs, lowered = xs;
      for (C &v : doubled)
        v *= 2.0;
      for (C &v : lowered)
        v -= 0.25;
      const std::string m = n + (shifted ? " shifted" : "");
      float t = 0.25f * static_cast<float>(k * k);
      f32 got = blur_threshold(x, taps, t);
      std::vector<C> ref = reference(doubled, 100, 264, values(taps), k, k, false, Bd::symm, 0);
      std::vector<float> gv = got.to_vector();
      expect("blur_threshold" + m, got, ref.size(), [&](std::size_t i) -> C {
        double v = ref[i].real();
        return std::abs(v - t) < 1e-4 * t ? gv[i] : v > t ? 1.0 : 0.0;
      }, 0);
      std::vector<C> fill = reference(lowered, 100, 264, values(taps), k, k, true, Bd::fill, 1.5);
      expect("correlate_fill" + m, correlate_fill(x, taps, 1.5f), fill.size(),
             [&](std::size_t i) -> C { return std::sqrt(std::abs(fill[i])); }, 1e-5);
    }
    f64 x = rng.random<double>({100, 264}), y = rng.random<double>({100, 264}), kd = rng.random<double>({k, k});
    std::vector<C> xs = values(x), ys = values(y), prod(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i)
      prod[i] = std::exp(xs[i]) * ys[i];
    std::vector<C> ref = reference(prod, 100, 264, values(kd), k, k, false, Bd::wrap, 0);
    expect("sharpen" + n, sharpen(x, y, kd), ref.size(), [&](std::size_t i) { return xs[i] - 0.5 * ref[i]; },
           1e-12);
    i32 xi = rng.integers<int>(-50, 50, {100, 264}), ki = rng.integers<int>(-9, 9, {k, k});
    std::vector<C> is = values(xi);
    for (C &v : is)
      v = v * 3.0 - 1.0;
    std::vector<C> iref = reference(is, 100, 264, values(ki), k, k, false, Bd::wrap, 0);
    expect("int_wrap" + n, int_wrap(xi, ki), iref.size(), [&](std::size_t i) {
      long v = static_cast<long>(iref[i].real());
      return C(static_cast<double>(((v % 1000) + 1000) % 1000), 0);
    }, 0);
  }

  // Errors come from the unfused form's convolution, as SciPy's.
  try {
    f32 one_d = rng.random<float>({10}), k = rng.random<float>({3, 3});
    f32 bad = blur_threshold(one_d, k, 1.0f);
    std::printf("FAIL 1-d image: no error\n");
    ++failures;
  } catch (const kiln::value_error &e) {
    ++checks;
    if (std::string(e.what()) != "convolve2d inputs must both be 2-D arrays") {
      std::printf("FAIL 1-d image: '%s'\n", e.what());
      ++failures;
    }
  }
  return finish("stencil_fusion");
}
