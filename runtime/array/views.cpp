//===- runtime/array/views.cpp - reshape, transpose, slice, broadcast_to --===//
//
// The view operations: each returns an array sharing x's buffer with a new
// shape, strides and offset. reshape copies only when the strides cannot
// express the new shape (NumPy's rule); errors carry NumPy's messages.
//
//===----------------------------------------------------------------------===//
#include "runtime/array/array_internal.hpp"

#include <string>
#include <vector>

namespace kiln::detail {
namespace {

std::string shape_text_with_unknown(const shape &s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i)
      out += ",";
    out += s[i] == -1 ? std::string("newaxis") : std::to_string(s[i]);
  }
  if (s.size() == 1)
    out += ",";
  return out + ")";
}

/// NumPy's _attempt_nocopy_reshape: the strides of `new_shape` over x's
/// memory, or false when x's layout cannot express it without a copy.
bool nocopy_strides(const array_base &x, const shape &new_shape,
                    shape &new_strides) {
  shape od, os; // x without its length-1 axes
  for (std::size_t i = 0; i < x.shape().size(); ++i)
    if (x.shape()[i] != 1) {
      od.push_back(x.shape()[i]);
      os.push_back(x.strides()[i]);
    }
  const std::size_t oldnd = od.size(), newnd = new_shape.size();
  new_strides = shape::filled(newnd, 0);
  std::size_t oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < newnd && oi < oldnd) {
    std::int64_t np = new_shape[ni], op = od[oi];
    while (np != op) {
      if (np < op)
        np *= new_shape[nj++];
      else
        op *= od[oj++];
    }
    for (std::size_t ok = oi; ok + 1 < oj; ++ok)
      if (os[ok] != od[ok + 1] * os[ok + 1])
        return false;
    new_strides[nj - 1] = os[oj - 1];
    for (std::size_t nk = nj - 1; nk > ni; --nk)
      new_strides[nk - 1] = new_strides[nk] * new_shape[nk];
    ni = nj++;
    oi = oj++;
  }
  std::int64_t last = ni >= 1 ? new_strides[ni - 1] : 1;
  for (std::size_t nk = ni; nk < newnd; ++nk)
    new_strides[nk] = last;
  return true;
}

std::int64_t normalize_axis(std::int64_t axis, std::int64_t ndim) {
  if (axis < -ndim || axis >= ndim)
    throw index_error("axis " + std::to_string(axis) +
                      " is out of bounds for array of dimension " +
                      std::to_string(ndim));
  return axis < 0 ? axis + ndim : axis;
}

} // namespace

array_base reshape(const array_base &x, const shape &s) {
  shape target = s;
  std::int64_t known = 1;
  int unknown = -1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (unknown >= 0)
        throw value_error("can only specify one unknown dimension");
      unknown = static_cast<int>(i);
    } else if (target[i] < 0) {
      throw value_error("negative dimensions not allowed");
    } else {
      known *= target[i];
    }
  }
  const std::int64_t n = x.size();
  if (unknown >= 0) {
    if (known == 0 || n % known != 0)
      throw shape_error("cannot reshape array of size " + std::to_string(n) +
                        " into shape " + shape_text_with_unknown(s));
    target[static_cast<std::size_t>(unknown)] = n / known;
  } else if (known != n) {
    throw shape_error("cannot reshape array of size " + std::to_string(n) +
                      " into shape " + to_string(s));
  }

  shape strides;
  if (n == 0) {
    strides = contiguous_strides(target);
  } else if (!nocopy_strides(x, target, strides)) {
    array_base c = copy(x, x.dtype());
    return array_base::from_parts(c.storage(), c.dtype(), c.device(), target,
                                  contiguous_strides(target), c.offset());
  }
  array_base v = array_base::from_parts(x.storage(), x.dtype(), x.device(),
                                        std::move(target), std::move(strides),
                                        x.offset());
  return x.writeable() ? v : v.mark_read_only();
}

array_base transpose(const array_base &x, std::span<const std::int64_t> axes) {
  const std::int64_t nd = x.ndim();
  std::vector<std::int64_t> perm(static_cast<std::size_t>(nd));
  if (axes.empty()) {
    for (std::int64_t i = 0; i < nd; ++i)
      perm[static_cast<std::size_t>(i)] = nd - 1 - i;
  } else {
    if (static_cast<std::int64_t>(axes.size()) != nd)
      throw value_error("axes don't match array");
    std::vector<bool> seen(static_cast<std::size_t>(nd), false);
    for (std::size_t i = 0; i < axes.size(); ++i) {
      std::int64_t a = normalize_axis(axes[i], nd);
      if (seen[static_cast<std::size_t>(a)])
        throw value_error("repeated axis in transpose");
      seen[static_cast<std::size_t>(a)] = true;
      perm[i] = a;
    }
  }
  shape sh, st;
  for (std::int64_t a : perm) {
    sh.push_back(x.shape()[static_cast<std::size_t>(a)]);
    st.push_back(x.strides()[static_cast<std::size_t>(a)]);
  }
  array_base v = array_base::from_parts(x.storage(), x.dtype(), x.device(),
                                        std::move(sh), std::move(st), x.offset());
  return x.writeable() ? v : v.mark_read_only();
}

array_base slice(const array_base &x, std::span<const slice_arg> args) {
  const std::int64_t nd = x.ndim();
  if (static_cast<std::int64_t>(args.size()) > nd)
    throw index_error("too many indices for array: array is " +
                      std::to_string(nd) + "-dimensional, but " +
                      std::to_string(args.size()) + " were indexed");
  shape sh, st;
  std::int64_t offset = x.offset();
  bool empty_result = false;
  for (std::size_t i = 0; i < static_cast<std::size_t>(nd); ++i) {
    const std::int64_t len = x.shape()[i], stride = x.strides()[i];
    if (i >= args.size() || std::holds_alternative<all_t>(args[i].get())) {
      sh.push_back(len);
      st.push_back(stride);
      continue;
    }
    if (const auto *idx = std::get_if<std::int64_t>(&args[i].get())) {
      std::int64_t k = *idx;
      if (k < -len || k >= len)
        throw index_error("index " + std::to_string(k) +
                          " is out of bounds for axis " + std::to_string(i) +
                          " with size " + std::to_string(len));
      if (k < 0)
        k += len;
      offset += k * stride;
      continue;
    }
    // A Python slice, adjusted as PySlice_AdjustIndices does.
    const range &r = std::get<range>(args[i].get());
    const std::int64_t step = r.step;
    if (step == 0)
      throw value_error("slice step cannot be zero");
    std::int64_t start, stop;
    if (step > 0) {
      start = r.start.value_or(0);
      stop = r.stop.value_or(len);
      if (start < 0)
        start = std::max<std::int64_t>(start + len, 0);
      if (stop < 0)
        stop = std::max<std::int64_t>(stop + len, 0);
      start = std::min(start, len);
      stop = std::min(stop, len);
    } else {
      start = r.start.value_or(len - 1);
      stop = r.stop ? *r.stop : -1 - len; // open end: before element 0
      if (start < 0)
        start = std::max<std::int64_t>(start + len, -1);
      else
        start = std::min(start, len - 1);
      if (stop < 0)
        stop = std::max<std::int64_t>(stop + len, -1);
      else
        stop = std::min(stop, len - 1);
    }
    std::int64_t count;
    if (step > 0)
      count = start < stop ? (stop - start - 1) / step + 1 : 0;
    else
      count = stop < start ? (start - stop - 1) / (-step) + 1 : 0;
    if (count > 0)
      offset += start * stride;
    else
      empty_result = true;
    sh.push_back(count);
    st.push_back(stride * step);
  }
  if (empty_result)
    offset =
        x.offset(); // no element is addressed; keep the offset in the buffer
  array_base v = array_base::from_parts(x.storage(), x.dtype(), x.device(),
                                        std::move(sh), std::move(st), offset);
  return x.writeable() ? v : v.mark_read_only();
}

array_base broadcast_to(const array_base &x, const shape &s) {
  for (std::int64_t d : s)
    if (d < 0)
      throw value_error("all elements of broadcast shape must be non-negative");
  if (s.size() < x.shape().size())
    throw value_error(
        "input operand has more dimensions than allowed by the axis remapping");
  const std::size_t lead = s.size() - x.shape().size();
  shape st = shape::filled(s.size(), 0);
  for (std::size_t i = 0; i < x.shape().size(); ++i) {
    std::int64_t have = x.shape()[i], want = s[lead + i];
    if (have == want)
      st[lead + i] = x.strides()[i];
    else if (have == 1)
      st[lead + i] = 0;
    else
      throw shape_error(
          "operands could not be broadcast together with remapped shapes "
          "[original->remapped]: " +
          to_string(x.shape()) + " and requested shape " + to_string(s));
  }
  // NumPy's broadcast_to is a read-only view: its elements alias each other.
  return array_base::from_parts(x.storage(), x.dtype(), x.device(), s,
                                std::move(st), x.offset())
      .mark_read_only();
}

} // namespace kiln::detail
