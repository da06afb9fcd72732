//===- runtime/ops/reduction_loop.cpp - Plans of the eager reductions -----===//
//
// How a reduction splits a strided view into kept and reduced dimensions
// (see reduction_loop.hpp), and the shape of its result.
//
//===----------------------------------------------------------------------===//
#include "reduction_loop.hpp"

#include <cstdlib>

namespace kiln::detail::host {

namespace {

/// Merges neighbours (outer, inner) that walk as one dimension: the outer
/// stride is the inner stride times the inner size.
void coalesce(std::vector<walk_dim> &dims) {
  std::size_t out = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (out > 0 && dims[out - 1].stride == dims[i].stride * dims[i].size) {
      dims[out - 1] = {dims[out - 1].size * dims[i].size, dims[i].stride};
      continue;
    }
    dims[out++] = dims[i];
  }
  dims.resize(out);
}

} // namespace

bool reduction_plan::use_lanes() const noexcept {
  if (kept.empty())
    return false;
  return reduced.empty() ||
         std::abs(kept.back().stride) < std::abs(reduced.back().stride);
}

reduction_plan plan_reduction(const shape &dims, const shape &strides,
                              std::uint64_t mask, bool ordered) {
  reduction_plan plan;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const bool reduced = mask >> d & 1;
    (reduced ? plan.count : plan.outputs) *= dims[d];
    if (dims[d] != 1)
      (reduced ? plan.reduced : plan.kept).push_back({dims[d], strides[d]});
  }
  if (!ordered)
    std::stable_sort(plan.reduced.begin(), plan.reduced.end(),
                     [](const walk_dim &a, const walk_dim &b) {
                       return std::abs(a.stride) > std::abs(b.stride);
                     });
  coalesce(plan.kept);
  coalesce(plan.reduced);
  return plan;
}

shape reduced_shape(const shape &s, std::uint64_t mask, bool keepdims) {
  shape out;
  for (std::size_t d = 0; d < s.size(); ++d) {
    if (!(mask >> d & 1))
      out.push_back(s[d]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

} // namespace kiln::detail::host
