//===- kiln/promote.hpp - NumPy type promotion over Kiln's dtypes -*- C++
//-*-===//
//
// Compile-time (and run-time: the functions are constexpr) NumPy 2 type
// promotion: array-array promotion (promote_t), C++ scalars as NEP 50 weak
// scalars (scalar_promote_t), and the result types of true division, the math
// functions, abs/real/imag/arg and comparisons. docs/operations.md lists the
// table and every departure from NumPy.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/dtype.hpp"

#include <complex>
#include <cstdint>
#include <type_traits>

namespace kiln {

//===----------------------------------------------------------------------===//
// dtype -> C++ element type
//===----------------------------------------------------------------------===//

template <dtype D> struct dtype_element;
template <> struct dtype_element<dtype::bool_> { using type = bool; };
template <> struct dtype_element<dtype::int8> { using type = std::int8_t; };
template <> struct dtype_element<dtype::uint8> { using type = std::uint8_t; };
template <> struct dtype_element<dtype::int32> { using type = std::int32_t; };
template <> struct dtype_element<dtype::int64> { using type = std::int64_t; };
template <> struct dtype_element<dtype::float32> { using type = float; };
template <> struct dtype_element<dtype::float64> { using type = double; };
template <> struct dtype_element<dtype::complex64> {
  using type = std::complex<float>;
};
template <> struct dtype_element<dtype::complex128> {
  using type = std::complex<double>;
};

/// The C++ element type of a dtype: element_t<dtype::float32> is float.
template <dtype D> using element_t = typename dtype_element<D>::type;

//===----------------------------------------------------------------------===//
// Array-array promotion
//===----------------------------------------------------------------------===//

/// NumPy's np.promote_types for two array dtypes. One departure: int8 with
/// uint8 gives int32 (NumPy: int16, which Kiln does not have).
constexpr dtype promote_types(dtype a, dtype b) noexcept {
  using d = dtype;
  constexpr d b_ = d::bool_, i8 = d::int8, u8 = d::uint8, i32 = d::int32,
              i64 = d::int64, f32 = d::float32, f64 = d::float64,
              c64 = d::complex64, c128 = d::complex128;
  // Rows and columns in the order of the dtype enum.
  constexpr d table[9][9] = {
      /* bool  */ {b_, i8, u8, i32, i64, f32, f64, c64, c128},
      /* int8  */ {i8, i8, i32, i32, i64, f32, f64, c64, c128},
      /* uint8 */ {u8, i32, u8, i32, i64, f32, f64, c64, c128},
      /* int32 */ {i32, i32, i32, i32, i64, f64, f64, c128, c128},
      /* int64 */ {i64, i64, i64, i64, i64, f64, f64, c128, c128},
      /* f32   */ {f32, f32, f32, f64, f64, f32, f64, c64, c128},
      /* f64   */ {f64, f64, f64, f64, f64, f64, f64, c128, c128},
      /* c64   */ {c64, c64, c64, c128, c128, c64, c128, c64, c128},
      /* c128  */ {c128, c128, c128, c128, c128, c128, c128, c128, c128},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

//===----------------------------------------------------------------------===//
// C++ scalars as weak (NEP 50) scalars
//===----------------------------------------------------------------------===//

template <class T> struct is_std_complex : std::false_type {};
template <class T> struct is_std_complex<std::complex<T>> : std::true_type {};

/// The C++ types that mix into array expressions as scalars: the arithmetic
/// types (bool, every integer and floating type) and std::complex.
template <class T>
concept scalar = std::is_arithmetic_v<std::remove_cvref_t<T>> ||
    is_std_complex<std::remove_cvref_t<T>>::value;

/// The kind of a value: NumPy's 'b', 'iu', 'f', 'c'.
enum class scalar_kind : std::uint8_t { boolean, integer, floating, complex };

constexpr scalar_kind kind_of(dtype t) noexcept {
  switch (t) {
  case dtype::bool_:
    return scalar_kind::boolean;
  case dtype::int8:
  case dtype::uint8:
  case dtype::int32:
  case dtype::int64:
    return scalar_kind::integer;
  case dtype::float32:
  case dtype::float64:
    return scalar_kind::floating;
  case dtype::complex64:
  case dtype::complex128:
    return scalar_kind::complex;
  }
  return scalar_kind::boolean;
}

template <scalar S> constexpr scalar_kind scalar_kind_of() noexcept {
  using T = std::remove_cvref_t<S>;
  if constexpr (std::is_same_v<T, bool>)
    return scalar_kind::boolean;
  else if constexpr (std::is_integral_v<T>)
    return scalar_kind::integer;
  else if constexpr (std::is_floating_point_v<T>)
    return scalar_kind::floating;
  else
    return scalar_kind::complex;
}

/// The dtype a C++ scalar has on its own (used only where no array operand
/// fixes the precision, e.g. where(c, 1.0f, 2.0f)): bool, int8, uint8,
/// int32 for other integers of up to 32 bits (int64 for unsigned 32-bit),
/// int64 for 64-bit integers, float32, float64, complex64, complex128.
template <scalar S> constexpr dtype scalar_dtype() noexcept {
  using T = std::remove_cvref_t<S>;
  if constexpr (std::is_same_v<T, bool>)
    return dtype::bool_;
  else if constexpr (std::is_integral_v<T>) {
    if constexpr (sizeof(T) == 1)
      return std::is_signed_v<T> ? dtype::int8 : dtype::uint8;
    else if constexpr (sizeof(T) == 2 ||
                       (sizeof(T) == 4 && std::is_signed_v<T>))
      return dtype::int32;
    else
      return dtype::int64;
  } else if constexpr (std::is_same_v<T, float>)
    return dtype::float32;
  else if constexpr (std::is_floating_point_v<T>)
    return dtype::float64;
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return dtype::complex64;
  else
    return dtype::complex128;
}

/// NEP 50: the dtype of `array op scalar` where the scalar is weak. A scalar
/// of a kind no higher than the array's keeps the array's dtype (float32
/// array * 2.0 is float32, int32 array * 2 is int32); a higher kind gives
/// NumPy's default of that kind (int64, float64), except that a complex
/// scalar with a float array keeps the float's precision (float32 array *
/// 1i is complex64). The C++ width of the scalar never matters.
constexpr dtype promote_weak(dtype array, scalar_kind k) noexcept {
  scalar_kind ak = kind_of(array);
  if (static_cast<int>(k) <= static_cast<int>(ak))
    return array;
  switch (k) {
  case scalar_kind::boolean:
    return array; // unreachable: bool is the lowest
  case scalar_kind::integer:
    return dtype::int64;
  case scalar_kind::floating:
    return dtype::float64;
  case scalar_kind::complex:
    return array == dtype::float32 ? dtype::complex64 : dtype::complex128;
  }
  return array;
}

//===----------------------------------------------------------------------===//
// Result types of operations
//===----------------------------------------------------------------------===//

/// True division `/`: bool and integers give float64, other dtypes keep.
constexpr dtype true_divide_type(dtype t) noexcept {
  return kind_of(t) == scalar_kind::boolean ||
                 kind_of(t) == scalar_kind::integer
             ? dtype::float64
             : t;
}

/// The transcendental functions (exp log log2 log10 sqrt sin cos tan tanh):
/// NumPy computes integers in the smallest float that holds them exactly:
/// bool, int8 and uint8 give float32 (NumPy: float16, absent from Kiln),
/// int32 and int64 give float64; floats and complex keep their dtype.
constexpr dtype float_type(dtype t) noexcept {
  switch (t) {
  case dtype::bool_:
  case dtype::int8:
  case dtype::uint8:
    return dtype::float32;
  case dtype::int32:
  case dtype::int64:
    return dtype::float64;
  default:
    return t;
  }
}

/// float_power: float64, or complex128 for complex operands.
constexpr dtype float_power_type(dtype t) noexcept {
  return kind_of(t) == scalar_kind::complex ? dtype::complex128
                                            : dtype::float64;
}

/// np.sinc, which NumPy writes as pi * x in Python: float32 and float64
/// keep; bool and integers give float64 (not float_type's float32).
constexpr dtype sinc_type(dtype t) noexcept {
  return kind_of(t) == scalar_kind::boolean ||
                 kind_of(t) == scalar_kind::integer
             ? dtype::float64
             : t;
}

/// The real counterpart: complex64 -> float32, complex128 -> float64, other
/// dtypes keep (abs, real, imag).
constexpr dtype real_type(dtype t) noexcept {
  return t == dtype::complex64    ? dtype::float32
         : t == dtype::complex128 ? dtype::float64
                                  : t;
}

/// The phase angle arg (np.angle): a real float of the input's precision.
constexpr dtype arg_type(dtype t) noexcept { return real_type(float_type(t)); }

/// Operations that NumPy has no bool loop for (%, pow, sign) compute bools as
/// int8; other dtypes keep.
constexpr dtype no_bool_type(dtype t) noexcept {
  return t == dtype::bool_ ? dtype::int8 : t;
}

/// sum, prod and cumulative counts: bool and every integer give int64
/// (NumPy: the platform integer; uint8 gives uint64 there, absent from
/// Kiln), floats and complex keep their dtype.
constexpr dtype sum_type(dtype t) noexcept {
  return kind_of(t) == scalar_kind::boolean || kind_of(t) == scalar_kind::integer ? dtype::int64 : t;
}

/// mean: bool and integers give float64, floats and complex keep.
constexpr dtype mean_type(dtype t) noexcept { return true_divide_type(t); }

/// var, std and vector norms: the real type of mean's (complex64 gives
/// float32).
constexpr dtype var_type(dtype t) noexcept { return real_type(mean_type(t)); }

//===----------------------------------------------------------------------===//
// The same as C++ type traits
//===----------------------------------------------------------------------===//

/// Array-array promotion: promote_t<std::int32_t, float> is double.
template <element A, element B>
using promote_t = element_t<promote_types(dtype_of<A>, dtype_of<B>)>;

/// Array-scalar promotion with a weak scalar: scalar_promote_t<float, double>
/// is float, scalar_promote_t<std::int32_t, double> is double.
template <element A, scalar S>
using scalar_promote_t =
    element_t<promote_weak(dtype_of<A>, scalar_kind_of<S>())>;

/// The element type a C++ scalar has on its own (see scalar_dtype).
template <scalar S> using scalar_element_t = element_t<scalar_dtype<S>()>;

/// Result of `/` on an array of (already promoted) element type T.
template <element T>
using true_divide_t = element_t<true_divide_type(dtype_of<T>)>;
/// Result of exp, log, sqrt, sin, ... on an array of T.
template <element T> using float_result_t = element_t<float_type(dtype_of<T>)>;
/// Result of float_power on (promoted) T.
template <element T>
using float_power_result_t = element_t<float_power_type(dtype_of<T>)>;
/// Result of sinc on an array of T.
template <element T> using sinc_result_t = element_t<sinc_type(dtype_of<T>)>;
/// Result of abs, real and imag on an array of T.
template <element T> using real_result_t = element_t<real_type(dtype_of<T>)>;
/// Result of arg on an array of T.
template <element T> using arg_result_t = element_t<arg_type(dtype_of<T>)>;
/// Result of %, pow and sign: T, but int8 for bool.
template <element T>
using no_bool_result_t = element_t<no_bool_type(dtype_of<T>)>;
/// Result of sum and prod on an array of T.
template <element T> using sum_result_t = element_t<sum_type(dtype_of<T>)>;
/// Result of mean on an array of T.
template <element T> using mean_result_t = element_t<mean_type(dtype_of<T>)>;
/// Result of var, std and linalg::norm on an array of T.
template <element T> using var_result_t = element_t<var_type(dtype_of<T>)>;
/// Result of comparisons, isnan, isinf, && || !.
template <element T> using compare_result_t = bool;

} // namespace kiln
