//===- runtime/array/assign.cpp - copy, assign and fill -------------------===//
//
// dst[...] = src with NumPy broadcasting and casting, on the arrays' device
// (a same-dtype contiguous pair is one memcpy; anything else runs the strided
// copy kernel), plus copy (a C-contiguous copy, optionally converted) and
// fill. A src that overlaps dst goes through a temporary first, as in NumPy.
//
//===----------------------------------------------------------------------===//
#include "kiln/shaping.hpp"
#include "runtime/array/array_internal.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/kernels/kernels.hpp"

#include <cstring>

namespace kiln::detail {
namespace {

/// src viewed with dst's shape, or shape_error with NumPy's message. As in
/// NumPy's setitem, src may have more axes than dst when the extra leading
/// ones have size 1 (`x[...] = ones((1, 3))` for a 3-vector).
array_base broadcast_for_assign(const array_base &src, const shape &target) {
  check_assignable(src.shape(), target);
  return broadcast_view(src, target);
}

/// dst = src, same shape and device, no overlap.
void assign_checked(const array_base &dst, const array_base &src,
                    const stream &s) {
  if (dst.size() == 0)
    return;
  if (dst.dtype() == src.dtype() && dst.is_contiguous() &&
      src.is_contiguous()) {
    std::size_t nbytes = static_cast<std::size_t>(dst.nbytes());
    if (dst.device().is_host()) {
      std::memcpy(dst.data(), src.data(), nbytes);
    } else {
      const cuda::driver_api &api = cuda::require_driver();
      cuda::make_current(dst.device().index());
      KILN_CU(api, cuMemcpyDtoDAsync, reinterpret_cast<CUdeviceptr>(dst.data()),
              reinterpret_cast<CUdeviceptr>(src.data()), nbytes,
              static_cast<CUstream>(s.native_handle()));
    }
    return;
  }
  kernels::copy_cast(dst, src, s);
}

} // namespace

void check_assignable(const shape &from, const shape &to) {
  bool fits = true;
  for (std::size_t d = 0; fits && d < from.size(); ++d) { // d-th axis from the end
    const std::int64_t extent = from[from.size() - 1 - d];
    fits = extent == 1 || (d < to.size() && extent == to[to.size() - 1 - d]);
  }
  if (!fits)
    throw shape_error("could not broadcast input array from shape " + to_string(from) + " into shape " +
                      to_string(to));
}

array_base broadcast_view(const array_base &a, const shape &target) {
  if (a.shape() == target)
    return a;
  const std::size_t extra = a.shape().size() > target.size() ? a.shape().size() - target.size() : 0;
  const std::size_t lead = target.size() - (a.shape().size() - extra); // target axes a lacks
  shape strides = shape::filled(target.size(), 0);
  for (std::size_t d = extra; d < a.shape().size(); ++d)
    if (a.shape()[d] == target[lead + d - extra])
      strides[lead + d - extra] = a.strides()[d];
  return array_base::from_parts(a.storage(), a.dtype(), a.device(), target, std::move(strides), a.offset());
}

/// NumPy's error for a write into a read-only view (broadcast_to's).
static void check_writeable(const array_base &dst) {
  if (!dst.writeable())
    throw value_error("assignment destination is read-only");
}

void assign(const array_base &dst, const array_base &src, const stream &s) {
  check_writeable(dst);
  check_same_device(dst.device(), src.device());
  check_stream(dst.device(), s);
  array_base b = broadcast_for_assign(src, dst.shape());
  if (dst.size() == 0)
    return;
  if (may_overlap(dst, b)) {
    if (dst.data() == b.data() && dst.strides() == b.strides() &&
        dst.dtype() == b.dtype())
      return; // x[...] = x
    array_base tmp = allocate(b.dtype(), b.shape(), b.device(), s);
    assign_checked(tmp, b, s);
    b = std::move(tmp);
  }
  assign_checked(dst, b, s);
}

array_base copy(const array_base &x, kiln::dtype t) {
  stream s = stream::current(x.device());
  array_base out = allocate(t, x.shape(), x.device(), s);
  assign_checked(out, x, s);
  return out;
}

void fill(const array_base &dst, const void *value, const stream &s) {
  check_writeable(dst);
  check_stream(dst.device(), s);
  if (dst.size() == 0)
    return;
  kernels::fill(dst, value, s);
}

/// NumPy's kinds in the order 'same_kind' may go up: bool, unsigned,
/// signed, float, complex (unsigned may go to signed, not back).
static int kind_rank(dtype t) {
  switch (t) {
  case dtype::bool_: return 0;
  case dtype::uint8: return 1;
  case dtype::int8: case dtype::int32: case dtype::int64: return 2;
  case dtype::float32: case dtype::float64: return 3;
  default: return 4; // complex
  }
}

bool can_cast_same_kind(dtype from, dtype to) noexcept {
  const int f = kind_rank(from), t = kind_rank(to);
  // Within a kind any size goes (float64 to float32); across kinds only up,
  // and signed integers never to unsigned ones.
  return f == t || (f < t && !(f == 2 && t == 1));
}

void check_same_kind(const char *ufunc, dtype from, dtype to) {
  if (can_cast_same_kind(from, to))
    return;
  throw value_error(std::string("Cannot cast ufunc '") + ufunc + "' output from dtype('" + std::string(name(from)) +
                    "') to dtype('" + std::string(name(to)) + "') with casting rule 'same_kind'");
}

} // namespace kiln::detail
