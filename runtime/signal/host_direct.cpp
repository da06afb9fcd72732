//===- runtime/signal/host_direct.cpp - Direct correlation on the host ----===//
#include "direct.hpp"

#include "kiln/error.hpp"
#include "kiln/ops.hpp"
#include "kiln/promote.hpp"
#include "kiln/shaping.hpp"
#include "runtime/parallel/thread_pool.hpp"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <vector>

namespace kiln::signal::detail {
namespace {

/// Index `i` of an axis of length n under the boundary (-1: fill).
std::int64_t mapped(std::int64_t i, std::int64_t n, boundary b) {
  if (i >= 0 && i < n)
    return i;
  if (b == boundary::fill)
    return -1;
  if (b == boundary::wrap) {
    const std::int64_t m = i % n;
    return m < 0 ? m + n : m;
  }
  const std::int64_t period = 2 * n;
  std::int64_t m = i % period;
  if (m < 0)
    m += period;
  return m < n ? m : period - 1 - m;
}

template <class T> T fill_as(const std::complex<double> &f) {
  if constexpr (is_std_complex<T>::value)
    return T(typename T::value_type(f.real()), typename T::value_type(f.imag()));
  else if constexpr (std::is_same_v<T, bool>)
    return f.real() != 0;
  else
    return static_cast<T>(f.real());
}

/// 2-d: each output row accumulates kernel row by kernel row; columns whose
/// inputs are all inside take a loop without boundary tests.
template <class T> void correlate2(const direct &d, T *out) {
  const std::int64_t h = d.in.shape()[0], w = d.in.shape()[1], kh = d.taps.shape()[0], kw = d.taps.shape()[1];
  const std::int64_t oh = d.out_shape[0], ow = d.out_shape[1], oy = d.origin[0], ox = d.origin[1];
  const T *in = static_cast<const T *>(d.in.data()), *taps = static_cast<const T *>(d.taps.data());
  const T fill = fill_as<T>(d.fill);
  // Output columns [lo, hi) read only columns inside the input.
  const std::int64_t lo = std::clamp<std::int64_t>(-ox, 0, ow), hi = std::clamp<std::int64_t>(w - ox - kw + 1, lo, ow);
  kiln::detail::parallel::parallel_for(oh, std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(ow * kh * kw / 16, 1)),
                                       [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      T *o = out + i * ow;
      std::fill(o, o + ow, T(0));
      for (std::int64_t p = 0; p < kh; ++p) {
        const std::int64_t y = mapped(i + oy + p, h, d.b);
        const T *src = y >= 0 ? in + y * w : nullptr;
        for (std::int64_t q = 0; q < kw; ++q) {
          const T tap = taps[p * kw + q];
          if (src) {
            const T *s = src + ox + q;
            for (std::int64_t j = lo; j < hi; ++j) // inside: no tests
              o[j] += s[j] * tap;
          }
          // The columns whose inputs cross the border (all of them for a
          // row outside the input).
          auto edge = [&](std::int64_t from, std::int64_t to) {
            for (std::int64_t j = from; j < to; ++j) {
              const std::int64_t x = mapped(j + ox + q, w, d.b);
              o[j] += (src && x >= 0 ? src[x] : fill) * tap;
            }
          };
          if (src) {
            edge(0, lo);
            edge(hi, ow);
          } else {
            edge(0, ow);
          }
        }
      }
    }
  });
}

/// Any rank: each output element by definition.
template <class T> void correlate_n(const direct &d, T *out) {
  const std::int64_t nd = d.in.ndim();
  const T *in = static_cast<const T *>(d.in.data()), *taps = static_cast<const T *>(d.taps.data());
  const T fill = fill_as<T>(d.fill);
  const shape in_strides = contiguous_strides(d.in.shape());
  const std::int64_t outs = d.out_shape.numel(), ks = d.taps.size();
  kiln::detail::parallel::parallel_for(outs, 256, [&](std::int64_t begin, std::int64_t end) {
    std::vector<std::int64_t> o(static_cast<std::size_t>(nd)), k(static_cast<std::size_t>(nd));
    for (std::int64_t e = begin; e < end; ++e) {
      for (std::int64_t a = nd - 1, r = e; a >= 0; --a) {
        o[a] = r % d.out_shape[a];
        r /= d.out_shape[a];
      }
      T sum(0);
      for (std::int64_t t = 0; t < ks; ++t) {
        for (std::int64_t a = nd - 1, r = t; a >= 0; --a) {
          k[a] = r % d.taps.shape()[a];
          r /= d.taps.shape()[a];
        }
        std::int64_t at = 0;
        bool inside = true;
        for (std::int64_t a = 0; a < nd && inside; ++a) {
          const std::int64_t x = mapped(o[a] + d.origin[a] + k[a], d.in.shape()[a], d.b);
          inside = x >= 0;
          at += x * in_strides[a];
        }
        sum += (inside ? in[at] : fill) * taps[t];
      }
      out[e] = sum;
    }
  });
}

} // namespace

array_base run_direct_host(const direct &given) {
  using kiln::detail::reshape;
  // The taps in the loops' form: reversed for a convolution, conjugated for
  // a correlation.
  direct d = given;
  if (d.flip)
    d.taps = kiln::detail::copy(kiln::detail::flip(d.taps, std::nullopt), d.taps.dtype());
  if (d.conj && kind_of(d.taps.dtype()) == scalar_kind::complex)
    d.taps = kiln::detail::eager(kiln::detail::op::conj, {d.taps});
  d.flip = d.conj = false;
  array_base out = kiln::detail::empty(d.in.dtype(), d.out_shape, device::host());
  if (out.size() == 0)
    return out;
  // 1-d runs as one row of the 2-d loop.
  direct plane = d;
  if (d.in.ndim() == 1) {
    plane.in = reshape(d.in, shape{1, d.in.shape()[0]});
    plane.taps = reshape(d.taps, shape{1, d.taps.shape()[0]});
    plane.out_shape = shape{1, d.out_shape[0]};
    plane.origin = {0, d.origin[0]};
  }
  auto run = [&]<class T>() {
    if (plane.in.ndim() == 2)
      correlate2<T>(plane, static_cast<T *>(out.data()));
    else
      correlate_n<T>(d, static_cast<T *>(out.data()));
  };
  switch (d.in.dtype()) {
  case dtype::bool_:
    correlate_n<bool>(d, static_cast<bool *>(out.data())); // logical: NumPy's bool arithmetic
    break;
  case dtype::int8:
    run.template operator()<std::int8_t>();
    break;
  case dtype::uint8:
    run.template operator()<std::uint8_t>();
    break;
  case dtype::int32:
    run.template operator()<std::int32_t>();
    break;
  case dtype::int64:
    run.template operator()<std::int64_t>();
    break;
  case dtype::float32:
    run.template operator()<float>();
    break;
  case dtype::float64:
    run.template operator()<double>();
    break;
  case dtype::complex64:
    run.template operator()<std::complex<float>>();
    break;
  case dtype::complex128:
    run.template operator()<std::complex<double>>();
    break;
  }
  return out;
}

} // namespace kiln::signal::detail
