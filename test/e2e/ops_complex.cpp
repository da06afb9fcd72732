// complex64 and complex128 arrays through kilnc's kernels: arithmetic,
// transcendental functions, real/imag/conj/abs/arg/sign, and mixing with
// real arrays and scalars, against complex<double> references.
#include "e2e.hpp"

using namespace e2e;
using C = std::complex<double>;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

int main() {
  const std::size_t n = 1027;
  auto rng = kiln::random::default_rng(31);
  kiln::array<float> re = rng.normal<float>({std::int64_t(n)}, 0.0, 1.0), im = rng.normal<float>({std::int64_t(n)}, 0.0, 1.0);
  kiln::array<c64> z = re + c64(0, 1) * im;
  kiln::array<c128> w = z.astype<c128>() * 0.5 + 1.0;
  std::vector<c64> hz = z.to_vector();
  std::vector<c128> hw = w.to_vector();
  auto Z = [&](std::size_t i) { return C(hz[i].real(), hz[i].imag()); };
  auto W = [&](std::size_t i) { return hw[i]; };
  const double t = 1e-5, t2 = 1e-12;

  expect("c64 +", z + z, n, [&](auto i) { return Z(i) + Z(i); }, t);
  expect("c64 *", z * z - z, n, [&](auto i) { return Z(i) * Z(i) - Z(i); }, t);
  expect("c64 /", z / (z + c64(3, 0)), n, [&](auto i) { return Z(i) / (Z(i) + 3.0); }, t);
  expect("c64 unary -", -z, n, [&](auto i) { return -Z(i); }, 0);
  expect("c64 exp", kiln::exp(z), n, [&](auto i) { return std::exp(Z(i)); }, t);
  expect("c64 log", kiln::log(z), n, [&](auto i) { return std::log(Z(i)); }, t);
  expect("c64 sqrt", kiln::sqrt(z), n, [&](auto i) { return std::sqrt(Z(i)); }, t);
  expect("c64 sin cos", kiln::sin(z) + kiln::cos(z), n, [&](auto i) { return std::sin(Z(i)) + std::cos(Z(i)); }, t);
  expect("c64 tanh", kiln::tanh(z), n, [&](auto i) { return std::tanh(Z(i)); }, t);
  expect("c64 abs", kiln::abs(z), n, [&](auto i) { return C(std::abs(Z(i))); }, t);
  expect("c64 arg", kiln::arg(z), n, [&](auto i) { return C(std::arg(Z(i))); }, t);
  expect("c64 real imag", kiln::real(z) * 2.0f + kiln::imag(z), n, [&](auto i) { return C(2 * Z(i).real() + Z(i).imag()); }, t);
  expect("c64 conj", kiln::conj(z), n, [&](auto i) { return std::conj(Z(i)); }, 0);
  expect("c64 sign", kiln::sign(z), n, [&](auto i) { return Z(i) / std::abs(Z(i)); }, t);
  expect("c64 == !=", (z == z) && (z != z + c64(1, 0)), n, [&](auto) { return C(1); }, 0);
  expect("c64 isnan", kiln::isnan(z), n, [&](auto) { return C(0); }, 0);
  expect("c128 chain", kiln::exp(w) * kiln::conj(w) + kiln::log10(w), n,
         [&](auto i) { return std::exp(W(i)) * std::conj(W(i)) + std::log10(W(i)); }, t2);
  expect("c128 pow", kiln::pow(w, c128(2, 0)), n, [&](auto i) { return std::pow(W(i), 2.0); }, 1e-10);
  expect("c64 + f64 -> c128", z + re.astype<double>(), n, [&](auto i) { return Z(i) + C(double(hz[i].real())); }, t2);
  return finish("ops_complex");
}
