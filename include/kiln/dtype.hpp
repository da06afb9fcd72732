//===- kiln/dtype.hpp - Element types of Kiln arrays -------------*- C++ -*-===//
//
// kiln::dtype names the element type of an array at run time; dtype_of<T>
// maps a C++ element type to it. Names follow NumPy ("float32", ...).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace kiln {

enum class dtype : std::uint8_t {
  bool_,
  int8,
  uint8,
  int32,
  int64,
  float32,
  float64,
  complex64,
  complex128,
};

/// The NumPy name of a dtype: "bool", "int32", "float32", "complex64", ...
std::string_view name(dtype t) noexcept;
/// Bytes of one element.
std::size_t itemsize(dtype t) noexcept;

bool is_complex(dtype t) noexcept;
bool is_floating(dtype t) noexcept; // float32, float64
bool is_integer(dtype t) noexcept;  // int8, uint8, int32, int64

template <class T> struct dtype_traits;
#define KILN_DTYPE_TRAIT(T, D)                                                 \
  template <> struct dtype_traits<T> {                                         \
    static constexpr dtype value = dtype::D;                                   \
  };
KILN_DTYPE_TRAIT(bool, bool_)
KILN_DTYPE_TRAIT(std::int8_t, int8)
KILN_DTYPE_TRAIT(std::uint8_t, uint8)
KILN_DTYPE_TRAIT(std::int32_t, int32)
KILN_DTYPE_TRAIT(std::int64_t, int64)
KILN_DTYPE_TRAIT(float, float32)
KILN_DTYPE_TRAIT(double, float64)
KILN_DTYPE_TRAIT(std::complex<float>, complex64)
KILN_DTYPE_TRAIT(std::complex<double>, complex128)
#undef KILN_DTYPE_TRAIT

/// True for the C++ types a kiln::array may hold.
template <class T>
concept element = requires { dtype_traits<std::remove_cv_t<T>>::value; };

template <element T>
inline constexpr dtype dtype_of = dtype_traits<std::remove_cv_t<T>>::value;

} // namespace kiln
