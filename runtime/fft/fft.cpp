//===- runtime/fft/fft.cpp - numpy.fft's rules ----------------------------===//
//
// Turns a numpy.fft call into one transform (transform.hpp): the axes (all,
// or the last len(s)), the lengths (s, or each axis's; 2 (m - 1) for the
// real axis of an inverse real transform), the input in the transform's
// element type (complex64/complex128 or float32/float64: NumPy's, with
// integers and bool in double precision) padded with zeros or cut to the
// lengths, and the scale of `norm`. hfft and ihfft are irfft of the
// conjugate and the conjugate of rfft with the norm's direction swapped, as
// in NumPy. Then fftfreq, rfftfreq, fftshift and ifftshift.
//
//===----------------------------------------------------------------------===//
#include "transform.hpp"

#include "kiln/creation.hpp"
#include "kiln/error.hpp"
#include "kiln/promote.hpp"
#include "kiln/shaping.hpp"
#include "kiln/stream.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

namespace kiln::detail::fft_run {

shape transform::out_shape() const {
  shape s = in.shape();
  if (!axes.empty() && k != kind::c2c) {
    const auto last = static_cast<std::size_t>(axes.back());
    s[last] = k == kind::c2r ? n.back() : n.back() / 2 + 1;
  }
  return s;
}

namespace {

using fft::norm;

std::int64_t normalize_axis(std::int64_t axis, std::int64_t nd) {
  if (axis < -nd || axis >= nd)
    throw index_error("axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(nd));
  return axis < 0 ? axis + nd : axis;
}

/// `x` with axis `axis` cut or zero-padded to `n`.
array_base resized(const array_base &x, std::int64_t axis, std::int64_t n) {
  const std::int64_t have = x.shape()[static_cast<std::size_t>(axis)];
  if (have == n)
    return x;
  if (have > n) {
    std::vector<slice_arg> args(static_cast<std::size_t>(x.ndim()), slice_arg(kiln::all));
    args[static_cast<std::size_t>(axis)] = kiln::range(0, n);
    return slice(x, args);
  }
  pad_widths widths(static_cast<std::size_t>(x.ndim()), {0, 0});
  widths[static_cast<std::size_t>(axis)] = {0, n - have};
  const std::complex<double> zero{}; // zero bytes are 0 in every float and complex dtype
  return pad(x, widths, &zero);
}

/// The scale of a transform of `count` points in `direction` under `nm`.
double scale_of(norm nm, bool forward, double count) {
  switch (nm) {
  case norm::backward:
    return forward ? 1.0 : 1.0 / count;
  case norm::ortho:
    return 1.0 / std::sqrt(count);
  case norm::forward:
    return forward ? 1.0 / count : 1.0;
  }
  return 1.0;
}

norm swapped(norm nm) { return nm == norm::backward ? norm::forward : nm == norm::forward ? norm::backward : nm; }

} // namespace

} // namespace kiln::detail::fft_run

namespace kiln::fft::detail {

using kiln::detail::fft_run::transform;
namespace run = kiln::detail::fft_run;

array_base transform(const array_base &x, kind k, bool forward, const lengths &s, const axes &ax, norm nm,
                     bool hermitian) {
  using namespace kiln::detail;
  const std::int64_t nd = x.ndim();
  // The axes: all, the last len(s), or as given.
  std::vector<std::int64_t> list;
  if (ax.is_all()) {
    if (static_cast<std::int64_t>(s.size()) > nd)
      throw value_error("Shape requires more axes than are present");
    for (std::int64_t d = s.empty() ? 0 : nd - static_cast<std::int64_t>(s.size()); d < nd; ++d)
      list.push_back(d);
  } else {
    for (std::int64_t a : ax.list())
      list.push_back(run::normalize_axis(a, nd));
  }
  if (!s.empty() && s.size() != list.size())
    throw value_error("When given, axes and shape arguments have to be of the same length");
  if (list.empty() && k != kind::c2c)
    throw value_error("kiln::fft: a real transform needs at least one axis");
  if (hermitian)
    nm = run::swapped(nm);
  // The lengths: s, or the axes' own (c2r's real axis: 2 (m - 1)).
  std::vector<std::int64_t> n(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::int64_t have = x.shape()[static_cast<std::size_t>(list[i])];
    n[i] = !s.empty() ? s[i] : (k == kind::c2r && i + 1 == list.size() ? 2 * (have - 1) : have);
    if (n[i] < 1)
      throw value_error("Invalid number of FFT data points (" + std::to_string(n[i]) + ") specified.");
  }
  // The transform's types: NumPy computes float32 and complex64 in single
  // precision, everything else in double.
  const dtype real = var_type(x.dtype());
  const dtype complex = real == dtype::float32 ? dtype::complex64 : dtype::complex128;
  array_base in = x;
  for (std::size_t i = 0; i < list.size(); ++i)
    in = run::resized(in, list[i], k == kind::c2r && i + 1 == list.size() ? n[i] / 2 + 1 : n[i]);
  const dtype want = k == kind::r2c ? real : complex;
  if (in.dtype() != want || (hermitian && k == kind::c2r))
    in = copy(in, want);
  if (hermitian && k == kind::c2r) // hfft: irfft of the conjugate
    run::scale_in_place(in, 1.0, true);
  // Repeated axes (NumPy transforms them again): one pass per axis.
  std::vector<std::int64_t> sorted = list;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    if (k != kind::c2c)
      throw value_error("kiln::fft: a real transform over a repeated axis is not supported");
    array_base r = in;
    for (std::size_t i = 0; i < list.size(); ++i)
      r = transform(r, kind::c2c, forward, {n[i]}, axes(list[i]), nm);
    return r;
  }
  if (list.empty())
    return copy(in, complex);
  run::transform t;
  t.k = k;
  t.forward = forward;
  t.in = in;
  t.axes = list;
  t.n = n;
  double points = 1;
  for (std::int64_t v : n)
    points *= double(v);
  t.scale = run::scale_of(nm, forward, points);
  array_base out = x.device().is_host() ? run::run_host(t) : run::run_gpu(t);
  if (hermitian && k == kind::r2c) { // ihfft: the conjugate of rfft
    if (!out.is_contiguous())
      out = copy(out, out.dtype());
    run::scale_in_place(out, 1.0, true);
  }
  return out;
}

array_base fftfreq(std::int64_t n, double d, bool real_half, device dev) {
  if (n < 1)
    throw value_error("n should be an integer greater than 0, not " + std::to_string(n));
  const std::int64_t count = real_half ? n / 2 + 1 : n;
  std::vector<double> v(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t k = real_half || i <= (n - 1) / 2 ? i : i - n;
    v[static_cast<std::size_t>(i)] = double(k) / (d * double(n));
  }
  const array_base h = kiln::asarray<double>(std::span<const double>(v.data(), v.size()), device::host());
  return dev.is_host() ? h : kiln::detail::to_device(h, dev, stream::current(dev));
}

array_base shift(const array_base &x, const axes &ax, bool inverse) {
  using namespace kiln::detail;
  std::vector<std::int64_t> list;
  if (ax.is_all())
    for (std::int64_t d = 0; d < x.ndim(); ++d)
      list.push_back(d);
  else
    for (std::int64_t a : ax.list())
      list.push_back(run::normalize_axis(a, x.ndim()));
  array_base r = x;
  for (std::int64_t a : list) {
    const std::int64_t len = x.shape()[static_cast<std::size_t>(a)];
    r = roll(r, inverse ? -(len / 2) : len / 2, a);
  }
  return list.empty() ? copy(x, x.dtype()) : r;
}

} // namespace kiln::fft::detail
