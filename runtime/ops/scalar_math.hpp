//===- runtime/ops/scalar_math.hpp - NumPy's semantics on one element -----===//
//
// The value of each elementwise operation on single elements, as NumPy's
// loops compute it: wrapping integer arithmetic, Python's remainder, integer
// division by zero giving 0, NaN-propagating maximum, lexicographic complex
// ordering, NumPy 2's complex sign. The eager operations (eager.cpp) apply
// these over arrays; they are the reference the fused kernels must match.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "host_loop.hpp"
#include "kiln/error.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numbers>
#include <type_traits>

namespace kiln::detail::math {

using host::is_complex_v;

template <class T>
inline constexpr bool is_int_v =
    std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// Integer arithmetic wraps around as in NumPy (no undefined behaviour).
template <class T> T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T> T wrap_sub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <class T> T wrap_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned,
                               U>; // avoid int promotion
  return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) *
                                       static_cast<W>(static_cast<U>(b))));
}

template <class T> T add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a || b;
  else if constexpr (is_int_v<T>)
    return wrap_add(a, b);
  else
    return a + b;
}
template <class T> T subtract(T a, T b) {
  if constexpr (is_int_v<T>)
    return wrap_sub(a, b);
  else
    return a - b;
}
/// a / b on floats; complex as NumPy's loop (Smith's algorithm on the
/// divisor's larger part, a zero divisor dividing each part by |0|), not
/// C99's __divdc3, so that infinite and NaN parts give NumPy's answers.
template <class T> T true_divide(T a, T b) {
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    const R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
    const R abs_r = std::fabs(br), abs_i = std::fabs(bi);
    if (abs_r >= abs_i) {
      if (abs_r == 0 && abs_i == 0)
        return T(ar / abs_r, ai / abs_r);
      const R rat = bi / br, scl = R(1) / (br + bi * rat);
      return T((ar + ai * rat) * scl, (ai - ar * rat) * scl);
    }
    const R rat = br / bi, scl = R(1) / (bi + br * rat);
    return T((ar * rat + ai) * scl, (ai * rat - ar) * scl);
  } else {
    return a / b;
  }
}

/// a * b; complex by the textbook formula, as NumPy (and the compiled
/// kernels), not C99's __muldc3, which recovers infinities from NaN parts.
template <class T> T multiply(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a && b;
  else if constexpr (is_int_v<T>)
    return wrap_mul(a, b);
  else if constexpr (is_complex_v<T>)
    return T(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
  else
    return a * b;
}
template <class T> T negative(T a) {
  if constexpr (is_int_v<T>)
    return wrap_sub(T(0), a);
  else
    return -a;
}

/// NumPy's npy_divmod of floats: Python's floor quotient and remainder (the
/// sign of b); for b == 0, a / b and fmod's NaN.
template <class T> struct float_quotient { T div, mod; };
template <class T> float_quotient<T> float_divmod(T a, T b) {
  T mod = std::fmod(a, b);
  if (b == T(0))
    return {a / b, mod};
  T div = (a - mod) / b;
  if (mod != T(0)) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= T(1);
    }
  } else {
    mod = std::copysign(T(0), b);
  }
  if (div == T(0))
    return {std::copysign(T(0), a / b), mod};
  T fl = std::floor(div);
  if (div - fl > T(0.5))
    fl += T(1);
  return {fl, mod};
}

/// Python's remainder: sign of the divisor; x % 0 is 0 for integers and NaN
/// for floats (as NumPy's npy_divmod).
template <class T> T remainder(T a, T b) {
  if constexpr (is_int_v<T>) {
    if (b == 0)
      return 0;
    if constexpr (std::is_signed_v<T>) {
      if (b == -1)
        return 0; // also avoids the overflow of min % -1
      T r = static_cast<T>(a % b);
      if (r != 0 && ((r < 0) != (b < 0)))
        r = static_cast<T>(r + b);
      return r;
    } else {
      return static_cast<T>(a % b);
    }
  } else {
    return float_divmod(a, b).mod;
  }
}

template <class T> T power(T a, T b) {
  if constexpr (is_int_v<T>) {
    // A negative exponent: the integer part of 1 / a**-b, as the compiled
    // kernels (and CuPy) give; docs/operations.md says why not NumPy's error.
    if constexpr (std::is_signed_v<T>)
      if (b < 0)
        return a == 1 ? T(1) : a == T(-1) ? T((b & 1) ? -1 : 1) : T(0);
    T result = 1, base = a;
    for (auto e = static_cast<std::make_unsigned_t<T>>(b); e; e >>= 1) {
      if (e & 1)
        result = wrap_mul(result, base);
      base = wrap_mul(base, base);
    }
    return result;
  } else if constexpr (is_complex_v<T>) {
    // NumPy's npy_cpow: exact for small integer exponents, 1 for x**0.
    using R = typename T::value_type;
    const R br = b.real(), bi = b.imag();
    if (br == R(0) && bi == R(0))
      return T(1, 0);
    if (a.real() == R(0) && a.imag() == R(0)) {
      if (br > R(0)) // NumPy 2: any exponent with a positive real part
        return T(0, 0);
      const R nan = std::numeric_limits<R>::quiet_NaN();
      return T(nan, nan);
    }
    if (bi == R(0) && br == std::trunc(br) && br > R(-100) && br < R(100)) {
      long n = static_cast<long>(br);
      if (n == 1) // unrolled as NumPy's, so that infinite parts survive
        return a;
      if (n == 2)
        return multiply(a, a);
      if (n == 3)
        return multiply(a, multiply(a, a));
      long m = n < 0 ? -n : n;
      T result(1, 0), base = a;
      for (; m; m >>= 1) {
        if (m & 1)
          result = multiply(result, base);
        base = multiply(base, base);
      }
      return n < 0 ? true_divide(T(1, 0), result) : result;
    }
    return std::pow(a, b);
  } else {
    return std::pow(a, b);
  }
}

template <class T> bool has_nan(T a) {
  if constexpr (is_complex_v<T>)
    return std::isnan(a.real()) || std::isnan(a.imag());
  else if constexpr (std::is_floating_point_v<T>)
    return std::isnan(a);
  else
    return false;
}

// Complex ordering is lexicographic (real part first), as NumPy's CLT/CLE.
template <class T> bool less(T a, T b) {
  if constexpr (is_complex_v<T>)
    return (a.real() < b.real() && !std::isnan(a.imag()) &&
            !std::isnan(b.imag())) ||
           (a.real() == b.real() && a.imag() < b.imag());
  else
    return a < b;
}
template <class T> bool less_equal(T a, T b) {
  if constexpr (is_complex_v<T>)
    return (a.real() < b.real() && !std::isnan(a.imag()) &&
            !std::isnan(b.imag())) ||
           (a.real() == b.real() && a.imag() <= b.imag());
  else
    return a <= b;
}

/// NaN-propagating maximum / minimum (NumPy's maximum / minimum). Reals:
/// (a > b || isnan(a)) ? a : b, so that b wins a tie (maximum(0.0, -0.0)
/// is -0.0, as NumPy's loops); complex: the lexicographic extreme, a on ties.
template <class T> T maximum(T a, T b) {
  if constexpr (is_complex_v<T>) {
    if (has_nan(a))
      return a;
    if (has_nan(b))
      return b;
    return less_equal(b, a) ? a : b;
  } else {
    return a > b || has_nan(a) ? a : b;
  }
}
template <class T> T minimum(T a, T b) {
  if constexpr (is_complex_v<T>) {
    if (has_nan(a))
      return a;
    if (has_nan(b))
      return b;
    return less_equal(a, b) ? a : b;
  } else {
    return a < b || has_nan(a) ? a : b;
  }
}
/// NaN-ignoring fmax / fmin of reals: (a > b || isnan(b)) ? a : b, b on
/// ties as maximum.
template <class T> T fmax(T a, T b) { return a > b || has_nan(b) ? a : b; }
template <class T> T fmin(T a, T b) { return a < b || has_nan(b) ? a : b; }
/// np.clip. NumPy has two loops, which differ on ties (the sign of a zero):
/// with array bounds _NPY_CLIP, isnan(x) ? x : x > lo ? x : lo, then the
/// same with < and hi (a tie gives the bound); with two scalar bounds
/// (`scalar_bounds`) x is kept on ties. A NaN anywhere gives NaN.
template <class T> T clip(T x, T lo, T hi, bool scalar_bounds) {
  if constexpr (!is_complex_v<T>) {
    if (scalar_bounds) {
      const T m = x >= lo || has_nan(x) ? x : lo;
      return m <= hi || has_nan(m) ? m : hi;
    }
  }
  // _NPY_CLIP is maximum then minimum (complex: lexicographic).
  return minimum(maximum(x, lo), hi);
}

template <class T> auto abs(T a) {
  if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>)
    return a;
  else if constexpr (is_int_v<T>)
    return a < 0 ? wrap_sub(T(0), a) : a;
  else
    return std::abs(a); // modulus (a real) for complex
}

template <class T> T sign(T a) {
  if constexpr (is_int_v<T>) {
    return static_cast<T>((a > 0) - (a < 0));
  } else if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    const R re = a.real(), im = a.imag(),
            nan = std::numeric_limits<R>::quiet_NaN();
    // One infinite part: its direction, even beside a NaN (NumPy 2).
    if (std::isinf(re))
      return std::isinf(im) ? T(nan, nan) : T(re > 0 ? 1 : -1, 0);
    if (std::isinf(im))
      return T(0, im > 0 ? 1 : -1);
    if (std::isnan(re) || std::isnan(im))
      return T(nan, nan);
    if (re == 0 && im == 0)
      return T(0, 0);
    return a / std::abs(a);
  } else {
    if (std::isnan(a))
      return a;
    return static_cast<T>((a > 0) - (a < 0));
  }
}

template <class T> T floor(T a) {
  if constexpr (std::is_floating_point_v<T>)
    return std::floor(a);
  else
    return a;
}
template <class T> T ceil(T a) {
  if constexpr (std::is_floating_point_v<T>)
    return std::ceil(a);
  else
    return a;
}
/// Half to even, in the default rounding mode (round-to-nearest-even).
template <class T> T round(T a) {
  if constexpr (std::is_floating_point_v<T>)
    return std::nearbyint(a);
  else if constexpr (is_complex_v<T>)
    return T(std::nearbyint(a.real()), std::nearbyint(a.imag()));
  else
    return a;
}

template <class T> auto real(T a) {
  if constexpr (is_complex_v<T>)
    return a.real();
  else
    return a;
}
template <class T> auto imag(T a) {
  if constexpr (is_complex_v<T>)
    return a.imag();
  else
    return T(0);
}
template <class T> T conj(T a) {
  if constexpr (is_complex_v<T>)
    return std::conj(a);
  else
    return a;
}
/// np.angle: atan2(imag, real); for reals 0 or pi (NaN for NaN).
template <class T> auto arg(T a) {
  if constexpr (is_complex_v<T>)
    return std::arg(a);
  else
    return std::atan2(T(0), a);
}

template <class T> bool isnan(T a) { return has_nan(a); }
template <class T> bool isinf(T a) {
  if constexpr (is_complex_v<T>)
    return std::isinf(a.real()) || std::isinf(a.imag());
  else if constexpr (std::is_floating_point_v<T>)
    return std::isinf(a);
  else
    return false;
}

template <class T> T log2(T a) {
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    return std::log(a) / std::log(R(2));
  } else {
    return std::log2(a);
  }
}

template <class T> T exp2(T a) {
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    return std::exp(a * R(0.693147180559945309417232121458176568));
  } else {
    return std::exp2(a);
  }
}

template <class T> T trunc(T a) {
  if constexpr (std::is_floating_point_v<T>)
    return std::trunc(a);
  else
    return a;
}

template <class T> bool isfinite(T a) { return !has_nan(a) && !isinf(a); }

template <class T> bool signbit(T a) {
  if constexpr (std::is_floating_point_v<T>)
    return std::signbit(a);
  else if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>)
    return false;
  else
    return a < 0;
}

/// np.deg2rad / rad2deg: one multiplication by the constant in T.
template <class T> T deg2rad(T a) {
  return a * T(0.017453292519943295769236907684886127);
}
template <class T> T rad2deg(T a) {
  return a * T(57.295779513082320876798154814105170);
}

/// NumPy's npy_logaddexp: log(exp(a) + exp(b)) without overflow; equal
/// arguments (infinities included) give a + log(2).
template <class T> T logaddexp(T a, T b) {
  if (a == b)
    return a + T(0.693147180559945309417232121458176568);
  const T d = a - b;
  if (d > 0)
    return a + std::log1p(std::exp(-d));
  if (d <= 0)
    return b + std::log1p(std::exp(d));
  return d; // NaN
}
template <class T> T logaddexp2(T a, T b) {
  constexpr T log2e = T(1.442695040888963407359924681001892137);
  if (a == b)
    return a + 1;
  const T d = a - b;
  if (d > 0)
    return a + std::log1p(std::exp2(-d)) * log2e;
  if (d <= 0)
    return b + std::log1p(std::exp2(d)) * log2e;
  return d;
}

/// NumPy's shifts: a count at or past the width (or negative: NumPy reads
/// it as a huge unsigned one) gives 0, or -1 for a negative a shifted right.
template <class T> T left_shift(T a, T b) {
  using U = std::make_unsigned_t<T>;
  if (static_cast<unsigned long long>(static_cast<long long>(b)) <
      sizeof(T) * 8)
    return static_cast<T>(static_cast<U>(a) << b);
  return T(0);
}
template <class T> T right_shift(T a, T b) {
  if (static_cast<unsigned long long>(static_cast<long long>(b)) <
      sizeof(T) * 8)
    return static_cast<T>(a >> b);
  if constexpr (std::is_signed_v<T>)
    return a < 0 ? T(-1) : T(0);
  return T(0);
}

// --- More ufuncs (issue 27); kilnc's formulas are Frontend/UfuncMath.cpp.

/// 1 / a; integers: 1 and -1 keep, all else (0 too) gives 0.
template <class T> T reciprocal(T a) {
  if constexpr (is_int_v<T>) {
    if constexpr (std::is_signed_v<T>)
      return a == 1 || a == -1 ? a : T(0);
    else
      return a == 1 ? a : T(0);
  } else {
    return true_divide(T(1), a);
  }
}

/// Python's a // b: NumPy's npy_floor_divide for floats, floor division of
/// integers (0 for b == 0, min // -1 wraps).
template <class T> T floor_divide(T a, T b) {
  if constexpr (is_int_v<T>) {
    if (b == 0)
      return 0;
    if constexpr (std::is_signed_v<T>) {
      if (b == -1)
        return wrap_sub(T(0), a);
      T q = static_cast<T>(a / b);
      if (a % b != 0 && ((a < 0) != (b < 0)))
        --q;
      return q;
    } else {
      return static_cast<T>(a / b);
    }
  } else {
    return float_divmod(a, b).div;
  }
}

/// C's remainder (sign of a); integers: 0 for b == 0 and b == -1.
template <class T> T fmod(T a, T b) {
  if constexpr (is_int_v<T>) {
    if (b == 0)
      return 0;
    if constexpr (std::is_signed_v<T>)
      if (b == -1)
        return 0;
    return static_cast<T>(a % b);
  } else {
    return std::fmod(a, b);
  }
}

/// np.sinc: sin(y) / y with y = pi * x, x = 0 taken as 1e-20.
template <class T> T sinc(T a) {
  const T y = std::numbers::pi_v<T> * (a == T(0) ? T(1.0e-20) : a);
  return std::sin(y) / y;
}

/// np.spacing: nextafter(a, copysign(inf, a)) - a; NaN for inf and NaN.
template <class T> T spacing(T a) {
  if (std::isinf(a) || std::isnan(a))
    return std::numeric_limits<T>::quiet_NaN();
  return std::nextafter(a,
                        std::copysign(std::numeric_limits<T>::infinity(), a)) -
         a;
}

/// np.heaviside(a, h): 0 below zero, h at zero, 1 above, NaN for NaN.
template <class T> T heaviside(T a, T h) {
  if (std::isnan(a))
    return a;
  return a < T(0) ? T(0) : a == T(0) ? h : T(1);
}

/// The 1 bits of |a| as uint8 (np.bitwise_count).
template <class T> std::uint8_t bitwise_count(T a) {
  if constexpr (std::is_same_v<T, bool>) {
    return a ? 1 : 0;
  } else {
    using U = std::make_unsigned_t<T>;
    U v = static_cast<U>(a);
    if constexpr (std::is_signed_v<T>)
      if (a < 0)
        v = static_cast<U>(U(0) - v);
    return static_cast<std::uint8_t>(std::popcount(v));
  }
}

/// 10^k for k >= 0 as a product of exact powers of ten (exact up to 10^22,
/// then one rounding a factor), the same on every backend (kilnc's
/// ScalarBuilder::roundDecimals).
inline double pow10(std::int64_t k) {
  static constexpr double factors[] = {1e1,  1e2,  1e4,   1e8,  1e16,
                                       1e32, 1e64, 1e128, 1e256};
  if (k >= 512)
    return std::numeric_limits<double>::infinity();
  double f = 1;
  for (int b = 0; b < 9; ++b)
    if (k & (std::int64_t{1} << b))
      f *= factors[b];
  return f;
}

/// np.round(a, decimals) (see kiln::round).
template <class T> T round_decimals(T a, std::int64_t d) {
  if constexpr (is_complex_v<T>) {
    return T(round_decimals(a.real(), d), round_decimals(a.imag(), d));
  } else if constexpr (std::is_floating_point_v<T>) {
    const T f = static_cast<T>(pow10(d < 0 ? -d : d));
    return d >= 0 ? std::nearbyint(a * f) / f : std::nearbyint(a / f) * f;
  } else {
    if (d >= 0)
      return a;
    if (-d > 18)
      return T(0);
    const std::int64_t f = static_cast<std::int64_t>(pow10(-d));
    const std::int64_t x = static_cast<std::int64_t>(a);
    std::int64_t q = x / f, r = x % f;
    if (r < 0) {
      --q;
      r += f;
    }
    if (2 * r > f || (2 * r == f && (q & 1)))
      ++q;
    return static_cast<T>(static_cast<std::uint64_t>(q) *
                          static_cast<std::uint64_t>(f));
  }
}

/// np.gcd / np.lcm: Euclid on the magnitudes as unsigned integers
/// (|INT_MIN| is 2^(bits-1)), the result converted back (lcm wraps).
template <class T> std::make_unsigned_t<T> magnitude(T a) {
  using U = std::make_unsigned_t<T>;
  if constexpr (std::is_signed_v<T>)
    return a < 0 ? static_cast<U>(U(0) - static_cast<U>(a)) : static_cast<U>(a);
  else
    return a;
}
template <class U> U gcd_unsigned(U a, U b) {
  while (a != 0) {
    const U c = a;
    a = static_cast<U>(b % a);
    b = c;
  }
  return b;
}
template <class T> T gcd(T a, T b) {
  return static_cast<T>(gcd_unsigned(magnitude(a), magnitude(b)));
}
template <class T> T lcm(T a, T b) {
  using U = std::make_unsigned_t<T>;
  const U ua = magnitude(a), ub = magnitude(b), g = gcd_unsigned(ua, ub);
  if (g == 0)
    return 0;
  using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(ua / g)) *
                                       static_cast<W>(ub)));
}

/// x * 2^e rounded once (C's ldexp): glibc's scalbn, exact for every e.
template <class T> T ldexp(T x, std::int64_t e) {
  constexpr std::int64_t limit = 1 << 20; // past any exponent range
  return std::ldexp(x, static_cast<int>(std::clamp(e, -limit, limit)));
}

/// np.nan_to_num of one element: NaN, +inf and -inf replaced (complex: in
/// each part).
template <class T> T nan_to_num(T x, T nan, T posinf, T neginf) {
  if constexpr (is_complex_v<T>) {
    return T(nan_to_num(x.real(), nan.real(), posinf.real(), neginf.real()),
             nan_to_num(x.imag(), nan.real(), posinf.real(), neginf.real()));
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x))
      return nan;
    if (std::isinf(x))
      return x > 0 ? posinf : neginf;
    return x;
  } else {
    return x;
  }
}

/// np.frexp's mantissa and exponent (C's frexp; 0 for inf and NaN).
template <class T> T frexp_mantissa(T x) {
  int e = 0;
  return std::frexp(x, &e);
}
template <class T> std::int32_t frexp_exponent(T x) {
  int e = 0;
  std::frexp(x, &e);
  return std::isfinite(x) ? e : 0;
}
/// np.modf's fractional part: x - trunc(x) with x's sign (0 for infinities).
template <class T> T modf_fraction(T x) {
  T integral;
  return std::modf(x, &integral);
}

} // namespace kiln::detail::math
