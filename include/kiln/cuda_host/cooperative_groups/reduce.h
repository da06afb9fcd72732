//===- kiln/cuda_host/cooperative_groups/reduce.h - cooperative_groups::reduce -*- C++ -*-===//
//
// CUDA's <cooperative_groups/reduce.h> for CUDA source compiled for the host
// (kiln/cuda_host.hpp): cooperative_groups::reduce(group, value, op) over a
// thread_block_tile of up to 32 threads or a coalesced_group, every thread
// of the group getting the result, and the function objects plus, less,
// greater, bit_and, bit_or and bit_xor. A full tile reduces with a
// butterfly of shuffles (log2 of its size); a tile cut short by a partial
// last warp, or a coalesced group, with a tree by rank and a broadcast.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <class T> struct plus {
  T operator()(T a, T b) const { return a + b; }
};
/// The smaller operand (the minimum).
template <class T> struct less {
  T operator()(T a, T b) const { return b < a ? b : a; }
};
/// The larger operand (the maximum).
template <class T> struct greater {
  T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <class T> struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <class T> struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

/// `val` reduced with `op` over the tile; every thread gets the result.
template <unsigned int Size, class ParentT, class TyVal, class TyFn>
KILN_CUDA_SYNC auto reduce(const thread_block_tile<Size, ParentT> &, TyVal &&val, TyFn &&op) -> decltype(op(val, val)) {
  using result_t = decltype(op(val, val));
  return ::kiln::cuda_host::detail::reduce_lanes(static_cast<result_t>(val), op, details::warp_tile_lanes(Size), Size);
}

/// `val` reduced with `op` over the coalesced group.
template <class TyVal, class TyFn>
KILN_CUDA_SYNC auto reduce(const coalesced_group &group, TyVal &&val, TyFn &&op) -> decltype(op(val, val)) {
  using result_t = decltype(op(val, val));
  return ::kiln::cuda_host::detail::reduce_lanes(static_cast<result_t>(val), op, group.kiln_lanes(), 32);
}

} // namespace cooperative_groups
