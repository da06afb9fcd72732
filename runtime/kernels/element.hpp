//===- runtime/kernels/element.hpp - Element types for host and GPU code --===//
//
// The nine element types as both the host loops and the CUDA kernels see
// them (complex numbers as plain {re, im} structs, layout-compatible with
// std::complex), and convert<To>(from), the one element conversion rule the
// runtime uses on both backends (NumPy's astype: complex to real drops the
// imaginary part, anything to bool is "!= 0"). Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#define KILN_HD __host__ __device__ __forceinline__
#else
#define KILN_HD inline
#endif

namespace kiln::detail::kernels {

template <class R> struct cplx { R re, im; };
using complex64_t = cplx<float>;
using complex128_t = cplx<double>;

template <class T> struct is_cplx { static constexpr bool value = false; };
template <class R> struct is_cplx<cplx<R>> {
  static constexpr bool value = true;
};

/// NumPy's element conversion, identical on host and GPU.
template <class To, class From> KILN_HD To convert(From v) {
  if constexpr (is_cplx<To>::value && is_cplx<From>::value) {
    using R = decltype(To::re);
    return To{static_cast<R>(v.re), static_cast<R>(v.im)};
  } else if constexpr (is_cplx<To>::value) {
    using R = decltype(To::re);
    return To{static_cast<R>(v), R(0)};
  } else if constexpr (is_cplx<From>::value) {
    if constexpr (std::is_same_v<To, bool>)
      return v.re != 0 || v.im != 0;
    else
      return static_cast<To>(v.re);
  } else {
    return static_cast<To>(v); // bool: != 0 by the C++ rule
  }
}

/// Element type codes, in kiln::dtype's order (static_cast between them).
enum class code : std::uint8_t {
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
inline constexpr int num_codes = 9;

template <code C> struct type_of;
template <> struct type_of<code::bool_> { using type = bool; };
template <> struct type_of<code::int8> { using type = std::int8_t; };
template <> struct type_of<code::uint8> { using type = std::uint8_t; };
template <> struct type_of<code::int32> { using type = std::int32_t; };
template <> struct type_of<code::int64> { using type = std::int64_t; };
template <> struct type_of<code::float32> { using type = float; };
template <> struct type_of<code::float64> { using type = double; };
template <> struct type_of<code::complex64> { using type = complex64_t; };
template <> struct type_of<code::complex128> { using type = complex128_t; };

} // namespace kiln::detail::kernels
