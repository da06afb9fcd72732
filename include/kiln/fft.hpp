//===- kiln/fft.hpp - Discrete Fourier transforms -----------------*- C++ -*-===//
//
// kiln::fft follows numpy.fft (and cupy.fft): fft, ifft, rfft, irfft, hfft,
// ihfft and their 2-d and n-d forms, with NumPy's n/s (zero-padding or
// truncating each transformed axis), axis/axes and norm; fftfreq, rfftfreq,
// fftshift and ifftshift. Any strides, batched over the other axes. On a
// CUDA device the transforms run in cuFFT (loaded at run time) with plans
// cached per device (kiln::fft::plan_cache); on the host in pocketfft, the
// library NumPy and SciPy use. Result types are NumPy's: complex64 from
// float32 and complex64, complex128 from everything else; the inverse real
// transforms give the matching real type. See docs/operations.md, "FFT".
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/axes.hpp"
#include "kiln/promote.hpp"

#include <complex>
#include <cstdint>
#include <optional>
#include <vector>

namespace kiln::fft {

/// numpy.fft's norm: which direction is scaled, by 1/n ("backward", the
/// default: the inverse), by 1/sqrt(n) both ways ("ortho"), or the forward
/// transform ("forward").
enum class norm : std::uint8_t { backward, ortho, forward };

/// The complex type of a transform of elements of type T, and the real type
/// of an inverse real transform.
template <element T> using complex_t = std::complex<var_result_t<T>>;
template <element T> using real_t = var_result_t<T>;

/// Transform lengths, one per transformed axis (NumPy's s); empty is None.
using lengths = std::vector<std::int64_t>;

namespace detail {
enum class kind : std::uint8_t { c2c, r2c, c2r };
/// The n-d transform of `x` over `ax` (kiln::all: every axis, or the last
/// len(s) when s is given) with lengths `s`: a c2c (forward or inverse), a
/// real-to-complex (forward) or a complex-to-real (inverse) one, scaled as
/// `nm` says. hermitian: numpy's hfft/ihfft (conjugated input or output,
/// norm swapped).
array_base transform(const array_base &x, kind k, bool forward, const lengths &s, const axes &ax, norm nm,
                     bool hermitian = false);
array_base fftfreq(std::int64_t n, double d, bool real_half, device dev);
array_base shift(const array_base &x, const axes &ax, bool inverse);
} // namespace detail

/// The 1-d transforms of numpy.fft along `axis`, of length `n` (None: the
/// axis's length; shorter axes are padded with zeros, longer ones cut).
template <element T>
array<complex_t<T>> fft(const array<T> &x, std::optional<std::int64_t> n = {}, std::int64_t axis = -1,
                        norm nm = norm::backward) {
  return array<complex_t<T>>(detail::transform(x, detail::kind::c2c, true, n ? lengths{*n} : lengths{}, axes(axis), nm));
}
template <element T>
array<complex_t<T>> ifft(const array<T> &x, std::optional<std::int64_t> n = {}, std::int64_t axis = -1,
                         norm nm = norm::backward) {
  return array<complex_t<T>>(detail::transform(x, detail::kind::c2c, false, n ? lengths{*n} : lengths{}, axes(axis), nm));
}
/// The transform of real input: the n/2 + 1 non-negative frequencies.
template <element T>
  requires(!is_std_complex<T>::value)
array<complex_t<T>> rfft(const array<T> &x, std::optional<std::int64_t> n = {}, std::int64_t axis = -1,
                         norm nm = norm::backward) {
  return array<complex_t<T>>(detail::transform(x, detail::kind::r2c, true, n ? lengths{*n} : lengths{}, axes(axis), nm));
}
/// rfft's inverse: `n` real outputs (None: 2 * (m - 1) for m inputs).
template <element T>
array<real_t<T>> irfft(const array<T> &x, std::optional<std::int64_t> n = {}, std::int64_t axis = -1,
                       norm nm = norm::backward) {
  return array<real_t<T>>(detail::transform(x, detail::kind::c2r, false, n ? lengths{*n} : lengths{}, axes(axis), nm));
}
/// The transform of a Hermitian-symmetric signal given by its first half:
/// real output of length n (None: 2 * (m - 1)).
template <element T>
array<real_t<T>> hfft(const array<T> &x, std::optional<std::int64_t> n = {}, std::int64_t axis = -1,
                      norm nm = norm::backward) {
  return array<real_t<T>>(
      detail::transform(x, detail::kind::c2r, false, n ? lengths{*n} : lengths{}, axes(axis), nm, true));
}
/// hfft's inverse: the n/2 + 1 first values of a Hermitian spectrum.
template <element T>
  requires(!is_std_complex<T>::value)
array<complex_t<T>> ihfft(const array<T> &x, std::optional<std::int64_t> n = {}, std::int64_t axis = -1,
                          norm nm = norm::backward) {
  return array<complex_t<T>>(
      detail::transform(x, detail::kind::r2c, true, n ? lengths{*n} : lengths{}, axes(axis), nm, true));
}

/// The n-d transforms over `ax` (kiln::all: every axis, or the last len(s)
/// axes when `s` is given), each axis of length s[i].
template <element T>
array<complex_t<T>> fftn(const array<T> &x, const lengths &s = {}, const axes &ax = all, norm nm = norm::backward) {
  return array<complex_t<T>>(detail::transform(x, detail::kind::c2c, true, s, ax, nm));
}
template <element T>
array<complex_t<T>> ifftn(const array<T> &x, const lengths &s = {}, const axes &ax = all, norm nm = norm::backward) {
  return array<complex_t<T>>(detail::transform(x, detail::kind::c2c, false, s, ax, nm));
}
template <element T>
  requires(!is_std_complex<T>::value)
array<complex_t<T>> rfftn(const array<T> &x, const lengths &s = {}, const axes &ax = all, norm nm = norm::backward) {
  return array<complex_t<T>>(detail::transform(x, detail::kind::r2c, true, s, ax, nm));
}
template <element T>
array<real_t<T>> irfftn(const array<T> &x, const lengths &s = {}, const axes &ax = all, norm nm = norm::backward) {
  return array<real_t<T>>(detail::transform(x, detail::kind::c2r, false, s, ax, nm));
}

/// The 2-d transforms: the n-d ones over axes (-2, -1) by default.
template <element T>
array<complex_t<T>> fft2(const array<T> &x, const lengths &s = {}, const axes &ax = {-2, -1},
                         norm nm = norm::backward) {
  return fftn(x, s, ax, nm);
}
template <element T>
array<complex_t<T>> ifft2(const array<T> &x, const lengths &s = {}, const axes &ax = {-2, -1},
                          norm nm = norm::backward) {
  return ifftn(x, s, ax, nm);
}
template <element T>
  requires(!is_std_complex<T>::value)
array<complex_t<T>> rfft2(const array<T> &x, const lengths &s = {}, const axes &ax = {-2, -1},
                          norm nm = norm::backward) {
  return rfftn(x, s, ax, nm);
}
template <element T>
array<real_t<T>> irfft2(const array<T> &x, const lengths &s = {}, const axes &ax = {-2, -1},
                        norm nm = norm::backward) {
  return irfftn(x, s, ax, nm);
}

/// The sample frequencies of an n-point transform with sample spacing d:
/// [0, 1, ..., (n-1)/2, -(n/2), ..., -1] / (d n) (float64).
inline array<double> fftfreq(std::int64_t n, double d = 1.0, device dev = current_device()) {
  return array<double>(detail::fftfreq(n, d, false, dev));
}
/// rfft's frequencies: [0, 1, ..., n/2] / (d n).
inline array<double> rfftfreq(std::int64_t n, double d = 1.0, device dev = current_device()) {
  return array<double>(detail::fftfreq(n, d, true, dev));
}
/// The zero frequency moved to the middle of each axis of `ax` (kiln::all:
/// every axis); ifftshift undoes it.
template <element T> array<T> fftshift(const array<T> &x, const axes &ax = all) {
  return array<T>(detail::shift(x, ax, false));
}
template <element T> array<T> ifftshift(const array<T> &x, const axes &ax = all) {
  return array<T>(detail::shift(x, ax, true));
}

/// cuFFT's plans, cached per device as CuPy's PlanCache: the least recently
/// used is dropped past `size()` plans or `memsize()` bytes of work area (-1:
/// no limit). Plans of the host's pocketfft are cached by pocketfft itself.
class plan_cache {
public:
  explicit plan_cache(device dev = current_device()) : dev_(dev) {}
  /// The most plans kept (16 by default); 0 disables the cache.
  std::size_t size() const;
  void set_size(std::size_t plans);
  /// The most bytes of the plans' work areas (-1, the default: no limit).
  std::int64_t memsize() const;
  void set_memsize(std::int64_t bytes);
  /// The plans held now, and the bytes of their work areas.
  std::size_t count() const;
  std::int64_t current_memsize() const;
  /// Destroys every cached plan of the device.
  void clear();

private:
  device dev_;
};

/// The plan cache of `dev` (CuPy's cupy.fft.config.get_plan_cache()).
inline plan_cache get_plan_cache(device dev = current_device()) { return plan_cache(dev); }

} // namespace kiln::fft
