// Integer and bool arrays through kilnc's kernels: arithmetic with NumPy's
// semantics (Python remainder, division by zero gives 0, true division to
// float64), comparisons, logic, and casts, against exact references.
#include "e2e.hpp"

using namespace e2e;
using C = std::complex<double>;

template <class I> static I py_mod(I a, I b) {
  if (b == 0) return 0;
  if (b == -1) return 0;
  I r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

int main() {
  const std::size_t n = 3001;
  auto rng = kiln::random::default_rng(21);
  kiln::array<std::int32_t> a = rng.integers<std::int32_t>(-1000, 1000, {std::int64_t(n)});
  kiln::array<std::int32_t> b = rng.integers<std::int32_t>(-7, 8, {std::int64_t(n)}); // includes 0
  kiln::array<std::int64_t> c = rng.integers<std::int64_t>(-(std::int64_t(1) << 40), std::int64_t(1) << 40, {std::int64_t(n)});
  std::vector<std::int32_t> ha = a.to_vector(), hb = b.to_vector();
  std::vector<std::int64_t> hc = c.to_vector();

  expect("i32 +", a + b, n, [&](auto i) { return C(ha[i] + hb[i]); }, 0);
  expect("i32 -", a - b, n, [&](auto i) { return C(ha[i] - hb[i]); }, 0);
  expect("i32 *", a * b, n, [&](auto i) { return C(ha[i] * hb[i]); }, 0);
  expect("i32 % (b may be 0)", a % b, n, [&](auto i) { return C(py_mod(ha[i], hb[i])); }, 0);
  expect("i32 / (true division)", a / b, n, [&](auto i) {
    return hb[i] == 0 ? C(ha[i] == 0 ? NAN : (ha[i] > 0 ? INFINITY : -INFINITY)) : C(double(ha[i]) / hb[i]);
  }, 1e-15);
  expect("i32 unary -", -a, n, [&](auto i) { return C(-ha[i]); }, 0);
  expect("i32 abs sign", kiln::abs(a) * kiln::sign(b), n, [&](auto i) { return C(std::abs(ha[i]) * ((hb[i] > 0) - (hb[i] < 0))); }, 0);
  expect("i32 maximum minimum", kiln::maximum(a, b) - kiln::minimum(a, 3), n,
         [&](auto i) { return C(std::max(ha[i], hb[i]) - std::min(ha[i], 3)); }, 0);
  expect("i32 pow", kiln::pow(b, 3), n, [&](auto i) { return C(hb[i] * hb[i] * hb[i]); }, 0);
  auto euclid = [](std::int64_t p, std::int64_t q) {
    p = std::abs(p), q = std::abs(q);
    while (p) {
      const std::int64_t r = q % p;
      q = p;
      p = r;
    }
    return q;
  };
  expect("i32 gcd(a, b) + lcm(a, 12)", kiln::gcd(a, b) + kiln::lcm(a, 12), n, [&](auto i) {
    const std::int64_t g = euclid(ha[i], 12);
    return C(double(euclid(ha[i], hb[i]) + (g ? std::abs(std::int64_t(ha[i])) / g * 12 : 0)));
  }, 0);
  expect("i64 gcd(c, c * 6 + 4)", kiln::gcd(c, c * std::int64_t(6) + std::int64_t(4)), n,
         [&](auto i) { return C(double(euclid(hc[i], hc[i] * 6 + 4))); }, 0);
  expect("i32 < float scalar", a < 2.5, n, [&](auto i) { return C(ha[i] < 2.5); }, 0);
  expect("i32 where", kiln::where(a > b, a, b), n, [&](auto i) { return C(ha[i] > hb[i] ? ha[i] : hb[i]); }, 0);
  expect("i32 exp (float64)", kiln::exp(b), n, [&](auto i) { return C(std::exp(double(hb[i]))); }, 1e-15);
  expect("i64 + i32", c + a, n, [&](auto i) { return C(double(hc[i] + ha[i])); }, 0);
  expect("i64 %", c % std::int64_t(97), n, [&](auto i) { return C(double(py_mod<std::int64_t>(hc[i], 97))); }, 0);
  expect("i64 * float32 -> float64", c.astype<float>() * 0.5f, n, [&](auto i) { return C(double(float(hc[i])) * 0.5); }, 1e-7);
  expect("i32 astype float", a.astype<float>() / 4.0f, n, [&](auto i) { return C(ha[i] / 4.0); }, 1e-7);
  expect("f64 astype i32 (truncation)", (a.astype<double>() / 3.0).astype<std::int32_t>(), n,
         [&](auto i) { return C(std::int32_t(ha[i] / 3.0)); }, 0);

  kiln::array<bool> p = a > 0, q = b > 0;
  std::vector<bool> hp(n), hq(n);
  for (std::size_t i = 0; i < n; ++i) hp[i] = ha[i] > 0, hq[i] = hb[i] > 0;
  expect("bool &&", p && q, n, [&](auto i) { return C(hp[i] && hq[i]); }, 0);
  expect("bool ||", p || q, n, [&](auto i) { return C(hp[i] || hq[i]); }, 0);
  expect("bool !", !p, n, [&](auto i) { return C(!hp[i]); }, 0);
  expect("bool == !=", (p == q) != (a == b), n, [&](auto i) { return C((hp[i] == hq[i]) != (ha[i] == hb[i])); }, 0);
  expect("bool astype int32", p.astype<std::int32_t>() + q.astype<std::int32_t>(), n,
         [&](auto i) { return C(int(hp[i]) + int(hq[i])); }, 0);
  return finish("ops_int");
}
