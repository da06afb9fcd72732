//===- kiln/signal.hpp - Convolution and correlation --------------*- C++ -*-===//
//
// kiln::signal follows scipy.signal (and cupyx.scipy.signal): convolve and
// correlate of n-d arrays (mode full, same or valid; method direct, fft or
// auto), convolve2d and correlate2d (with SciPy's boundary conditions fill,
// wrap and symm) and fftconvolve. Direct 1-d and 2-d convolutions on a GPU
// are a kernel of Kiln's own, tiled through shared memory with the taps on
// chip; the FFT method uses kiln::fft. See docs/operations.md, "Signal
// processing".
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/axes.hpp"
#include "kiln/promote.hpp"

#include <complex>
#include <cstdint>
#include <type_traits>

namespace kiln::signal {

/// The output's extent: the full convolution, the middle part of in1's size,
/// or the part that needs no padding.
enum class mode : std::uint8_t { full, same, valid };
/// convolve2d's values outside the input: fillvalue, periodic, or mirrored
/// (the edge repeated: NumPy's pad mode 'symmetric').
enum class boundary : std::uint8_t { fill, wrap, symm };
/// convolve's algorithm: chosen by sizes (auto), by definition, or by FFTs.
enum class method : std::uint8_t { automatic, direct, fft };

/// The element type of an FFT convolution: float64 for integers and bool.
template <element T> using fft_t = std::conditional_t<std::is_integral_v<T>, double, T>;

namespace detail {
/// The n-d convolution (or, with `correlate`, correlation) of in1 and in2.
array_base convolve(const array_base &in1, const array_base &in2, mode m, method how, bool correlate);
/// convolve2d / correlate2d; `fill` points at one value of the result's dtype.
array_base convolve2d(const array_base &in1, const array_base &in2, mode m, boundary b,
                      const std::complex<double> &fill, bool correlate);
array_base fftconvolve(const array_base &in1, const array_base &in2, mode m, const axes &ax);
} // namespace detail

/// scipy.signal.convolve: the n-d convolution of arrays of one rank; with
/// mode valid, the one at least as large as the other in every dimension
/// comes first (SciPy swaps them). method automatic takes direct for small
/// or integer operands and fft otherwise (docs/operations.md).
template <element A, element B>
array<promote_t<A, B>> convolve(const array<A> &in1, const array<B> &in2, mode m = mode::full,
                                method how = method::automatic) {
  return array<promote_t<A, B>>(detail::convolve(in1, in2, m, how, false));
}

/// scipy.signal.correlate: sum over k of in1[n + k] * conj(in2[k]).
template <element A, element B>
array<promote_t<A, B>> correlate(const array<A> &in1, const array<B> &in2, mode m = mode::full,
                                 method how = method::automatic) {
  return array<promote_t<A, B>>(detail::convolve(in1, in2, m, how, true));
}

/// scipy.signal.convolve2d of two 2-d arrays, the values outside in1 given
/// by `b` (fill: `fillvalue`).
template <element A, element B>
array<promote_t<A, B>> convolve2d(const array<A> &in1, const array<B> &in2, mode m = mode::full,
                                  boundary b = boundary::fill, std::complex<double> fillvalue = 0) {
  return array<promote_t<A, B>>(detail::convolve2d(in1, in2, m, b, fillvalue, false));
}

/// scipy.signal.correlate2d (its mode same centers as SciPy's does).
template <element A, element B>
array<promote_t<A, B>> correlate2d(const array<A> &in1, const array<B> &in2, mode m = mode::full,
                                   boundary b = boundary::fill, std::complex<double> fillvalue = 0) {
  return array<promote_t<A, B>>(detail::convolve2d(in1, in2, m, b, fillvalue, true));
}

/// scipy.signal.fftconvolve over `ax` (kiln::all: every axis; the other
/// axes broadcast, a batch of convolutions).
template <element A, element B>
array<fft_t<promote_t<A, B>>> fftconvolve(const array<A> &in1, const array<B> &in2, mode m = mode::full,
                                          const axes &ax = all) {
  return array<fft_t<promote_t<A, B>>>(detail::fftconvolve(in1, in2, m, ax));
}

} // namespace kiln::signal
