//===- runtime/array/shaping.cpp - Joining and shaping arrays --------------===//
//
// NumPy's joining and shaping functions on untyped arrays, built from views
// (reshape, slice, strides of 0) and the strided copy (assign, copy): a
// function that makes a new array allocates it once and copies each input
// element into it once, a memcpy where source and destination are
// contiguous blocks of one dtype (concatenate along axis 0), else the
// strided copy kernel, on the host or the arrays' GPU. The view functions
// (flip, split, squeeze, expand_dims, ravel of a contiguous array) only
// restride. Errors carry NumPy's messages (docs/errors.md).
//
//===----------------------------------------------------------------------===//
#include "kiln/shaping.hpp"
#include "kiln/indexing.hpp"
#include "runtime/array/array_internal.hpp"

#include <algorithm>
#include <string>

namespace kiln::detail {
namespace {

std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

/// `axis` of a rank-`ndim` array counted from 0 (NumPy's AxisError is an
/// index_error, as the reductions throw).
std::int64_t normalize(std::int64_t axis, std::int64_t ndim) {
  if (axis < -ndim || axis >= ndim)
    throw index_error("axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                      std::to_string(ndim));
  return axis < 0 ? axis + ndim : axis;
}

/// x viewed with shape `s` and strides `st` (keeps x's read-only flag).
array_base restrided(const array_base &x, shape s, shape st) {
  array_base v = array_base::from_parts(x.storage(), x.dtype(), x.device(), std::move(s), std::move(st), x.offset());
  return x.writeable() ? v : v.mark_read_only();
}

/// x with `r` on `axis` and every other axis whole.
array_base slice_axis(const array_base &x, std::int64_t axis, range r) {
  std::vector<slice_arg> args(at(x.ndim()), slice_arg(all));
  args[at(axis)] = slice_arg(r);
  return slice(x, args);
}

/// x without dimension `axis` (of size 1).
array_base drop_axis(const array_base &x, std::size_t axis) {
  shape s = x.shape(), st = x.strides();
  s.erase(axis);
  st.erase(axis);
  return restrided(x, std::move(s), std::move(st));
}

/// A new C-contiguous array of x's elements (read through any view),
/// viewed with shape `s` of the same size.
array_base copy_as(const array_base &x, const shape &s) { return reshape(copy(x, x.dtype()), s); }

/// An int64 array on `dev` holding `v`.
array_base int64_array(const std::vector<std::int64_t> &v, device dev) {
  array_base a = empty(dtype::int64, shape{static_cast<std::int64_t>(v.size())}, dev);
  copy_from_host(a, v.data(), stream::current(dev), false);
  return a;
}

/// NumPy's checks of concatenate's inputs along axis `a`: one rank, equal
/// dimensions off the axis, one device.
void check_joinable(std::span<const array_base> arrays, std::size_t a) {
  const array_base &first = arrays[0];
  for (std::size_t i = 1; i < arrays.size(); ++i) {
    const array_base &x = arrays[i];
    check_same_device(first.device(), x.device());
    if (x.ndim() != first.ndim())
      throw shape_error("all the input arrays must have same number of dimensions, but the array at index 0 has " +
                        std::to_string(first.ndim()) + " dimension(s) and the array at index " + std::to_string(i) +
                        " has " + std::to_string(x.ndim()) + " dimension(s)");
    for (std::size_t d = 0; d < first.shape().size(); ++d)
      if (d != a && x.shape()[d] != first.shape()[d])
        throw shape_error("all the input array dimensions except for the concatenation axis must match exactly, but "
                          "along dimension " + std::to_string(d) + ", the array at index 0 has size " +
                          std::to_string(first.shape()[d]) + " and the array at index " + std::to_string(i) +
                          " has size " + std::to_string(x.shape()[d]));
  }
}

/// NumPy's result dtype of joining `arrays` (np.result_type).
dtype joined_dtype(std::span<const array_base> arrays) {
  dtype t = arrays[0].dtype();
  for (const array_base &x : arrays)
    t = promote_types(t, x.dtype());
  return t;
}

} // namespace

array_base concatenate(std::span<const array_base> arrays, std::optional<std::int64_t> axis) {
  if (arrays.empty())
    throw value_error("need at least one array to concatenate");
  if (!axis) { // NumPy's axis=None: the arrays flattened
    std::vector<array_base> flat;
    for (const array_base &x : arrays)
      flat.push_back(ravel(x));
    return concatenate(flat, 0);
  }
  if (arrays[0].ndim() == 0)
    throw value_error("zero-dimensional arrays cannot be concatenated");
  const std::int64_t a = normalize(*axis, arrays[0].ndim());
  check_joinable(arrays, at(a));
  shape s = arrays[0].shape();
  s[at(a)] = 0;
  for (const array_base &x : arrays)
    s[at(a)] += x.shape()[at(a)];
  array_base out = empty(joined_dtype(arrays), s, arrays[0].device());
  const stream st = stream::current(out.device());
  std::int64_t start = 0;
  for (const array_base &x : arrays) {
    const std::int64_t len = x.shape()[at(a)];
    assign(slice_axis(out, a, range(start, start + len)), x, st);
    start += len;
  }
  return out;
}

array_base stack(std::span<const array_base> arrays, std::int64_t axis) {
  if (arrays.empty())
    throw value_error("need at least one array to stack");
  for (const array_base &x : arrays)
    if (x.shape() != arrays[0].shape())
      throw shape_error("all input arrays must have the same shape");
  const std::int64_t a = normalize(axis, arrays[0].ndim() + 1);
  std::vector<array_base> expanded;
  for (const array_base &x : arrays)
    expanded.push_back(expand_dims(x, a));
  return concatenate(expanded, a);
}

std::vector<array_base> split(const array_base &x, std::int64_t sections, std::int64_t axis) {
  const std::int64_t a = normalize(axis, x.ndim());
  const std::int64_t len = x.shape()[at(a)];
  if (sections <= 0)
    throw value_error("number sections must be larger than 0.");
  if (len % sections != 0)
    throw value_error("array split does not result in an equal division");
  std::vector<array_base> parts;
  for (std::int64_t i = 0; i < sections; ++i)
    parts.push_back(slice_axis(x, a, range(i * (len / sections), (i + 1) * (len / sections))));
  return parts;
}

std::vector<array_base> split(const array_base &x, std::span<const std::int64_t> indices, std::int64_t axis) {
  const std::int64_t a = normalize(axis, x.ndim());
  std::vector<array_base> parts;
  std::optional<std::int64_t> start = 0;
  for (std::int64_t i : indices) {
    parts.push_back(slice_axis(x, a, range(start, i))); // Python's x[start:i]
    start = i;
  }
  parts.push_back(slice_axis(x, a, range(start, std::nullopt)));
  return parts;
}

std::pair<array_base, array_base> meshgrid(const array_base &x, const array_base &y, indexing ix) {
  check_same_device(x.device(), y.device());
  const array_base xf = reshape(x, shape{-1}), yf = reshape(y, shape{-1});
  const std::int64_t nx = xf.size(), ny = yf.size(), sx = xf.strides()[0], sy = yf.strides()[0];
  // X varies along the columns (xy) or the rows (ij), Y along the other.
  if (ix == indexing::xy)
    return {copy(restrided(xf, {ny, nx}, {0, sx}), x.dtype()), copy(restrided(yf, {ny, nx}, {sy, 0}), y.dtype())};
  return {copy(restrided(xf, {nx, ny}, {sx, 0}), x.dtype()), copy(restrided(yf, {nx, ny}, {0, sy}), y.dtype())};
}

array_base tile(const array_base &x, std::span<const std::int64_t> reps) {
  const std::size_t nd = std::max(reps.size(), x.shape().size());
  const std::size_t pad_reps = nd - reps.size(), pad_x = nd - x.shape().size();
  // Each dimension d of x (1 where x has fewer) behind an axis of reps[d]
  // with stride 0: copied, that is the tiled array.
  shape s, st, out;
  for (std::size_t d = 0; d < nd; ++d) {
    const std::int64_t r = d < pad_reps ? 1 : reps[d - pad_reps];
    const std::int64_t len = d < pad_x ? 1 : x.shape()[d - pad_x], stride = d < pad_x ? 0 : x.strides()[d - pad_x];
    if (r < 0)
      throw value_error("negative dimensions are not allowed");
    s.push_back(r);
    s.push_back(len);
    st.push_back(0);
    st.push_back(stride);
    out.push_back(r * len);
  }
  return copy_as(restrided(x, s, st), out);
}

array_base repeat(const array_base &x, std::int64_t repeats, std::optional<std::int64_t> axis) {
  if (repeats < 0)
    throw value_error("negative dimensions are not allowed");
  // A stride-0 axis of `repeats` after `axis` (after the last one for the
  // flattened x): copied, that is the repeated array.
  const std::size_t behind = axis ? at(normalize(*axis, x.ndim())) + 1 : x.shape().size();
  shape s = x.shape(), st = x.strides();
  s.insert(behind, repeats);
  st.insert(behind, 0);
  shape out{x.size() * repeats};
  if (axis) {
    out = x.shape();
    out[behind - 1] *= repeats;
  }
  return copy_as(restrided(x, std::move(s), std::move(st)), out);
}

array_base repeat(const array_base &x, std::span<const std::int64_t> repeats, std::optional<std::int64_t> axis) {
  if (repeats.size() == 1) // broadcast to every element, as NumPy's
    return repeat(x, repeats[0], axis);
  const array_base src = axis ? x : ravel(x);
  const std::int64_t a = normalize(axis.value_or(0), src.ndim());
  const std::int64_t len = src.shape()[at(a)];
  if (static_cast<std::int64_t>(repeats.size()) != len)
    throw shape_error("operands could not be broadcast together with shape (" + std::to_string(len) + ",) (" +
                      std::to_string(repeats.size()) + ",)");
  // The index of each output element along the axis: a gather (np.take).
  std::vector<std::int64_t> idx;
  for (std::int64_t i = 0; i < len; ++i) {
    if (repeats[at(i)] < 0)
      throw value_error("repeats may not contain negative values.");
    idx.insert(idx.end(), at(repeats[at(i)]), i);
  }
  return take(src, int64_array(idx, src.device()), a);
}

array_base flip(const array_base &x, std::optional<std::int64_t> axis) {
  const range reversed(std::nullopt, std::nullopt, -1);
  if (!axis)
    return slice(x, std::vector<slice_arg>(at(x.ndim()), slice_arg(reversed)));
  return slice_axis(x, normalize(*axis, x.ndim()), reversed);
}

array_base roll(const array_base &x, std::int64_t shift, std::optional<std::int64_t> axis) {
  if (!axis)
    return reshape(roll(ravel(x), shift, 0), x.shape());
  const std::int64_t a = normalize(*axis, x.ndim());
  const std::int64_t len = x.shape()[at(a)];
  array_base out = empty(x.dtype(), x.shape(), x.device());
  if (out.size() == 0)
    return out;
  const std::int64_t k = ((shift % len) + len) % len; // out[k:] = x[:len-k], out[:k] = x[len-k:]
  const stream st = stream::current(x.device());
  assign(slice_axis(out, a, range(k, std::nullopt)), slice_axis(x, a, range(0, len - k)), st);
  assign(slice_axis(out, a, range(0, k)), slice_axis(x, a, range(len - k, std::nullopt)), st);
  return out;
}

array_base pad(const array_base &x, const pad_widths &widths, const void *value) {
  const std::int64_t nd = x.ndim();
  if (widths.size() != 1 && static_cast<std::int64_t>(widths.size()) != nd)
    throw shape_error("operands could not be broadcast together with remapped shapes [original->remapped]: (" +
                      std::to_string(widths.size()) + ",2)  and requested shape (" + std::to_string(nd) + ",2)");
  shape s, begin; // the result's shape; where x begins in it
  std::vector<slice_arg> inside;
  for (std::int64_t d = 0; d < nd; ++d) {
    const auto [before, after] = widths[widths.size() == 1 ? 0 : at(d)];
    if (before < 0 || after < 0)
      throw value_error("index can't contain negative values");
    const std::int64_t len = x.shape()[at(d)];
    s.push_back(before + len + after);
    begin.push_back(before);
    inside.emplace_back(range(before, before + len));
  }
  // Each element is written once: the borders are filled (along axis d,
  // the slabs before and after x where the axes before d are x's range),
  // then x is copied inside.
  array_base out = empty(x.dtype(), s, x.device());
  const stream st = stream::current(out.device());
  std::vector<slice_arg> slab(at(nd), slice_arg(all));
  for (std::size_t d = 0; d < at(nd); ++d) {
    slab[d] = range(0, begin[d]);
    fill(slice(out, slab), value, st);
    slab[d] = range(begin[d] + x.shape()[d], std::nullopt);
    fill(slice(out, slab), value, st);
    slab[d] = inside[d];
  }
  assign(slice(out, inside), x, st);
  return out;
}

namespace {

/// The original index (in [0, n)) that padded position t (relative to the
/// original start) copies, for the modes that repeat the array's values.
std::int64_t source_index(std::int64_t t, std::int64_t n, pad_mode mode) {
  switch (mode) {
  case pad_mode::edge:
    return std::clamp<std::int64_t>(t, 0, n - 1);
  case pad_mode::wrap:
    return ((t % n) + n) % n;
  case pad_mode::symmetric: {
    const std::int64_t m = ((t % (2 * n)) + 2 * n) % (2 * n);
    return m < n ? m : 2 * n - 1 - m;
  }
  case pad_mode::reflect: {
    if (n == 1)
      return 0;
    const std::int64_t period = 2 * n - 2, m = ((t % period) + period) % period;
    return m < n ? m : period - m;
  }
  }
  return 0;
}

} // namespace

array_base pad(const array_base &x, const pad_widths &widths, pad_mode mode) {
  const std::int64_t nd = x.ndim();
  if (widths.size() != 1 && static_cast<std::int64_t>(widths.size()) != nd)
    throw shape_error("operands could not be broadcast together with remapped shapes [original->remapped]: (" +
                      std::to_string(widths.size()) + ",2)  and requested shape (" + std::to_string(nd) + ",2)");
  shape s;
  std::vector<slice_arg> inside;
  for (std::int64_t d = 0; d < nd; ++d) {
    const auto [before, after] = widths[widths.size() == 1 ? 0 : at(d)];
    if (before < 0 || after < 0)
      throw value_error("index can't contain negative values");
    const std::int64_t len = x.shape()[at(d)];
    if (len == 0 && before + after > 0)
      throw value_error("can't extend empty axis " + std::to_string(d) +
                        " using modes other than 'constant' or 'empty'");
    s.push_back(before + len + after);
    inside.emplace_back(range(before, before + len));
  }
  array_base out = empty(x.dtype(), s, x.device());
  const stream st = stream::current(out.device());
  assign(slice(out, inside), x, st);
  // Axis by axis (NumPy's order): the axes before d over their padded
  // extent, those after it over the original one. Each padded position
  // copies a source position along d; runs of positions whose sources step
  // by +1 or -1 are one strided copy each (edge: one broadcast copy).
  std::vector<slice_arg> roi = inside;
  for (std::int64_t d = 0; d < nd; ++d) {
    const auto [before, after] = widths[widths.size() == 1 ? 0 : at(d)];
    const std::int64_t n = x.shape()[at(d)];
    roi[at(d)] = slice_arg(all);
    auto copy_run = [&](std::int64_t first, std::int64_t count, std::int64_t q0, std::int64_t step) {
      std::vector<slice_arg> dst = roi, src = roi;
      dst[at(d)] = range(first, first + count);
      if (step == 0)
        src[at(d)] = range(before + q0, before + q0 + 1);
      else if (step > 0)
        src[at(d)] = range(before + q0, before + q0 + count);
      else {
        const std::int64_t stop = before + q0 - count; // exclusive, may be just before the array
        src[at(d)] = range(before + q0, stop < 0 ? std::nullopt : std::optional<std::int64_t>(stop), -1);
      }
      assign(slice(out, dst), slice(out, src), st);
    };
    auto pad_side = [&](std::int64_t first, std::int64_t count) {
      if (count == 0)
        return;
      if (mode == pad_mode::edge) {
        copy_run(first, count, source_index(first - before, n, mode), 0);
        return;
      }
      std::int64_t run_start = first, q_start = source_index(first - before, n, mode), step = 0;
      for (std::int64_t p = first + 1; p <= first + count; ++p) {
        const bool end = p == first + count;
        const std::int64_t q = end ? 0 : source_index(p - before, n, mode);
        const std::int64_t prev = q_start + step * (p - 1 - run_start);
        const std::int64_t this_step = end ? 0 : q - prev;
        if (!end && p - run_start == 1 && (this_step == 1 || this_step == -1)) {
          step = this_step;
          continue;
        }
        if (!end && step != 0 && this_step == step)
          continue;
        copy_run(run_start, p - run_start, q_start, p - run_start == 1 ? 1 : step);
        run_start = p;
        q_start = q;
        step = 0;
      }
    };
    pad_side(0, before);
    pad_side(before + n, after);
  }
  return out;
}

array_base squeeze(const array_base &x, std::optional<std::int64_t> axis) {
  if (axis) {
    const std::int64_t a = normalize(*axis, x.ndim());
    if (x.shape()[at(a)] != 1)
      throw value_error("cannot select an axis to squeeze out which has size not equal to one");
    return drop_axis(x, at(a));
  }
  array_base v = x;
  for (std::size_t d = x.shape().size(); d-- > 0;)
    if (x.shape()[d] == 1)
      v = drop_axis(v, d);
  return v;
}

array_base expand_dims(const array_base &x, std::int64_t axis) {
  const std::size_t a = at(normalize(axis, x.ndim() + 1));
  shape s = x.shape(), st = x.strides();
  s.insert(a, 1);
  st.insert(a, 0);
  return restrided(x, std::move(s), std::move(st));
}

array_base ravel(const array_base &x) {
  const shape flat{x.size()};
  return x.is_contiguous() ? reshape(x, flat) : copy_as(x, flat);
}

array_base flatten(const array_base &x) { return copy_as(x, shape{x.size()}); }

void copyto(const array_base &dst, const array_base &src) {
  if (!can_cast_same_kind(src.dtype(), dst.dtype()))
    throw value_error("Cannot cast array data from dtype('" + std::string(name(src.dtype())) + "') to dtype('" +
                      std::string(name(dst.dtype())) + "') according to the rule 'same_kind'");
  assign(dst, src, stream::current(dst.device()));
}

} // namespace kiln::detail
