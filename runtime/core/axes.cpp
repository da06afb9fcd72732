//===- runtime/core/axes.cpp - A reduction's axes as a bit mask -----------===//
//
// normalize_axes: NumPy's normalize_axis_tuple for kiln::axes. The eager
// reductions and the GPU launcher both turn a user's axes into the same
// sorted set of dimensions with the same errors.
//
//===----------------------------------------------------------------------===//
#include "kiln/axes.hpp"
#include "kiln/error.hpp"

#include <string>

namespace kiln::detail {

std::uint64_t normalize_axes(const axes &ax, std::int64_t ndim) {
  if (ndim > 64)
    throw value_error("reductions support arrays of at most 64 dimensions, "
                      "found " +
                      std::to_string(ndim));
  const std::uint64_t every =
      ndim == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << ndim) - 1;
  if (ax.is_all())
    return every;
  // As NumPy: every axis is checked against the rank before duplicates are.
  for (std::int64_t a : ax.list())
    if (a < -ndim || a >= ndim)
      throw index_error("axis " + std::to_string(a) +
                        " is out of bounds for array of dimension " +
                        std::to_string(ndim));
  std::uint64_t mask = 0;
  for (std::int64_t a : ax.list()) {
    const std::uint64_t bit = std::uint64_t{1} << (a < 0 ? a + ndim : a);
    if (mask & bit)
      throw value_error("duplicate value in 'axis'");
    mask |= bit;
  }
  return mask;
}

} // namespace kiln::detail
