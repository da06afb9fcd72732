//===- runtime/ops/host_loop.hpp - Strided n-d loops on the host ----------===//
//
// The loop engine of the eager operations: walks a broadcast shape over
// several strided operands, coalescing dimensions, and hands the innermost
// run to a callback; plus the element conversion NumPy's casts perform.
// Internal to the runtime (used by runtime/ops and runtime/blas).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/promote.hpp"

#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace kiln::detail::host {

/// Strides of `x` (in elements) aligned to a broadcast shape `out` of equal
/// or higher rank: leading new axes and broadcast axes get stride 0.
inline shape broadcast_strides(const shape &xs, const shape &xst,
                               const shape &out) {
  shape st = shape::filled(out.size(), 0);
  std::size_t lead = out.size() - xs.size();
  for (std::size_t i = 0; i < xs.size(); ++i)
    st[lead + i] = xs[i] == 1 && out[lead + i] != 1 ? 0 : xst[i];
  return st;
}

/// Calls `inner(n, offsets, steps)` for runs of `n` elements covering
/// `out` in C order, where operand k's run starts at element offset
/// offsets[k] and advances by steps[k]. `strides[k]` are operand k's strides
/// aligned to `out` (see broadcast_strides). Dimensions of size 1 are
/// dropped and mergeable dimensions coalesced first.
template <std::size_t N, class Inner>
void for_each_run(const shape &out, const std::array<shape, N> &strides,
                  Inner inner) {
  if (out.numel() == 0)
    return;
  // Drop size-1 dimensions, then merge neighbours that are contiguous for all
  // operands.
  std::vector<std::int64_t> dims;
  std::vector<std::array<std::int64_t, N>> st;
  for (std::size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1)
      continue;
    std::array<std::int64_t, N> s;
    for (std::size_t k = 0; k < N; ++k)
      s[k] = strides[k][d];
    if (!dims.empty()) {
      bool merge = true;
      for (std::size_t k = 0; k < N; ++k)
        if (st.back()[k] != s[k] * out[d])
          merge = false;
      if (merge) {
        dims.back() *= out[d];
        st.back() = s;
        continue;
      }
    }
    dims.push_back(out[d]);
    st.push_back(s);
  }
  std::array<std::int64_t, N> off{};
  if (dims.empty()) { // a single element
    std::array<std::int64_t, N> zero{};
    inner(std::int64_t{1}, off, zero);
    return;
  }
  const std::size_t rank = dims.size();
  const std::int64_t n = dims[rank - 1];
  const std::array<std::int64_t, N> step = st[rank - 1];
  std::vector<std::int64_t> idx(rank, 0);
  for (;;) {
    inner(n, off, step);
    // Advance the outer index (all but the last dimension) like an odometer.
    std::size_t d = rank - 1;
    for (;;) {
      if (d == 0)
        return;
      --d;
      ++idx[d];
      for (std::size_t k = 0; k < N; ++k)
        off[k] += st[d][k];
      if (idx[d] < dims[d])
        break;
      for (std::size_t k = 0; k < N; ++k)
        off[k] -= st[d][k] * dims[d];
      idx[d] = 0;
    }
  }
}

template <class T>
inline constexpr bool is_complex_v = is_std_complex<T>::value;

/// The value of `v` as a Dst, as NumPy's unsafe cast: complex to real keeps
/// the real part, to bool tests for nonzero; a float out of an integer's
/// range (or NaN) gives the integer's minimum, as NumPy does on x86.
template <class Dst, class Src> Dst convert(Src v) {
  if constexpr (std::is_same_v<Dst, Src>) {
    return v;
  } else if constexpr (std::is_same_v<Dst, bool>) {
    return v != Src(0);
  } else if constexpr (is_complex_v<Dst>) {
    using DV = typename Dst::value_type;
    if constexpr (is_complex_v<Src>)
      return Dst(static_cast<DV>(v.real()), static_cast<DV>(v.imag()));
    else
      return Dst(static_cast<DV>(v), DV(0));
  } else if constexpr (is_complex_v<Src>) {
    return convert<Dst>(v.real());
  } else if constexpr (std::is_integral_v<Dst> &&
                       std::is_floating_point_v<Src>) {
    constexpr Src lo = static_cast<Src>(std::numeric_limits<Dst>::min());
    constexpr Src hi =
        std::is_signed_v<Dst>
            ? -lo
            : static_cast<Src>(std::numeric_limits<Dst>::max()) + Src(1);
    if (!(v >= lo && v < hi))
      return std::numeric_limits<Dst>::min();
    return static_cast<Dst>(v);
  } else {
    return static_cast<Dst>(v);
  }
}

/// Calls f.template operator()<T>() with T the C++ type of `t`.
template <class F> decltype(auto) dispatch(dtype t, F &&f) {
  switch (t) {
  case dtype::bool_:
    return f.template operator()<bool>();
  case dtype::int8:
    return f.template operator()<std::int8_t>();
  case dtype::uint8:
    return f.template operator()<std::uint8_t>();
  case dtype::int32:
    return f.template operator()<std::int32_t>();
  case dtype::int64:
    return f.template operator()<std::int64_t>();
  case dtype::float32:
    return f.template operator()<float>();
  case dtype::float64:
    return f.template operator()<double>();
  case dtype::complex64:
    return f.template operator()<std::complex<float>>();
  case dtype::complex128:
    return f.template operator()<std::complex<double>>();
  }
  return f.template operator()<float>();
}

/// Converts the host array `x` into a C-contiguous host buffer of T.
template <class T> void convert_into(const array_base &x, T *out) {
  dispatch(x.dtype(), [&]<class S>() {
    const S *in = static_cast<const S *>(x.data());
    std::array<shape, 2> st{contiguous_strides(x.shape()), x.strides()};
    for_each_run<2>(x.shape(), st,
                    [&](std::int64_t n, const auto &off, const auto &step) {
                      T *o = out + off[0];
                      const S *p = in + off[1];
                      for (std::int64_t i = 0; i < n; ++i)
                        o[i * step[0]] = convert<T>(p[i * step[1]]);
                    });
  });
}

} // namespace kiln::detail::host
