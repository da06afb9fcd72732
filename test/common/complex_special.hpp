//===- test/common/complex_special.hpp - Complex special values --*- C++ -*-===//
//
// The grid of complex values whose parts are zeros, ordinary numbers, a
// large one, infinities and NaN, and NumPy's answer for each complex
// operation on it: glibc's cexp, clog, csin, ... (NumPy calls the C
// library's, as std::exp etc. do), NumPy's own loops for * and /, and
// NumPy 2's sign. The compiled (test/e2e) and eager (test/unit) paths are
// both checked against it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TEST_COMMON_COMPLEX_SPECIAL_HPP
#define KILN_TEST_COMMON_COMPLEX_SPECIAL_HPP

#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

namespace complex_special {

/// Every pair of {0, -0, 1, -1.5, 800, inf, -inf, NaN} as (real, imag).
template <class R> std::vector<std::complex<R>> grid() {
  const R inf = std::numeric_limits<R>::infinity(), nan = std::numeric_limits<R>::quiet_NaN();
  const R parts[] = {R(0), -R(0), R(1), R(-1.5), R(800), inf, -inf, nan};
  std::vector<std::complex<R>> z;
  for (R re : parts)
    for (R im : parts)
      z.emplace_back(re, im);
  return z;
}

/// NumPy's complex multiply: the textbook formula (no C99 recovery).
template <class R> std::complex<R> multiply(std::complex<R> a, std::complex<R> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

/// NumPy's complex divide loop: Smith's algorithm; a zero divisor divides
/// each part by |0|.
template <class R> std::complex<R> divide(std::complex<R> a, std::complex<R> b) {
  const R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  const R abs_r = std::fabs(br), abs_i = std::fabs(bi);
  if (abs_r >= abs_i) {
    if (abs_r == 0 && abs_i == 0)
      return {ar / abs_r, ai / abs_r};
    const R rat = bi / br, scl = R(1) / (br + bi * rat);
    return {(ar + ai * rat) * scl, (ai - ar * rat) * scl};
  }
  const R rat = br / bi, scl = R(1) / (bi + br * rat);
  return {(ar * rat + ai) * scl, (ai * rat - ar) * scl};
}

/// NumPy's npy_cpow: 1 for a zero exponent; for a zero base, 0 if the
/// exponent's real part is positive, else NaN;
/// exact products for an integer exponent in (-100, 100) (1, 2 and 3
/// unrolled); else the C library's cpow.
template <class R> std::complex<R> pow(std::complex<R> a, std::complex<R> b) {
  using Z = std::complex<R>;
  const R br = b.real(), bi = b.imag(), nan = std::numeric_limits<R>::quiet_NaN();
  if (br == 0 && bi == 0)
    return {1, 0};
  if (a.real() == 0 && a.imag() == 0)
    return br > 0 ? Z(0, 0) : Z(nan, nan); // NumPy 2.4: any positive real part
  if (bi == 0 && br == std::floor(br) && std::fabs(br) < 100) {
    const long n = static_cast<long>(br);
    if (n == 1)
      return a;
    if (n == 2)
      return multiply(a, a);
    if (n == 3)
      return multiply(a, multiply(a, a));
    Z acc(1, 0), p = a;
    for (long m = n < 0 ? -n : n; m; m >>= 1) {
      if (m & 1)
        acc = multiply(acc, p);
      p = multiply(p, p);
    }
    return n < 0 ? divide(Z(1, 0), acc) : acc;
  }
  return std::pow(a, b);
}

/// NumPy 2's sign: z / |z|; one infinite part gives its direction, even
/// beside a NaN; both infinite, or NaN otherwise: NaN; 0 for 0.
template <class R> std::complex<R> sign(std::complex<R> z) {
  const R re = z.real(), im = z.imag(), nan = std::numeric_limits<R>::quiet_NaN();
  if (std::isinf(re))
    return std::isinf(im) ? std::complex<R>(nan, nan) : std::complex<R>(re > 0 ? 1 : -1, 0);
  if (std::isinf(im))
    return {0, im > 0 ? R(1) : R(-1)};
  if (std::isnan(re) || std::isnan(im))
    return {nan, nan};
  if (re == 0 && im == 0)
    return {0, 0};
  return z / std::abs(z);
}

/// One part equal to NumPy's: both NaN, the same infinity, or within a few
/// ulps of the value's modulus (the sign of a zero is not compared: Annex G leaves many unspecified).
/// `scale`: the modulus of the whole value (a part much smaller than the
/// other carries the larger one's rounding).
template <class R> bool same_part(R want, R got, R scale) {
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) && std::isnan(got);
  if (std::isinf(want) || std::isinf(got))
    return want == got;
  const R tol = std::numeric_limits<R>::epsilon() * 64;
  return std::fabs(want - got) <= tol * std::fmax(R(1), std::isfinite(scale) ? scale : std::fabs(want));
}

template <class R> bool same(std::complex<R> want, std::complex<R> got) {
  const R scale = std::hypot(want.real(), want.imag());
  return same_part(want.real(), got.real(), scale) && same_part(want.imag(), got.imag(), scale);
}

template <class R> std::string show(std::complex<R> z) {
  return "(" + std::to_string(double(z.real())) + ", " + std::to_string(double(z.imag())) + ")";
}

} // namespace complex_special

#endif
