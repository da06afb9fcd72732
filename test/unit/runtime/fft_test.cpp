// kiln::fft against the discrete Fourier transform computed by definition in
// long double on random data: fft/ifft, rfft/irfft, hfft/ihfft and the n-d
// forms, every float and complex dtype and an integer input, odd and even
// lengths, padding and truncation (n, s), every axis, transposed and
// stepped views, the three norms, four transformed axes (more than cuFFT
// takes at once), round trips; fftfreq, rfftfreq, fftshift, ifftshift;
// NumPy's errors; and on a GPU (where present) the same through cuFFT, and
// the plan cache.
#include "expect.hpp"
#include "gpu.hpp"
#include "host_arrays.hpp"

#include <kiln/fft.hpp>
#include <kiln/kiln.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;
using cld = std::complex<long double>;

/// An n-d array of long double complex values, C order.
struct nd {
  kiln::shape shape;
  std::vector<cld> v;
  std::int64_t stride(std::int64_t axis) const {
    std::int64_t s = 1;
    for (std::size_t d = std::size_t(axis) + 1; d < shape.size(); ++d)
      s *= shape[d];
    return s;
  }
};

template <class T> cld as_cld(T v) {
  if constexpr (is_cplx<T>)
    return cld(v.real(), v.imag());
  else
    return cld(static_cast<long double>(v), 0);
}

template <class T> nd to_nd(const kiln::array<T> &x) {
  nd r{x.shape(), {}};
  for (const T &e : x.to_vector())
    r.v.push_back(as_cld(e));
  return r;
}

/// The DFT of `x` along `axis` with n points (zero-padded or cut first), in
/// direction `forward`, scaled by `scale`.
nd dft(const nd &x, std::int64_t axis, std::int64_t n, bool forward, long double scale) {
  nd out{x.shape, {}};
  out.shape[std::size_t(axis)] = n;
  out.v.assign(std::size_t(out.shape.numel()), cld(0));
  const std::int64_t have = x.shape[std::size_t(axis)], inner = x.stride(axis), outer = x.shape.numel() / std::max<std::int64_t>(have * inner, 1);
  const long double sign = forward ? -1 : 1;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i)
      for (std::int64_t k = 0; k < n; ++k) {
        cld sum = 0;
        for (std::int64_t j = 0; j < std::min(have, n); ++j) {
          const long double angle = sign * 2 * std::numbers::pi_v<long double> * (long double)((j * k) % n) / n;
          sum += x.v[std::size_t((o * have + j) * inner + i)] * cld(std::cos(angle), std::sin(angle));
        }
        out.v[std::size_t((o * n + k) * inner + i)] = sum * scale;
      }
  return out;
}

/// x cut to its first m entries along `axis`.
nd cut(const nd &x, std::int64_t axis, std::int64_t m) {
  nd out{x.shape, {}};
  out.shape[std::size_t(axis)] = m;
  const std::int64_t have = x.shape[std::size_t(axis)], inner = x.stride(axis), outer = x.shape.numel() / std::max<std::int64_t>(have * inner, 1);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < m; ++j)
      for (std::int64_t i = 0; i < inner; ++i)
        out.v.push_back(x.v[std::size_t((o * have + j) * inner + i)]);
  return out;
}

long double max_error(const nd &got, const nd &want) {
  EXPECT_EQ(got.shape, want.shape);
  long double worst = 0, scale = 1e-30L;
  for (std::size_t i = 0; i < std::min(got.v.size(), want.v.size()); ++i) {
    worst = std::max(worst, std::abs(got.v[i] - want.v[i]));
    scale = std::max(scale, std::abs(want.v[i]));
  }
  return worst / scale;
}

template <class T> std::vector<T> random_values(std::size_t count, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(count);
  for (auto &e : v) {
    if constexpr (is_cplx<T>)
      e = T(u(gen), u(gen));
    else if constexpr (std::is_integral_v<T>)
      e = static_cast<T>(std::lround(u(gen) * 9));
    else
      e = static_cast<T>(u(gen));
  }
  return v;
}

template <class T> long double tolerance() {
  return std::is_same_v<kiln::var_result_t<T>, float> ? 2e-5L : 1e-12L;
}

template <class T> void check_c2c(kiln::device dev) {
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " on " + dev.str();
  const long double tol = tolerance<T>();
  static_assert(std::is_same_v<typename decltype(kiln::fft::fft(kiln::array<T>()))::value_type, kiln::fft::complex_t<T>>);
  for (std::int64_t len : {1, 17, 100, 128, 243}) {
    const auto host = make(random_values<T>(3 * len, 1 + len), {3, len});
    const nd X = to_nd(host);
    const auto x = host.to(dev);
    EXPECT_LT(max_error(to_nd(kiln::fft::fft(x)), dft(X, 1, len, true, 1)), tol) << t << " fft " << len;
    EXPECT_LT(max_error(to_nd(kiln::fft::ifft(x)), dft(X, 1, len, false, 1.0L / len)), tol) << t << " ifft " << len;
    // n: padding and truncation; the norms.
    EXPECT_LT(max_error(to_nd(kiln::fft::fft(x, len + 5)), dft(X, 1, len + 5, true, 1)), tol) << t << " pad";
    if (len > 2)
      EXPECT_LT(max_error(to_nd(kiln::fft::fft(x, len - 2)), dft(X, 1, len - 2, true, 1)), tol) << t << " cut";
    EXPECT_LT(max_error(to_nd(kiln::fft::fft(x, {}, -1, kiln::fft::norm::ortho)), dft(X, 1, len, true, 1 / std::sqrt((long double)len))),
              tol)
        << t << " ortho";
    EXPECT_LT(max_error(to_nd(kiln::fft::fft(x, {}, -1, kiln::fft::norm::forward)), dft(X, 1, len, true, 1.0L / len)), tol)
        << t << " forward";
    EXPECT_LT(max_error(to_nd(kiln::fft::ifft(x, {}, -1, kiln::fft::norm::forward)), dft(X, 1, len, false, 1)), tol)
        << t << " ifft forward";
    // axis 0, and a round trip.
    EXPECT_LT(max_error(to_nd(kiln::fft::fft(x, {}, 0)), dft(X, 0, 3, true, 1)), tol) << t << " axis 0";
    EXPECT_LT(max_error(to_nd(kiln::fft::ifft(kiln::fft::fft(x))), to_nd(host.template astype<kiln::fft::complex_t<T>>())), tol)
        << t << " round trip";
  }
  // A transposed and a stepped view.
  const auto base = make(random_values<T>(12 * 10, 7), {12, 10});
  const auto view = base.to(dev).T().slice({kiln::all, kiln::range(0, std::nullopt, 3)}); // (10, 4)
  const nd V = to_nd(base.T().slice({kiln::all, kiln::range(0, std::nullopt, 3)}).copy());
  EXPECT_LT(max_error(to_nd(kiln::fft::fft(view, {}, 0)), dft(V, 0, 10, true, 1)), tol) << t << " view";
  EXPECT_LT(max_error(to_nd(kiln::fft::fft(view)), dft(V, 1, 4, true, 1)), tol) << t << " view last axis";
}

template <class T> void check_real(kiln::device dev) {
  using C = kiln::fft::complex_t<T>;
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " on " + dev.str();
  const long double tol = tolerance<T>();
  for (std::int64_t len : {1, 2, 15, 64, 101}) {
    const auto host = make(random_values<T>(2 * len, 11 + len), {2, len});
    const nd X = to_nd(host);
    const auto x = host.to(dev);
    const auto spectrum = kiln::fft::rfft(x);
    ASSERT_EQ(spectrum.shape(), (kiln::shape{2, len / 2 + 1})) << t;
    EXPECT_LT(max_error(to_nd(spectrum), cut(dft(X, 1, len, true, 1), 1, len / 2 + 1)), tol) << t << " rfft " << len;
    // irfft(rfft(x), n) == x; the default n is 2 (m - 1).
    const auto back = kiln::fft::irfft(spectrum, len);
    static_assert(std::is_same_v<typename decltype(back)::value_type, kiln::fft::real_t<C>>);
    EXPECT_LT(max_error(to_nd(back), X), tol) << t << " irfft " << len;
    if (len > 1)
      EXPECT_EQ(kiln::fft::irfft(spectrum).shape()[1], 2 * (len / 2)) << t;
    // ihfft(x) = conj(rfft(x)) / n, and hfft(ihfft(x), n) == x.
    const nd H = to_nd(kiln::fft::ihfft(x));
    nd want = cut(dft(X, 1, len, true, 1.0L / len), 1, len / 2 + 1);
    for (cld &v : want.v)
      v = std::conj(v);
    EXPECT_LT(max_error(H, want), tol) << t << " ihfft " << len;
    EXPECT_LT(max_error(to_nd(kiln::fft::hfft(kiln::fft::ihfft(x), len)), X), tol) << t << " hfft " << len;
  }
  // irfft against the inverse DFT of the Hermitian extension.
  const std::int64_t n = 9, m = n / 2 + 1;
  std::vector<C> half = random_values<C>(m, 21);
  half[0] = C(half[0].real(), 0);
  std::vector<C> full(n);
  for (std::int64_t k = 0; k < n; ++k)
    full[k] = k < m ? half[k] : std::conj(half[n - k]);
  const nd want = dft(to_nd(make(full, {n})), 0, n, false, 1.0L / n);
  EXPECT_LT(max_error(to_nd(kiln::fft::irfft(make(half, {m}).to(dev), n)), want), tol) << t << " irfft by definition";
}

template <class T> void check_nd(kiln::device dev) {
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " on " + dev.str();
  const long double tol = tolerance<T>() * 10;
  const auto host = make(random_values<T>(3 * 4 * 6 * 5, 31), {3, 4, 6, 5});
  const nd X = to_nd(host);
  const auto x = host.to(dev);
  // All four axes (cuFFT: three, then one more).
  nd all = X;
  for (std::int64_t a = 0; a < 4; ++a)
    all = dft(all, a, all.shape[std::size_t(a)], true, 1);
  EXPECT_LT(max_error(to_nd(kiln::fft::fftn(x)), all), tol) << t << " fftn";
  EXPECT_LT(max_error(to_nd(kiln::fft::ifftn(kiln::fft::fftn(x))), X), tol) << t << " ifftn(fftn)";
  // fft2 over the last two axes, with s padding and cutting.
  const nd two = dft(dft(X, 2, 8, true, 1), 3, 3, true, 1);
  EXPECT_LT(max_error(to_nd(kiln::fft::fft2(x, {8, 3})), two), tol) << t << " fft2 s";
  // Axes in the caller's order, not the last ones.
  const nd some = dft(dft(X, 2, 6, true, 1), 0, 3, true, 1);
  EXPECT_LT(max_error(to_nd(kiln::fft::fftn(x, {}, {2, 0})), some), tol) << t << " fftn axes";
  if constexpr (!is_cplx<T>) {
    // rfftn/irfftn round trip over three axes; rfft2 against fft2's half.
    const auto spectrum = kiln::fft::rfftn(x, {}, {1, 2, 3});
    ASSERT_EQ(spectrum.shape(), (kiln::shape{3, 4, 6, 3})) << t;
    EXPECT_LT(max_error(to_nd(kiln::fft::irfftn(spectrum, {4, 6, 5}, {1, 2, 3})), X), tol) << t << " irfftn";
    const nd full2 = to_nd(kiln::fft::fft2(x));
    EXPECT_LT(max_error(to_nd(kiln::fft::rfft2(x)), cut(full2, 3, 3)), tol) << t << " rfft2";
    // Four real axes on a GPU: the real ones, then c2c over the rest.
    EXPECT_LT(max_error(to_nd(kiln::fft::irfftn(kiln::fft::rfftn(x), {3, 4, 6, 5})), X), tol) << t << " 4-d real";
  }
}

TEST(Fft, EveryDtypeOnTheHost) {
  const kiln::device host = kiln::device::host();
  check_c2c<float>(host);
  check_c2c<double>(host);
  check_c2c<c64>(host);
  check_c2c<c128>(host);
  check_c2c<std::int32_t>(host);
  check_real<float>(host);
  check_real<double>(host);
  check_real<std::int32_t>(host);
  check_nd<float>(host);
  check_nd<c128>(host);
  check_nd<double>(host);
}

TEST(FftGpu, EveryDtypeInCuFft) {
  KILN_REQUIRE_GPU();
  const kiln::device gpu = kiln::device::cuda(0);
  check_c2c<float>(gpu);
  check_c2c<double>(gpu);
  check_c2c<c64>(gpu);
  check_c2c<c128>(gpu);
  check_c2c<std::int32_t>(gpu);
  check_real<float>(gpu);
  check_real<double>(gpu);
  check_nd<float>(gpu);
  check_nd<c128>(gpu);
  check_nd<double>(gpu);
  EXPECT_EQ(kiln::fft::fft(make(random_values<float>(8, 3), {8}).to(gpu)).device(), gpu);
}

TEST(FftGpu, PlanCache) {
  KILN_REQUIRE_GPU();
  const kiln::device gpu = kiln::device::cuda(0);
  kiln::fft::plan_cache cache = kiln::fft::get_plan_cache(gpu);
  cache.clear();
  EXPECT_EQ(cache.count(), 0u);
  EXPECT_EQ(cache.size(), 16u);
  const auto x = make(random_values<c64>(64, 5), {64}).to(gpu);
  (void)kiln::fft::fft(x);
  (void)kiln::fft::fft(x); // the same plan again
  EXPECT_EQ(cache.count(), 1u);
  (void)kiln::fft::fft(x, 32);
  (void)kiln::fft::rfft(kiln::real(x));
  EXPECT_EQ(cache.count(), 3u);
  cache.set_size(2);
  EXPECT_EQ(cache.count(), 2u);
  cache.set_memsize(0); // no work area fits: only plans of none stay
  EXPECT_LE(cache.current_memsize(), 0);
  cache.set_memsize(-1);
  cache.set_size(16);
  cache.clear();
  EXPECT_EQ(cache.count(), 0u);
  EXPECT_EQ(cache.current_memsize(), 0);
}

TEST(Fft, FrequenciesShiftsAndErrors) {
  const auto f = kiln::fft::fftfreq(5, 0.5, kiln::device::host()).to_vector();
  EXPECT_EQ(f, (std::vector<double>{0.0, 0.4, 0.8, -0.8, -0.4}));
  const auto g = kiln::fft::fftfreq(4, 1.0, kiln::device::host()).to_vector();
  EXPECT_EQ(g, (std::vector<double>{0.0, 0.25, -0.5, -0.25}));
  EXPECT_EQ(kiln::fft::rfftfreq(5, 1.0, kiln::device::host()).to_vector(), (std::vector<double>{0.0, 0.2, 0.4}));
  for (std::int64_t n : {5, 6}) {
    std::vector<std::int32_t> v(n);
    for (std::int64_t i = 0; i < n; ++i)
      v[i] = std::int32_t(i);
    const auto x = make(v, {n});
    const auto shifted = kiln::fft::fftshift(x).to_vector();
    for (std::int64_t i = 0; i < n; ++i)
      EXPECT_EQ(shifted[i], v[(i + n - n / 2) % n]) << n;
    EXPECT_EQ(kiln::fft::ifftshift(kiln::fft::fftshift(x)).to_vector(), v);
  }
  const auto m = make(random_values<double>(12, 2), {3, 4});
  EXPECT_EQ(kiln::fft::fftshift(m, 1).to_vector(),
            kiln::roll(m, 2, 1).to_vector());
  const auto v = make(random_values<double>(4, 1), {4});
  expect_message<kiln::value_error>(
      [&] { (void)kiln::fft::fft(v, 0); },
      "Invalid number of FFT data points (0) specified.");
  expect_message<kiln::value_error>(
      [&] { (void)kiln::fft::irfft(make(random_values<c128>(1, 1), {1})); },
      "Invalid number of FFT data points (0) specified.");
  expect_message<kiln::index_error>(
      [&] { (void)kiln::fft::fft(v, {}, 1); },
      "axis 1 is out of bounds for array of dimension 1");
  expect_message<kiln::value_error>(
      [&] {
        (void)kiln::fft::fftn(m, {2, 2}, {0});
      },
      "When given, axes and shape arguments have to be of the same length");
  expect_message<kiln::value_error>(
      [&] { (void)kiln::fft::fftfreq(0); },
      "n should be an integer greater than 0, not 0");
  EXPECT_THROW((void)kiln::fft::fft(v, {}, 1), kiln::index_error);
  // Repeated axes transform twice, as NumPy's.
  const nd M = to_nd(m);
  EXPECT_LT(max_error(to_nd(kiln::fft::fftn(m, {}, {1, 1})), dft(dft(M, 1, 4, true, 1), 1, 4, true, 1)), 1e-12L);
}

} // namespace
