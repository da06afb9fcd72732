// Test helpers for reductions: host arrays of a shape in each layout that a
// reduction must handle (contiguous, transposed, stepped with negative steps
// and an offset, broadcast), and the groups of elements each output of a
// reduction combines, for references computed in the tests.
#pragma once

#include "host_arrays.hpp"

#include <kiln/kiln.hpp>

#include <cstdint>
#include <optional>
#include <vector>

/// The layouts a reduction must handle.
enum class layout { contiguous, transposed, stepped, broadcast };

inline const char *layout_name(layout l) {
  switch (l) {
  case layout::contiguous:
    return "contiguous";
  case layout::transposed:
    return "transposed";
  case layout::stepped:
    return "stepped";
  case layout::broadcast:
    return "broadcast";
  }
  return "?";
}

/// A host array of shape `s` in layout `l` whose memory holds `values(n)`.
template <class T, class Values>
kiln::array<T> layout_array(const kiln::shape &s, layout l, Values values) {
  const std::size_t r = s.size();
  auto size = [](const kiln::shape &t) {
    return static_cast<std::size_t>(t.numel());
  };
  switch (l) {
  case layout::contiguous:
    return make(values(size(s)), s);
  case layout::transposed: {
    // The transpose of a C-order array of the reversed shape.
    kiln::shape rev;
    for (std::size_t d = r; d-- > 0;)
      rev.push_back(s[d]);
    return make(values(size(s)), rev).T();
  }
  case layout::stepped: {
    // Every other element of a larger array: forwards from offset 1 on even
    // axes, backwards on odd ones.
    kiln::shape big;
    std::vector<kiln::slice_arg> args;
    for (std::size_t d = 0; d < r; ++d) {
      big.push_back(2 * s[d] + 1);
      if (d % 2 == 0)
        args.emplace_back(kiln::range(1, std::nullopt, 2));
      else
        args.emplace_back(kiln::range(std::nullopt, 0, -2));
    }
    const kiln::array<T> base = make(values(size(big)), big);
    return kiln::array<T>(kiln::detail::slice(base, args));
  }
  case layout::broadcast: {
    // A new leading axis and, from rank 2, a length-1 axis 1: stride 0.
    kiln::shape src;
    for (std::size_t d = 1; d < r; ++d)
      src.push_back(d == 1 ? 1 : s[d]);
    return kiln::broadcast_to(make(values(size(src)), src), s);
  }
  }
  return {};
}

/// The dimensions `ax` names as a bit mask (bit d for axis d).
inline std::uint64_t mask_of(const kiln::axes &ax, std::int64_t ndim) {
  if (ax.is_all())
    return ndim == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << ndim) - 1;
  std::uint64_t m = 0;
  for (std::int64_t a : ax.list())
    m |= std::uint64_t{1} << (a < 0 ? a + ndim : a);
  return m;
}

/// The shape of a reduction of shape `s` over `mask`.
inline kiln::shape expected_shape(const kiln::shape &s, std::uint64_t mask,
                                  bool keepdims) {
  kiln::shape out;
  for (std::size_t d = 0; d < s.size(); ++d)
    if (!(mask >> d & 1))
      out.push_back(s[d]);
    else if (keepdims)
      out.push_back(1);
  return out;
}

/// The elements of each output (in the output's C order) of reducing `v`
/// (C order, shape `s`) over `mask`, each group in the reduced axes' C order.
template <class T>
std::vector<std::vector<T>> groups(const std::vector<T> &v,
                                   const kiln::shape &s, std::uint64_t mask) {
  std::int64_t outputs = 1;
  for (std::size_t d = 0; d < s.size(); ++d)
    if (!(mask >> d & 1))
      outputs *= s[d];
  std::vector<std::vector<T>> g(static_cast<std::size_t>(outputs));
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(v.size()); ++i) {
    std::int64_t rest = i, o = 0, kept_stride = 1;
    for (std::size_t d = s.size(); d-- > 0;) {
      const std::int64_t c = rest % s[d];
      rest /= s[d];
      if (!(mask >> d & 1)) {
        o += c * kept_stride;
        kept_stride *= s[d];
      }
    }
    g[static_cast<std::size_t>(o)].push_back(v[static_cast<std::size_t>(i)]);
  }
  return g;
}
