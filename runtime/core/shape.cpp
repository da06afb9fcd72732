//===- runtime/core/shape.cpp - Shape text, strides and broadcasting ------===//
#include "kiln/error.hpp"
#include "kiln/shape.hpp"

namespace kiln {

std::string to_string(const shape &s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(s[i]);
  }
  if (s.size() == 1) out += ",";
  return out + ")";
}

shape contiguous_strides(const shape &s) {
  shape st = shape::filled(s.size(), 1);
  std::int64_t acc = 1;
  for (std::size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    acc *= s[i] > 0 ? s[i] : 1;
  }
  return st;
}

shape broadcast_shapes(const shape &a, const shape &b) {
  std::size_t n = std::max(a.size(), b.size());
  shape out = shape::filled(n, 1);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    std::int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw shape_error("operands could not be broadcast together with shapes " + to_string(a) + " " +
                        to_string(b));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

} // namespace kiln
