// Tests of the eager elementwise operations (kiln/ops.hpp, runtime/ops/):
// every operation on random data against a double / complex<double>
// reference computed here with <cmath>, broadcasting with scalars and views,
// NaN and infinity cases, NumPy's integer semantics, and the typed errors.
#include "gpu.hpp"

#include <kiln/array.hpp>
#include <kiln/ops.hpp>

#include <gtest/gtest.h>

#include "host_arrays.hpp"

#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;
using std::int32_t, std::int64_t, std::int8_t, std::uint8_t;
constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_v = std::numeric_limits<double>::infinity();


template <class T> std::vector<T> values(const kiln::array<T> &x) {
  return x.to_vector();
}

std::mt19937 &rng() {
  static std::mt19937 g(12345);
  return g;
}

/// `n` random values of T in [lo, hi] (both parts for complex).
template <class T>
std::vector<T> random_values(std::size_t n, double lo = -3, double hi = 3) {
  std::vector<T> v(n);
  if constexpr (std::is_same_v<T, bool>) {
    std::bernoulli_distribution d(0.5);
    for (std::size_t i = 0; i < n; ++i)
      v[i] = d(rng());
  } else if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int64_t> d(static_cast<int64_t>(lo),
                                             static_cast<int64_t>(hi));
    for (auto &x : v)
      x = static_cast<T>(d(rng()));
  } else if constexpr (is_cplx<T>) {
    std::uniform_real_distribution<double> d(lo, hi);
    for (auto &x : v)
      x = T(static_cast<typename T::value_type>(d(rng())),
            static_cast<typename T::value_type>(d(rng())));
  } else {
    std::uniform_real_distribution<double> d(lo, hi);
    for (auto &x : v)
      x = static_cast<T>(d(rng()));
  }
  return v;
}
template <class T>
kiln::array<T> random_array(const kiln::shape &s, double lo = -3,
                            double hi = 3) {
  return make(random_values<T>(static_cast<std::size_t>(s.numel()), lo, hi), s);
}

/// The reference value type: complex<double> for complex, else double.
template <class T> auto to_ref(T v) {
  if constexpr (is_cplx<T>)
    return c128(v.real(), v.imag());
  else
    return static_cast<double>(v);
}
template <class T> auto refs(const std::vector<T> &v) {
  std::vector<decltype(to_ref(T{}))> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    out.push_back(to_ref(static_cast<T>(v[i])));
  return out;
}

/// Flat index into a C-contiguous array of shape `in` for the flat index
/// `i` of its broadcast `out`.
int64_t source_index(int64_t i, const kiln::shape &out, const kiln::shape &in) {
  int64_t src = 0, stride = 1;
  for (std::size_t d = out.size(); d-- > 0;) {
    int64_t coord = i % out[d];
    i /= out[d];
    std::size_t k = d + in.size();
    if (k < out.size())
      continue;
    k -= out.size();
    if (in[k] != 1)
      src += coord * stride;
    stride *= in[k];
  }
  return src;
}

template <class V> c128 as_c(V v) {
  if constexpr (is_cplx<V>)
    return c128(v.real(), v.imag());
  else
    return c128(static_cast<double>(v), 0);
}

bool close(double got, double want, double rtol, double atol) {
  if (std::isnan(want))
    return std::isnan(got);
  if (std::isinf(want))
    return got == want;
  return std::abs(got - want) <= atol + rtol * std::abs(want);
}

/// Elementwise comparison with tolerance; NaN matches NaN, infinities match
/// exactly.
template <class G, class W>
void expect_all_close(const std::vector<G> &got, const std::vector<W> &want,
                      double rtol, double atol = 0,
                      const std::string &what = "") {
  ASSERT_EQ(got.size(), want.size()) << what;
  int failures = 0;
  for (std::size_t i = 0; i < got.size() && failures < 5; ++i) {
    c128 g = as_c(static_cast<G>(got[i])), w = as_c(want[i]);
    bool ok = close(g.real(), w.real(), rtol, atol) &&
              close(g.imag(), w.imag(), rtol, atol);
    if (!ok) {
      ++failures;
      ADD_FAILURE() << what << " element " << i << ": got " << g << ", want "
                    << w;
    }
  }
}

template <class T> double tol() {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, c64>)
    return 2e-6;
  else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, c128>)
    return 1e-13;
  else
    return 0;
}

//===----------------------------------------------------------------------===//
// Arithmetic with broadcasting
//===----------------------------------------------------------------------===//

template <class T> void check_binary_arithmetic() {
  SCOPED_TRACE(std::string(kiln::name(kiln::dtype_of<T>)));
  const kiln::shape sa{3, 4}, sb{4}, sc{3, 1};
  auto av = random_values<T>(12, -50, 50), bv = random_values<T>(4, -50, 50),
       cv = random_values<T>(3, -50, 50);
  auto a = make(av, sa), b = make(bv, sb), c = make(cv, sc);
  const kiln::shape out{3, 4};
  auto ra = refs(av), rb = refs(bv), rc = refs(cv);
  using R = decltype(to_ref(T{}));
  auto expect = [&](auto f, const auto &x, const kiln::shape &xs, const auto &y,
                    const kiln::shape &ys) {
    std::vector<R> want;
    for (int64_t i = 0; i < out.numel(); ++i)
      want.push_back(
          f(x[source_index(i, out, xs)], y[source_index(i, out, ys)]));
    return want;
  };
  auto sum = a + b;
  static_assert(std::is_same_v<decltype(sum), kiln::array<T>>);
  EXPECT_EQ(sum.shape(), out);
  expect_all_close(values(sum), expect(std::plus<>(), ra, sa, rb, sb), tol<T>(),
                   0, "a + b");
  expect_all_close(values(b + a), expect(std::plus<>(), rb, sb, ra, sa),
                   tol<T>(), 0, "b + a");
  expect_all_close(values(a - b), expect(std::minus<>(), ra, sa, rb, sb),
                   tol<T>(), 0, "a - b");
  expect_all_close(values(c - b), expect(std::minus<>(), rc, sc, rb, sb),
                   tol<T>(), 0, "(3,1) - (4,)");
  expect_all_close(values(a * c), expect(std::multiplies<>(), ra, sa, rc, sc),
                   tol<T>() * 2, 0, "a * c");
  if constexpr (!std::is_integral_v<T>) {
    expect_all_close(values(a / b), expect(std::divides<>(), ra, sa, rb, sb),
                     tol<T>() * 4, 0, "a / b");
  }
  // Unary minus.
  std::vector<R> neg;
  for (auto v : ra)
    neg.push_back(-v);
  expect_all_close(values(-a), neg, 0, 0, "-a");
}

TEST(Ops, BinaryArithmeticBroadcasts) {
  check_binary_arithmetic<float>();
  check_binary_arithmetic<double>();
  check_binary_arithmetic<int32_t>();
  check_binary_arithmetic<int64_t>();
  check_binary_arithmetic<c64>();
  check_binary_arithmetic<c128>();
}

TEST(Ops, MixedDtypesPromote) {
  auto av = random_values<int32_t>(6, -100, 100);
  auto bv = random_values<float>(6);
  auto a = make(av, {2, 3});
  auto b = make(bv, {2, 3});
  auto r = a + b; // int32 + float32 -> float64
  static_assert(std::is_same_v<decltype(r), kiln::array<double>>);
  EXPECT_EQ(r.dtype(), kiln::dtype::float64);
  std::vector<double> want;
  for (int i = 0; i < 6; ++i)
    want.push_back(double(av[i]) + double(bv[i]));
  expect_all_close(values(r), want, 1e-15);

  auto u = make(random_values<uint8_t>(5, 0, 255));
  auto s = make(random_values<int8_t>(5, -128, 127));
  auto us = u * s; // uint8 * int8 -> int32 (NumPy int16)
  EXPECT_EQ(us.dtype(), kiln::dtype::int32);
  auto uv = values(u);
  auto sv = values(s);
  std::vector<double> w2;
  for (int i = 0; i < 5; ++i)
    w2.push_back(double(uv[i]) * double(sv[i]));
  expect_all_close(values(us), w2, 0);
}

TEST(Ops, TrueDivisionOfIntegersGivesFloat64) {
  auto a = make<int32_t>({7, -7, 1, 0, -3, 5});
  auto b = make<int32_t>({2, 2, 0, 0, 0, -4});
  auto q = a / b;
  static_assert(std::is_same_v<decltype(q), kiln::array<double>>);
  expect_all_close(values(q),
                   std::vector<double>{3.5, -3.5, inf_v, nan_v, -inf_v, -1.25},
                   0);
  auto bools = make<bool>({true, false, true});
  expect_all_close(values(bools / bools), std::vector<double>{1, nan_v, 1}, 0);
}

TEST(Ops, ScalarsAreWeak) {
  auto xv = random_values<float>(8);
  auto x = make(xv, {2, 4});
  auto y = x * 2.0; // float32 stays float32
  static_assert(std::is_same_v<decltype(y), kiln::array<float>>);
  std::vector<double> want;
  for (float v : xv)
    want.push_back(double(v) * 2.0);
  expect_all_close(values(y), want, 1e-7);
  want.clear();
  for (float v : xv)
    want.push_back(1.5 - double(v));
  expect_all_close(values(1.5 - x), want, 2e-7, 1e-7);
  want.clear();
  for (float v : xv)
    want.push_back(3.0 / double(v));
  expect_all_close(values(3 / x), want, 2e-6);

  auto iv = random_values<int32_t>(5, -1000, 1000);
  auto i = make(iv);
  auto i2 = i * 2;
  static_assert(std::is_same_v<decltype(i2), kiln::array<int32_t>>);
  auto i25 = i * 2.5;
  static_assert(std::is_same_v<decltype(i25), kiln::array<double>>);
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(values(i2)[k], iv[k] * 2);
    EXPECT_EQ(values(i25)[k], iv[k] * 2.5);
  }
  auto xc = x * c128(0.5, -1.0); // float32 * complex scalar -> complex64
  static_assert(std::is_same_v<decltype(xc), kiln::array<c64>>);
  EXPECT_EQ(xc.dtype(), kiln::dtype::complex64);
  std::vector<c128> wc;
  for (float v : xv)
    wc.push_back(double(v) * c128(0.5, -1.0));
  expect_all_close(values(xc), wc, 1e-6);

  auto b = make<bool>({true, false, true});
  auto bi = b + 1; // bool + int scalar -> int64 (NumPy's default integer)
  static_assert(std::is_same_v<decltype(bi), kiln::array<int64_t>>);
  EXPECT_EQ(values(bi), (std::vector<int64_t>{2, 1, 2}));
}

TEST(Ops, ViewsAsOperands) {
  auto av = random_values<double>(12);
  auto a = make(av, {3, 4});
  auto bv = random_values<double>(12);
  auto b = make(bv, {4, 3});
  // a + b.T: a transposed view.
  auto r = a + b.T();
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      want.push_back(av[i * 4 + j] + bv[j * 3 + i]);
  expect_all_close(values(r), want, 1e-15);
  // A strided slice: rows 0 and 2, every other column.
  auto s = a.slice(
      {kiln::range(0, std::nullopt, 2), kiln::range(1, std::nullopt, 2)});
  ASSERT_EQ(s.shape(), (kiln::shape{2, 2}));
  auto r2 = s * 3.0;
  want = {av[1] * 3, av[3] * 3, av[9] * 3, av[11] * 3};
  expect_all_close(values(r2), want, 1e-15);
  // A broadcast view (stride 0) and a view of a view.
  auto row = make(random_values<double>(4), {4});
  auto rb = kiln::broadcast_to(row, {3, 4});
  auto r3 = rb - a.T().T();
  auto rv = values(row);
  want.clear();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      want.push_back(rv[j] - av[i * 4 + j]);
  expect_all_close(values(r3), want, 1e-15);
  // Mixed dtype and transposed: converted through the view's strides.
  auto f = make(random_values<float>(12), {4, 3});
  auto fv = values(f);
  auto r4 = a * f.T();
  want.clear();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      want.push_back(av[i * 4 + j] * double(fv[j * 3 + i]));
  expect_all_close(values(r4), want, 1e-15);
}

TEST(Ops, IntegersWrapAround) {
  auto a = make<int8_t>({127, -128, 100});
  EXPECT_EQ(values(a + int8_t(1)), (std::vector<int8_t>{-128, -127, 101}));
  EXPECT_EQ(values(a * 2), (std::vector<int8_t>{-2, 0, -56}));
  auto u = make<uint8_t>({0, 1, 255});
  EXPECT_EQ(values(u - 1), (std::vector<uint8_t>{255, 0, 254}));
  auto m = make<int32_t>({std::numeric_limits<int32_t>::max(),
                          std::numeric_limits<int32_t>::min()});
  EXPECT_EQ(values(m + 1),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(),
                                  std::numeric_limits<int32_t>::min() + 1}));
  EXPECT_EQ(values(-m),
            (std::vector<int32_t>{-std::numeric_limits<int32_t>::max(),
                                  std::numeric_limits<int32_t>::min()}));
}

//===----------------------------------------------------------------------===//
// Remainder and power
//===----------------------------------------------------------------------===//

double python_mod(double a, double b) {
  double m = std::fmod(a, b);
  if (b == 0)
    return m;
  if (m != 0) {
    if ((b < 0) != (m < 0))
      m += b;
  } else {
    m = std::copysign(0.0, b);
  }
  return m;
}

TEST(Ops, RemainderIsPythons) {
  auto a =
      make<int32_t>({7, -7, 7, -7, 5, std::numeric_limits<int32_t>::min(), 0});
  auto b = make<int32_t>({3, 3, -3, -3, 0, -1, 4});
  EXPECT_EQ(values(a % b), (std::vector<int32_t>{1, 2, -2, -1, 0, 0, 0}));
  auto ar = random_values<int64_t>(50, -1000, 1000),
       br = random_values<int64_t>(50, -30, 30);
  auto r = values(make(ar) % make(br));
  for (int i = 0; i < 50; ++i) {
    int64_t want =
        br[i] == 0
            ? 0
            : static_cast<int64_t>(python_mod(double(ar[i]), double(br[i])));
    EXPECT_EQ(r[i], want) << ar[i] << " % " << br[i];
  }
  auto fa = random_values<double>(40, -10, 10),
       fb = random_values<double>(40, -4, 4);
  fb[0] = 0;
  std::vector<double> want;
  for (int i = 0; i < 40; ++i)
    want.push_back(python_mod(fa[i], fb[i]));
  expect_all_close(values(make(fa) % make(fb)), want, 1e-15, 1e-15);
  EXPECT_TRUE(std::isnan(values(make(fa) % make(fb))[0]));
  // float32 with a scalar divisor, negative.
  auto ff = random_values<float>(20, -10, 10);
  want.clear();
  for (float v : ff)
    want.push_back(python_mod(v, -2.5));
  expect_all_close(values(make(ff) % -2.5), want, 1e-6, 1e-6);
  // Bools compute as int8.
  auto bb = make<bool>({true, true, false});
  auto bm = bb % bb;
  static_assert(std::is_same_v<decltype(bm), kiln::array<int8_t>>);
  EXPECT_EQ(values(bm), (std::vector<int8_t>{0, 0, 0}));
}

TEST(Ops, PowerOfIntegersAndFloats) {
  auto base = random_values<int64_t>(30, -6, 6),
       ex = random_values<int64_t>(30, 0, 7);
  auto r = values(kiln::pow(make(base), make(ex)));
  for (int i = 0; i < 30; ++i) {
    int64_t want = 1;
    for (int k = 0; k < ex[i]; ++k)
      want *= base[i];
    EXPECT_EQ(r[i], want) << base[i] << " ** " << ex[i];
  }
  auto sq = values(kiln::pow(make(base), 2));
  for (int i = 0; i < 30; ++i)
    EXPECT_EQ(sq[i], base[i] * base[i]);

  auto fb = random_values<float>(30, 0.1, 4),
       fe = random_values<float>(30, -2, 2);
  std::vector<double> want;
  for (int i = 0; i < 30; ++i)
    want.push_back(std::pow(double(fb[i]), double(fe[i])));
  expect_all_close(values(kiln::pow(make(fb), make(fe))), want, 4e-6);
  want.clear();
  for (int i = 0; i < 30; ++i)
    want.push_back(std::pow(2.0, double(fe[i])));
  expect_all_close(values(kiln::pow(2.0, make(fe))), want, 4e-6);

  auto cb = random_values<c128>(20, -2, 2), ce = random_values<c128>(20, -1, 1);
  std::vector<c128> cw;
  for (int i = 0; i < 20; ++i)
    cw.push_back(std::pow(cb[i], ce[i]));
  expect_all_close(values(kiln::pow(make(cb), make(ce))), cw, 1e-12, 1e-14);
  cw.clear();
  for (int i = 0; i < 20; ++i)
    cw.push_back(cb[i] * cb[i] * cb[i]);
  expect_all_close(values(kiln::pow(make(cb), 3)), cw, 1e-13, 1e-14);
  expect_all_close(values(kiln::pow(make<c128>({c128(0, 0), c128(2, 1)}), 0)),
                   std::vector<c128>{1, 1}, 0);
}

TEST(Ops, IntegerToNegativePowerIsTheIntegerPartOfTheReciprocal) {
  // docs/operations.md: Kiln's departure from NumPy's ValueError (as CuPy).
  auto a = make<int32_t>({2, 1, -1, -1, 0, -3});
  auto e = make<int32_t>({-1, -5, -3, -2, -1, -2});
  EXPECT_EQ(values(kiln::pow(a, e)), (std::vector<int32_t>{0, 1, -1, 1, 0, 0}));
  EXPECT_EQ(values(kiln::pow(a, -2)), (std::vector<int32_t>{0, 1, 1, 1, 0, 0}));
  EXPECT_EQ(values(kiln::pow(a, 2)), (std::vector<int32_t>{4, 1, 1, 1, 0, 9}));
  // A float exponent computes in float64.
  expect_all_close(values(kiln::pow(a, -1.0)), std::vector<double>{0.5, 1, -1, -1, INFINITY, -1.0 / 3}, 1e-15);
}

//===----------------------------------------------------------------------===//
// Math functions
//===----------------------------------------------------------------------===//

template <class T> void check_math_functions() {
  SCOPED_TRACE(std::string(kiln::name(kiln::dtype_of<T>)));
  using R = kiln::float_result_t<T>;
  const double rtol = std::is_integral_v<T> ? 1e-14 : (tol<T>() * 2);
  const bool integral = std::is_integral_v<T>;
  auto any =
      integral ? random_values<T>(24, -5, 5) : random_values<T>(24, -1.2, 1.2);
  auto positive =
      integral ? random_values<T>(24, 1, 100) : random_values<T>(24, 0.05, 5);
  auto x = make(any, {4, 6});
  auto p = make(positive, {4, 6});
  auto rx = refs(any), rp = refs(positive);
  using V = decltype(to_ref(T{}));
  auto map = [](const std::vector<V> &in, auto f) {
    std::vector<V> out;
    for (auto v : in)
      out.push_back(f(v));
    return out;
  };
  auto e = kiln::exp(x);
  static_assert(std::is_same_v<decltype(e), kiln::array<R>>);
  EXPECT_EQ(e.shape(), (kiln::shape{4, 6}));
  expect_all_close(values(e), map(rx, [](V v) { return std::exp(v); }), rtol, 0,
                   "exp");
  expect_all_close(values(kiln::log(p)),
                   map(rp, [](V v) { return std::log(v); }), rtol, rtol, "log");
  expect_all_close(values(kiln::log2(p)),
                   map(rp, [](V v) { return std::log(v) / std::log(2.0); }),
                   rtol, rtol, "log2");
  expect_all_close(values(kiln::log10(p)),
                   map(rp, [](V v) { return std::log10(v); }), rtol, rtol,
                   "log10");
  expect_all_close(values(kiln::sqrt(p)),
                   map(rp, [](V v) { return std::sqrt(v); }), rtol, 0, "sqrt");
  expect_all_close(values(kiln::sin(x)),
                   map(rx, [](V v) { return std::sin(v); }), rtol, rtol, "sin");
  expect_all_close(values(kiln::cos(x)),
                   map(rx, [](V v) { return std::cos(v); }), rtol, rtol, "cos");
  expect_all_close(values(kiln::tan(x)),
                   map(rx, [](V v) { return std::tan(v); }), rtol * 4, rtol,
                   "tan");
  expect_all_close(values(kiln::tanh(x)),
                   map(rx, [](V v) { return std::tanh(v); }), rtol, rtol,
                   "tanh");
}

TEST(Ops, MathFunctions) {
  check_math_functions<float>();
  check_math_functions<double>();
  check_math_functions<int32_t>();
  check_math_functions<int64_t>();
  check_math_functions<c64>();
  check_math_functions<c128>();
  // Small integers compute in float32.
  auto e = kiln::exp(make<int8_t>({0, 1, -2}));
  static_assert(std::is_same_v<decltype(e), kiln::array<float>>);
  expect_all_close(values(e),
                   std::vector<double>{1, std::exp(1.0), std::exp(-2.0)}, 1e-7);
  // Out of the domain: NaN and -inf as in NumPy.
  auto special = values(kiln::log(make<double>({-1.0, 0.0, inf_v})));
  EXPECT_TRUE(std::isnan(special[0]));
  EXPECT_EQ(special[1], -inf_v);
  EXPECT_EQ(special[2], inf_v);
}

TEST(Ops, AbsSignFloorCeilRound) {
  auto xv = random_values<double>(40, -5, 5);
  xv[0] = 0.0;
  xv[1] = nan_v;
  xv[2] = -inf_v;
  auto x = make(xv);
  auto a = values(kiln::abs(x)), s = values(kiln::sign(x)),
       f = values(kiln::floor(x)), c = values(kiln::ceil(x));
  for (int i = 0; i < 40; ++i) {
    EXPECT_TRUE(close(a[i], std::fabs(xv[i]), 0, 0)) << xv[i];
    double sw = std::isnan(xv[i]) ? nan_v : (xv[i] > 0) - (xv[i] < 0);
    EXPECT_TRUE(close(s[i], sw, 0, 0)) << xv[i];
    EXPECT_TRUE(close(f[i], std::floor(xv[i]), 0, 0)) << xv[i];
    EXPECT_TRUE(close(c[i], std::ceil(xv[i]), 0, 0)) << xv[i];
  }
  // Round half to even.
  auto r = values(kiln::round(
      make<float>({0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, -2.6f})));
  EXPECT_EQ(r, (std::vector<float>{0, 2, 2, -0.0f, -2, -2, 2, -3}));
  EXPECT_TRUE(std::signbit(r[3]));
  auto rc = values(kiln::round(make<c64>({c64(0.5f, 1.5f), c64(-2.5f, 3.7f)})));
  EXPECT_EQ(rc, (std::vector<c64>{c64(0, 2), c64(-2, 4)}));
  // Integers: abs, sign; floor/ceil/round keep the dtype and the values.
  auto iv = random_values<int32_t>(30, -100, 100);
  iv[0] = 0;
  auto ix = make(iv);
  auto ia = values(kiln::abs(ix)), is = values(kiln::sign(ix));
  auto ifl = kiln::floor(ix);
  static_assert(std::is_same_v<decltype(ifl), kiln::array<int32_t>>);
  for (int i = 0; i < 30; ++i) {
    EXPECT_EQ(ia[i], std::abs(iv[i]));
    EXPECT_EQ(is[i], (iv[i] > 0) - (iv[i] < 0));
  }
  EXPECT_EQ(values(ifl), iv);
  EXPECT_EQ(values(kiln::round(ix)), iv);
  // Complex abs (a real array) and sign z/|z| (NumPy 2).
  auto zv = random_values<c128>(20);
  zv[0] = 0;
  auto z = make(zv);
  auto za = kiln::abs(z);
  static_assert(std::is_same_v<decltype(za), kiln::array<double>>);
  std::vector<double> wa;
  std::vector<c128> ws;
  for (auto v : zv) {
    wa.push_back(std::abs(v));
    ws.push_back(v == c128(0) ? c128(0) : v / std::abs(v));
  }
  expect_all_close(values(za), wa, 1e-15);
  expect_all_close(values(kiln::sign(z)), ws, 1e-15);
  expect_all_close(values(kiln::sign(make<c64>(
                       {c64(inf_v, 1), c64(2, -inf_v), c64(nan_v, 0)}))),
                   std::vector<c128>{1, c128(0, -1), c128(nan_v, nan_v)}, 0);
}

TEST(Ops, ComplexParts) {
  auto zv = random_values<c64>(16);
  auto z = make(zv, {4, 4});
  auto re = kiln::real(z), im = kiln::imag(z);
  static_assert(std::is_same_v<decltype(re), kiln::array<float>>);
  auto cj = kiln::conj(z);
  auto ag = kiln::arg(z);
  static_assert(std::is_same_v<decltype(ag), kiln::array<float>>);
  std::vector<double> wr, wi, wg;
  std::vector<c128> wc;
  for (auto v : zv) {
    wr.push_back(v.real());
    wi.push_back(v.imag());
    wc.push_back(std::conj(c128(v)));
    wg.push_back(std::arg(c128(v)));
  }
  expect_all_close(values(re), wr, 0);
  expect_all_close(values(im), wi, 0);
  expect_all_close(values(cj), wc, 0);
  expect_all_close(values(ag), wg, 1e-6, 1e-7);
  // Of a transposed view.
  std::vector<double> wt;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      wt.push_back(zv[j * 4 + i].imag());
  expect_all_close(values(kiln::imag(z.T())), wt, 0);
  // Real arrays: real is the array, imag zeros, arg 0 or pi.
  auto xv = random_values<double>(10);
  auto x = make(xv);
  expect_all_close(values(kiln::real(x)), xv, 0);
  expect_all_close(values(kiln::imag(x)), std::vector<double>(10, 0.0), 0);
  expect_all_close(values(kiln::conj(x)), xv, 0);
  auto ai = kiln::arg(make<int32_t>({-3, 0, 5}));
  static_assert(std::is_same_v<decltype(ai), kiln::array<double>>);
  expect_all_close(values(ai), std::vector<double>{std::numbers::pi, 0, 0},
                   1e-15);
}

//===----------------------------------------------------------------------===//
// Comparisons, logic, NaN and infinity
//===----------------------------------------------------------------------===//

TEST(Ops, Comparisons) {
  auto av = random_values<int32_t>(60, -3, 3),
       bv = random_values<int32_t>(60, -3, 3);
  auto a = make(av, {6, 10}), b = make(bv, {6, 10});
  auto check = [&](const kiln::array<bool> &r, auto f, const char *what) {
    static_assert(
        std::is_same_v<std::remove_cvref_t<decltype(r)>, kiln::array<bool>>);
    auto rv = values(r);
    for (int i = 0; i < 60; ++i)
      EXPECT_EQ(rv[i], f(av[i], bv[i])) << what << " " << av[i] << " " << bv[i];
  };
  check(a == b, std::equal_to<>(), "==");
  check(a != b, std::not_equal_to<>(), "!=");
  check(a < b, std::less<>(), "<");
  check(a <= b, std::less_equal<>(), "<=");
  check(a > b, std::greater<>(), ">");
  check(a >= b, std::greater_equal<>(), ">=");
  // Float against a scalar with NaN.
  auto f = make<double>({1.0, nan_v, -2.0, 0.5});
  EXPECT_EQ(values(f < 0.75), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(values(f != f), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(values(0.75 >= f), (std::vector<bool>{false, false, true, true}));
  // Complex: lexicographic.
  auto z = make<c64>({c64(1, 2), c64(1, 3), c64(0, 9), c64(2, -1)});
  auto w = make<c64>({c64(1, 3), c64(1, 3), c64(1, 0), c64(1, 5)});
  EXPECT_EQ(values(z < w), (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(values(z <= w), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(values(z == w), (std::vector<bool>{false, true, false, false}));
  // An integer scalar out of the array's range compares correctly.
  auto s = make<int8_t>({-128, 0, 127});
  EXPECT_EQ(values(s < 300), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(values(s > -200), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(values(s == 256), (std::vector<bool>{false, false, false}));
  // Mixed dtypes compare in the promoted type.
  auto i = make<int32_t>({16777217, 1});
  auto fl = make<double>({16777216.0, 1.0});
  EXPECT_EQ(values(i == fl), (std::vector<bool>{false, true}));
}

TEST(Ops, Logic) {
  auto av = random_values<bool>(24), bv = random_values<bool>(6);
  auto a = make(av, {4, 6}), b = make(bv, {6});
  auto rand_ = values(a && b), ror = values(a || b), rnot = values(!a);
  for (int i = 0; i < 24; ++i) {
    EXPECT_EQ(rand_[i], av[i] && bv[i % 6]);
    EXPECT_EQ(ror[i], av[i] || bv[i % 6]);
    EXPECT_EQ(rnot[i], !av[i]);
  }
  EXPECT_EQ(values(a && true), av);
  EXPECT_EQ(values(false || a), av);
  // bool arithmetic: + is or, * is and (NumPy).
  auto sum = values(a + b), prod = values(a * b);
  for (int i = 0; i < 24; ++i) {
    EXPECT_EQ(sum[i], av[i] || bv[i % 6]);
    EXPECT_EQ(prod[i], av[i] && bv[i % 6]);
  }
  // Combined with comparisons.
  auto x = make(random_values<float>(24), {4, 6});
  auto xv = values(x);
  auto mask = values((x > -1.0f) && (x < 1.0f));
  for (int i = 0; i < 24; ++i)
    EXPECT_EQ(mask[i], xv[i] > -1 && xv[i] < 1);
}

TEST(Ops, IsNanIsInf) {
  auto f = make<float>(
      {1.0f, float(nan_v), float(inf_v), float(-inf_v), 0.0f, -3.5f});
  EXPECT_EQ(values(kiln::isnan(f)),
            (std::vector<bool>{false, true, false, false, false, false}));
  EXPECT_EQ(values(kiln::isinf(f)),
            (std::vector<bool>{false, false, true, true, false, false}));
  auto z =
      make<c128>({c128(1, nan_v), c128(inf_v, 0), c128(0, -inf_v), c128(1, 2)});
  EXPECT_EQ(values(kiln::isnan(z)),
            (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(values(kiln::isinf(z)),
            (std::vector<bool>{false, true, true, false}));
  auto i = make(random_values<int64_t>(10, -100, 100));
  EXPECT_EQ(values(kiln::isnan(i)), std::vector<bool>(10, false));
  EXPECT_EQ(values(kiln::isinf(i)), std::vector<bool>(10, false));
  // Produced by arithmetic.
  auto zero = make<double>({0.0, 1.0, -1.0});
  EXPECT_EQ(values(kiln::isnan(zero / 0.0)),
            (std::vector<bool>{true, false, false}));
  EXPECT_EQ(values(kiln::isinf(zero / 0.0)),
            (std::vector<bool>{false, true, true}));
}

TEST(Ops, MaximumMinimumPropagateNaN) {
  auto a = make<double>({1.0, nan_v, 3.0, -inf_v, nan_v});
  auto b = make<double>({2.0, 0.0, nan_v, 5.0, nan_v});
  auto mx = values(kiln::maximum(a, b)), mn = values(kiln::minimum(a, b));
  expect_all_close(mx, std::vector<double>{2.0, nan_v, nan_v, 5.0, nan_v}, 0);
  expect_all_close(mn, std::vector<double>{1.0, nan_v, nan_v, -inf_v, nan_v},
                   0);
  // Random, broadcast with a scalar and across dtypes.
  auto xv = random_values<float>(30), yv = random_values<float>(30);
  auto x = make(xv, {5, 6}), y = make(yv, {5, 6});
  auto m1 = values(kiln::maximum(x, y)), m2 = values(kiln::minimum(x, 0.25));
  for (int i = 0; i < 30; ++i) {
    EXPECT_EQ(m1[i], std::max(xv[i], yv[i]));
    EXPECT_EQ(m2[i], std::min(xv[i], 0.25f));
  }
  auto iv = random_values<int32_t>(10, -9, 9);
  auto mi = kiln::maximum(make(iv), 0);
  static_assert(std::is_same_v<decltype(mi), kiln::array<int32_t>>);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(values(mi)[i], std::max(iv[i], 0));
  auto mc = values(kiln::maximum(make<c64>({c64(1, 5), c64(nan_v, 0)}),
                                 make<c64>({c64(1, 6), c64(0, 0)})));
  EXPECT_EQ(mc[0], c64(1, 6));
  EXPECT_TRUE(std::isnan(mc[1].real()));
}

TEST(Ops, WhereAndClip) {
  auto cv = random_values<bool>(12);
  auto c = make(cv, {3, 4});
  auto av = random_values<double>(12), bv = random_values<double>(4);
  auto a = make(av, {3, 4}), b = make(bv, {4});
  auto w = values(kiln::where(c, a, b));
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(w[i], cv[i] ? av[i] : bv[i % 4]);
  auto ws = kiln::where(c, a, 0);
  static_assert(std::is_same_v<decltype(ws), kiln::array<double>>);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(values(ws)[i], cv[i] ? av[i] : 0.0);
  auto wss = kiln::where(c, 1.5f, -1.5f);
  static_assert(std::is_same_v<decltype(wss), kiln::array<float>>);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(values(wss)[i], cv[i] ? 1.5f : -1.5f);
  auto wi = kiln::where(c, make<int32_t>({1, 2, 3, 4}),
                        make<float>({0.5f, 0.25f, 0.125f, 1}));
  static_assert(std::is_same_v<decltype(wi), kiln::array<double>>);
  // Condition broadcast over a column.
  auto col = make<bool>({true, false, true}, {3, 1});
  auto wc = values(kiln::where(col, a, -a));
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(wc[i], (i / 4) != 1 ? av[i] : -av[i]);

  auto xv = random_values<float>(20, -3, 3);
  xv[0] = float(nan_v);
  auto x = make(xv);
  auto cl = kiln::clip(x, -1, 1.5);
  static_assert(std::is_same_v<decltype(cl), kiln::array<float>>);
  auto clv = values(cl);
  EXPECT_TRUE(std::isnan(clv[0]));
  for (int i = 1; i < 20; ++i)
    EXPECT_EQ(clv[i], std::min(std::max(xv[i], -1.0f), 1.5f));
  auto lo = make(random_values<float>(20, -2, 0)),
       hi = make(random_values<float>(20, 0, 2));
  auto lov = values(lo), hiv = values(hi);
  auto cl2 = values(kiln::clip(x, lo, hi));
  for (int i = 1; i < 20; ++i)
    EXPECT_EQ(cl2[i], std::min(std::max(xv[i], lov[i]), hiv[i]));
  auto ci = values(kiln::clip(make<int32_t>({-5, 0, 5, 10}), 0, 6));
  EXPECT_EQ(ci, (std::vector<int32_t>{0, 0, 5, 6}));
}

//===----------------------------------------------------------------------===//
// Shapes and errors
//===----------------------------------------------------------------------===//

TEST(Ops, ZeroDimensionalAndEmpty) {
  auto s = make<double>({2.5}, kiln::shape{});
  auto v = make<double>({1.0, 2.0, 3.0});
  auto r = s * v;
  EXPECT_EQ(r.shape(), (kiln::shape{3}));
  EXPECT_EQ(values(r), (std::vector<double>{2.5, 5.0, 7.5}));
  auto ss = s + s;
  EXPECT_EQ(ss.ndim(), 0);
  EXPECT_EQ(ss.item(), 5.0);
  auto e = make<float>({}, kiln::shape{0, 3});
  auto er = e + make<float>({1, 2, 3});
  EXPECT_EQ(er.shape(), (kiln::shape{0, 3}));
  EXPECT_EQ(er.size(), 0);
}

TEST(Ops, ShapeErrorsHaveNumPysMessage) {
  auto a = make(random_values<float>(12), {3, 4});
  auto b = make(random_values<float>(5), {5});
  try {
    (void)(a + b);
    FAIL() << "broadcast of (3,4) and (5,) accepted";
  } catch (const kiln::shape_error &e) {
    EXPECT_STREQ(
        e.what(),
        "operands could not be broadcast together with shapes (3,4) (5,)");
  }
  auto c = make<bool>({true, false}, {2});
  try {
    (void)kiln::where(c, a, b);
    FAIL() << "where of (2,) (3,4) (5,) accepted";
  } catch (const kiln::shape_error &e) {
    EXPECT_STREQ(
        e.what(),
        "operands could not be broadcast together with shapes (2,) (3,4) (5,)");
  }
  EXPECT_THROW((void)(a < b.slice({kiln::range(0, 3)})), kiln::shape_error);
  EXPECT_THROW(
      (void)kiln::maximum(make<int32_t>({1, 2}), make<int32_t>({1, 2, 3})),
      kiln::shape_error);
  // The program goes on.
  auto ok = a + b.slice({kiln::range(0, 4)});
  EXPECT_EQ(ok.shape(), (kiln::shape{3, 4}));
}

TEST(Ops, EagerRejectsBadOperands) {
  namespace d = kiln::detail;
  auto b = make<bool>({true, false});
  // What NumPy has no loop for is its TypeError; a malformed call a ValueError.
  EXPECT_THROW(d::eager(d::op::subtract, {b, b}), kiln::type_error);
  EXPECT_THROW(d::eager(d::op::negative, {b}), kiln::type_error);
  EXPECT_THROW(d::eager(d::op::exp, {b, b}), kiln::value_error); // wrong arity
  EXPECT_THROW(d::eager(d::op::add, {1, 2}), kiln::value_error); // no array
  // The untyped entry agrees with the typed API.
  auto r = kiln::array<int64_t>(d::eager(d::op::add, {b, 3}));
  EXPECT_EQ(values(r), (std::vector<int64_t>{4, 3}));
}

//===----------------------------------------------------------------------===//
// GPU: the eager fallback round-trips through the host
//===----------------------------------------------------------------------===//

TEST(OpsGpu, EagerFallbackOnDeviceArrays) {
  KILN_REQUIRE_GPU();
  const auto gpu = kiln::device::cuda(0);
  auto av = random_values<float>(12), bv = random_values<float>(4);
  auto ha = make(av, {3, 4}), hb = make(bv, {4});
  auto da = ha.to(gpu), db = hb.to(gpu);
  auto r = da * db + 1.0f;
  EXPECT_EQ(r.device(), gpu);
  EXPECT_EQ(values(r), values(ha * hb + 1.0f));
  auto e = kiln::exp(da.T());
  EXPECT_EQ(e.device(), gpu);
  EXPECT_EQ(values(e), values(kiln::exp(ha.T())));
  auto w = kiln::where(da > 0.0f, da, 0.0f);
  EXPECT_EQ(values(w), values(kiln::where(ha > 0.0f, ha, 0.0f)));
}

TEST(OpsGpu, OperandsOnTwoDevicesThrowDeviceError) {
  KILN_REQUIRE_GPU();
  auto h = make(random_values<float>(4));
  auto d = h.to(kiln::device::cuda(0));
  try {
    (void)(d + h);
    FAIL() << "operands on two devices accepted";
  } catch (const kiln::device_error &e) {
    EXPECT_STREQ(e.what(), "arrays are on different devices: cuda:0 and host");
  }
  EXPECT_THROW((void)kiln::where(h > 0.0f, d, h), kiln::device_error);
  // The program goes on.
  EXPECT_EQ(values(d + d), values(h + h));
}

} // namespace
