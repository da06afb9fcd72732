// kiln::signal against scipy.signal's definitions, computed in long double
// on random data: convolve and correlate (1-d to 3-d, every mode, the
// direct, FFT and automatic methods, valid mode's swap, complex and integer
// values), convolve2d and correlate2d (every boundary, a fill value, the
// unrolled 3/5/7 filters and others, filters larger than the image), and
// fftconvolve (every mode, batched over an axis); NumPy/SciPy's errors. On a
// GPU (where present) the same, through kiln_conv2d and cuFFT.
// (test/difftest/difftest.py's signal programs compare with SciPy itself;
// these definitions were checked against SciPy 1.17 with the same script.)
#include "expect.hpp"
#include "gpu.hpp"
#include "host_arrays.hpp"

#include <kiln/kiln.hpp>
#include <kiln/signal.hpp>

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;
using cld = std::complex<long double>;
namespace sig = kiln::signal;

/// An n-d array in long double complex, C order.
struct nd {
  std::vector<std::int64_t> shape;
  std::vector<cld> v;
  std::int64_t size() const {
    std::int64_t n = 1;
    for (std::int64_t s : shape)
      n *= s;
    return n;
  }
  std::vector<std::int64_t> index(std::int64_t flat) const {
    std::vector<std::int64_t> i(shape.size());
    for (std::int64_t a = std::int64_t(shape.size()) - 1; a >= 0; --a) {
      i[a] = flat % shape[a];
      flat /= shape[a];
    }
    return i;
  }
  std::int64_t flat(const std::vector<std::int64_t> &i) const {
    std::int64_t f = 0;
    for (std::size_t a = 0; a < shape.size(); ++a)
      f = f * shape[a] + i[a];
    return f;
  }
};

template <class T> nd to_nd(const kiln::array<T> &x) {
  nd r;
  for (std::int64_t s : x.shape())
    r.shape.push_back(s);
  for (const T &e : x.to_vector()) {
    if constexpr (is_cplx<T>)
      r.v.emplace_back(e.real(), e.imag());
    else
      r.v.emplace_back(static_cast<long double>(e), 0);
  }
  return r;
}

enum class bc { fill, wrap, symm };

/// The value of `a` at index `i` extended by a boundary condition.
cld extended(const nd &a, std::vector<std::int64_t> i, bc b, cld fill) {
  for (std::size_t d = 0; d < i.size(); ++d) {
    const std::int64_t n = a.shape[d];
    if (i[d] >= 0 && i[d] < n)
      continue;
    if (b == bc::fill)
      return fill;
    if (b == bc::wrap)
      i[d] = ((i[d] % n) + n) % n;
    else {
      std::int64_t m = ((i[d] % (2 * n)) + 2 * n) % (2 * n);
      i[d] = m < n ? m : 2 * n - 1 - m;
    }
  }
  return a.v[a.flat(i)];
}

nd reversed(const nd &a) {
  nd r = a;
  for (std::int64_t f = 0; f < a.size(); ++f) {
    std::vector<std::int64_t> i = a.index(f);
    for (std::size_t d = 0; d < i.size(); ++d)
      i[d] = a.shape[d] - 1 - i[d];
    r.v[a.flat(i)] = a.v[f];
  }
  return r;
}

/// SciPy's definitions: a full correlation sum_k a[f + k - (K - 1)] w[k]
/// with w = flip(v) (convolve) or conj(v) (correlate), centered for `same`
/// at (K-1)/2, or K/2 for correlate2d, valid mode's swap included.
nd reference(nd a, nd v, sig::mode m, bool correlate, bool two_d, bc b = bc::fill, cld fill = 0) {
  bool swap = false;
  if (m == sig::mode::valid)
    for (std::size_t d = 0; d < a.shape.size(); ++d)
      swap = swap || a.shape[d] < v.shape[d];
  if (swap)
    std::swap(a, v);
  nd w = correlate ? v : reversed(v);
  if (correlate)
    for (cld &x : w.v)
      x = std::conj(x);
  nd out;
  std::vector<std::int64_t> start;
  for (std::size_t d = 0; d < a.shape.size(); ++d) {
    const std::int64_t n = a.shape[d], k = v.shape[d];
    out.shape.push_back(m == sig::mode::full ? n + k - 1 : m == sig::mode::same ? n : n - k + 1);
    start.push_back(m == sig::mode::full ? 0 : m == sig::mode::same ? (correlate && two_d ? k / 2 : (k - 1) / 2) : k - 1);
  }
  out.v.assign(std::size_t(out.size()), cld(0));
  for (std::int64_t o = 0; o < out.size(); ++o) {
    const std::vector<std::int64_t> oi = out.index(o);
    cld sum = 0;
    for (std::int64_t k = 0; k < w.size(); ++k) {
      const std::vector<std::int64_t> ki = w.index(k);
      std::vector<std::int64_t> at(oi.size());
      for (std::size_t d = 0; d < oi.size(); ++d)
        at[d] = oi[d] + start[d] + ki[d] - (v.shape[d] - 1);
      sum += extended(a, at, b, fill) * w.v[k];
    }
    out.v[o] = sum;
  }
  if (correlate && swap) {
    out = reversed(out);
    if (!two_d)
      for (cld &x : out.v)
        x = std::conj(x);
  }
  return out;
}

long double error(const nd &got, const nd &want) {
  EXPECT_EQ(got.shape, want.shape);
  long double worst = 0, scale = 1e-30L;
  for (std::size_t i = 0; i < std::min(got.v.size(), want.v.size()); ++i) {
    worst = std::max(worst, std::abs(got.v[i] - want.v[i]));
    scale = std::max(scale, std::abs(want.v[i]));
  }
  return worst / scale;
}

template <class T> kiln::array<T> random_array(const kiln::shape &s, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(std::size_t(s.numel()));
  for (T &e : v) {
    if constexpr (is_cplx<T>)
      e = T(u(gen), u(gen));
    else if constexpr (std::is_integral_v<T>)
      e = static_cast<T>(std::lround(u(gen) * 5));
    else
      e = static_cast<T>(u(gen));
  }
  return make(v, s);
}

template <class T> long double tolerance() {
  return std::is_integral_v<T> ? 0.0L : std::is_same_v<kiln::var_result_t<T>, float> ? 1e-5L : 1e-12L;
}

template <class T> void check_nd(kiln::device dev) {
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " on " + dev.str();
  const long double tol = tolerance<T>();
  struct shapes {
    kiln::shape a, v;
  };
  const std::vector<shapes> cases = {{{40}, {5}}, {{33}, {8}}, {{4}, {9}}, {{12, 9}, {3, 4}}, {{5, 6}, {7, 2}},
                                     {{3, 4, 5}, {2, 3, 2}}};
  std::uint32_t seed = 1;
  for (const shapes &c : cases) {
    const auto a = random_array<T>(c.a, seed++), v = random_array<T>(c.v, seed++);
    const nd A = to_nd(a), V = to_nd(v);
    for (sig::mode m : {sig::mode::full, sig::mode::same, sig::mode::valid}) {
      bool valid_ok = true;
      if (m == sig::mode::valid) { // one must be at least as large as the other
        bool ge = true, le = true;
        for (std::size_t d = 0; d < c.a.size(); ++d) {
          ge = ge && c.a[d] >= c.v[d];
          le = le && c.a[d] <= c.v[d];
        }
        valid_ok = ge || le;
      }
      if (!valid_ok) {
        EXPECT_THROW((void)sig::convolve(a.to(dev), v.to(dev), m), kiln::value_error) << t;
        continue;
      }
      for (bool corr : {false, true})
        for (sig::method how : {sig::method::direct, sig::method::fft, sig::method::automatic}) {
          if (std::is_integral_v<T> && how == sig::method::fft && c.a.size() > 1)
            continue; // rounding an FFT's integers is exact only for small sums; direct covers them
          const kiln::array<T> r = corr ? sig::correlate(a.to(dev), v.to(dev), m, how) : sig::convolve(a.to(dev), v.to(dev), m, how);
          EXPECT_EQ(r.device(), dev) << t;
          EXPECT_LE(error(to_nd(r), reference(A, V, m, corr, false)),
                    how == sig::method::direct || std::is_integral_v<T> ? tol : std::max(tol, 1e-6L) * 10)
              << t << " " << (corr ? "correlate" : "convolve") << " mode " << int(m) << " method " << int(how)
              << " shape " << c.a.size() << "-d";
        }
    }
  }
}

template <class T> void check_2d(kiln::device dev) {
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " on " + dev.str();
  const long double tol = tolerance<T>();
  const auto img = random_array<T>({45, 70}, 11);
  const nd I = to_nd(img);
  // Unrolled (3, 5, 7), general (4 x 6, 1 x 9), larger than the image in a dimension (50 x 3).
  const std::vector<kiln::shape> kernels = {{3, 3}, {5, 5}, {7, 7}, {4, 6}, {1, 9}, {50, 3}};
  std::uint32_t seed = 20;
  for (const kiln::shape &ks : kernels) {
    const auto k = random_array<T>(ks, seed++);
    const nd K = to_nd(k);
    for (sig::mode m : {sig::mode::full, sig::mode::same, sig::mode::valid}) {
      if (m == sig::mode::valid && ks[0] > 45)
        continue; // neither is larger in every dimension
      for (bc b : {bc::fill, bc::wrap, bc::symm})
        for (bool corr : {false, true}) {
          const auto bb = b == bc::fill ? sig::boundary::fill : b == bc::wrap ? sig::boundary::wrap : sig::boundary::symm;
          // (A fill of the array's type: SciPy converts it, 0.5 is 0 for integers.)
          const std::complex<double> fill = b != bc::fill ? 0.0 : std::is_integral_v<T> ? 2.0 : 0.5;
          const kiln::array<T> r = corr ? sig::correlate2d(img.to(dev), k.to(dev), m, bb, fill)
                                        : sig::convolve2d(img.to(dev), k.to(dev), m, bb, fill);
          EXPECT_LE(error(to_nd(r), reference(I, K, m, corr, true, b, cld(fill.real(), 0))), tol)
              << t << " " << (corr ? "correlate2d" : "convolve2d") << " " << ks[0] << "x" << ks[1] << " mode "
              << int(m) << " boundary " << int(b);
        }
    }
  }
}

template <class T> void check_fftconvolve(kiln::device dev) {
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " on " + dev.str();
  const long double tol = std::max(tolerance<T>(), 1e-12L) * 100;
  const auto a = random_array<T>({3, 50}, 31), v = random_array<T>({1, 7}, 32);
  // Along axis 1 only: three convolutions of rows with one filter.
  for (sig::mode m : {sig::mode::full, sig::mode::same, sig::mode::valid}) {
    const auto r = sig::fftconvolve(a.to(dev), v.to(dev), m, 1);
    const nd R = to_nd(r), V = to_nd(v.reshape({7}));
    const nd A = to_nd(a);
    for (std::int64_t row = 0; row < 3; ++row) {
      nd one{{50}, std::vector<cld>(A.v.begin() + row * 50, A.v.begin() + (row + 1) * 50)};
      const nd want = reference(one, V, m, false, false);
      nd got{{R.shape[1]}, std::vector<cld>(R.v.begin() + row * R.shape[1], R.v.begin() + (row + 1) * R.shape[1])};
      EXPECT_LE(error(got, want), tol) << t << " fftconvolve axis 1 mode " << int(m);
    }
  }
  const auto b = random_array<T>({9, 8}, 33), k = random_array<T>({4, 3}, 34);
  EXPECT_LE(error(to_nd(sig::fftconvolve(b.to(dev), k.to(dev))), reference(to_nd(b), to_nd(k), sig::mode::full, false, false)),
            tol)
      << t << " fftconvolve 2-d";
}

TEST(Signal, EveryDtypeOnTheHost) {
  const kiln::device host = kiln::device::host();
  check_nd<float>(host);
  check_nd<double>(host);
  check_nd<c128>(host);
  check_nd<std::int32_t>(host);
  check_2d<float>(host);
  check_2d<double>(host);
  check_2d<c64>(host);
  check_2d<std::int64_t>(host);
  check_fftconvolve<float>(host);
  check_fftconvolve<c128>(host);
  static_assert(std::is_same_v<decltype(sig::fftconvolve(kiln::array<std::int32_t>(), kiln::array<std::int32_t>())),
                               kiln::array<double>>);
}

TEST(SignalGpu, EveryDtypeOnTheGpu) {
  KILN_REQUIRE_GPU();
  const kiln::device gpu = kiln::device::cuda(0);
  check_nd<float>(gpu);
  check_nd<double>(gpu);
  check_nd<c64>(gpu);
  check_nd<std::int32_t>(gpu);
  check_2d<float>(gpu);
  check_2d<double>(gpu);
  check_2d<c64>(gpu);
  check_2d<c128>(gpu);
  check_fftconvolve<float>(gpu);
  check_fftconvolve<c64>(gpu);
}

/// The square filters' persistent kernel on images of several tiles: tiles
/// inside the image (16-byte pieces when rows are aligned, elements when
/// they are not, as for 523 columns or a view one column in), tiles on the
/// boundary, every shift of the window (3, 5, 7 and `valid`'s origin).
template <class T> void check_large_2d(kiln::device dev) {
  const std::string t =
      std::string(kiln::name(kiln::dtype_of<T>)) + " on " + dev.str();
  const long double tol = tolerance<T>();
  const auto aligned = random_array<T>({150, 520}, 41).to(dev),
             odd = random_array<T>({97, 523}, 42).to(dev);
  const kiln::array<T> view =
      aligned.slice({kiln::all, kiln::range(1, std::nullopt)});
  std::uint32_t seed = 50;
  for (std::int64_t ks : {3, 5, 7}) {
    const auto k = random_array<T>({ks, ks}, seed++);
    const nd K = to_nd(k);
    for (const kiln::array<T> *img : {&aligned, &odd, &view}) {
      const nd I = to_nd(*img);
      for (sig::mode m : {sig::mode::full, sig::mode::same, sig::mode::valid})
        for (bc b : {bc::fill, bc::wrap, bc::symm}) {
          if (m != sig::mode::same && b != bc::fill)
            continue; // the boundary is exercised by `same`; full and valid
                      // move the origin
          const auto bb = b == bc::fill   ? sig::boundary::fill
                          : b == bc::wrap ? sig::boundary::wrap
                                          : sig::boundary::symm;
          const bool corr = b == bc::wrap;
          const std::complex<double> fill = b == bc::fill ? 0.25 : 0.0;
          const kiln::array<T> r =
              corr ? sig::correlate2d(*img, k.to(dev), m, bb, fill)
                   : sig::convolve2d(*img, k.to(dev), m, bb, fill);
          EXPECT_LE(error(to_nd(r), reference(I, K, m, corr, true, b,
                                              cld(fill.real(), 0))),
                    tol)
              << t << " " << img->shape()[0] << "x" << img->shape()[1]
              << " filter " << ks << " mode " << int(m) << " boundary "
              << int(b);
        }
    }
  }
}

TEST(SignalGpu, SquareFiltersOnLargeImages) {
  KILN_REQUIRE_GPU();
  const kiln::device gpu = kiln::device::cuda(0);
  check_large_2d<float>(gpu);
  check_large_2d<double>(gpu);
  check_large_2d<c64>(gpu);
  check_large_2d<c128>(gpu);
}

TEST(Signal, SquareFiltersOnLargeImagesOnTheHost) {
  check_large_2d<float>(kiln::device::host());
}

TEST(Signal, Errors) {
  const auto a = random_array<double>({4, 5}, 1), v = random_array<double>({3}, 2), w = random_array<double>({6, 2}, 3);
  expect_message<kiln::value_error>(
      [&] { (void)sig::convolve(a, v); },
      "in1 and in2 should have the same dimensionality");
  expect_message<kiln::value_error>(
      [&] { (void)sig::convolve(a, w, sig::mode::valid); },
      "For 'valid' mode, one must be at least as large as the other in every "
      "dimension");
  expect_message<kiln::value_error>(
      [&] { (void)sig::convolve2d(a, v); },
      "convolve2d inputs must both be 2-D arrays");
  expect_message<kiln::value_error>(
      [&] {
        (void)sig::fftconvolve(random_array<double>({3, 5}, 4),
                               random_array<double>({2, 5}, 5), sig::mode::full,
                               1);
      },
      "incompatible shapes for in1 and in2: (3, 5) and (2, 5)");
}

} // namespace
