//===- kiln/reduce.hpp - Reductions from C++ lambdas ---------------*- C++ -*-===//
//
// CuPy's ReductionKernel with lambdas (SPEC.md, "Kernels the user defines";
// docs/user-guide.md, "Reductions with lambdas"):
//
//   auto l2 = kiln::reduce(x, [](float v) { return v * v; },            // map
//                          [](float a, float b) { return a + b; },      // combine
//                          0.0f,                                         // identity
//                          [](float s) { return std::sqrt(s); }, -1);   // post, axis
//
// Each element is mapped (its result type A is the accumulator's), the
// mapped values of each output element are folded with `combine`, which must
// be associative and commutative (the order is a tree, as every reduction's),
// starting from `identity` (a constant: combine(identity, a) == a), and the
// folded value is passed through `post`, whose result type is the output's
// dtype. kilnc compiles the three lambdas into the reduction kernels, fused
// with the operations around it, on a GPU or on the host.
//
// Without kilnc the reduction runs eagerly on the host; arrays on a GPU make
// a round trip.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/axes.hpp"
#include "kiln/elementwise.hpp"

#include <cstdint>
#include <type_traits>
#include <vector>

namespace kiln {
namespace detail {

template <class T, class Map> using reduce_accumulator_t = std::decay_t<std::invoke_result_t<Map &, T>>;
template <class T, class Map, class Post>
using reduce_result_t = std::decay_t<std::invoke_result_t<Post &, reduce_accumulator_t<T, Map>>>;

/// The fold of kiln::reduce without its map and post: `combine` over `ax`
/// of `x`, starting from `identity` in every output element. Eager, on the
/// host.
template <element A, class Combine>
array<A> reduce_fold(const array<A> &xs, Combine combine, A identity, const axes &ax, bool keepdims) {
  // On the host; an array on a GPU makes a round trip (the eager form runs
  // only where kilnc did not compile the call).
  const array<A> x = xs.device().is_host() ? xs : xs.to(device::host());
  const std::int64_t ndim = x.ndim();
  const std::uint64_t mask = normalize_axes(ax, ndim);
  std::vector<std::int64_t> perm, kept_shape, out_shape;
  std::int64_t kept = 1, reduced = 1;
  for (std::int64_t d = 0; d < ndim; ++d)
    if (!(mask >> d & 1)) {
      perm.push_back(d);
      kept_shape.push_back(x.shape()[d]);
      kept *= x.shape()[d];
    }
  for (std::int64_t d = 0; d < ndim; ++d)
    if (mask >> d & 1) {
      perm.push_back(d);
      reduced *= x.shape()[d];
    }
  for (std::int64_t d = 0; d < ndim; ++d)
    if (!(mask >> d & 1))
      out_shape.push_back(x.shape()[d]);
    else if (keepdims)
      out_shape.push_back(1);
  // The kept axes first, then the reduced ones, contiguous: each output
  // element's values are one run of `reduced` elements.
  const array<A> rows = ndim ? x.transpose(std::span<const std::int64_t>(perm)).copy() : x.copy();
  stream::current(x.device()).synchronize();
  array<A> out = empty<A>(shape(std::span<const std::int64_t>(out_shape)), x.device());
  const A *in = rows.data();
  A *o = out.data();
  for (std::int64_t k = 0; k < kept; ++k) {
    A acc = identity;
    for (std::int64_t r = 0; r < reduced; ++r)
      acc = static_cast<A>(combine(acc, in[k * reduced + r]));
    o[k] = acc;
  }
  return xs.device().is_host() ? out : out.to(xs.device());
}

} // namespace detail

/// CuPy's ReductionKernel: `post(fold(combine, identity, map(x)))` over
/// `ax` (kiln::all: every axis), NumPy's axis and keepdims rules. The
/// accumulator type is map's result type; the output's dtype is post's.
template <element T, class Map, class Combine, class Identity, class Post>
array<detail::reduce_result_t<T, Map, Post>> reduce(const array<T> &x, Map map, Combine combine, Identity identity,
                                                   Post post, const axes &ax = all, bool keepdims = false) {
  using A = detail::reduce_accumulator_t<T, Map>;
  using R = detail::reduce_result_t<T, Map, Post>;
  static_assert(element<A> && !std::is_same_v<A, std::complex<float>> && !std::is_same_v<A, std::complex<double>>,
                "kiln::reduce: map must return bool, an integer, float or double");
  static_assert(element<R>, "kiln::reduce: post must return a Kiln element type");
  static_assert(std::is_convertible_v<std::invoke_result_t<Combine &, A, A>, A>,
                "kiln::reduce: combine takes two accumulators (map's result type) and returns one");
  static_assert(std::is_convertible_v<Identity, A>, "kiln::reduce: the identity must convert to map's result type");
  array<A> mapped = elementwise(map, x);
  array<A> folded = detail::reduce_fold<A>(mapped, combine, static_cast<A>(identity), ax, keepdims);
  return elementwise(post, folded);
}

} // namespace kiln
