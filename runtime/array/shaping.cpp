//===- runtime/array/shaping.cpp - concatenate ----------------------------===//
//
// np.concatenate with NumPy's checks: the result is allocated once and each
// input assigned into its slice along the axis (a memcpy for contiguous
// blocks of one dtype, else the strided copy), so every element is read and
// written once.
//
//===----------------------------------------------------------------------===//
#include "kiln/shaping.hpp"

#include <string>

namespace kiln::detail {

array_base concatenate(std::span<const array_base> arrays, std::int64_t axis) {
  if (arrays.empty())
    throw value_error("need at least one array to concatenate");
  const array_base &first = arrays[0];
  if (first.ndim() == 0)
    throw value_error("zero-dimensional arrays cannot be concatenated");
  const std::int64_t a = shaping_axis(axis, first.ndim());
  const std::size_t ax = static_cast<std::size_t>(a);
  shape out_shape = first.shape();
  out_shape[ax] = 0;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const array_base &x = arrays[i];
    if (x.ndim() != first.ndim())
      throw value_error("all the input arrays must have same number of dimensions, but the array at index 0 has " +
                        std::to_string(first.ndim()) + " dimension(s) and the array at index " + std::to_string(i) +
                        " has " + std::to_string(x.ndim()) + " dimension(s)");
    for (std::size_t d = 0; d < first.shape().size(); ++d)
      if (d != ax && x.shape()[d] != first.shape()[d])
        throw value_error("all the input array dimensions except for the concatenation axis must match exactly, but "
                          "along dimension " + std::to_string(d) + ", the array at index 0 has size " +
                          std::to_string(first.shape()[d]) + " and the array at index " + std::to_string(i) +
                          " has size " + std::to_string(x.shape()[d]));
    if (x.device() != first.device())
      throw device_error("arrays are on different devices: " + first.device().str() + " and " + x.device().str());
    out_shape[ax] += x.shape()[ax];
  }
  array_base out = empty(first.dtype(), out_shape, first.device());
  const stream s = stream::current(first.device());
  std::int64_t at = 0;
  for (const array_base &x : arrays) {
    const std::int64_t len = x.shape()[ax];
    assign(slice_axis(out, a, range(at, at + len)), x, s);
    at += len;
  }
  return out;
}

} // namespace kiln::detail
