//===- runtime/ops/reduction_loop.hpp - How eager reductions walk arrays --===//
//
// The loop engine of the eager reductions (reductions.cpp, norm.cpp). A
// reduction_plan splits a strided view into kept and reduced dimensions,
// drops the length-1 ones and coalesces the rest. Each output is then
// reduced in one of two ways:
//
// - rows: one output at a time, along runs of its reduced elements, when
//   the innermost reduced dimension is the closest in memory (a row sum of a
//   C-order matrix, a sum over every axis);
// - lanes: neighbouring outputs along the innermost kept dimension, 16 KiB
//   of partial results at a time (4096 float sums), one reduced element
//   after the other, when that dimension is the closer in memory (a column
//   sum of a C-order matrix).
//
// Either way the elements of an output are cut into leaves (up to 128
// consecutive elements of a run, or 16 reduced elements of the lanes), each
// reduced by the reducer's own vectorizable loop, and the leaves are
// combined pairwise as they arrive (pairwise_tree). A float sum of n
// elements thus has an error bound of O(log n) ulps, as NumPy's pairwise
// sum, in every layout. (Reductions that round no more in one order than in
// another, as max or an integer sum, make one leaf of a lane's elements.)
// The order of operations depends on the shape and strides only, so the
// same input gives the same bits.
//
// A reducer is a class with:
//
//   using element = T;     // the array's element type
//   using input = I;       // what an element is loaded as
//   using state = S;       // a partial result
//   using result = R;      // the output's element type
//   static constexpr bool ordered;        // needs C order (argmax's index)
//   static constexpr bool pairwise;       // needs the tree (float sums)
//   static constexpr bool loads_in_place; // load() is the identity
//   I load(T v) const;
//   S leaf(const I *v, int64_t n, int64_t first) const; // 1 <= n <= 128
//   void step(S &s, I v, int64_t index) const;           // append one
//   S combine(const S &a, const S &b) const;             // a, then b
//   R finish(const S &s) const;
//
// and either `S identity() const` (the state of no element: sum, all, ...)
// or `[[noreturn]] void no_identity() const`, which throws NumPy's error
// for an empty reduction (max, argmax). `first` and `index` count the
// reduced elements of the output in the plan's order. A reducer may also
// have `void step_lanes(S *s, const I *v, int64_t width, int64_t index)`,
// step() on `width` lanes that have seen as many elements each.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

namespace kiln::detail::host {

/// One dimension of a strided walk: its length and its stride in elements.
struct walk_dim {
  std::int64_t size;
  std::int64_t stride;
};

/// The dimensions of an array as a reduction sees them.
struct reduction_plan {
  /// The kept dimensions in order (the output's C order), without length-1
  /// dimensions, coalesced where the strides allow.
  std::vector<walk_dim> kept;
  /// The reduced dimensions, without length-1 dimensions, coalesced. In C
  /// order for an ordered reduction, else sorted by decreasing |stride| so
  /// that the walk follows memory.
  std::vector<walk_dim> reduced;
  /// The number of outputs and of elements reduced into each.
  std::int64_t outputs = 1;
  std::int64_t count = 1;

  /// True when the innermost kept dimension is closer in memory than the
  /// innermost reduced one: reduce along it in lanes.
  bool use_lanes() const noexcept;
};

/// The plan of reducing an array of shape `dims` and `strides` over the
/// dimensions set in `mask`.
reduction_plan plan_reduction(const shape &dims, const shape &strides,
                              std::uint64_t mask, bool ordered);

/// The shape of a reduction's result: `s` without the dimensions in `mask`,
/// or with them as length 1 when `keepdims`.
shape reduced_shape(const shape &s, std::uint64_t mask, bool keepdims);

/// Elements in a leaf of a run, as NumPy's pairwise sum's blocks.
inline constexpr std::int64_t leaf_size = 128;
/// Reduced elements in a leaf of lanes.
inline constexpr std::int64_t lane_leaf_rows = 16;
/// Outputs reduced at once in lanes: 16 KiB of states (4096 float sums),
/// enough for the rows of a tile to stream from memory.
template <class Reducer>
inline constexpr std::int64_t max_lanes = static_cast<std::int64_t>(
    std::clamp<std::size_t>(16384 / sizeof(typename Reducer::state), 16, 4096));

/// Calls f(offset, n, stride) for each run of the innermost of `dims`, in C
/// order; once with n = 1 when there is no dimension at all.
template <class F> void walk_runs(std::span<const walk_dim> dims, F &&f) {
  if (dims.empty()) {
    f(std::int64_t{0}, std::int64_t{1}, std::int64_t{0});
    return;
  }
  const walk_dim inner = dims.back();
  const std::size_t outer = dims.size() - 1;
  std::array<std::int64_t, 64> idx{};
  std::int64_t off = 0;
  for (;;) {
    f(off, inner.size, inner.stride);
    // Advance the outer dimensions like an odometer.
    std::size_t d = outer;
    for (;;) {
      if (d == 0)
        return;
      --d;
      off += dims[d].stride;
      if (++idx[d] < dims[d].size)
        break;
      off -= dims[d].stride * dims[d].size;
      idx[d] = 0;
    }
  }
}

/// Combines leaf states pairwise as they arrive, up to `Capacity`
/// independent lanes at a time. Level k holds the combination of 2^k
/// consecutive leaves, as the bits of a binary counter: n leaves form a tree
/// of depth log2(n) in O(log n) memory, and the order of the leaves is kept.
template <class Reducer, std::size_t Capacity> class pairwise_tree {
  using state = typename Reducer::state;

public:
  explicit pairwise_tree(const Reducer &red) : red_(red) {}

  /// Forgets every leaf; the next ones have `width` <= Capacity lanes.
  void clear(std::size_t width) {
    width_ = width;
    leaves_ = 0;
  }

  /// Adds the next leaf, one state a lane.
  void push(const state *leaf) {
    state *carry = carry_->data();
    std::copy(leaf, leaf + width(), carry);
    // The carry ripples up through the occupied levels, each holding older
    // leaves than the carry.
    std::size_t k = 0;
    for (; leaves_ >> k & 1; ++k) {
      const state *older = levels_[k]->data();
      for (std::size_t w = 0; w < width(); ++w)
        carry[w] = red_.combine(older[w], carry[w]);
    }
    if (levels_.size() == k)
      levels_.push_back(std::make_unique<lanes>());
    std::copy(carry, carry + width(), levels_[k]->begin());
    ++leaves_;
  }

  /// Every leaf pushed, combined in order (at least one was pushed).
  void result(state *out) const {
    bool first = true;
    for (int k = std::bit_width(leaves_) - 1; k >= 0; --k) {
      if (!(leaves_ >> k & 1))
        continue;
      const state *lv = levels_[static_cast<std::size_t>(k)]->data();
      for (std::size_t w = 0; w < width(); ++w)
        out[w] = first ? lv[w] : red_.combine(out[w], lv[w]);
      first = false;
    }
  }

private:
  using lanes = std::array<state, Capacity>;

  std::size_t width() const noexcept {
    if constexpr (Capacity == 1)
      return 1;
    else
      return width_;
  }

  const Reducer &red_;
  std::size_t width_ = 1;
  std::uint64_t leaves_ = 0;
  std::unique_ptr<lanes> carry_ = std::make_unique<lanes>();
  std::vector<std::unique_ptr<lanes>> levels_;
};

/// `n` elements from `p`, `step` apart, as the reducer's inputs: `p` itself
/// when they are contiguous and load as they are, else loaded into `buffer`.
template <class Reducer>
const typename Reducer::input *
load_run(const Reducer &red, const typename Reducer::element *p, std::int64_t n,
         std::int64_t step, typename Reducer::input *buffer) {
  if constexpr (Reducer::loads_in_place)
    if (step == 1)
      return p;
  for (std::int64_t i = 0; i < n; ++i)
    buffer[i] = red.load(p[i * step]);
  return buffer;
}

/// One output at a time: leaves are pieces of the runs of the innermost
/// reduced dimension.
template <class Reducer>
void reduce_rows(const Reducer &red, const typename Reducer::element *x,
                 const reduction_plan &plan, typename Reducer::result *out) {
  using state = typename Reducer::state;
  std::array<typename Reducer::input, leaf_size> buffer;
  std::int64_t o = 0;
  if (plan.reduced.size() <= 1 && plan.count <= leaf_size) {
    // Short runs: one leaf an output.
    const walk_dim run =
        plan.reduced.empty() ? walk_dim{1, 0} : plan.reduced.front();
    walk_runs(plan.kept, [&](std::int64_t kept_off, std::int64_t kept_n,
                             std::int64_t kept_step) {
      for (std::int64_t k = 0; k < kept_n; ++k) {
        const auto *v = load_run(red, x + kept_off + k * kept_step, run.size,
                                 run.stride, buffer.data());
        out[o++] = red.finish(red.leaf(v, run.size, 0));
      }
    });
    return;
  }
  pairwise_tree<Reducer, 1> tree(red);
  walk_runs(plan.kept, [&](std::int64_t kept_off, std::int64_t kept_n,
                           std::int64_t kept_step) {
    for (std::int64_t k = 0; k < kept_n; ++k) {
      const auto *base = x + kept_off + k * kept_step;
      tree.clear(1);
      std::int64_t index = 0;
      walk_runs(plan.reduced,
                [&](std::int64_t off, std::int64_t n, std::int64_t step) {
                  for (std::int64_t start = 0; start < n; start += leaf_size) {
                    const std::int64_t len = std::min(leaf_size, n - start);
                    const auto *v = load_run(red, base + off + start * step,
                                             len, step, buffer.data());
                    const state leaf = red.leaf(v, len, index);
                    tree.push(&leaf);
                    index += len;
                  }
                });
      state total;
      tree.result(&total);
      out[o++] = red.finish(total);
    }
  });
}

/// Up to max_lanes neighbouring outputs along the innermost kept dimension
/// at once: each reduced element updates every lane; leaves are
/// lane_leaf_rows reduced elements.
template <class Reducer>
void reduce_lanes(const Reducer &red, const typename Reducer::element *x,
                  const reduction_plan &plan, typename Reducer::result *out) {
  using state = typename Reducer::state;
  constexpr std::int64_t capacity = max_lanes<Reducer>;
  const walk_dim lane = plan.kept.back();
  const std::span<const walk_dim> outer(plan.kept.data(), plan.kept.size() - 1);
  pairwise_tree<Reducer, capacity> tree(red);
  // Arrays rather than std::vector, which packs bools.
  const auto leaf = std::make_unique<state[]>(capacity);
  const auto total = std::make_unique<state[]>(capacity);
  const auto buffer = std::make_unique<typename Reducer::input[]>(capacity);
  std::int64_t o = 0;
  walk_runs(outer, [&](std::int64_t outer_off, std::int64_t outer_n,
                       std::int64_t outer_step) {
    for (std::int64_t j = 0; j < outer_n; ++j) {
      for (std::int64_t w0 = 0; w0 < lane.size; w0 += capacity) {
        const std::int64_t width = std::min(capacity, lane.size - w0);
        const auto *base = x + outer_off + j * outer_step + w0 * lane.stride;
        tree.clear(static_cast<std::size_t>(width));
        constexpr std::int64_t leaf_rows =
            Reducer::pairwise ? lane_leaf_rows
                              : std::numeric_limits<std::int64_t>::max();
        std::int64_t index = 0, rows = 0;
        walk_runs(plan.reduced, [&](std::int64_t off, std::int64_t n,
                                    std::int64_t step) {
          for (std::int64_t i = 0; i < n; ++i, ++index) {
            const auto *v = load_run(red, base + off + i * step, width,
                                     lane.stride, buffer.get());
            if (rows == 0)
              for (std::int64_t w = 0; w < width; ++w)
                leaf[w] = red.leaf(v + w, 1, index);
            else if constexpr (requires {
                                 red.step_lanes(leaf.get(), v, width, index);
                               })
              red.step_lanes(leaf.get(), v, width, index);
            else
              for (std::int64_t w = 0; w < width; ++w)
                red.step(leaf[w], v[w], index);
            if (++rows == leaf_rows) {
              tree.push(leaf.get());
              rows = 0;
            }
          }
        });
        if (rows)
          tree.push(leaf.get());
        tree.result(total.get());
        for (std::int64_t w = 0; w < width; ++w)
          out[o + w] = red.finish(total[w]);
        o += width;
      }
    }
  });
}

/// Reduces the host array `x` over the dimensions in `mask` into a new
/// C-contiguous host array of the reducer's result type.
template <class Reducer>
array_base reduce_host(const Reducer &red, const array_base &x,
                       std::uint64_t mask, bool keepdims) {
  using result = typename Reducer::result;
  const reduction_plan plan =
      plan_reduction(x.shape(), x.strides(), mask, Reducer::ordered);
  array_base out =
      detail::empty(dtype_of<result>, reduced_shape(x.shape(), mask, keepdims),
                    device::host());
  auto *o = static_cast<result *>(out.data());
  if (plan.count == 0) {
    if constexpr (requires { red.identity(); })
      std::fill_n(o, plan.outputs, red.finish(red.identity()));
    else
      red.no_identity();
    return out;
  }
  if (plan.outputs == 0)
    return out;
  const auto *p = static_cast<const typename Reducer::element *>(x.data());
  if (plan.use_lanes())
    reduce_lanes(red, p, plan, o);
  else
    reduce_rows(red, p, plan, o);
  return out;
}

/// The eager fallback: `f(h)` on a host array `h` holding x, whose result
/// goes back to x's device. A CUDA array is copied to the host and the
/// result copied back on the device's current stream.
template <class F> array_base on_host(const array_base &x, F &&f) {
  const device dev = x.device();
  if (dev.is_host())
    return f(x);
  const stream s = stream::current(dev);
  array_base result = f(detail::to_device(x, device::host(), s));
  return detail::to_device(result, dev, s);
}

} // namespace kiln::detail::host
