// Issue 27's ufuncs on the eager path (code not compiled by kilnc): result
// dtypes as NumPy's loops give them (static_asserts), values against long
// double references on random data with special values, and NumPy's
// answers in the corners its loops define (shift counts past the width or
// negative, logaddexp of equal infinities, fmax/fmin beside NaN, signbit of
// -0.0, bool & | ^ ~ as logic). test/difftest generates the same operations
// inside fused kernels and compares them with NumPy itself.
#include "expect.hpp"

#include <kiln/kiln.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <span>
#include <vector>

namespace {

using ld = long double;

template <class T> kiln::array<T> make(const std::vector<T> &v) {
  if constexpr (std::is_same_v<T, bool>) { // (std::vector<bool> has no data())
    std::vector<std::uint8_t> bytes(v.begin(), v.end());
    return make(bytes).template astype<bool>();
  } else {
    return kiln::asarray<T>(std::span<const T>(v.data(), v.size()),
                            kiln::device::host());
  }
}

/// Random doubles in [lo, hi] with some special values mixed in.
std::vector<double> values(double lo, double hi, std::uint32_t seed,
                           bool specials = true) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(200);
  for (double &x : v)
    x = u(gen);
  if (specials) {
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> s = {0.0,    -0.0,    inf, -inf, std::nan(""),
                                   1e-310, -1e-300, lo,  hi};
    for (std::size_t i = 0; i < s.size(); ++i)
      v[i * 7] = s[i];
  }
  return v;
}

/// Max error in units of the result's epsilon (relative above 1, absolute
/// below), NaN matching NaN and infinities matching exactly.
template <class T, class F>
double worst_error(const kiln::array<T> &got, const std::vector<double> &in,
                   F ref) {
  const auto g = got.to_vector();
  double worst = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const ld want = ref(static_cast<ld>(static_cast<T>(in[i])));
    const ld have = g[i];
    if (std::isnan(want) || std::isnan(have)) {
      if (!(std::isnan(want) && std::isnan(have)))
        return std::numeric_limits<double>::infinity();
      continue;
    }
    if (std::isinf(want) || std::isinf(have)) {
      if (want != have && std::fabs(want) < std::numeric_limits<T>::max())
        return std::numeric_limits<double>::infinity();
      continue;
    }
    const ld err = std::fabs(have - want) / std::max<ld>(1, std::fabs(want));
    worst = std::max(
        worst, static_cast<double>(err / std::numeric_limits<T>::epsilon()));
  }
  return worst;
}

TEST(Ufuncs, ResultDtypes) {
  static_assert(
      std::is_same_v<decltype(kiln::arcsin(kiln::array<std::int32_t>())),
                     kiln::array<double>>);
  static_assert(
      std::is_same_v<decltype(kiln::sinh(kiln::array<std::complex<float>>())),
                     kiln::array<std::complex<float>>>);
  static_assert(
      std::is_same_v<decltype(kiln::trunc(kiln::array<std::int8_t>())),
                     kiln::array<std::int8_t>>);
  static_assert(
      std::is_same_v<decltype(kiln::rint(kiln::array<std::int32_t>())),
                     kiln::array<double>>);
  static_assert(std::is_same_v<decltype(kiln::square(kiln::array<bool>())),
                               kiln::array<std::int8_t>>);
  static_assert(
      std::is_same_v<decltype(kiln::array<bool>() & kiln::array<bool>()),
                     kiln::array<bool>>);
  static_assert(std::is_same_v<decltype(kiln::array<bool>() << 1),
                               kiln::array<std::int64_t>>);
  static_assert(
      std::is_same_v<
          decltype(kiln::array<std::uint8_t>() >> kiln::array<std::int8_t>()),
          kiln::array<std::int32_t>>); // no int16 in Kiln yet (NumPy: int16)
  static_assert(
      std::is_same_v<decltype(kiln::arctan2(kiln::array<float>(), 2.0)),
                     kiln::array<float>>);
  static_assert(
      std::is_same_v<decltype(kiln::fmax(kiln::array<std::int32_t>(),
                                         kiln::array<std::int64_t>())),
                     kiln::array<std::int64_t>>);
  static_assert(std::is_same_v<decltype(kiln::isfinite(
                                   kiln::array<std::complex<double>>())),
                               kiln::array<bool>>);
}

TEST(Ufuncs, UnaryAgainstLongDouble) {
  struct unary {
    const char *name;
    kiln::array<double> (*f)(const kiln::array<double> &);
    ld (*ref)(ld);
    double lo, hi, ulps;
  };
  const std::vector<unary> cases = {
      {"arcsin", [](const kiln::array<double> &x) { return kiln::arcsin(x); },
       [](ld v) { return std::asin(v); }, -1, 1, 2},
      {"arccos", [](const kiln::array<double> &x) { return kiln::arccos(x); },
       [](ld v) { return std::acos(v); }, -1, 1, 2},
      {"arctan", [](const kiln::array<double> &x) { return kiln::arctan(x); },
       [](ld v) { return std::atan(v); }, -50, 50, 2},
      {"sinh", [](const kiln::array<double> &x) { return kiln::sinh(x); },
       [](ld v) { return std::sinh(v); }, -20, 20, 4},
      {"cosh", [](const kiln::array<double> &x) { return kiln::cosh(x); },
       [](ld v) { return std::cosh(v); }, -20, 20, 4},
      {"arcsinh", [](const kiln::array<double> &x) { return kiln::arcsinh(x); },
       [](ld v) { return std::asinh(v); }, -1e3, 1e3, 4},
      {"arccosh", [](const kiln::array<double> &x) { return kiln::arccosh(x); },
       [](ld v) { return std::acosh(v); }, 1, 1e3, 4},
      {"arctanh", [](const kiln::array<double> &x) { return kiln::arctanh(x); },
       [](ld v) { return std::atanh(v); }, -1, 1, 4},
      {"exp2", [](const kiln::array<double> &x) { return kiln::exp2(x); },
       [](ld v) { return std::exp2(v); }, -60, 60, 2},
      {"expm1", [](const kiln::array<double> &x) { return kiln::expm1(x); },
       [](ld v) { return std::expm1(v); }, -5, 5, 2},
      {"log1p", [](const kiln::array<double> &x) { return kiln::log1p(x); },
       [](ld v) { return std::log1p(v); }, -1, 100, 2},
      {"cbrt", [](const kiln::array<double> &x) { return kiln::cbrt(x); },
       [](ld v) { return std::cbrt(v); }, -1e6, 1e6, 2},
      {"deg2rad", [](const kiln::array<double> &x) { return kiln::deg2rad(x); },
       [](ld v) { return v * (3.14159265358979323846264338327950288L / 180); },
       -720, 720, 2},
      {"rad2deg", [](const kiln::array<double> &x) { return kiln::rad2deg(x); },
       [](ld v) { return v * (180 / 3.14159265358979323846264338327950288L); },
       -7, 7, 2},
      {"rint", [](const kiln::array<double> &x) { return kiln::rint(x); },
       [](ld v) { return std::nearbyint(v); }, -9, 9, 0},
      {"trunc", [](const kiln::array<double> &x) { return kiln::trunc(x); },
       [](ld v) { return std::trunc(v); }, -9, 9, 0},
      {"square", [](const kiln::array<double> &x) { return kiln::square(x); },
       [](ld v) { return v * v; }, -1e3, 1e3, 1},
  };
  std::uint32_t seed = 1;
  for (const unary &c : cases) {
    const std::vector<double> in = values(c.lo, c.hi, seed++);
    EXPECT_LE(worst_error(c.f(make(in)), in, c.ref), c.ulps) << c.name;
  }
  // float32 computes in float32.
  const std::vector<double> in = values(-1, 1, 99);
  std::vector<float> inf(in.begin(), in.end());
  EXPECT_LE(worst_error(kiln::arcsin(make(inf)), in,
                        [](ld v) { return std::asin(v); }),
            2.0);
}

TEST(Ufuncs, BinaryAgainstLongDouble) {
  const std::vector<double> a = values(-50, 50, 7),
                            b = values(-50, 50, 8, false);
  auto check = [&](const char *name, const kiln::array<double> &got, auto ref,
                   double ulps) {
    const auto g = got.to_vector();
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const ld want = ref(ld(a[i]), ld(b[i]));
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(g[i])) << name << " " << a[i] << " " << b[i];
        continue;
      }
      if (std::isinf(want)) {
        EXPECT_EQ(ld(g[i]), want) << name << " " << a[i] << " " << b[i];
        continue;
      }
      worst = std::max(worst, double(std::fabs(g[i] - want) /
                                     std::max<ld>(1, std::fabs(want)) /
                                     std::numeric_limits<double>::epsilon()));
    }
    EXPECT_LE(worst, ulps) << name;
  };
  const auto x = make(a), y = make(b);
  check(
      "arctan2", kiln::arctan2(x, y),
      [](ld p, ld q) { return std::atan2(p, q); }, 2);
  check(
      "hypot", kiln::hypot(x, y), [](ld p, ld q) { return std::hypot(p, q); },
      2);
  check(
      "copysign", kiln::copysign(x, y),
      [](ld p, ld q) { return std::copysign(p, q); }, 0);
  auto logaddexp = [](ld p, ld q) {
    if (p == q)
      return p + std::log(2.0L);
    return std::max(p, q) + std::log1p(std::exp(-std::fabs(p - q)));
  };
  check("logaddexp", kiln::logaddexp(x, y), logaddexp, 4);
  check(
      "logaddexp2", kiln::logaddexp2(x, y),
      [](ld p, ld q) {
        if (p == q)
          return p + 1;
        return std::max(p, q) + std::log2(1 + std::exp2(-std::fabs(p - q)));
      },
      4);
}

TEST(Ufuncs, NumPysCorners) {
  const double inf = std::numeric_limits<double>::infinity(),
               nan = std::nan("");
  // logaddexp of equal infinities (NumPy: inf; -inf + log 2 = -inf).
  EXPECT_EQ(kiln::logaddexp(make<double>({inf, -inf, 1.0}),
                            make<double>({inf, -inf, nan}))
                .to_vector()[0],
            inf);
  EXPECT_EQ(kiln::logaddexp(make<double>({-inf}), make<double>({-inf}))
                .to_vector()[0],
            -inf);
  EXPECT_TRUE(
      std::isnan(kiln::logaddexp(make<double>({1.0}), make<double>({nan}))
                     .to_vector()[0]));
  // fmax/fmin ignore one NaN; NaN only from two.
  EXPECT_EQ(kiln::fmax(make<double>({nan, 1.0}), make<double>({2.0, nan}))
                .to_vector(),
            (std::vector<double>{2.0, 1.0}));
  EXPECT_EQ(kiln::fmin(make<double>({nan, 1.0}), make<double>({2.0, nan}))
                .to_vector(),
            (std::vector<double>{2.0, 1.0}));
  EXPECT_TRUE(std::isnan(kiln::fmax(make<double>({nan}), nan).to_vector()[0]));
  // hypot: inf beside NaN.
  EXPECT_EQ(kiln::hypot(make<double>({inf, nan}), make<double>({nan, -inf}))
                .to_vector(),
            (std::vector<double>{inf, inf}));
  // signbit and isfinite.
  EXPECT_EQ(kiln::signbit(make<double>({-0.0, 0.0, -1.0, -nan})).to_vector(),
            (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(kiln::signbit(make<std::int32_t>({-1, 0, 5})).to_vector(),
            (std::vector<bool>{true, false, false}));
  EXPECT_EQ(kiln::isfinite(make<double>({1.0, inf, nan})).to_vector(),
            (std::vector<bool>{true, false, false}));
  // Shifts: a count past the width or negative gives 0 (-1 for negative >>).
  const auto ones = make<std::int8_t>({1, 1, 1, -8, -8, 64});
  const auto counts = make<std::int8_t>({7, 8, -1, 2, 9, 1});
  EXPECT_EQ((ones << counts).to_vector(),
            (std::vector<std::int8_t>{-128, 0, 0, -32, 0, -128}));
  EXPECT_EQ((ones >> counts).to_vector(),
            (std::vector<std::int8_t>{0, 0, 0, -2, -1, 32}));
  EXPECT_EQ((make<std::uint8_t>({200}) >> 9).to_vector(),
            (std::vector<std::uint8_t>{0}));
  // Bitwise on integers, logic on bools.
  EXPECT_EQ((make<std::int32_t>({12, -1}) & 10).to_vector(),
            (std::vector<std::int32_t>{8, 10}));
  EXPECT_EQ((make<std::int32_t>({12, -1}) | 3).to_vector(),
            (std::vector<std::int32_t>{15, -1}));
  EXPECT_EQ((make<std::int32_t>({12, -1}) ^ 5).to_vector(),
            (std::vector<std::int32_t>{9, -6}));
  EXPECT_EQ((~make<std::uint8_t>({0, 5})).to_vector(),
            (std::vector<std::uint8_t>{255, 250}));
  const auto p = make<bool>({true, true, false, false}),
             q = make<bool>({true, false, true, false});
  EXPECT_EQ((p & q).to_vector(),
            (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ((p | q).to_vector(), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ((p ^ q).to_vector(), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ((~p).to_vector(), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(kiln::logical_xor(p, q).to_vector(), (p ^ q).to_vector());
  // trunc keeps integers; square of bool is int8; positive copies.
  EXPECT_EQ(kiln::trunc(make<std::int32_t>({-3, 4})).to_vector(),
            (std::vector<std::int32_t>{-3, 4}));
  EXPECT_EQ(kiln::trunc(make<double>({-2.7, -0.5, 2.7})).to_vector(),
            (std::vector<double>{-2.0, -0.0, 2.0}));
  EXPECT_EQ(kiln::square(p).to_vector(),
            (std::vector<std::int8_t>{1, 1, 0, 0}));
  EXPECT_EQ(kiln::square(make<std::int8_t>({12})).to_vector(),
            (std::vector<std::int8_t>{-112})); // wraps
  // Complex sinh, cosh, exp2, rint, square.
  const std::complex<double> z(0.3, -1.2);
  auto one = [&](auto f) {
    return f(kiln::asarray<std::complex<double>>(
                 std::span<const std::complex<double>>(&z, 1),
                 kiln::device::host()))
        .to_vector()[0];
  };
  EXPECT_LT(
      std::abs(one([](const auto &a) { return kiln::sinh(a); }) - std::sinh(z)),
      1e-15);
  EXPECT_LT(
      std::abs(one([](const auto &a) { return kiln::cosh(a); }) - std::cosh(z)),
      1e-15);
  EXPECT_LT(std::abs(one([](const auto &a) { return kiln::exp2(a); }) -
                     std::exp(z * std::log(2.0))),
            1e-15);
  EXPECT_EQ(one([](const auto &a) { return kiln::rint(a); }),
            std::complex<double>(0.0, -1.0));
  EXPECT_LT(
      std::abs(one([](const auto &a) { return kiln::square(a); }) - z * z),
      1e-15);
}

TEST(Ufuncs, MoreUfuncs) {
  // Result dtypes as NumPy's (sinc of integers: float64, NumPy's pi * x).
  static_assert(std::is_same_v<decltype(kiln::reciprocal(kiln::array<bool>())),
                               kiln::array<std::int8_t>>);
  static_assert(
      std::is_same_v<decltype(kiln::sinc(kiln::array<std::int8_t>())),
                     kiln::array<double>>);
  static_assert(std::is_same_v<decltype(kiln::sinc(kiln::array<float>())),
                               kiln::array<float>>);
  static_assert(
      std::is_same_v<decltype(kiln::bitwise_count(kiln::array<std::int64_t>())),
                     kiln::array<std::uint8_t>>);
  static_assert(std::is_same_v<decltype(kiln::float_power(
                                   kiln::array<std::int8_t>(), 3)),
                               kiln::array<double>>);
  static_assert(std::is_same_v<decltype(kiln::float_power(
                                   kiln::array<std::complex<float>>(), 2)),
                               kiln::array<std::complex<double>>>);
  static_assert(
      std::is_same_v<decltype(kiln::floor_divide(kiln::array<bool>(), true)),
                     kiln::array<std::int8_t>>);
  static_assert(std::is_same_v<decltype(kiln::heaviside(
                                   kiln::array<std::int32_t>(), 1)),
                               kiln::array<double>>);
  static_assert(std::is_same_v<decltype(kiln::greater_equal(
                                   kiln::array<float>(), 1)),
                               kiln::array<bool>>);

  // NumPy 2.4's answers (numpy.floor_divide, fmod, ... on the same inputs).
  const double inf = std::numeric_limits<double>::infinity(),
               nan = std::nan("");
  constexpr std::int32_t lo = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(kiln::floor_divide(make<std::int32_t>({7, -7, 7, -7, 5, lo}),
                               make<std::int32_t>({2, 2, -2, -2, 0, -1}))
                .to_vector(),
            (std::vector<std::int32_t>{3, -4, -4, 3, 0, lo}));
  EXPECT_EQ(kiln::fmod(make<std::int32_t>({7, -7, 7, -7, 5, lo}),
                       make<std::int32_t>({2, 2, -2, -2, 0, -1}))
                .to_vector(),
            (std::vector<std::int32_t>{1, -1, 1, -1, 0, 0}));
  const auto fd = kiln::floor_divide(make<double>({7.5, -7.5, 1, -1, 0, inf}),
                                     make<double>({2, 2, 0, 0, 0, 2}))
                      .to_vector();
  EXPECT_EQ(std::vector<double>(fd.begin(), fd.begin() + 4),
            (std::vector<double>{3, -4, inf, -inf}));
  EXPECT_TRUE(std::isnan(fd[4]) && std::isnan(fd[5]));
  const auto fm = kiln::fmod(make<double>({7.5, -7.5, 1, inf}),
                             make<double>({2, 2, 0, 1}))
                      .to_vector();
  EXPECT_EQ(fm[0], 1.5);
  EXPECT_EQ(fm[1], -1.5);
  EXPECT_TRUE(std::isnan(fm[2]) && std::isnan(fm[3]));
  EXPECT_EQ(kiln::bitwise_count(make<std::int8_t>({-1, 7, 0, -128})).to_vector(),
            (std::vector<std::uint8_t>{1, 3, 0, 1}));
  EXPECT_EQ(kiln::bitwise_count(make<std::int64_t>(
                                    {std::numeric_limits<std::int64_t>::max(),
                                     std::numeric_limits<std::int64_t>::min()}))
                .to_vector(),
            (std::vector<std::uint8_t>{63, 1}));
  const auto hv =
      kiln::heaviside(make<double>({-1, 0, 2, nan, -0.0}), 0.5).to_vector();
  EXPECT_EQ(std::vector<double>(hv.begin(), hv.begin() + 3),
            (std::vector<double>{0, 0.5, 1}));
  EXPECT_TRUE(std::isnan(hv[3]));
  EXPECT_EQ(hv[4], 0.5);
  EXPECT_EQ(kiln::float_power(make<std::int8_t>({2}), 3).to_vector()[0], 8.0);
  EXPECT_EQ(kiln::float_power(make<std::int64_t>({2}), -1).to_vector()[0], 0.5);
  EXPECT_TRUE(std::isnan(
      kiln::float_power(make<double>({-8.0}), 1.0 / 3).to_vector()[0]));
  EXPECT_EQ(kiln::nextafter(make<float>({1.0f}), 2.0f).to_vector()[0],
            1.0f + std::numeric_limits<float>::epsilon());
  EXPECT_EQ(kiln::nextafter(make<double>({0.0}), -1.0).to_vector()[0],
            -std::numeric_limits<double>::denorm_min());
  const auto sp = kiln::spacing(make<double>({1.0, -1.0, 0.0, inf, nan})).to_vector();
  EXPECT_EQ(sp[0], std::numeric_limits<double>::epsilon());
  EXPECT_EQ(sp[1], -std::numeric_limits<double>::epsilon());
  EXPECT_EQ(sp[2], std::numeric_limits<double>::denorm_min());
  EXPECT_TRUE(std::isnan(sp[3]) && std::isnan(sp[4]));
  EXPECT_EQ(kiln::spacing(make<float>({1.0f})).to_vector()[0],
            std::numeric_limits<float>::epsilon());
  EXPECT_EQ(kiln::reciprocal(make<std::int32_t>({1, -1, 2, -3, 0})).to_vector(),
            (std::vector<std::int32_t>{1, -1, 0, 0, 0}));
  EXPECT_EQ(kiln::reciprocal(make<double>({2.0, -0.0, 0.0})).to_vector(),
            (std::vector<double>{0.5, -inf, inf}));
  const auto sc = kiln::sinc(make<float>({0.0f, 0.5f, 1.0f, INFINITY})).to_vector();
  EXPECT_EQ(sc[0], 1.0f);
  EXPECT_NEAR(sc[1], 0.63661975f, 1e-7);
  EXPECT_LT(std::fabs(sc[2]), 1e-7f);
  EXPECT_TRUE(std::isnan(sc[3]));

  // Random data against long double: sinc and floor_divide of floats.
  const std::vector<double> x = values(-20, 20, 11), y = values(-3, 3, 12);
  EXPECT_LE(worst_error(kiln::sinc(make<double>(x)), x,
                        [](ld v) {
                          const ld pi = 3.141592653589793238462643383279502884L;
                          return v == 0 ? 1 : std::sin(pi * v) / (pi * v);
                        }),
            64); // near its zeros sin(pi x) loses digits in double, as NumPy's
  const auto q = kiln::floor_divide(make<double>(x), make<double>(y)).to_vector();
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::isfinite(x[i]) && std::isfinite(y[i]) && y[i] != 0)
      EXPECT_EQ(q[i], std::floor(static_cast<ld>(x[i]) / y[i])) << x[i] << " // " << y[i];

  // round with decimals and angle in degrees: NumPy 2.4's answers.
  EXPECT_EQ(kiln::round(make<std::int32_t>({1234, -1250, 1350, 15, -15}), -1)
                .to_vector(),
            (std::vector<std::int32_t>{1230, -1250, 1350, 20, -20}));
  EXPECT_EQ(kiln::round(make<std::int32_t>({1234, -1250, 1350}), -2).to_vector(),
            (std::vector<std::int32_t>{1200, -1200, 1400}));
  EXPECT_EQ(kiln::round(make<std::int8_t>({7, 100, -100, 127, 50}), -2)
                .to_vector(),
            (std::vector<std::int8_t>{0, 100, -100, 100, 0}));
  EXPECT_EQ(kiln::round(make<std::int8_t>({7, 100, -100}), -3).to_vector(),
            (std::vector<std::int8_t>{0, 0, 0}));
  EXPECT_EQ(kiln::round(make<std::uint8_t>({250, 150}), -2).to_vector(),
            (std::vector<std::uint8_t>{200, 200}));
  EXPECT_EQ(kiln::round(make<std::int64_t>({std::int64_t{1} << 62, 5}), -19)
                .to_vector(),
            (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(kiln::round(make<std::int32_t>({1234}), 2).to_vector(),
            (std::vector<std::int32_t>{1234}));
  EXPECT_EQ(kiln::round(make<double>({2.675, 1.005, -0.125, 123.456}), 2)
                .to_vector(),
            (std::vector<double>{2.68, 1.0, -0.12, 123.46}));
  EXPECT_EQ(kiln::round(make<double>({1234.5, 1250.0, 1350.0}), -2).to_vector(),
            (std::vector<double>{1200, 1200, 1400}));
  EXPECT_EQ(kiln::round(make<float>({2.675f, 1.005f}), 2).to_vector(),
            (std::vector<float>{2.68f, 1.0f}));
  const auto big = kiln::round(make<double>({1e300, 123.456}), 400).to_vector();
  EXPECT_TRUE(std::isnan(big[0]) && std::isnan(big[1])); // x * inf / inf
  const std::complex<double> zc(1.25, 2.55);
  EXPECT_EQ(kiln::round(kiln::asarray<std::complex<double>>(
                            std::span<const std::complex<double>>(&zc, 1),
                            kiln::device::host()),
                        1)
                .to_vector()[0],
            std::complex<double>(1.2, 2.6));
  const std::complex<double> za[] = {{1, 1}, {-1, 0}, {0, 0}};
  EXPECT_EQ(kiln::angle(kiln::asarray<std::complex<double>>(
                            std::span<const std::complex<double>>(za, 3),
                            kiln::device::host()),
                        true)
                .to_vector(),
            (std::vector<double>{45, 180, 0}));
  static_assert(std::is_same_v<decltype(kiln::angle(kiln::array<std::int32_t>())),
                               kiln::array<double>>);
  EXPECT_EQ(kiln::angle(make<std::int32_t>({1, -2})).to_vector(),
            (std::vector<double>{0, std::numbers::pi}));

  // Compound bitwise assignments on integer arrays.
  auto bits = make<std::int32_t>({12, -1, 5, -8});
  bits &= 10;
  EXPECT_EQ(bits.to_vector(), (std::vector<std::int32_t>{8, 10, 0, 8}));
  bits |= make<std::int32_t>({1, 1, 2, 3});
  EXPECT_EQ(bits.to_vector(), (std::vector<std::int32_t>{9, 11, 2, 11}));
  bits ^= 3;
  EXPECT_EQ(bits.to_vector(), (std::vector<std::int32_t>{10, 8, 1, 8}));
  bits <<= make<std::int32_t>({1, 2, 31, 40});
  EXPECT_EQ(bits.to_vector(),
            (std::vector<std::int32_t>{
                20, 32, std::numeric_limits<std::int32_t>::min(), 0}));
  bits = make<std::int32_t>({20, 32, -2048, 7});
  bits >>= 2;
  EXPECT_EQ(bits.to_vector(), (std::vector<std::int32_t>{5, 8, -512, 1}));
  auto flags = make<bool>({true, false});
  expect_message<kiln::value_error>(
      [&] { flags <<= 1; },
      "Cannot cast ufunc 'left_shift' output from dtype('int64') to dtype('bool') with casting rule 'same_kind'");

  // NumPy's names of the operators are the operators.
  const auto a = make<std::int32_t>({5, -3, 8}), b = make<std::int32_t>({2, 4, -3});
  EXPECT_EQ(kiln::add(a, b).to_vector(), (a + b).to_vector());
  EXPECT_EQ(kiln::subtract(a, 1).to_vector(), (a - 1).to_vector());
  EXPECT_EQ(kiln::multiply(a, b).to_vector(), (a * b).to_vector());
  EXPECT_EQ(kiln::divide(a, b).to_vector(), (a / b).to_vector());
  EXPECT_EQ(kiln::true_divide(a, b).to_vector(), (a / b).to_vector());
  EXPECT_EQ(kiln::remainder(a, b).to_vector(), (a % b).to_vector());
  EXPECT_EQ(kiln::mod(a, b).to_vector(), (a % b).to_vector());
  EXPECT_EQ(kiln::power(a, 2).to_vector(), kiln::pow(a, 2).to_vector());
  EXPECT_EQ(kiln::less(a, b).to_vector(), (a < b).to_vector());
  EXPECT_EQ(kiln::greater_equal(a, b).to_vector(), (a >= b).to_vector());
  EXPECT_EQ(kiln::not_equal(a, 5).to_vector(), (a != 5).to_vector());
}

TEST(Ufuncs, GcdLcmLdexpNanToNumFrexpModfDivmodClip) {
  static_assert(std::is_same_v<decltype(kiln::gcd(kiln::array<std::uint8_t>(),
                                                  kiln::array<std::int8_t>())),
                               kiln::array<std::int32_t>>); // (no int16 yet)
  static_assert(std::is_same_v<decltype(kiln::ldexp(kiln::array<float>(),
                                                    kiln::array<std::int64_t>())),
                               kiln::array<float>>);
  static_assert(std::is_same_v<decltype(kiln::ldexp(kiln::array<std::int32_t>(), 2)),
                               kiln::array<double>>);
  static_assert(std::is_same_v<
                decltype(kiln::frexp(kiln::array<float>())),
                std::pair<kiln::array<float>, kiln::array<std::int32_t>>>);
  static_assert(std::is_same_v<decltype(kiln::nan_to_num(kiln::array<std::int8_t>())),
                               kiln::array<std::int8_t>>);
  const double inf = std::numeric_limits<double>::infinity(),
               nan = std::nan("");
  constexpr std::int64_t min64 = std::numeric_limits<std::int64_t>::min();

  // NumPy 2.4's answers: magnitudes as unsigned (|INT64_MIN| is 2^63), lcm
  // wrapping.
  const auto a = make<std::int64_t>({-4, 0, 0, 12, min64, std::int64_t{1} << 62, min64, 7});
  const auto b = make<std::int64_t>({6, 0, -5, -18, 0, 3, 7, 0});
  EXPECT_EQ(kiln::gcd(a, b).to_vector(),
            (std::vector<std::int64_t>{2, 0, 5, 6, min64, 1, 1, 7}));
  EXPECT_EQ(kiln::lcm(a, b).to_vector(),
            (std::vector<std::int64_t>{12, 0, 0, 36, 0, -4611686018427387904LL, min64, 0}));
  EXPECT_EQ(kiln::lcm(make<std::int8_t>({-128, -128, 100, 6}),
                      make<std::int8_t>({6, 5, 3, -4}))
                .to_vector(),
            (std::vector<std::int8_t>{-128, -128, 44, 12}));
  // Random integers against Euclid on the magnitudes.
  std::mt19937 gen(27);
  std::uniform_int_distribution<std::int32_t> u(-100000, 100000);
  std::vector<std::int32_t> x(300), y(300);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = u(gen) * (i % 3 + 1), y[i] = u(gen) * (i % 5 + 1);
  const auto g = kiln::gcd(make(x), make(y)).to_vector();
  const auto l = kiln::lcm(make(x), make(y)).to_vector();
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::int64_t p = std::abs(std::int64_t{x[i]}), q = std::abs(std::int64_t{y[i]});
    while (p) {
      const std::int64_t r = q % p;
      q = p;
      p = r;
    }
    ASSERT_EQ(g[i], q) << x[i] << " " << y[i];
    const std::int64_t want =
        q ? std::abs(std::int64_t{x[i]}) / q * std::abs(std::int64_t{y[i]}) : 0;
    ASSERT_EQ(l[i], static_cast<std::int32_t>(static_cast<std::uint32_t>(want)));
  }

  // ldexp: exact, inf on overflow, subnormals rounded once (NumPy's
  // ldexp(1.5f, -149) is 2 * 2^-149, half to even).
  EXPECT_EQ(kiln::ldexp(make<float>({1.5f, 1.5f, 1.5f}), make<std::int32_t>({-149, -150, -148}))
                .to_vector(),
            (std::vector<float>{2.802596928649634e-45f, 1.401298464324817e-45f,
                                4.203895392974451e-45f}));
  EXPECT_EQ(kiln::ldexp(make<double>({1, 1, 1, 1, 1, 1}),
                        make<std::int64_t>({std::int64_t{1} << 40, -(std::int64_t{1} << 40),
                                            1100, -1100, -1074, -1075}))
                .to_vector(),
            (std::vector<double>{inf, 0, inf, 0, 4.9406564584124654e-324, 0}));
  const std::vector<double> v = values(-1e3, 1e3, 5);
  std::vector<std::int32_t> e(v.size());
  for (std::size_t i = 0; i < e.size(); ++i)
    e[i] = static_cast<std::int32_t>(i * 37 % 2200) - 1100;
  const auto ld64 = kiln::ldexp(make(v), make(e)).to_vector();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double want = std::ldexp(v[i], e[i]);
    ASSERT_TRUE(std::isnan(want) ? std::isnan(ld64[i]) : ld64[i] == want) << v[i] << " " << e[i];
  }
  expect_message<kiln::type_error>(
      [&] { (void)kiln::detail::eager(kiln::detail::op::ldexp, {make<double>({1.0}), 2.0}); },
      "ufunc 'ldexp' not supported for the input types, and the inputs could not be safely "
      "coerced to any supported types according to the casting rule ''safe''");

  // nan_to_num: the dtype's extremes by default, complex parts each.
  const float fmax = std::numeric_limits<float>::max();
  EXPECT_EQ(kiln::nan_to_num(make<float>({NAN, INFINITY, -INFINITY, 1.0f})).to_vector(),
            (std::vector<float>{0, fmax, -fmax, 1}));
  EXPECT_EQ(kiln::nan_to_num(make<double>({nan, inf, -inf, 2}), 5.0, 6.0).to_vector(),
            (std::vector<double>{5, 6, -std::numeric_limits<double>::max(), 2}));
  EXPECT_EQ(kiln::nan_to_num(make<std::complex<double>>({{nan, inf}}), 1.0, 2.0, 3.0).to_vector(),
            (std::vector<std::complex<double>>{{1, 2}}));
  EXPECT_EQ(kiln::nan_to_num(make<std::int8_t>({-3, 4})).to_vector(), (std::vector<std::int8_t>{-3, 4}));

  // frexp, modf and divmod against C's functions and Python's operators.
  const auto [m, ex] = kiln::frexp(make(v));
  const auto [frac, whole] = kiln::modf(make(v));
  const auto [q, r] = kiln::divmod(make(v), 0.75);
  const auto mv = m.to_vector(), fv = frac.to_vector(), wv = whole.to_vector();
  const auto ev = ex.to_vector();
  const auto qv = q.to_vector(), rv = r.to_vector();
  const auto fq = kiln::floor_divide(make(v), 0.75).to_vector(),
             fr = (make(v) % 0.75).to_vector();
  auto same = [](double p, double q) {
    return std::isnan(p) ? std::isnan(q) : p == q && std::signbit(p) == std::signbit(q);
  };
  for (std::size_t i = 0; i < v.size(); ++i) {
    int want_e = 0;
    const double want_m = std::frexp(v[i], &want_e);
    double want_whole;
    const double want_frac = std::modf(v[i], &want_whole);
    ASSERT_TRUE(same(mv[i], want_m)) << v[i];
    ASSERT_EQ(ev[i], std::isfinite(v[i]) ? want_e : 0) << v[i];
    ASSERT_TRUE(same(fv[i], want_frac) && same(wv[i], want_whole)) << v[i];
    ASSERT_TRUE(same(qv[i], fq[i]) && same(rv[i], fr[i])) << v[i];
  }

  // clip with one bound is NumPy's maximum / minimum; ties and zeros as
  // NumPy's loops (maximum and minimum give their second operand).
  const auto zeros = make<double>({0.0, -0.0, 0.0, -0.0}),
             others = make<double>({-0.0, 0.0, 0.0, -0.0});
  EXPECT_EQ(kiln::signbit(kiln::maximum(zeros, others)).to_vector(),
            (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(kiln::signbit(kiln::minimum(zeros, others)).to_vector(),
            (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(kiln::signbit(kiln::clip(zeros, others, 1.0)).to_vector(),
            (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(kiln::signbit(kiln::clip(zeros, 0.0, 1.0)).to_vector(),
            (std::vector<bool>{false, true, false, true}));
  EXPECT_EQ(kiln::signbit(kiln::clip(zeros, 0.0, std::nullopt)).to_vector(),
            (std::vector<bool>{false, false, false, false}));
  const auto c = kiln::clip(make<float>({NAN, INFINITY, -INFINITY, 1.0f}), std::nullopt, 0.5).to_vector();
  EXPECT_TRUE(std::isnan(c[0]));
  EXPECT_EQ(std::vector<float>(c.begin() + 1, c.end()), (std::vector<float>{0.5f, -INFINITY, 0.5f}));
  EXPECT_EQ(kiln::clip(make<std::int8_t>({-5, 3, 9}), 2, std::nullopt).to_vector(),
            (std::vector<std::int8_t>{2, 3, 9}));
}

TEST(Ufuncs, NumPysRefusals) {
  // What NumPy has no loop for is a type_error (NumPy's TypeError) with its words.
  const kiln::array<double> d = make<double>({1.0});
  const kiln::array<bool> b = make<bool>({true});
  expect_message<kiln::type_error>(
      [&] { (void)kiln::detail::eager(kiln::detail::op::invert, {d}); },
      "ufunc 'invert' not supported for the input type float64");
  expect_message<kiln::type_error>(
      [&] { (void)kiln::detail::eager(kiln::detail::op::positive, {b}); },
      "ufunc 'positive' not supported for the input type bool");
  expect_message<kiln::type_error>(
      [&] {
        (void)kiln::detail::eager(kiln::detail::op::left_shift, {d, d});
      },
      "ufunc 'left_shift' not supported for the input type float64");
  expect_message<kiln::type_error>(
      [&] {
        (void)kiln::detail::eager(kiln::detail::op::bitwise_count, {d});
      },
      "ufunc 'bitwise_count' not supported for the input type float64");
}

} // namespace
