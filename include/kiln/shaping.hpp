//===- kiln/shaping.hpp - Joining and shaping arrays --------------*- C++ -*-===//
//
// NumPy's joining and shaping functions: concatenate, stack, split,
// meshgrid, tile, repeat, flip, roll, pad (constant), squeeze, expand_dims,
// ravel, flatten and copyto. As in NumPy, flip, split, squeeze, expand_dims
// and ravel of a contiguous array are views; the others make new arrays.
// Each new array is written by the runtime's strided copy (assign into views
// of the result), so every element is read once and written once, on the
// host or a GPU. Inputs of one call share one element type (convert with
// astype first). Errors are NumPy's messages (docs/errors.md).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/compound.hpp"
#include "kiln/creation.hpp"

#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

namespace kiln {

/// meshgrid's output layout: NumPy's default `xy` (X has shape (ny, nx)) or
/// matrix `ij` (X has shape (nx, ny)).
enum class indexing { xy, ij };

namespace detail {

/// A normalized axis of an array of `ndim` dimensions (NumPy's AxisError,
/// a kiln::index_error).
inline std::int64_t shaping_axis(std::int64_t axis, std::int64_t ndim) {
  if (axis < -ndim || axis >= ndim)
    throw index_error("axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                      std::to_string(ndim));
  return axis < 0 ? axis + ndim : axis;
}

/// x viewed with `shape` and `strides` (keeps x's read-only flag).
inline array_base restrided(const array_base &x, shape s, shape st) {
  array_base v = array_base::from_parts(x.storage(), x.dtype(), x.device(), std::move(s), std::move(st), x.offset());
  if (!x.writeable())
    v.mark_read_only();
  return v;
}

/// x.slice with `r` on `axis` and every other axis whole.
inline array_base slice_axis(const array_base &x, std::int64_t axis, range r) {
  std::vector<slice_arg> args(static_cast<std::size_t>(x.ndim()), slice_arg(all));
  args[static_cast<std::size_t>(axis)] = slice_arg(r);
  return slice(x, args);
}

array_base concatenate(std::span<const array_base> arrays, std::int64_t axis);

/// NumPy's np.can_cast(from, to, 'same_kind') (runtime/array/assign.cpp).
bool can_cast_same_kind(dtype from, dtype to) noexcept;

} // namespace detail

/// np.concatenate: the arrays joined along `axis` (every other dimension
/// equal).
template <element T> array<T> concatenate(const std::vector<array<T>> &arrays, std::int64_t axis = 0) {
  std::vector<array_base> base(arrays.begin(), arrays.end());
  return array<T>(detail::concatenate(base, axis));
}
template <element T> array<T> concatenate(std::initializer_list<array<T>> arrays, std::int64_t axis = 0) {
  return concatenate(std::vector<array<T>>(arrays), axis);
}

/// np.expand_dims: a view with a new axis of size 1 at `axis`.
template <element T> array<T> expand_dims(const array<T> &x, std::int64_t axis) {
  const std::int64_t a = detail::shaping_axis(axis, x.ndim() + 1);
  shape s, st;
  for (std::int64_t d = 0; d <= x.ndim(); ++d) {
    if (d == a) {
      s.push_back(1);
      st.push_back(0);
    }
    if (d < x.ndim()) {
      s.push_back(x.shape()[static_cast<std::size_t>(d)]);
      st.push_back(x.strides()[static_cast<std::size_t>(d)]);
    }
  }
  return array<T>(detail::restrided(x, std::move(s), std::move(st)));
}

/// np.stack: the arrays (one shape) joined along a new axis.
template <element T> array<T> stack(const std::vector<array<T>> &arrays, std::int64_t axis = 0) {
  if (arrays.empty())
    throw value_error("need at least one array to stack");
  for (const array<T> &a : arrays)
    if (a.shape() != arrays[0].shape())
      throw value_error("all input arrays must have the same shape");
  const std::int64_t a = detail::shaping_axis(axis, arrays[0].ndim() + 1);
  std::vector<array<T>> expanded;
  for (const array<T> &x : arrays)
    expanded.push_back(expand_dims(x, a));
  return concatenate(expanded, a);
}
template <element T> array<T> stack(std::initializer_list<array<T>> arrays, std::int64_t axis = 0) {
  return stack(std::vector<array<T>>(arrays), axis);
}

/// np.split(x, n, axis): n equal views along `axis`.
template <element T> std::vector<array<T>> split(const array<T> &x, std::int64_t n, std::int64_t axis = 0) {
  const std::int64_t a = detail::shaping_axis(axis, x.ndim());
  const std::int64_t len = x.shape()[static_cast<std::size_t>(a)];
  if (n <= 0)
    throw value_error("number sections must be larger than 0.");
  if (len % n != 0)
    throw value_error("array split does not result in an equal division");
  std::vector<array<T>> out;
  for (std::int64_t i = 0; i < n; ++i)
    out.emplace_back(detail::slice_axis(x, a, range(i * len / n, (i + 1) * len / n)));
  return out;
}
/// np.split(x, [i, j, ...], axis): views x[:i], x[i:j], ..., x[k:].
template <element T>
std::vector<array<T>> split(const array<T> &x, const std::vector<std::int64_t> &indices, std::int64_t axis = 0) {
  const std::int64_t a = detail::shaping_axis(axis, x.ndim());
  std::vector<array<T>> out;
  std::optional<std::int64_t> start = 0;
  for (std::int64_t i : indices) {
    out.emplace_back(detail::slice_axis(x, a, range(start, i)));
    start = i;
  }
  out.emplace_back(detail::slice_axis(x, a, range(start, std::nullopt)));
  return out;
}

/// np.meshgrid(x, y, indexing=...) of two 1-d arrays (copies, as NumPy's
/// default copy=True): `auto [X, Y] = kiln::meshgrid(x, y);`.
template <element T, element U>
std::pair<array<T>, array<U>> meshgrid(const array<T> &x, const array<U> &y, indexing ix = indexing::xy) {
  const auto xf = x.reshape({-1}), yf = y.reshape({-1});
  const std::int64_t nx = xf.size(), ny = yf.size();
  if (ix == indexing::xy)
    return {broadcast_to(xf.reshape({1, nx}), shape{ny, nx}).copy(), broadcast_to(yf.reshape({ny, 1}), shape{ny, nx}).copy()};
  return {broadcast_to(xf.reshape({nx, 1}), shape{nx, ny}).copy(), broadcast_to(yf.reshape({1, ny}), shape{nx, ny}).copy()};
}

/// np.tile(x, reps): x repeated reps[d] times along each dimension.
template <element T> array<T> tile(const array<T> &x, const std::vector<std::int64_t> &reps) {
  const std::size_t d = std::max(reps.size(), static_cast<std::size_t>(x.ndim()));
  std::vector<std::int64_t> r(d - reps.size(), 1), s(d - static_cast<std::size_t>(x.ndim()), 1);
  r.insert(r.end(), reps.begin(), reps.end());
  s.insert(s.end(), x.shape().begin(), x.shape().end());
  shape interleaved, big, out;
  for (std::size_t i = 0; i < d; ++i) {
    if (r[i] < 0)
      throw value_error("negative dimensions are not allowed");
    interleaved.push_back(1);
    interleaved.push_back(s[i]);
    big.push_back(r[i]);
    big.push_back(s[i]);
    out.push_back(r[i] * s[i]);
  }
  return broadcast_to(x.reshape(interleaved), big).copy().reshape(out);
}
template <element T> array<T> tile(const array<T> &x, std::int64_t reps) { return tile(x, std::vector<std::int64_t>{reps}); }

/// np.repeat(x, n, axis): each element n times along `axis`; without an
/// axis, over the flattened x.
template <element T> array<T> repeat(const array<T> &x, std::int64_t n, std::optional<std::int64_t> axis = std::nullopt) {
  if (n < 0)
    throw value_error("repeats may not contain negative values.");
  const array<T> src = axis ? x : x.reshape({-1});
  const std::int64_t a = detail::shaping_axis(axis.value_or(0), src.ndim());
  shape with_one, big, out;
  for (std::int64_t i = 0; i < src.ndim(); ++i) {
    const std::int64_t len = src.shape()[static_cast<std::size_t>(i)];
    with_one.push_back(len);
    big.push_back(len);
    out.push_back(i == a ? len * n : len);
    if (i == a) {
      with_one.push_back(1);
      big.push_back(n);
    }
  }
  return broadcast_to(src.reshape(with_one), big).copy().reshape(out);
}

/// np.flip(x, axis): a view with `axis` reversed.
template <element T> array<T> flip(const array<T> &x, std::int64_t axis) {
  return array<T>(detail::slice_axis(x, detail::shaping_axis(axis, x.ndim()), range(std::nullopt, std::nullopt, -1)));
}
/// np.flip(x): every axis reversed (a view).
template <element T> array<T> flip(const array<T> &x) {
  array<T> v = x;
  for (std::int64_t a = 0; a < x.ndim(); ++a)
    v = flip(v, a);
  return v;
}

/// np.roll(x, shift, axis): elements shifted along `axis`, those past the
/// end coming back at the start; without an axis, over the flattened x.
template <element T> array<T> roll(const array<T> &x, std::int64_t shift, std::optional<std::int64_t> axis = std::nullopt) {
  if (!axis)
    return roll(x.reshape({-1}), shift, 0).reshape(x.shape());
  const std::int64_t a = detail::shaping_axis(*axis, x.ndim());
  const std::int64_t len = x.shape()[static_cast<std::size_t>(a)];
  array<T> out = empty<T>(x.shape(), x.device());
  if (len == 0 || x.size() == 0)
    return out;
  const std::int64_t k = ((shift % len) + len) % len;
  array<T>(detail::slice_axis(out, a, range(k, std::nullopt))).assign(array<T>(detail::slice_axis(x, a, range(0, len - k))));
  array<T>(detail::slice_axis(out, a, range(0, k))).assign(array<T>(detail::slice_axis(x, a, range(len - k, std::nullopt))));
  return out;
}

/// np.pad(x, pad_width, constant_values=value): (before, after) per axis.
template <element T>
array<T> pad(const array<T> &x, const std::vector<std::pair<std::int64_t, std::int64_t>> &widths, T value = T(0)) {
  if (widths.size() != 1 && static_cast<std::int64_t>(widths.size()) != x.ndim())
    throw value_error("pad: one (before, after) pair, or one per dimension (" + std::to_string(x.ndim()) + ")");
  shape s;
  std::vector<slice_arg> inner;
  for (std::int64_t d = 0; d < x.ndim(); ++d) {
    auto [before, after] = widths[widths.size() == 1 ? 0 : static_cast<std::size_t>(d)];
    if (before < 0 || after < 0)
      throw value_error("index can't contain negative values");
    const std::int64_t len = x.shape()[static_cast<std::size_t>(d)];
    s.push_back(before + len + after);
    inner.emplace_back(range(before, before + len));
  }
  array<T> out = full<T>(s, value, x.device());
  array<T>(detail::slice(out, inner)).assign(x);
  return out;
}
template <element T> array<T> pad(const array<T> &x, std::int64_t width, T value = T(0)) {
  return pad(x, {{width, width}}, value);
}

/// np.squeeze(x): a view without its dimensions of size 1.
template <element T> array<T> squeeze(const array<T> &x) {
  shape s, st;
  for (std::size_t d = 0; d < x.shape().size(); ++d)
    if (x.shape()[d] != 1) {
      s.push_back(x.shape()[d]);
      st.push_back(x.strides()[d]);
    }
  return array<T>(detail::restrided(x, std::move(s), std::move(st)));
}
/// np.squeeze(x, axis): a view without `axis`, which must have size 1.
template <element T> array<T> squeeze(const array<T> &x, std::int64_t axis) {
  const std::size_t a = static_cast<std::size_t>(detail::shaping_axis(axis, x.ndim()));
  if (x.shape()[a] != 1)
    throw value_error("cannot select an axis to squeeze out which has size not equal to one");
  shape s, st;
  for (std::size_t d = 0; d < x.shape().size(); ++d)
    if (d != a) {
      s.push_back(x.shape()[d]);
      st.push_back(x.strides()[d]);
    }
  return array<T>(detail::restrided(x, std::move(s), std::move(st)));
}

/// np.ravel: 1-d, a view when x is contiguous (else a copy).
template <element T> array<T> ravel(const array<T> &x) { return x.reshape({-1}); }
/// ndarray.flatten: a 1-d copy, always.
template <element T> array<T> flatten(const array<T> &x) { return x.copy().reshape({-1}); }

/// np.copyto(dst, src): src broadcast into dst and converted where NumPy's
/// default 'same_kind' casting allows (value_error otherwise).
template <element T, element U> void copyto(const array<T> &dst, const array<U> &src) {
  if (!detail::can_cast_same_kind(dtype_of<U>, dtype_of<T>))
    throw value_error("Cannot cast array data from dtype('" + std::string(name(dtype_of<U>)) + "') to dtype('" +
                      std::string(name(dtype_of<T>)) + "') according to the rule 'same_kind'");
  dst.assign(src);
}

} // namespace kiln
