//===- kiln/shaping.hpp - Joining and shaping arrays --------------*- C++ -*-===//
//
// NumPy's joining and shaping functions: concatenate, stack, split,
// meshgrid, tile, repeat, flip, roll, pad (constant, edge, reflect,
// symmetric, wrap), squeeze, expand_dims,
// ravel, flatten and copyto. As in NumPy, flip, split, squeeze, expand_dims
// and ravel of a contiguous array are views; the others make new arrays,
// written by the runtime's strided copy (assign into views of the result),
// so every element is read once and written once, on the host or a GPU.
// The templates here only type the untyped work of runtime/array/shaping.cpp.
// The inputs of one concatenate or stack share one element type (convert
// with astype first). Errors are NumPy's messages (docs/errors.md).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"

#include <initializer_list>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace kiln {

/// meshgrid's output layout: NumPy's default `xy` (X has shape (ny, nx)) or
/// matrix `ij` (X has shape (nx, ny)).
enum class indexing { xy, ij };

/// pad's widths: (before, after) for each axis, or one pair for all.
using pad_widths = std::vector<std::pair<std::int64_t, std::int64_t>>;

/// np.pad's modes that copy the array's own values: the edge value repeated
/// (`edge`), a mirror without (`reflect`) or with (`symmetric`) the edge
/// value, and the other end (`wrap`).
enum class pad_mode : std::uint8_t { edge, reflect, symmetric, wrap };

namespace detail {

/// NumPy's np.can_cast(from, to, 'same_kind') (runtime/array/assign.cpp).
bool can_cast_same_kind(dtype from, dtype to) noexcept;

// The untyped functions (runtime/array/shaping.cpp); each checks its input
// with NumPy's messages.
array_base concatenate(std::span<const array_base> arrays, std::optional<std::int64_t> axis);
array_base stack(std::span<const array_base> arrays, std::int64_t axis);
std::vector<array_base> split(const array_base &x, std::int64_t sections, std::int64_t axis);
std::vector<array_base> split(const array_base &x, std::span<const std::int64_t> indices, std::int64_t axis);
std::pair<array_base, array_base> meshgrid(const array_base &x, const array_base &y, indexing ix);
array_base tile(const array_base &x, std::span<const std::int64_t> reps);
array_base repeat(const array_base &x, std::int64_t repeats, std::optional<std::int64_t> axis);
array_base repeat(const array_base &x, std::span<const std::int64_t> repeats, std::optional<std::int64_t> axis);
array_base flip(const array_base &x, std::optional<std::int64_t> axis);
array_base roll(const array_base &x, std::int64_t shift, std::optional<std::int64_t> axis);
/// `value` points at one element of x's dtype.
array_base pad(const array_base &x, const pad_widths &widths, const void *value);
array_base pad(const array_base &x, const pad_widths &widths, pad_mode mode);
array_base squeeze(const array_base &x, std::optional<std::int64_t> axis);
array_base expand_dims(const array_base &x, std::int64_t axis);
array_base ravel(const array_base &x);
array_base flatten(const array_base &x);
void copyto(const array_base &dst, const array_base &src);

/// The typed arrays of a list, untyped.
template <element T> std::vector<array_base> untyped(std::span<const array<T>> arrays) {
  return std::vector<array_base>(arrays.begin(), arrays.end());
}
/// The untyped arrays of a list, typed.
template <element T> std::vector<array<T>> typed(std::vector<array_base> arrays) {
  return std::vector<array<T>>(std::make_move_iterator(arrays.begin()), std::make_move_iterator(arrays.end()));
}

} // namespace detail

/// np.concatenate: the arrays joined along `axis` (every other dimension
/// equal); std::nullopt joins the flattened arrays (NumPy's axis=None).
template <element T>
array<T> concatenate(std::span<const array<T>> arrays, std::optional<std::int64_t> axis = 0) {
  return array<T>(detail::concatenate(detail::untyped(arrays), axis));
}
template <element T>
array<T> concatenate(const std::vector<array<T>> &arrays, std::optional<std::int64_t> axis = 0) {
  return concatenate(std::span<const array<T>>(arrays), axis);
}
template <element T>
array<T> concatenate(std::initializer_list<array<T>> arrays, std::optional<std::int64_t> axis = 0) {
  return concatenate(std::span<const array<T>>(arrays.begin(), arrays.size()), axis);
}

/// np.stack: the arrays (one shape) joined along a new axis.
template <element T> array<T> stack(std::span<const array<T>> arrays, std::int64_t axis = 0) {
  return array<T>(detail::stack(detail::untyped(arrays), axis));
}
template <element T> array<T> stack(const std::vector<array<T>> &arrays, std::int64_t axis = 0) {
  return stack(std::span<const array<T>>(arrays), axis);
}
template <element T> array<T> stack(std::initializer_list<array<T>> arrays, std::int64_t axis = 0) {
  return stack(std::span<const array<T>>(arrays.begin(), arrays.size()), axis);
}

/// np.split(x, n, axis): n equal views along `axis`.
template <element T> std::vector<array<T>> split(const array<T> &x, std::int64_t sections, std::int64_t axis = 0) {
  return detail::typed<T>(detail::split(x, sections, axis));
}
/// np.split(x, [i, j, ...], axis): the views x[:i], x[i:j], ..., x[k:].
template <element T>
std::vector<array<T>> split(const array<T> &x, const std::vector<std::int64_t> &indices, std::int64_t axis = 0) {
  return detail::typed<T>(detail::split(x, std::span<const std::int64_t>(indices), axis));
}

/// np.meshgrid(x, y, indexing=...): coordinate matrices (new arrays, as
/// NumPy's default copy=True) of x and y flattened:
/// `auto [X, Y] = kiln::meshgrid(x, y);`.
template <element T, element U>
std::pair<array<T>, array<U>> meshgrid(const array<T> &x, const array<U> &y, indexing ix = indexing::xy) {
  auto [X, Y] = detail::meshgrid(x, y, ix);
  return {array<T>(std::move(X)), array<U>(std::move(Y))};
}

/// np.tile(x, reps): x repeated reps[d] times along each dimension.
template <element T> array<T> tile(const array<T> &x, const std::vector<std::int64_t> &reps) {
  return array<T>(detail::tile(x, reps));
}
template <element T> array<T> tile(const array<T> &x, std::int64_t reps) {
  return tile(x, std::vector<std::int64_t>{reps});
}

/// np.repeat(x, n, axis): each element n times along `axis`; without an
/// axis, over the flattened x.
template <element T>
array<T> repeat(const array<T> &x, std::int64_t repeats, std::optional<std::int64_t> axis = std::nullopt) {
  return array<T>(detail::repeat(x, repeats, axis));
}
/// np.repeat(x, [n0, n1, ...], axis): element i repeats[i] times.
template <element T>
array<T> repeat(const array<T> &x, const std::vector<std::int64_t> &repeats,
                std::optional<std::int64_t> axis = std::nullopt) {
  return array<T>(detail::repeat(x, std::span<const std::int64_t>(repeats), axis));
}

/// np.flip(x, axis): a view with `axis` reversed; without an axis, every
/// axis reversed.
template <element T> array<T> flip(const array<T> &x, std::optional<std::int64_t> axis = std::nullopt) {
  return array<T>(detail::flip(x, axis));
}

/// np.roll(x, shift, axis): elements shifted along `axis`, those past the
/// end coming back at the start; without an axis, over the flattened x.
template <element T>
array<T> roll(const array<T> &x, std::int64_t shift, std::optional<std::int64_t> axis = std::nullopt) {
  return array<T>(detail::roll(x, shift, axis));
}

/// np.pad(x, pad_width, constant_values=value): widths (before, after) per
/// axis, or one pair for every axis (`pad(x, {{1, 2}})`), or one width for
/// both sides of every axis (`pad(x, 1)`).
template <element T>
array<T> pad(const array<T> &x, const pad_widths &widths, std::type_identity_t<T> value = T(0)) {
  return array<T>(detail::pad(x, widths, &value));
}
template <element T> array<T> pad(const array<T> &x, std::int64_t width, std::type_identity_t<T> value = T(0)) {
  return pad(x, pad_widths{{width, width}}, value);
}
/// np.pad(x, pad_width, mode) for the modes 'edge', 'reflect', 'symmetric'
/// and 'wrap': each axis in turn, the axes before it already padded (as
/// NumPy's); widths past the axis's length repeat the pattern. An empty
/// axis with a width is a value_error (NumPy's message).
template <element T> array<T> pad(const array<T> &x, const pad_widths &widths, pad_mode mode) {
  return array<T>(detail::pad(x, widths, mode));
}
template <element T> array<T> pad(const array<T> &x, std::int64_t width, pad_mode mode) {
  return pad(x, pad_widths{{width, width}}, mode);
}

/// np.squeeze(x, axis): a view without `axis`, which must have size 1;
/// without an axis, without every dimension of size 1.
template <element T> array<T> squeeze(const array<T> &x, std::optional<std::int64_t> axis = std::nullopt) {
  return array<T>(detail::squeeze(x, axis));
}

/// np.expand_dims(x, axis): a view with a new dimension of size 1 at `axis`
/// (of the result: -1 appends).
template <element T> array<T> expand_dims(const array<T> &x, std::int64_t axis) {
  return array<T>(detail::expand_dims(x, axis));
}

/// np.ravel(x): 1-d, in C order; a view when x is C-contiguous, else a copy.
template <element T> array<T> ravel(const array<T> &x) { return array<T>(detail::ravel(x)); }
/// NumPy's x.flatten() (a free function here): a 1-d copy, always.
template <element T> array<T> flatten(const array<T> &x) { return array<T>(detail::flatten(x)); }

/// np.copyto(dst, src): src broadcast into dst and converted where NumPy's
/// default casting='same_kind' allows (value_error otherwise).
template <element T, element U> void copyto(const array<T> &dst, const array<U> &src) { detail::copyto(dst, src); }

} // namespace kiln
