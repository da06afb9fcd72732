//===- runtime/signal/convolve.cpp - scipy.signal's rules -----------------===//
//
// convolve, correlate, convolve2d, correlate2d and fftconvolve reduced to
// one direct correlation (direct.hpp: out[o] = sum_k in_b[o + origin + k] *
// w[k], the taps w flipped for a convolution and conjugated for a
// correlation) or to FFTs (kiln::fft), with SciPy's output extents (full,
// same: centered as SciPy centers each function, valid), its swap of the
// operands in valid mode, its boundary conditions and its result types.
//
//===----------------------------------------------------------------------===//
#include "direct.hpp"

#include "kiln/error.hpp"
#include "kiln/fft.hpp"
#include "kiln/ops.hpp"
#include "kiln/promote.hpp"
#include "kiln/shaping.hpp"
#include "kiln/stream.hpp"
#include "runtime/array/array_internal.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/kernels/gpu_kernels.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace kiln::signal::detail {
namespace {

using kiln::detail::copy;
using kiln::detail::empty;
using kiln::detail::slice;

/// SciPy's _inputs_swap_needed over `axes`.
bool swap_needed(mode m, const shape &s1, const shape &s2, const std::vector<std::int64_t> &axes) {
  if (m != mode::valid)
    return false;
  bool ok1 = true, ok2 = true;
  for (std::int64_t a : axes) {
    ok1 = ok1 && s1[a] >= s2[a];
    ok2 = ok2 && s2[a] >= s1[a];
  }
  if (!ok1 && !ok2)
    throw value_error("For 'valid' mode, one must be at least as large as the other in every dimension");
  return !ok1;
}

std::vector<std::int64_t> every_axis(std::int64_t nd) {
  std::vector<std::int64_t> a(static_cast<std::size_t>(nd));
  for (std::int64_t d = 0; d < nd; ++d)
    a[d] = d;
  return a;
}

bool complex_dtype(dtype t) { return kind_of(t) == scalar_kind::complex; }

/// x reversed along every axis, C-contiguous.
array_base reversed(const array_base &x) { return copy(kiln::detail::flip(x, std::nullopt), x.dtype()); }
/// The complex conjugate (x itself when real).
array_base conjugated(const array_base &x) {
  return complex_dtype(x.dtype()) ? kiln::detail::eager(kiln::detail::op::conj, {x}) : x;
}

/// The direct correlation of `in` with taps `v` (both converted to t),
/// reversed for a convolution or conjugated for a correlation, over the
/// extent of mode `m`, `start` the first full-output index per axis.
array_base correlate_direct(const array_base &in, const array_base &v, bool correlate, dtype t, mode m,
                            const std::vector<std::int64_t> &start, boundary b, const std::complex<double> &fill) {
  direct d;
  const device dev = in.device();
  d.in = in.dtype() == t && in.is_contiguous() ? in : copy(in, t); // read in place when it can be
  d.taps = v.dtype() == t && v.is_contiguous() ? v : copy(v, t);
  d.flip = !correlate;
  d.conj = correlate;
  d.b = b;
  d.fill = fill;
  for (std::int64_t a = 0; a < in.ndim(); ++a) {
    const std::int64_t n = in.shape()[a], k = v.shape()[a];
    d.out_shape.push_back(m == mode::full ? n + k - 1 : m == mode::same ? n : n - k + 1);
    d.origin.push_back(start[static_cast<std::size_t>(a)] - (k - 1));
  }
  if (dev.is_host())
    return run_direct_host(d);
  if (fits_gpu(d))
    return run_direct_gpu(d); // flips or conjugates the taps as it loads them
  // Ranks above 2, integer dtypes, taps too large for the kernel: the host.
  const stream s = stream::current(dev);
  d.in = kiln::detail::to_device(d.in, device::host(), s);
  d.taps = kiln::detail::to_device(d.taps, device::host(), s);
  return kiln::detail::to_device(run_direct_host(d), dev, s);
}

/// The first full-output index of each axis in mode m (same: centered at
/// (k - 1) / 2, or k / 2 for correlate2d, as SciPy's).
std::vector<std::int64_t> starts(mode m, const shape &kernel, bool upper_center) {
  std::vector<std::int64_t> s;
  for (std::int64_t k : kernel)
    s.push_back(m == mode::full ? 0 : m == mode::same ? (upper_center ? k / 2 : (k - 1) / 2) : k - 1);
  return s;
}

/// The smallest n >= target whose only prime factors are 2, 3, 5 and 7.
std::int64_t next_fast_len(std::int64_t target) {
  for (std::int64_t n = std::max<std::int64_t>(target, 1);; ++n) {
    std::int64_t r = n;
    for (std::int64_t p : {2, 3, 5, 7})
      while (r % p == 0)
        r /= p;
    if (r == 1)
      return n;
  }
}

/// a * b elementwise over their broadcast shape (the spectra's product).
array_base product(const array_base &a, const array_base &b) {
  if (a.device().is_host())
    return kiln::detail::eager(kiln::detail::op::multiply, {a, b});
  const shape s = broadcast_shapes(a.shape(), b.shape());
  auto dense = [&](const array_base &v) { // as is when already of that shape, contiguous
    return v.shape() == s && v.is_contiguous() ? v : copy(kiln::detail::broadcast_to(v, s), a.dtype());
  };
  const array_base x = dense(a), y = dense(b);
  array_base out = empty(a.dtype(), s, a.device());
  kiln::detail::kernels::multiply_params p{x.data(), y.data(), out.data(), out.size()};
  kiln::detail::cuda::make_current(a.device().index());
  kiln::detail::kernels::gpu::multiply(a.device().index(), a.dtype(), p, stream::current(a.device()).native_handle());
  return out;
}

/// The FFT convolution of in1 and in2 over `axes` (the others broadcast),
/// cropped to mode m; in2 already swapped as SciPy would.
array_base fft_convolution(const array_base &in1, const array_base &in2, mode m, const std::vector<std::int64_t> &axes) {
  using fft::detail::kind;
  const bool complex = complex_dtype(in1.dtype()) || complex_dtype(in2.dtype());
  // The linear convolution's lengths, and the transforms' (SciPy's
  // next_fast_len: the next 2-3-5-7-smooth length, fast in cuFFT and
  // pocketfft; a prime length is several times slower).
  fft::lengths full, fast;
  for (std::int64_t a : axes) {
    full.push_back(in1.shape()[a] + in2.shape()[a] - 1);
    fast.push_back(next_fast_len(full.back()));
  }
  const kiln::axes ax(std::span<const std::int64_t>(axes.data(), axes.size()));
  array_base out;
  if (complex) {
    const array_base x = fft::detail::transform(in1, kind::c2c, true, fast, ax, fft::norm::backward);
    const array_base y = fft::detail::transform(in2, kind::c2c, true, fast, ax, fft::norm::backward);
    const array_base xy = product(x, y.dtype() == x.dtype() ? y : copy(y, x.dtype()));
    out = fft::detail::transform(xy, kind::c2c, false, fast, ax, fft::norm::backward);
  } else {
    const dtype real = promote_types(var_type(in1.dtype()), var_type(in2.dtype()));
    auto as_real = [&](const array_base &v) { return v.dtype() == real ? v : copy(v, real); };
    const array_base x = fft::detail::transform(as_real(in1), kind::r2c, true, fast, ax, fft::norm::backward);
    const array_base y = fft::detail::transform(as_real(in2), kind::r2c, true, fast, ax, fft::norm::backward);
    out = fft::detail::transform(product(x, y), kind::c2r, false, fast, ax, fft::norm::backward);
  }
  std::vector<slice_arg> crop(static_cast<std::size_t>(out.ndim()), slice_arg(kiln::all));
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::int64_t a = axes[i], n1 = in1.shape()[a], n2 = in2.shape()[a];
    const std::int64_t len = m == mode::full ? full[i] : m == mode::same ? n1 : n1 - n2 + 1;
    const std::int64_t begin = (full[i] - len) / 2;
    crop[static_cast<std::size_t>(a)] = kiln::range(begin, begin + len);
  }
  return slice(out, crop);
}

} // namespace

array_base convolve(const array_base &in1, const array_base &in2, mode m, method how, bool correlate) {
  kiln::detail::check_same_device(in1.device(), in2.device());
  if (in1.ndim() != in2.ndim())
    throw value_error("in1 and in2 should have the same dimensionality");
  const dtype t = promote_types(in1.dtype(), in2.dtype());
  if (in1.size() == 0 || in2.size() == 0)
    return empty(t, shape{0}, in1.device());
  const std::vector<std::int64_t> axes = every_axis(in1.ndim());
  const bool swap = swap_needed(m, in1.shape(), in2.shape(), axes);
  const array_base &a = swap ? in2 : in1, &v = swap ? in1 : in2;
  const bool exact = kind_of(t) == scalar_kind::integer || kind_of(t) == scalar_kind::boolean;
  if (how == method::automatic) // direct for exact types and small filters (docs/operations.md)
    how = exact || v.size() <= (a.device().is_host() ? 64 : 1024) ? method::direct : method::fft;
  array_base r;
  if (how == method::direct) {
    r = correlate_direct(a, v, correlate, t, m, starts(m, v.shape(), false), boundary::fill, 0);
  } else {
    r = fft_convolution(a, correlate ? conjugated(reversed(v)) : v, m, axes);
    if (exact) // SciPy rounds an FFT's result back to integers
      r = copy(kiln::detail::eager(kiln::detail::op::round, {r}), t);
    else if (r.dtype() != t)
      r = copy(r, t);
  }
  if (correlate && swap)
    r = conjugated(reversed(r));
  return r;
}

array_base convolve2d(const array_base &in1, const array_base &in2, mode m, boundary b, const std::complex<double> &fill,
                      bool correlate) {
  kiln::detail::check_same_device(in1.device(), in2.device());
  if (in1.ndim() != 2 || in2.ndim() != 2)
    throw value_error(std::string(correlate ? "correlate2d" : "convolve2d") + " inputs must both be 2-D arrays");
  const dtype t = promote_types(in1.dtype(), in2.dtype());
  if (in1.size() == 0 || in2.size() == 0)
    return empty(t, shape{0, 0}, in1.device());
  const bool swap = swap_needed(m, in1.shape(), in2.shape(), {0, 1});
  const array_base &a = swap ? in2 : in1, &v = swap ? in1 : in2;
  array_base r = correlate_direct(a, v, correlate, t, m, starts(m, v.shape(), correlate), b, fill);
  if (correlate && swap)
    r = reversed(r);
  return r;
}

array_base fftconvolve(const array_base &in1, const array_base &in2, mode m, const axes &ax) {
  kiln::detail::check_same_device(in1.device(), in2.device());
  if (in1.ndim() != in2.ndim())
    throw value_error("in1 and in2 should have the same dimensionality");
  const dtype t = promote_types(in1.dtype(), in2.dtype());
  const dtype result = kind_of(t) == scalar_kind::integer || kind_of(t) == scalar_kind::boolean ? dtype::float64 : t;
  if (in1.size() == 0 || in2.size() == 0)
    return empty(result, shape{0}, in1.device());
  std::vector<std::int64_t> axes;
  if (ax.is_all())
    axes = every_axis(in1.ndim());
  else
    for (std::int64_t a : ax.list()) {
      if (a < -in1.ndim() || a >= in1.ndim())
        throw index_error("axis " + std::to_string(a) + " is out of bounds for array of dimension " +
                          std::to_string(in1.ndim()));
      axes.push_back(a < 0 ? a + in1.ndim() : a);
    }
  for (std::int64_t d = 0; d < in1.ndim(); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end() && in1.shape()[d] != in2.shape()[d] &&
        in1.shape()[d] != 1 && in2.shape()[d] != 1)
      throw value_error("incompatible shapes for in1 and in2: " +
                        kiln::detail::shape_repr(in1.shape()) + " and " +
                        kiln::detail::shape_repr(in2.shape()));
  const bool swap = swap_needed(m, in1.shape(), in2.shape(), axes);
  const array_base r = fft_convolution(swap ? in2 : in1, swap ? in1 : in2, m, axes);
  return r.dtype() == result ? r : copy(r, result);
}

} // namespace kiln::signal::detail
