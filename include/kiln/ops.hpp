//===- kiln/ops.hpp - Elementwise operations on arrays -----------*- C++
//-*-===//
//
// The elementwise operations of SPEC.md section 1 as free functions and
// operators: NumPy broadcasting, NumPy type promotion (kiln/promote.hpp) with
// C++ scalars as weak scalars. In a file compiled by kilnc these calls become
// fused kernels; elsewhere they run eagerly through the runtime's reference
// implementation (runtime/ops/), documented in docs/operations.md.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/promote.hpp"

#include <complex>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

namespace kiln {

namespace detail {

/// Every elementwise operation the runtime evaluates eagerly.
enum class op : std::uint8_t {
  // binary arithmetic
  add,
  subtract,
  multiply,
  true_divide,
  remainder,
  power,
  maximum,
  minimum,
  // comparisons (-> bool)
  equal,
  not_equal,
  less,
  less_equal,
  greater,
  greater_equal,
  // logic on bool
  logical_and,
  logical_or,
  logical_not,
  // unary
  negative,
  exp,
  log,
  log2,
  log10,
  sqrt,
  sin,
  cos,
  tan,
  tanh,
  abs,
  sign,
  floor,
  ceil,
  round,
  real,
  imag,
  conj,
  arg,
  isnan,
  isinf,
  // more unary functions (issue 27)
  arcsin,
  arccos,
  arctan,
  sinh,
  cosh,
  arcsinh,
  arccosh,
  arctanh,
  exp2,
  expm1,
  log1p,
  cbrt,
  deg2rad,
  rad2deg,
  rint,
  trunc,
  square,
  positive,
  isfinite,
  signbit,
  invert,
  // more binary functions
  arctan2,
  hypot,
  copysign,
  logaddexp,
  logaddexp2,
  fmax,
  fmin,
  bitwise_and,
  bitwise_or,
  bitwise_xor,
  left_shift,
  right_shift,
  logical_xor,
  // more ufuncs (issue 27)
  reciprocal,
  sinc,
  spacing,
  bitwise_count,
  floor_divide,
  fmod,
  float_power,
  heaviside,
  nextafter,
  angle,          // (x, deg)
  round_decimals, // (x, decimals)
  gcd,
  lcm,
  ldexp,          // (x, exponent): the exponent converted to int64
  nan_to_num,     // (x, nan, posinf, neginf)
  frexp_mantissa, // frexp's first result
  frexp_exponent, // frexp's second result, int32
  modf_fraction,  // modf's first result (its second is trunc)
  // ternary
  where, // (cond, a, b)
  clip,  // (x, lo, hi)
};

/// The NumPy name of an operation ("add", "true_divide", ...).
const char *op_name(op o) noexcept;

/// A C++ scalar operand, kept at full width; the runtime converts it to the
/// operation's computation type.
struct scalar_value {
  scalar_kind kind = scalar_kind::boolean;
  dtype natural =
      dtype::bool_; ///< scalar_dtype<S>(): used when no array fixes the type
  bool b = false;
  std::int64_t i = 0;
  double d = 0;
  std::complex<double> c{};
};

template <scalar S> scalar_value make_scalar(S s) {
  using T = std::remove_cvref_t<S>;
  scalar_value v;
  v.kind = scalar_kind_of<T>();
  v.natural = scalar_dtype<T>();
  if constexpr (std::is_same_v<T, bool>)
    v.b = s;
  else if constexpr (std::is_integral_v<T>)
    v.i = static_cast<std::int64_t>(s);
  else if constexpr (std::is_floating_point_v<T>)
    v.d = static_cast<double>(s);
  else
    v.c = std::complex<double>(static_cast<double>(s.real()),
                               static_cast<double>(s.imag()));
  return v;
}

/// An operand of an eager operation: an array or a scalar.
struct operand {
  const array_base *array = nullptr;
  scalar_value scalar;
  operand(const array_base &a) : array(&a) {}
  template <kiln::scalar S> operand(S s) : scalar(make_scalar(s)) {}
};

/// The dtype `eager(o, args)` returns, without computing anything. Throws
/// value_error for an operation NumPy has no loop for (bool subtract or
/// negative, complex %, floor or ceil).
dtype eager_result_dtype(op o, std::span<const operand> args);

/// Evaluates `o` on the host with NumPy broadcasting and promotion and
/// returns a new C-contiguous array on the operands' device (CUDA operands
/// are copied to the host and the result back: the eager fallback).
/// Throws device_error for operands on two devices, shape_error when shapes
/// do not broadcast.
array_base eager(op o, std::span<const operand> args);

inline array_base eager(op o, std::initializer_list<operand> args) {
  return eager(o, std::span<const operand>(args.begin(), args.size()));
}

// Compile-time view of an operand type: array<E> or a scalar.
template <class T> struct operand_traits {
  static constexpr bool is_array = false;
  static constexpr bool is_operand = scalar<T>;
};
template <element E> struct operand_traits<array<E>> {
  static constexpr bool is_array = true;
  static constexpr bool is_operand = true;
  static constexpr dtype type = dtype_of<E>;
};

template <class T>
inline constexpr bool is_array_v =
    operand_traits<std::remove_cvref_t<T>>::is_array;

/// The promoted dtype of several operands, as NumPy's result_type: arrays
/// promote with each other, then each weak scalar applies (promote_weak);
/// with no array at all, the scalars' own dtypes promote.
template <class... Ts> constexpr dtype common_dtype() noexcept {
  bool any_array = false;
  dtype acc = dtype::bool_;
  auto add_array = [&]<class T>() {
    using O = operand_traits<std::remove_cvref_t<T>>;
    if constexpr (O::is_array) {
      acc = any_array ? promote_types(acc, O::type) : O::type;
      any_array = true;
    }
  };
  (add_array.template operator()<Ts>(), ...);
  auto add_scalar = [&]<class T>() {
    using U = std::remove_cvref_t<T>;
    if constexpr (!operand_traits<U>::is_array) {
      if (any_array)
        acc = promote_weak(acc, scalar_kind_of<U>());
    }
  };
  (add_scalar.template operator()<Ts>(), ...);
  if (!any_array) {
    bool first = true;
    auto add_natural = [&]<class T>() {
      using U = std::remove_cvref_t<T>;
      if constexpr (!operand_traits<U>::is_array) {
        acc = first ? scalar_dtype<U>() : promote_types(acc, scalar_dtype<U>());
        first = false;
      }
    };
    (add_natural.template operator()<Ts>(), ...);
  }
  return acc;
}

template <class... Ts> using common_t = element_t<common_dtype<Ts...>()>;

template <element R, class... Args> array<R> run(op o, const Args &...args) {
  return array<R>(eager(o, {operand(args)...}));
}

} // namespace detail

/// An array or a scalar: what the binary operations take.
template <class T>
concept array_or_scalar =
    detail::operand_traits<std::remove_cvref_t<T>>::is_operand;

/// Two operands of which at least one is an array.
template <class A, class B>
concept binary_operands = array_or_scalar<A> && array_or_scalar<B> &&
    (detail::is_array_v<A> || detail::is_array_v<B>);

/// A bool array (or x[mask], x[idx] of one) or a bool scalar.
template <class T>
concept bool_operand = std::is_same_v<std::remove_cvref_t<T>, bool> ||
                       (detail::is_array_v<T> && detail::operand_traits<std::remove_cvref_t<T>>::type == dtype::bool_);

/// Element type of `a + b`, `a * b`, maximum, ... (promotion).
template <class A, class B> using arith_result_t = detail::common_t<A, B>;

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

/// Sum; on bool arrays logical or (as NumPy).
template <class A, class B>
requires binary_operands<A, B> array<arith_result_t<A, B>>
operator+(const A &a, const B &b) {
  return detail::run<arith_result_t<A, B>>(detail::op::add, a, b);
}

/// Difference; not defined for two bools (as NumPy).
template <class A, class B>
requires binary_operands<A, B> &&
    (!std::is_same_v<arith_result_t<A, B>, bool>)array<arith_result_t<A, B>>
    operator-(const A &a, const B &b) {
  return detail::run<arith_result_t<A, B>>(detail::op::subtract, a, b);
}

/// Product; on bool arrays logical and (as NumPy).
template <class A, class B>
requires binary_operands<A, B> array<arith_result_t<A, B>>
operator*(const A &a, const B &b) {
  return detail::run<arith_result_t<A, B>>(detail::op::multiply, a, b);
}

/// True division: integers and bools give float64.
template <class A, class B>
requires binary_operands<A, B> array<true_divide_t<arith_result_t<A, B>>>
operator/(const A &a, const B &b) {
  return detail::run<true_divide_t<arith_result_t<A, B>>>(
      detail::op::true_divide, a, b);
}

/// Python's remainder: the result has the sign of the divisor; an integer
/// remainder by zero is 0. Not defined for complex.
template <class A, class B>
requires binary_operands<A, B> &&(!is_std_complex<arith_result_t<A, B>>::value)
    array<no_bool_result_t<arith_result_t<A, B>>>
    operator%(const A &a, const B &b) {
  return detail::run<no_bool_result_t<arith_result_t<A, B>>>(
      detail::op::remainder, a, b);
}

/// Negation; not defined for bool (as NumPy).
template <element T>
requires(!std::is_same_v<T, bool>) array<T>
operator-(const array<T> &x) { return detail::run<T>(detail::op::negative, x); }

/// a ** b. Integers to negative integer powers give the integer part of
/// 1 / a**-b (1, -1 or 0, as CuPy: docs/operations.md says why Kiln departs
/// from NumPy's ValueError); bools compute as int8.
template <class A, class B>
requires binary_operands<A, B> array<no_bool_result_t<arith_result_t<A, B>>>
pow(const A &a, const B &b) {
  return detail::run<no_bool_result_t<arith_result_t<A, B>>>(detail::op::power,
                                                             a, b);
}

/// The larger of each pair; a NaN in either operand gives NaN.
template <class A, class B>
requires binary_operands<A, B> array<arith_result_t<A, B>> maximum(const A &a,
                                                                   const B &b) {
  return detail::run<arith_result_t<A, B>>(detail::op::maximum, a, b);
}

/// The smaller of each pair; a NaN in either operand gives NaN.
template <class A, class B>
requires binary_operands<A, B> array<arith_result_t<A, B>> minimum(const A &a,
                                                                   const B &b) {
  return detail::run<arith_result_t<A, B>>(detail::op::minimum, a, b);
}

//===----------------------------------------------------------------------===//
// Comparisons and logic
//===----------------------------------------------------------------------===//

#define KILN_COMPARISON(OPER, NAME)                                            \
  template <class A, class B>                                                  \
  requires binary_operands<A, B> array<bool> OPER(const A &a, const B &b) {    \
    return detail::run<bool>(detail::op::NAME, a, b);                          \
  }
KILN_COMPARISON(operator==, equal)
KILN_COMPARISON(operator!=, not_equal)
KILN_COMPARISON(operator<, less)
KILN_COMPARISON(operator<=, less_equal)
KILN_COMPARISON(operator>, greater)
KILN_COMPARISON(operator>=, greater_equal)
#undef KILN_COMPARISON

/// Elementwise logical and of bool arrays (both operands are evaluated).
template <class A, class B>
requires binary_operands<A, B> && bool_operand<A> && bool_operand<B> array<bool>
operator&&(const A &a, const B &b) {
  return detail::run<bool>(detail::op::logical_and, a, b);
}

/// Elementwise logical or of bool arrays (both operands are evaluated).
template <class A, class B>
requires binary_operands<A, B> && bool_operand<A> && bool_operand<B> array<bool>
operator||(const A &a, const B &b) {
  return detail::run<bool>(detail::op::logical_or, a, b);
}

inline array<bool> operator!(const array<bool> &x) {
  return detail::run<bool>(detail::op::logical_not, x);
}

//===----------------------------------------------------------------------===//
// Math functions
//===----------------------------------------------------------------------===//

#define KILN_FLOAT_FUNCTION(NAME)                                              \
  template <element T> array<float_result_t<T>> NAME(const array<T> &x) {      \
    return detail::run<float_result_t<T>>(detail::op::NAME, x);                \
  }
KILN_FLOAT_FUNCTION(exp)
KILN_FLOAT_FUNCTION(log)
KILN_FLOAT_FUNCTION(log2)
KILN_FLOAT_FUNCTION(log10)
KILN_FLOAT_FUNCTION(sqrt)
KILN_FLOAT_FUNCTION(sin)
KILN_FLOAT_FUNCTION(cos)
KILN_FLOAT_FUNCTION(tan)
KILN_FLOAT_FUNCTION(tanh)
KILN_FLOAT_FUNCTION(sinh)
KILN_FLOAT_FUNCTION(cosh)
KILN_FLOAT_FUNCTION(exp2)
#undef KILN_FLOAT_FUNCTION

/// Float functions of real arrays (NumPy also takes complex ones for the
/// inverse trigonometric and hyperbolic functions, expm1 and log1p; Kiln
/// does not yet: docs/operations.md).
#define KILN_REAL_FLOAT_FUNCTION(NAME)                                         \
  template <element T>                                                         \
  requires(!is_std_complex<T>::value) array<float_result_t<T>> NAME(           \
      const array<T> &x) {                                                     \
    return detail::run<float_result_t<T>>(detail::op::NAME, x);                \
  }
KILN_REAL_FLOAT_FUNCTION(arcsin)
KILN_REAL_FLOAT_FUNCTION(arccos)
KILN_REAL_FLOAT_FUNCTION(arctan)
KILN_REAL_FLOAT_FUNCTION(arcsinh)
KILN_REAL_FLOAT_FUNCTION(arccosh)
KILN_REAL_FLOAT_FUNCTION(arctanh)
KILN_REAL_FLOAT_FUNCTION(expm1)
KILN_REAL_FLOAT_FUNCTION(log1p)
KILN_REAL_FLOAT_FUNCTION(cbrt)
KILN_REAL_FLOAT_FUNCTION(deg2rad)
KILN_REAL_FLOAT_FUNCTION(rad2deg)
#undef KILN_REAL_FLOAT_FUNCTION
/// np.radians and np.degrees: deg2rad and rad2deg.
template <element T> auto radians(const array<T> &x) -> decltype(deg2rad(x)) {
  return deg2rad(x);
}
template <element T> auto degrees(const array<T> &x) -> decltype(rad2deg(x)) {
  return rad2deg(x);
}
/// |x| as a float (np.fabs: real arrays; integers give floats).
template <element T>
requires(!is_std_complex<T>::value) array<float_result_t<T>> fabs(
    const array<T> &x) {
  return detail::run<float_result_t<T>>(detail::op::abs,
                                        x.template astype<float_result_t<T>>());
}

/// Rounds half to even to a float (np.rint: integers give floats); complex
/// rounds each part.
template <element T> array<float_result_t<T>> rint(const array<T> &x) {
  return detail::run<float_result_t<T>>(detail::op::rint, x);
}
/// Rounds toward zero; integers and bools keep their dtype (NumPy >= 2.1).
template <element T>
requires(!is_std_complex<T>::value) array<T> trunc(const array<T> &x) {
  return detail::run<T>(detail::op::trunc, x);
}
/// np.fix: rounds toward zero (trunc).
template <element T>
requires(!is_std_complex<T>::value) array<T> fix(const array<T> &x) {
  return trunc(x);
}
/// x * x; bools as int8 (NumPy's loop).
template <element T> array<no_bool_result_t<T>> square(const array<T> &x) {
  return detail::run<no_bool_result_t<T>>(detail::op::square, x);
}
/// +x, a copy (not defined for bool, as NumPy).
template <element T>
requires(!std::is_same_v<T, bool>) array<T> positive(const array<T> &x) {
  return detail::run<T>(detail::op::positive, x);
}
/// -x as a function (np.negative).
template <element T>
requires(!std::is_same_v<T, bool>) array<T> negative(const array<T> &x) {
  return -x;
}
/// np.absolute: abs.
template <element T> array<real_result_t<T>> absolute(const array<T> &x) {
  return abs(x);
}
/// Neither infinite nor NaN.
template <element T> array<bool> isfinite(const array<T> &x) {
  return detail::run<bool>(detail::op::isfinite, x);
}
/// The sign bit is set (-0.0 and -NaN included); real arrays.
template <element T>
requires(!is_std_complex<T>::value) array<bool> signbit(const array<T> &x) {
  return detail::run<bool>(detail::op::signbit, x);
}

/// Float functions of two real operands: arctan2(y, x), hypot, copysign,
/// logaddexp (log(exp(a) + exp(b))), logaddexp2.
#define KILN_REAL_FLOAT_BINARY(NAME)                                           \
  template <class A, class B>                                                  \
  requires binary_operands<A, B> &&                                            \
      (!is_std_complex<arith_result_t<A, B>>::value)                           \
          array<float_result_t<arith_result_t<A, B>>>                          \
          NAME(const A &a, const B &b) {                                       \
    return detail::run<float_result_t<arith_result_t<A, B>>>(detail::op::NAME, \
                                                             a, b);            \
  }
KILN_REAL_FLOAT_BINARY(arctan2)
KILN_REAL_FLOAT_BINARY(hypot)
KILN_REAL_FLOAT_BINARY(copysign)
KILN_REAL_FLOAT_BINARY(logaddexp)
KILN_REAL_FLOAT_BINARY(logaddexp2)
/// heaviside(x, h): 0 for x < 0, h at 0, 1 for x > 0, NaN for NaN;
/// nextafter(a, b): the next float after a towards b.
KILN_REAL_FLOAT_BINARY(heaviside)
KILN_REAL_FLOAT_BINARY(nextafter)
#undef KILN_REAL_FLOAT_BINARY

/// The larger (smaller) of each pair, ignoring a NaN when the other is a
/// number (np.fmax, np.fmin); real operands.
template <class A, class B>
requires binary_operands<A, B> &&(!is_std_complex<arith_result_t<A, B>>::value)
    array<arith_result_t<A, B>> fmax(const A &a, const B &b) {
  return detail::run<arith_result_t<A, B>>(detail::op::fmax, a, b);
}
template <class A, class B>
requires binary_operands<A, B> &&(!is_std_complex<arith_result_t<A, B>>::value)
    array<arith_result_t<A, B>> fmin(const A &a, const B &b) {
  return detail::run<arith_result_t<A, B>>(detail::op::fmin, a, b);
}

//===----------------------------------------------------------------------===//
// Bits
//===----------------------------------------------------------------------===//

namespace detail {
template <class T> constexpr bool is_integral_operand() noexcept {
  using U = std::remove_cvref_t<T>;
  if constexpr (operand_traits<U>::is_array) {
    constexpr scalar_kind k = kind_of(operand_traits<U>::type);
    return k == scalar_kind::boolean || k == scalar_kind::integer;
  } else {
    return std::is_integral_v<U>;
  }
}
} // namespace detail

/// An integer or bool array or scalar (NumPy's bitwise operations).
template <class T>
concept integral_operand = detail::is_integral_operand<T>();

/// & | ^ of integers; on bools NumPy's logical and, or, xor.
#define KILN_BITWISE(OPER, NAME)                                               \
  template <class A, class B>                                                  \
  requires binary_operands<A, B> && integral_operand<A> && integral_operand<B> \
      array<arith_result_t<A, B>> OPER(const A &a, const B &b) {               \
    return detail::run<arith_result_t<A, B>>(detail::op::NAME, a, b);          \
  }                                                                            \
  template <class A, class B>                                                  \
  requires binary_operands<A, B> && integral_operand<A> && integral_operand<B> \
      array<arith_result_t<A, B>> NAME(const A &a, const B &b) {               \
    return OPER(a, b);                                                         \
  }
KILN_BITWISE(operator&, bitwise_and)
KILN_BITWISE(operator|, bitwise_or)
KILN_BITWISE(operator^, bitwise_xor)
#undef KILN_BITWISE

/// ~x: the bits flipped; on bools logical not.
template <element T>
requires std::is_integral_v<T> array<T>
operator~(const array<T> &x) { return detail::run<T>(detail::op::invert, x); }
template <element T>
requires std::is_integral_v<T> array<T> invert(const array<T> &x) { return ~x; }
template <element T>
requires std::is_integral_v<T> array<T> bitwise_not(const array<T> &x) {
  return ~x;
}
template <element T>
requires std::is_integral_v<T> array<T> bitwise_invert(const array<T> &x) {
  return ~x;
}

/// a << b and a >> b of integers (bools as int8): NumPy's results for
/// counts past the width (0, or -1 for a negative a shifted right) and for
/// negative counts (the same: NumPy reads them as huge unsigned counts).
#define KILN_SHIFT(OPER, NAME)                                                 \
  template <class A, class B>                                                  \
  requires binary_operands<A, B> && integral_operand<A> && integral_operand<B> \
      array<no_bool_result_t<arith_result_t<A, B>>> OPER(const A &a,           \
                                                         const B &b) {         \
    return detail::run<no_bool_result_t<arith_result_t<A, B>>>(                \
        detail::op::NAME, a, b);                                               \
  }                                                                            \
  template <class A, class B>                                                  \
  requires binary_operands<A, B> && integral_operand<A> && integral_operand<B> \
      array<no_bool_result_t<arith_result_t<A, B>>> NAME(const A &a,           \
                                                         const B &b) {         \
    return OPER(a, b);                                                         \
  }
KILN_SHIFT(operator<<, left_shift)
KILN_SHIFT(operator>>, right_shift)
#undef KILN_SHIFT

/// np.logical_and, logical_or, logical_xor, logical_not of bool arrays.
template <class A, class B>
requires binary_operands<A, B> && bool_operand<A> && bool_operand<B> array<bool>
logical_and(const A &a, const B &b) {
  return a && b;
}
template <class A, class B>
requires binary_operands<A, B> && bool_operand<A> && bool_operand<B> array<bool>
logical_or(const A &a, const B &b) {
  return a || b;
}
template <class A, class B>
requires binary_operands<A, B> && bool_operand<A> && bool_operand<B> array<bool>
logical_xor(const A &a, const B &b) {
  return detail::run<bool>(detail::op::logical_xor, a, b);
}
inline array<bool> logical_not(const array<bool> &x) { return !x; }

/// Absolute value; the modulus |z| (a real array) for complex.
template <element T> array<real_result_t<T>> abs(const array<T> &x) {
  return detail::run<real_result_t<T>>(detail::op::abs, x);
}

/// -1, 0 or 1 (NaN for NaN); z/|z| for complex (NumPy 2); bools as int8.
template <element T> array<no_bool_result_t<T>> sign(const array<T> &x) {
  return detail::run<no_bool_result_t<T>>(detail::op::sign, x);
}

/// Rounds down; integers and bools keep their dtype (NumPy >= 2.1).
template <element T>
requires(!is_std_complex<T>::value) array<T> floor(const array<T> &x) {
  return detail::run<T>(detail::op::floor, x);
}

/// Rounds up; integers and bools keep their dtype (NumPy >= 2.1).
template <element T>
requires(!is_std_complex<T>::value) array<T> ceil(const array<T> &x) {
  return detail::run<T>(detail::op::ceil, x);
}

/// Rounds half to even (np.round with decimals=0); complex rounds each part.
template <element T> array<T> round(const array<T> &x) {
  return detail::run<T>(detail::op::round, x);
}

/// The real part; a real array itself (a copy).
template <element T> array<real_result_t<T>> real(const array<T> &x) {
  return detail::run<real_result_t<T>>(detail::op::real, x);
}

/// The imaginary part; zeros for a real array.
template <element T> array<real_result_t<T>> imag(const array<T> &x) {
  return detail::run<real_result_t<T>>(detail::op::imag, x);
}

/// The complex conjugate; a real array itself (a copy).
template <element T> array<T> conj(const array<T> &x) {
  return detail::run<T>(detail::op::conj, x);
}

/// The phase angle in radians (np.angle); 0 or pi for real arrays.
template <element T> array<arg_result_t<T>> arg(const array<T> &x) {
  return detail::run<arg_result_t<T>>(detail::op::arg, x);
}

template <element T> array<bool> isnan(const array<T> &x) {
  return detail::run<bool>(detail::op::isnan, x);
}
template <element T> array<bool> isinf(const array<T> &x) {
  return detail::run<bool>(detail::op::isinf, x);
}

//===----------------------------------------------------------------------===//
// NumPy's names of the operators, and more ufuncs (issue 27)
//===----------------------------------------------------------------------===//

/// np.add, np.subtract, np.multiply, np.divide (= np.true_divide),
/// np.remainder (= np.mod), np.power and the comparisons by name: the
/// operators and kiln::pow, with their typing.
#define KILN_NAMED_OPERATOR(NAME, EXPR)                                        \
  template <class A, class B>                                                  \
  requires binary_operands<A, B>                                               \
  auto NAME(const A &a, const B &b)->decltype(EXPR) { return EXPR; }
KILN_NAMED_OPERATOR(add, a + b)
KILN_NAMED_OPERATOR(subtract, a - b)
KILN_NAMED_OPERATOR(multiply, a *b)
KILN_NAMED_OPERATOR(divide, a / b)
KILN_NAMED_OPERATOR(true_divide, a / b)
KILN_NAMED_OPERATOR(remainder, a % b)
KILN_NAMED_OPERATOR(mod, a % b)
KILN_NAMED_OPERATOR(power, pow(a, b))
KILN_NAMED_OPERATOR(equal, a == b)
KILN_NAMED_OPERATOR(not_equal, a != b)
KILN_NAMED_OPERATOR(less, a < b)
KILN_NAMED_OPERATOR(less_equal, a <= b)
KILN_NAMED_OPERATOR(greater, a > b)
KILN_NAMED_OPERATOR(greater_equal, a >= b)
#undef KILN_NAMED_OPERATOR

/// The phase angle (np.angle), in degrees when `deg`; 0 or pi (180) for
/// real arrays.
template <element T>
array<arg_result_t<T>> angle(const array<T> &x, bool deg = false) {
  return detail::run<arg_result_t<T>>(detail::op::angle, x, deg);
}

/// np.round(x, decimals): rint(x * 10^decimals) / 10^decimals (for negative
/// decimals x / 10^-decimals, rounded, times 10^-decimals), as NumPy
/// computes it, complex parts each; integers round half to even to a
/// multiple of 10^-decimals (and keep their value for decimals >= 0).
template <element T>
requires(!std::is_same_v<T, bool>) array<T> round(const array<T> &x,
                                                  int decimals) {
  return detail::run<T>(detail::op::round_decimals, x, decimals);
}

/// np.conjugate, the same as conj.
template <element T> array<T> conjugate(const array<T> &x) { return conj(x); }

/// 1 / x. Integers: 1 and -1 keep, every other value gives 0 (0 included,
/// where NumPy's answer depends on the platform: docs/operations.md); bools
/// compute as int8.
template <element T> array<no_bool_result_t<T>> reciprocal(const array<T> &x) {
  return detail::run<no_bool_result_t<T>>(detail::op::reciprocal, x);
}

/// sin(pi x) / (pi x), 1 at 0 (np.sinc); real arrays, integers as float64.
template <element T>
requires(!is_std_complex<T>::value) array<sinc_result_t<T>> sinc(
    const array<T> &x) {
  return detail::run<sinc_result_t<T>>(detail::op::sinc, x);
}

/// The distance from x to the next float away from zero (np.spacing); NaN
/// for infinities; real arrays.
template <element T>
requires(!is_std_complex<T>::value) array<float_result_t<T>> spacing(
    const array<T> &x) {
  return detail::run<float_result_t<T>>(detail::op::spacing, x);
}

/// The number of 1 bits in |x| (np.bitwise_count), as uint8; integer and
/// bool arrays.
template <element T>
requires integral_operand<array<T>> array<std::uint8_t>
bitwise_count(const array<T> &x) {
  return detail::run<std::uint8_t>(detail::op::bitwise_count, x);
}

/// Python's a // b: the floor of the quotient (integers: 0 for b == 0, as
/// NumPy); real operands, bools as int8.
template <class A, class B>
requires binary_operands<A, B> &&(!is_std_complex<arith_result_t<A, B>>::value)
    array<no_bool_result_t<arith_result_t<A, B>>> floor_divide(const A &a,
                                                               const B &b) {
  return detail::run<no_bool_result_t<arith_result_t<A, B>>>(
      detail::op::floor_divide, a, b);
}

/// C's remainder, with the sign of a (np.fmod; integers: 0 for b == 0);
/// real operands, bools as int8.
template <class A, class B>
requires binary_operands<A, B> &&(!is_std_complex<arith_result_t<A, B>>::value)
    array<no_bool_result_t<arith_result_t<A, B>>> fmod(const A &a, const B &b) {
  return detail::run<no_bool_result_t<arith_result_t<A, B>>>(detail::op::fmod,
                                                             a, b);
}

/// a ** b in float64, or complex128 for complex operands (np.float_power).
template <class A, class B>
requires binary_operands<A, B> array<float_power_result_t<arith_result_t<A, B>>>
float_power(const A &a, const B &b) {
  return detail::run<float_power_result_t<arith_result_t<A, B>>>(
      detail::op::float_power, a, b);
}

/// The greatest common divisor of |a| and |b| (np.gcd; 0 for two zeros),
/// and their least common multiple (np.lcm), computed on the magnitudes as
/// unsigned integers as NumPy does (|INT_MIN| is 2^63; lcm wraps); integer
/// operands.
template <class A, class B>
requires binary_operands<A, B> && integral_operand<A> && integral_operand<B> &&
    (!std::is_same_v<arith_result_t<A, B>, bool>)
        array<arith_result_t<A, B>> gcd(const A &a, const B &b) {
  return detail::run<arith_result_t<A, B>>(detail::op::gcd, a, b);
}
template <class A, class B>
requires binary_operands<A, B> && integral_operand<A> && integral_operand<B> &&
    (!std::is_same_v<arith_result_t<A, B>, bool>)
        array<arith_result_t<A, B>> lcm(const A &a, const B &b) {
  return detail::run<arith_result_t<A, B>>(detail::op::lcm, a, b);
}

/// x * 2^e, rounded once (np.ldexp): x real (integers as float_result_t),
/// e an integer array or scalar; overflow gives inf, underflow 0.
template <element T, class E>
requires(!is_std_complex<T>::value) &&
    integral_operand<E> &&array_or_scalar<E> array<float_result_t<T>> ldexp(
        const array<T> &x, const E &e) {
  return detail::run<float_result_t<T>>(detail::op::ldexp, x, e);
}

/// np.nan_to_num: NaN becomes `nan`, +inf `posinf` and -inf `neginf`, each
/// converted to x's dtype (complex: in each part); the defaults are 0 and
/// the dtype's largest and lowest finite values. Integer and bool arrays
/// come back as copies. Positional, as C++ defaults are: pass
/// `std::numeric_limits<T>::max()` to give neginf alone.
template <element T>
array<T> nan_to_num(const array<T> &x, double nan, double posinf,
                    double neginf) {
  return detail::run<T>(detail::op::nan_to_num, x, nan, posinf, neginf);
}
template <element T>
array<T> nan_to_num(const array<T> &x, double nan, double posinf) {
  using R = real_result_t<T>;
  if constexpr (std::is_floating_point_v<R>)
    return nan_to_num(x, nan, posinf,
                      static_cast<double>(std::numeric_limits<R>::lowest()));
  else
    return nan_to_num(x, nan, posinf, 0.0);
}
template <element T> array<T> nan_to_num(const array<T> &x, double nan = 0.0) {
  using R = real_result_t<T>;
  if constexpr (std::is_floating_point_v<R>)
    return nan_to_num(x, nan,
                      static_cast<double>(std::numeric_limits<R>::max()));
  else
    return nan_to_num(x, nan, 0.0);
}

/// np.frexp: x = mantissa * 2^exponent with |mantissa| in [0.5, 1) (0, inf
/// and NaN keep their value with exponent 0); real arrays, integers as
/// float_result_t. Returned as a pair: `auto [m, e] = kiln::frexp(x);`.
template <element T>
requires(!is_std_complex<T>::value)
    std::pair<array<float_result_t<T>>, array<std::int32_t>> frexp(
        const array<T> &x) {
  return {detail::run<float_result_t<T>>(detail::op::frexp_mantissa, x),
          detail::run<std::int32_t>(detail::op::frexp_exponent, x)};
}

/// np.modf: the fractional and integral parts of x, both with x's sign
/// (inf gives (0, inf)); real arrays, integers as float_result_t.
template <element T>
requires(!is_std_complex<T>::value)
    std::pair<array<float_result_t<T>>, array<float_result_t<T>>> modf(
        const array<T> &x) {
  using F = float_result_t<T>;
  if constexpr (std::is_same_v<F, T>)
    return {detail::run<F>(detail::op::modf_fraction, x), trunc(x)};
  else
    return {detail::run<F>(detail::op::modf_fraction, x),
            trunc(x.template astype<F>())};
}

/// np.divmod: (floor_divide(a, b), a % b).
template <class A, class B>
requires binary_operands<A, B> &&(!is_std_complex<arith_result_t<A, B>>::value)
    std::pair<array<no_bool_result_t<arith_result_t<A, B>>>,
              array<no_bool_result_t<arith_result_t<A, B>>>> divmod(const A &a,
                                                                    const B
                                                                        &b) {
  return {floor_divide(a, b), remainder(a, b)};
}

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

/// cond ? a : b elementwise, broadcasting all three; a and b may be scalars.
/// cond is a bool array (or x[mask], x[idx] of one).
template <class C, class A, class B>
requires bool_operand<C> && detail::is_array_v<C> && array_or_scalar<A> && array_or_scalar<B>
array<arith_result_t<A, B>> where(const C &cond, const A &a, const B &b) {
  return detail::run<arith_result_t<A, B>>(detail::op::where, cond, a, b);
}

/// x limited to [lo, hi] (np.clip): lo where x < lo, then hi where the
/// result > hi (so hi wins when lo > hi); a NaN in x or a bound gives NaN.
/// On a tie (the sign of a zero) x stays when both bounds are scalars, and
/// the bound wins when either is an array, as NumPy's two loops. lo and hi
/// may be arrays or scalars.
template <element T, class L, class H>
requires array_or_scalar<L> && array_or_scalar<H>
    array<detail::common_t<array<T>, L, H>> clip(const array<T> &x, const L &lo,
                                                 const H &hi) {
  return detail::run<detail::common_t<array<T>, L, H>>(detail::op::clip, x, lo,
                                                       hi);
}
/// clip(x, std::nullopt, hi) and clip(x, lo, std::nullopt): NumPy's None
/// bound, which NumPy computes as minimum(x, hi) and maximum(x, lo) (a tie
/// gives the bound).
template <element T, class H>
requires array_or_scalar<H> array<detail::common_t<array<T>, H>>
clip(const array<T> &x, std::nullopt_t, const H &hi) {
  return minimum(x, hi);
}
template <element T, class L>
requires array_or_scalar<L> array<detail::common_t<array<T>, L>>
clip(const array<T> &x, const L &lo, std::nullopt_t) {
  return maximum(x, lo);
}

} // namespace kiln
