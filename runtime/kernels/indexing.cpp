//===- runtime/kernels/indexing.cpp - Boolean masks and integer indices ---===//
//
// NumPy's advanced indexing: x[mask] (a gather of the selected rows, in C
// order), x[mask] = v, take (x[idx] along an axis), x[idx] = v and put
// (scatters whose duplicate indices keep the last occurrence, as NumPy
// does), and nonzero. Every function checks its operands with NumPy's
// messages, then moves rows of bytes on the host (loops over C-contiguous
// operands) or on a GPU (cuda/indexing_kernels.cu): a mask is compacted by
// per-tile counts, one block's scan of them and a write pass; the result's
// size is read back (one small copy, as CuPy does). Out-of-range indices are
// found before anything is written, and raise index_error.
//
//===----------------------------------------------------------------------===//
#include "kiln/indexing.hpp"
#include "runtime/array/array_internal.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/kernels/gpu_kernels.hpp"
#include "runtime/kernels/params.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

namespace kiln::detail {
namespace {

using kernels::mask_params;
using kernels::take_params;

array_base contiguous(const array_base &a) { return a.is_contiguous() ? a : copy(a, a.dtype()); }

/// The largest unit (16, 8, 4, 2 or 1 bytes) that divides a row and keeps
/// every pointer aligned.
int unit_for(std::int64_t row_bytes, std::initializer_list<const void *> ptrs) {
  for (int u : {16, 8, 4, 2}) {
    bool ok = row_bytes % u == 0;
    for (const void *p : ptrs)
      ok = ok && reinterpret_cast<std::uintptr_t>(p) % u == 0;
    if (ok)
      return u;
  }
  return 1;
}

std::int64_t product(const shape &s, std::size_t from, std::size_t to) {
  std::int64_t n = 1;
  for (std::size_t d = from; d < to; ++d)
    n *= s[d];
  return n;
}

/// A value of the scalar `v` read from the device (synchronizes).
template <class T> T read_back(const array_base &a, std::int64_t i) {
  T v{};
  item(array_base::from_parts(a.storage(), a.dtype(), a.device(), shape{1}, shape{1}, a.offset() + i), &v);
  return v;
}

void check_writeable(const array_base &x) {
  if (!x.writeable())
    throw value_error("assignment destination is read-only");
}

/// NumPy's checks of a boolean index of x.
void check_mask(const array_base &x, const array_base &mask) {
  if (mask.dtype() != dtype::bool_)
    throw value_error("a mask must be an array of bool, not " + std::string(name(mask.dtype())));
  check_same_device(x.device(), mask.device());
  if (mask.ndim() > x.ndim())
    throw index_error("too many indices for array: array is " + std::to_string(x.ndim()) +
                      "-dimensional, but " + std::to_string(mask.ndim()) + " were indexed");
  for (std::int64_t d = 0; d < mask.ndim(); ++d)
    if (mask.shape()[d] != x.shape()[d])
      throw index_error("boolean index did not match indexed array along axis " + std::to_string(d) +
                        "; size of axis is " + std::to_string(x.shape()[d]) +
                        " but size of corresponding boolean axis is " + std::to_string(mask.shape()[d]));
}

/// Selected rows of a mask run (host or GPU), writing `src` rows to the
/// selected positions (gather) or the selected rows from `src` (scatter).
/// With dst null (gather), returns the count only; the GPU reads it back.
struct mask_run {
  const array_base &mask; // C-contiguous bool
  std::int64_t units;
  int unit_bytes;
  array_base counts; // GPU: the tiles' offsets, then the total

  std::int64_t count(const stream &s) {
    const std::int64_t n = mask.size();
    if (mask.device().is_host()) {
      const auto *m = static_cast<const unsigned char *>(mask.data());
      std::int64_t c = 0;
      for (std::int64_t i = 0; i < n; ++i)
        c += m[i] != 0;
      return c;
    }
    const std::int64_t tiles = (n + kernels::mask_tile - 1) / kernels::mask_tile;
    counts = allocate(dtype::int64, shape{tiles + 1}, mask.device(), s);
    mask_params p = params(nullptr, nullptr, false, false);
    p.tiles = tiles;
    const int ordinal = mask.device().index();
    cuda::make_current(ordinal);
    if (tiles > 0)
      kernels::gpu::launch_indexing(ordinal, "kiln_mask_count", 0, &p, s.native_handle(), static_cast<unsigned>(tiles));
    kernels::gpu::launch_indexing(ordinal, "kiln_mask_scan", 0, &p, s.native_handle(), 1);
    return read_back<std::int64_t>(counts, tiles);
  }

  void write(const void *src, void *dst, bool scatter, bool broadcast, const stream &s) {
    const std::int64_t n = mask.size(), row = units * unit_bytes;
    if (mask.device().is_host()) {
      const auto *m = static_cast<const unsigned char *>(mask.data());
      const char *from = static_cast<const char *>(src);
      char *to = static_cast<char *>(dst);
      for (std::int64_t i = 0, pos = 0; i < n; ++i) {
        if (!m[i])
          continue;
        if (scatter)
          std::memcpy(to + i * row, from + (broadcast ? 0 : pos * row), static_cast<std::size_t>(row));
        else
          std::memcpy(to + pos * row, from + i * row, static_cast<std::size_t>(row));
        ++pos;
      }
      return;
    }
    mask_params p = params(src, dst, scatter, broadcast);
    p.tiles = counts.size() - 1;
    if (p.tiles > 0)
      kernels::gpu::launch_indexing(mask.device().index(), "kiln_mask_write", 0, &p, s.native_handle(),
                                    static_cast<unsigned>(p.tiles));
  }

  mask_params params(const void *src, void *dst, bool scatter, bool broadcast) {
    mask_params p{};
    p.mask = static_cast<const unsigned char *>(mask.data());
    p.n = mask.size();
    p.tile_counts = counts.valid() && counts.size() ? static_cast<long long *>(counts.data()) : nullptr;
    p.src = static_cast<const char *>(src);
    p.dst = static_cast<char *>(dst);
    p.units = units;
    p.unit_bytes = unit_bytes;
    p.scatter = scatter;
    p.src_broadcast = broadcast;
    return p;
  }
};

/// idx as C-contiguous int64 on its device.
array_base int64_indices(const array_base &idx) {
  if (idx.dtype() == dtype::bool_ || is_floating(idx.dtype()) || is_complex(idx.dtype()))
    throw index_error("arrays used as indices must be of integer type, not " + std::string(name(idx.dtype())));
  return idx.dtype() == dtype::int64 ? contiguous(idx) : copy(idx, dtype::int64);
}

[[noreturn]] void throw_out_of_bounds(std::int64_t index, std::int64_t axis, std::int64_t size, bool flat) {
  if (flat)
    throw index_error("index " + std::to_string(index) + " is out of bounds for size " + std::to_string(size));
  throw index_error("index " + std::to_string(index) + " is out of bounds for axis " + std::to_string(axis) +
                    " with size " + std::to_string(size));
}

/// The first out-of-range index on the host, or -1.
std::int64_t first_bad_host(const std::int64_t *idx, std::int64_t n, std::int64_t len) {
  for (std::int64_t j = 0; j < n; ++j)
    if (idx[j] < -len || idx[j] >= len)
      return j;
  return -1;
}

/// A flag for the GPU kernels: ~0 until an out-of-range index is seen.
array_base bad_flag(device dev, const stream &s) {
  array_base f = allocate(dtype::int64, shape{1}, dev, s);
  const std::int64_t none = -1;
  fill(f, &none, s);
  return f;
}

std::int64_t normalize_axis_of(std::int64_t axis, std::int64_t ndim) {
  if (axis < -ndim || axis >= ndim)
    throw index_error("axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                      std::to_string(ndim));
  return axis < 0 ? axis + ndim : axis;
}

} // namespace

array_base mask_gather(const array_base &x, const array_base &mask) {
  check_mask(x, mask);
  const stream s = stream::current(x.device());
  array_base m = contiguous(mask), src = contiguous(x);
  const std::size_t k = static_cast<std::size_t>(mask.ndim());
  const std::int64_t inner = product(x.shape(), k, x.shape().size());
  const std::int64_t row = inner * static_cast<std::int64_t>(itemsize(x.dtype()));
  mask_run run{m, 0, 1, {}};
  const std::int64_t count = run.count(s);
  shape out_shape{count};
  for (std::size_t d = k; d < x.shape().size(); ++d)
    out_shape.push_back(x.shape()[d]);
  array_base out = allocate(x.dtype(), out_shape, x.device(), s);
  if (count == 0 || row == 0)
    return out;
  run.unit_bytes = unit_for(row, {src.data(), out.data()});
  run.units = row / run.unit_bytes;
  run.write(src.data(), out.data(), false, false, s);
  return out;
}

void mask_scatter(const array_base &x, const array_base &mask, const array_base &values) {
  check_writeable(x);
  check_mask(x, mask);
  check_same_device(x.device(), values.device());
  const stream s = stream::current(x.device());
  array_base m = contiguous(mask);
  const std::size_t k = static_cast<std::size_t>(mask.ndim());
  const std::int64_t inner = product(x.shape(), k, x.shape().size());
  mask_run run{m, 0, 1, {}};
  const std::int64_t count = run.count(s);
  shape rows{count};
  for (std::size_t d = k; d < x.shape().size(); ++d)
    rows.push_back(x.shape()[d]);
  // The values, of x's dtype: one row for all, or a row per selected element.
  const bool broadcast = values.size() == 1 || (values.ndim() < static_cast<std::int64_t>(rows.size()) &&
                                                values.size() == inner && inner > 0 && count > 0);
  if (!broadcast && values.ndim() == 1 && rows.size() == 1 && values.size() != count)
    throw value_error("NumPy boolean array indexing assignment cannot assign " + std::to_string(values.size()) +
                      " input values to the " + std::to_string(count) + " output values where the mask is true");
  array_base v;
  if (broadcast) {
    shape one = rows;
    one[0] = 1;
    v = copy(broadcast_to(values.ndim() == 0 ? reshape(values, shape{1}) : values, one), x.dtype());
  } else {
    v = allocate(x.dtype(), rows, x.device(), s);
    assign(v, values, s); // broadcast and converted, NumPy's errors
  }
  if (count == 0 || inner == 0)
    return;
  const bool direct = x.is_contiguous();
  array_base dst = direct ? x : copy(x, x.dtype());
  const std::int64_t row = inner * static_cast<std::int64_t>(itemsize(x.dtype()));
  run.unit_bytes = unit_for(row, {dst.data(), v.data()});
  run.units = row / run.unit_bytes;
  run.write(v.data(), dst.data(), true, broadcast, s);
  if (!direct)
    assign(x, dst, s);
}

array_base take(const array_base &x, const array_base &indices, std::optional<std::int64_t> axis) {
  check_same_device(x.device(), indices.device());
  const stream s = stream::current(x.device());
  array_base idx = int64_indices(indices);
  const bool flat = !axis;
  array_base src = contiguous(x);
  if (flat)
    src = reshape(src, shape{x.size()});
  const std::int64_t ax = normalize_axis_of(axis.value_or(0), src.ndim());
  const std::size_t a = static_cast<std::size_t>(ax);
  const std::int64_t outer = product(src.shape(), 0, a), len = src.shape()[a];
  const std::int64_t inner = product(src.shape(), a + 1, src.shape().size());
  shape out_shape;
  for (std::size_t d = 0; d < a; ++d)
    out_shape.push_back(src.shape()[d]);
  for (std::int64_t d : idx.shape())
    out_shape.push_back(d);
  for (std::size_t d = a + 1; d < src.shape().size(); ++d)
    out_shape.push_back(src.shape()[d]);
  array_base out = allocate(x.dtype(), out_shape, x.device(), s);
  const std::int64_t nidx = idx.size();
  if (out.size() == 0) {
    if (nidx > 0 && len == 0) // NumPy: any index into an empty axis is out of range
      throw_out_of_bounds(read_back<std::int64_t>(idx, 0), ax, len, flat);
    return out;
  }
  const std::int64_t item = static_cast<std::int64_t>(itemsize(x.dtype()));
  const int unit = unit_for(inner * item, {src.data(), out.data()});
  const std::int64_t units = inner * item / unit;
  if (x.device().is_host()) {
    const auto *ix = static_cast<const std::int64_t *>(idx.data());
    if (std::int64_t j = first_bad_host(ix, nidx, len); j >= 0)
      throw_out_of_bounds(ix[j], ax, len, flat);
    const char *from = static_cast<const char *>(src.data());
    char *to = static_cast<char *>(out.data());
    const std::int64_t row = inner * item;
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t j = 0; j < nidx; ++j) {
        const std::int64_t k = ix[j] < 0 ? ix[j] + len : ix[j];
        std::memcpy(to + (o * nidx + j) * row, from + (o * len + k) * row, static_cast<std::size_t>(row));
      }
    return out;
  }
  array_base bad = bad_flag(x.device(), s);
  take_params p{};
  p.src = static_cast<const char *>(src.data());
  p.dst = static_cast<char *>(out.data());
  p.idx = static_cast<const std::int64_t *>(idx.data());
  p.nidx = nidx;
  p.axis_len = len;
  p.inner_units = units;
  p.n = outer * nidx * units;
  p.unit_bytes = unit;
  p.bad = static_cast<unsigned long long *>(bad.data());
  cuda::make_current(x.device().index());
  kernels::gpu::launch_indexing(x.device().index(), "kiln_take", p.n, &p, s.native_handle());
  if (std::int64_t j = read_back<std::int64_t>(bad, 0); j >= 0)
    throw_out_of_bounds(read_back<std::int64_t>(idx, j), ax, len, flat);
  return out;
}

void index_scatter(const array_base &x, const array_base &indices, const array_base &values, bool flat) {
  check_writeable(x);
  check_same_device(x.device(), indices.device());
  check_same_device(x.device(), values.device());
  const stream s = stream::current(x.device());
  array_base idx = int64_indices(indices);
  if (!flat && x.ndim() == 0)
    throw index_error("too many indices for array: array is 0-dimensional, but 1 were indexed");
  const bool direct = x.is_contiguous();
  array_base dst = direct ? x : copy(x, x.dtype());
  array_base target = flat ? reshape(dst, shape{x.size()}) : dst;
  const std::int64_t len = target.shape()[0], nidx = idx.size();
  const std::int64_t inner = product(target.shape(), 1, target.shape().size());
  // The values, of x's dtype: one row for all or one row per index (NumPy
  // broadcasts them to idx.shape + x.shape[1:]).
  shape rows = idx.shape();
  for (std::size_t d = 1; d < target.shape().size(); ++d)
    rows.push_back(target.shape()[d]);
  const bool broadcast = values.size() == 1;
  array_base v;
  if (broadcast) {
    // One value for every element: one row of it, which every index takes.
    shape one;
    for (std::size_t d = 1; d < target.shape().size(); ++d)
      one.push_back(target.shape()[d]);
    if (one.empty()) one.push_back(1);
    v = copy(broadcast_to(reshape(values, shape{1}), one), x.dtype());
  } else if (flat) {
    if (values.size() != nidx)
      throw value_error("put: " + std::to_string(values.size()) + " values for " + std::to_string(nidx) +
                        " indices; Kiln's put takes one value or one per index (NumPy also repeats a shorter list)");
    v = copy(reshape(contiguous(values), shape{nidx}), x.dtype());
  } else {
    v = allocate(x.dtype(), rows, x.device(), s);
    assign(v, values, s);
  }
  if (nidx == 0)
    return;
  const std::int64_t item = static_cast<std::int64_t>(itemsize(x.dtype()));
  if (x.device().is_host()) {
    const auto *ix = static_cast<const std::int64_t *>(idx.data());
    if (std::int64_t j = first_bad_host(ix, nidx, len); j >= 0)
      throw_out_of_bounds(ix[j], 0, len, false);
    const std::int64_t row = inner * item;
    char *to = static_cast<char *>(target.data());
    const char *from = static_cast<const char *>(v.data());
    for (std::int64_t j = 0; j < nidx; ++j) { // in order: the last occurrence stays
      const std::int64_t k = ix[j] < 0 ? ix[j] + len : ix[j];
      std::memcpy(to + k * row, from + (broadcast ? 0 : j * row), static_cast<std::size_t>(row));
    }
  } else if (inner > 0) {
    array_base bad = bad_flag(x.device(), s);
    array_base winner = allocate(dtype::int64, shape{len}, x.device(), s);
    const std::int64_t zero = 0;
    fill(winner, &zero, s);
    const int unit = unit_for(inner * item, {target.data(), v.data()});
    take_params p{};
    p.src = static_cast<const char *>(v.data());
    p.dst = static_cast<char *>(target.data());
    p.idx = static_cast<const std::int64_t *>(idx.data());
    p.nidx = nidx;
    p.axis_len = len;
    p.inner_units = inner * item / unit;
    p.n = nidx * p.inner_units;
    p.unit_bytes = unit;
    p.src_broadcast = broadcast;
    p.bad = static_cast<unsigned long long *>(bad.data());
    p.winner = static_cast<unsigned long long *>(winner.data());
    const int ordinal = x.device().index();
    cuda::make_current(ordinal);
    kernels::gpu::launch_indexing(ordinal, "kiln_scatter_winners", nidx, &p, s.native_handle());
    if (std::int64_t j = read_back<std::int64_t>(bad, 0); j >= 0)
      throw_out_of_bounds(read_back<std::int64_t>(idx, j), 0, len, false);
    kernels::gpu::launch_indexing(ordinal, "kiln_scatter_write", p.n, &p, s.native_handle());
  }
  if (!direct)
    assign(x, dst, s);
}

std::vector<array_base> nonzero(const array_base &x) {
  // On the host (a GPU array makes a round trip): NumPy's C-order indices.
  if (x.ndim() == 0)
    throw value_error("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.");
  const device dev = x.device();
  array_base h = dev.is_host() ? contiguous(x) : to_device(x, device::host(), stream::current(dev));
  if (!dev.is_host())
    stream::current(dev).synchronize();
  array_base nz = copy(h, dtype::bool_);
  const auto *m = static_cast<const unsigned char *>(nz.data());
  const std::int64_t n = nz.size(), rank = x.ndim();
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < n; ++i)
    count += m[i] != 0;
  std::vector<array_base> out;
  for (std::int64_t d = 0; d < rank; ++d)
    out.push_back(empty(dtype::int64, shape{count}, device::host()));
  for (std::int64_t i = 0, c = 0; i < n; ++i) {
    if (!m[i])
      continue;
    std::int64_t rem = i;
    for (std::int64_t d = rank - 1; d >= 0; --d) {
      const std::int64_t size = x.shape()[static_cast<std::size_t>(d)];
      static_cast<std::int64_t *>(out[static_cast<std::size_t>(d)].data())[c] = rem % size;
      rem /= size;
    }
    ++c;
  }
  if (!dev.is_host())
    for (array_base &a : out)
      a = to_device(a, dev, stream::current(dev));
  return out;
}

} // namespace kiln::detail
