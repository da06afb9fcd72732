//===- runtime/kernels/layout.hpp - Loop layouts of strided kernels -------===//
//
// Merges the dimensions of one or two strided operands into as few loop
// dimensions as their strides allow (size-1 dimensions dropped, adjacent
// dimensions that are contiguous for every operand fused), so that a
// C-contiguous copy is one flat loop. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/shape.hpp"

#include <cstdint>

namespace kiln::detail::kernels {

struct loop_layout {
  std::int64_t n = 0; ///< elements
  kiln::shape shape;  ///< merged dimensions, C order (rank 0: one element)
  kiln::shape strides[2];
  int rank() const noexcept { return static_cast<int>(shape.size()); }
};

/// The merged layout of `s` for operands with strides `a` (and `b` when
/// given; the same rank as `s`).
inline loop_layout make_layout(const kiln::shape &s, const kiln::shape &a,
                               const kiln::shape *b = nullptr) {
  loop_layout l;
  l.n = s.numel();
  if (l.n == 0)
    return l;
  // Walk from the innermost dimension outwards, merging where possible;
  // collect reversed, then flip.
  kiln::shape rs, ra, rb;
  for (std::size_t k = s.size(); k-- > 0;) {
    if (s[k] == 1)
      continue;
    if (!rs.empty()) {
      std::size_t last = rs.size() - 1;
      bool fits =
          a[k] == ra[last] * rs[last] && (!b || (*b)[k] == rb[last] * rs[last]);
      if (fits) {
        rs[last] *= s[k];
        continue;
      }
    }
    rs.push_back(s[k]);
    ra.push_back(a[k]);
    rb.push_back(b ? (*b)[k] : 0);
  }
  for (std::size_t i = rs.size(); i-- > 0;) {
    l.shape.push_back(rs[i]);
    l.strides[0].push_back(ra[i]);
    l.strides[1].push_back(rb[i]);
  }
  return l;
}

} // namespace kiln::detail::kernels
