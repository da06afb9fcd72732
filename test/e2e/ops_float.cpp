// Every elementwise operation on float32 and float64 arrays, fused by kilnc,
// against double references on random data (NaN and infinity included).
#include "e2e.hpp"

#include <limits>
#include <optional>

using namespace e2e;
using C = std::complex<double>;

static double py_mod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

static void float32() {
  const std::size_t n = 4099; // not a multiple of any vector width
  auto rng = kiln::random::default_rng(11);
  kiln::array<float> x = rng.normal<float>({std::int64_t(n)}, 0.0, 3.0);
  kiln::array<float> y = rng.normal<float>({std::int64_t(n)}, 0.0, 3.0);
  kiln::array<float> p = rng.random<float>({std::int64_t(n)}) + 0.25f; // positive
  std::vector<float> hx = x.to_vector(), hy = y.to_vector(), hp = p.to_vector();
  const double t = 2e-6;
  auto X = [&](std::size_t i) { return double(hx[i]); };
  auto Y = [&](std::size_t i) { return double(hy[i]); };
  auto P = [&](std::size_t i) { return double(hp[i]); };

  expect("f32 +", x + y, n, [&](auto i) { return C(float(X(i) + Y(i))); }, t);
  expect("f32 -", x - y, n, [&](auto i) { return C(X(i) - Y(i)); }, t);
  expect("f32 *", x * y, n, [&](auto i) { return C(X(i) * Y(i)); }, t);
  expect("f32 /", x / p, n, [&](auto i) { return C(X(i) / P(i)); }, t);
  expect("f32 %", x % y, n, [&](auto i) { return C(py_mod(hx[i], hy[i])); }, 1e-4);
  expect("f32 unary -", -x, n, [&](auto i) { return C(-X(i)); }, 0);
  expect("f32 scalar", 2.0f * x + 1, n, [&](auto i) { return C(2 * X(i) + 1); }, t);
  expect("f32 exp", kiln::exp(x), n, [&](auto i) { return C(std::exp(X(i))); }, 1e-5);
  expect("f32 log", kiln::log(p), n, [&](auto i) { return C(std::log(P(i))); }, 1e-5);
  expect("f32 log2", kiln::log2(p), n, [&](auto i) { return C(std::log2(P(i))); }, 1e-5);
  expect("f32 log10", kiln::log10(p), n, [&](auto i) { return C(std::log10(P(i))); }, 1e-5);
  expect("f32 sqrt", kiln::sqrt(p), n, [&](auto i) { return C(std::sqrt(P(i))); }, 1e-6);
  expect("f32 sin", kiln::sin(x), n, [&](auto i) { return C(std::sin(X(i))); }, 1e-5);
  expect("f32 cos", kiln::cos(x), n, [&](auto i) { return C(std::cos(X(i))); }, 1e-5);
  expect("f32 tan", kiln::tan(p), n, [&](auto i) { return C(std::tan(P(i))); }, 1e-5);
  expect("f32 tanh", kiln::tanh(x), n, [&](auto i) { return C(std::tanh(X(i))); }, 1e-5);
  expect("f32 abs", kiln::abs(x), n, [&](auto i) { return C(std::abs(X(i))); }, 0);
  expect("f32 sign", kiln::sign(x), n, [&](auto i) { return C(X(i) > 0 ? 1 : X(i) < 0 ? -1 : 0); }, 0);
  expect("f32 floor", kiln::floor(x), n, [&](auto i) { return C(std::floor(X(i))); }, 0);
  expect("f32 ceil", kiln::ceil(x), n, [&](auto i) { return C(std::ceil(X(i))); }, 0);
  expect("f32 round", kiln::round(x * 2.0f), n, [&](auto i) { return C(std::nearbyint(double(float(2 * X(i))))); }, 0);
  expect("f32 pow", kiln::pow(p, y), n, [&](auto i) { return C(std::pow(P(i), Y(i))); }, 1e-5);
  expect("f32 maximum", kiln::maximum(x, y), n, [&](auto i) { return C(std::max(X(i), Y(i))); }, 0);
  expect("f32 minimum", kiln::minimum(x, y), n, [&](auto i) { return C(std::min(X(i), Y(i))); }, 0);
  expect("f32 where", kiln::where(x > y, x, y * 0.5f), n, [&](auto i) { return C(X(i) > Y(i) ? X(i) : Y(i) * 0.5); }, t);
  expect("f32 clip", kiln::clip(x, -1.0f, 1.0f), n, [&](auto i) { return C(std::clamp(X(i), -1.0, 1.0)); }, 0);
  expect("f32 clip(x, None, 1) - clip(y, -1, None)", kiln::clip(x, std::nullopt, 1.0f) - kiln::clip(y, -1.0f, std::nullopt), n,
         [&](auto i) { return C(double(std::min(hx[i], 1.0f) - std::max(hy[i], -1.0f))); }, 0);
  kiln::array<std::int32_t> k = rng.integers<std::int32_t>(-130, 120, {std::int64_t(n)});
  std::vector<std::int32_t> hk = k.to_vector();
  expect("f32 ldexp(x, k) (subnormals, rounded once)", kiln::ldexp(x, k), n,
         [&](auto i) { return C(double(std::ldexp(hx[i], hk[i]))); }, 0);
  expect("f32 ldexp(x * 2, -3) + 1", kiln::ldexp(x * 2.0f, -3) + 1.0f, n,
         [&](auto i) { return C(double(std::ldexp(2 * hx[i], -3) + 1.0f)); }, 0);
  expect("f32 ==", x == x, n, [&](auto) { return C(1); }, 0);
  expect("f32 !=", x != y, n, [&](auto i) { return C(X(i) != Y(i)); }, 0);
  expect("f32 <", x < y, n, [&](auto i) { return C(X(i) < Y(i)); }, 0);
  expect("f32 <=", x <= y, n, [&](auto i) { return C(X(i) <= Y(i)); }, 0);
  expect("f32 >", x > y, n, [&](auto i) { return C(X(i) > Y(i)); }, 0);
  expect("f32 >=", x >= 0.5f, n, [&](auto i) { return C(X(i) >= 0.5); }, 0);
  expect("f32 && || !", (x > 0.0f && y > 0.0f) || !(x < 1.0f), n,
         [&](auto i) { return C((X(i) > 0 && Y(i) > 0) || !(X(i) < 1)); }, 0);
  expect("f32 real/imag/conj", kiln::real(x) + kiln::imag(x) + kiln::conj(x), n, [&](auto i) { return C(2 * X(i)); }, t);
  expect("f32 arg", kiln::arg(x), n, [&](auto i) { return C(std::arg(C(X(i)))); }, 1e-6);

  // NaN and infinity.
  kiln::array<float> special = kiln::asarray<float>({1.0f, -0.0f, NAN, INFINITY, -INFINITY, 3.5f});
  std::vector<float> hs = special.to_vector();
  expect("f32 isnan", kiln::isnan(special), 6, [&](auto i) { return C(std::isnan(hs[i])); }, 0);
  expect("f32 isinf", kiln::isinf(special), 6, [&](auto i) { return C(std::isinf(hs[i])); }, 0);
  expect("f32 maximum NaN", kiln::maximum(special, 2.0f), 6,
         [&](auto i) { return std::isnan(hs[i]) ? C(NAN) : C(std::max(double(hs[i]), 2.0)); }, 0);
  const float big = std::numeric_limits<float>::max();
  expect("f32 nan_to_num", kiln::nan_to_num(special * 2.0f), 6,
         [&](auto i) { return std::isnan(hs[i]) ? C(0) : std::isinf(hs[i]) ? C(hs[i] > 0 ? big : -big) : C(2.0 * hs[i]); }, 0);
  expect("f32 nan_to_num(x, 7, 8, 9)", kiln::nan_to_num(special, 7.0, 8.0, 9.0) + 1.0f, 6,
         [&](auto i) { return C(1 + (std::isnan(hs[i]) ? 7 : std::isinf(hs[i]) ? (hs[i] > 0 ? 8 : 9) : hs[i])); }, 0);
  // Ties between zeros: maximum and minimum give their second operand, as
  // NumPy's loops.
  kiln::array<float> zeros = kiln::asarray<float>({0.0f, -0.0f, 0.0f, -0.0f}), others = kiln::asarray<float>({-0.0f, 0.0f, 0.0f, -0.0f});
  expect("f32 signbit(maximum(+-0, -+0)) + 2 signbit(minimum)", kiln::signbit(kiln::maximum(zeros, others)).astype<std::int32_t>() + 2 * kiln::signbit(kiln::minimum(zeros, others)).astype<std::int32_t>(), 4,
         [&](auto i) { return C(3 * (i == 0 || i == 3)); }, 0);
}

static void float64() {
  const std::size_t n = 2053;
  auto rng = kiln::random::default_rng(12);
  kiln::array<double> x = rng.normal<double>({std::int64_t(n)}, 0.0, 2.0);
  kiln::array<double> p = rng.random<double>({std::int64_t(n)}) + 0.5;
  std::vector<double> hx = x.to_vector(), hp = p.to_vector();
  const double t = 1e-12;
  expect("f64 chain", kiln::exp(-x * x) * kiln::sqrt(p) + kiln::log(p) / 3.0, n,
         [&](auto i) { return C(std::exp(-hx[i] * hx[i]) * std::sqrt(hp[i]) + std::log(hp[i]) / 3.0); }, t);
  expect("f64 %", x % p, n, [&](auto i) { return C(py_mod(hx[i], hp[i])); }, t);
  expect("f64 tanh", kiln::tanh(x), n, [&](auto i) { return C(std::tanh(hx[i])); }, t);
  expect("f64 pow", kiln::pow(p, 2.5), n, [&](auto i) { return C(std::pow(hp[i], 2.5)); }, t);
  // Mixed precision: float32 + float64 promotes to float64.
  kiln::array<float> xf = x.astype<float>();
  std::vector<float> hxf = xf.to_vector();
  expect("f32 + f64", xf + p, n, [&](auto i) { return C(double(hxf[i]) + hp[i]); }, t);
}

int main() {
  float32();
  float64();
  return finish("ops_float");
}
