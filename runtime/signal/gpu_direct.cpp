//===- runtime/signal/gpu_direct.cpp - Direct correlation on a GPU --------===//
//
// kiln_conv2d (runtime/kernels/cuda/signal_kernels.cu) for 1-d (one row) and
// 2-d inputs of float and complex dtypes: square 3, 5 and 7 filters in their
// unrolled persistent kernels (tiles of 32 rows by 32 16-byte vectors),
// others in the general one (32 x 64 tiles) while the tile and taps fit its
// 40 KiB of shared memory. (A 1-d signal is one row of a tile: correct, not
// yet fast.)
//
//===----------------------------------------------------------------------===//
#include "direct.hpp"

#include "kiln/error.hpp"
#include "kiln/promote.hpp"
#include "kiln/stream.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/kernels/gpu_kernels.hpp"

#include <cstdint>
#include <limits>

namespace kiln::signal::detail {
namespace {

constexpr std::int64_t general_w = 32, general_h = 64,
                       general_bytes = 40960; // kiln_conv2d_<t>_0's tile
constexpr std::int64_t
    square_h = 32,
    vector_bytes = 16; // the square kernels' tile: 32 rows of 32 vectors

bool unrolled(std::int64_t kh, std::int64_t kw) {
  return kh == kw && (kh == 3 || kh == 5 || kh == 7);
}

bool aligned(const void *p, std::int64_t row, std::int64_t item) {
  return reinterpret_cast<std::uintptr_t>(p) % vector_bytes == 0 &&
         (row * item) % vector_bytes == 0;
}

struct plane {
  std::int64_t h, w, kh, kw, oh, ow, oy, ox;
};

plane plane_of(const direct &d) {
  if (d.in.ndim() == 1)
    return {1, d.in.shape()[0], 1, d.taps.shape()[0], 1, d.out_shape[0], 0, d.origin[0]};
  return {d.in.shape()[0], d.in.shape()[1], d.taps.shape()[0], d.taps.shape()[1],
          d.out_shape[0],  d.out_shape[1], d.origin[0],       d.origin[1]};
}

} // namespace

bool fits_gpu(const direct &d) {
  const dtype t = d.in.dtype();
  if (d.in.ndim() < 1 || d.in.ndim() > 2 ||
      (t != dtype::float32 && t != dtype::float64 && t != dtype::complex64 && t != dtype::complex128))
    return false;
  const plane p = plane_of(d);
  if (unrolled(p.kh, p.kw)) // sized at compile time
    return true;
  const std::int64_t bytes =
      std::int64_t(itemsize(t)) *
      ((general_h + p.kh - 1) * (general_w + p.kw - 1) + p.kh * p.kw);
  return bytes <= general_bytes;
}

array_base run_direct_gpu(const direct &d) {
  array_base out = kiln::detail::empty(d.in.dtype(), d.out_shape, d.in.device());
  if (out.size() == 0)
    return out;
  const plane p = plane_of(d);
  kiln::detail::kernels::conv2d_params k{};
  k.in = d.in.data();
  k.w = d.taps.data();
  k.out = out.data();
  k.h = p.h;
  k.w_ = p.w;
  k.out_h = p.oh;
  k.out_w = p.ow;
  k.oy = p.oy;
  k.ox = p.ox;
  k.kh = static_cast<std::int32_t>(p.kh);
  k.kw = static_cast<std::int32_t>(p.kw);
  k.boundary = d.b == boundary::fill ? 0 : d.b == boundary::wrap ? 1 : 2;
  k.flip = d.flip;
  k.conj = d.conj && kind_of(d.taps.dtype()) == scalar_kind::complex;
  k.fill_re = d.fill.real();
  k.fill_im = d.fill.imag();
  const std::int64_t item = std::int64_t(itemsize(d.in.dtype()));
  const int size = unrolled(p.kh, p.kw) ? int(p.kh) : 0;
  const std::int64_t tile_w = size ? 32 * (vector_bytes / item) : general_w,
                     tile_h = size ? square_h : general_h;
  const std::int64_t tiles_x = (p.ow + tile_w - 1) / tile_w, tiles_y = (p.oh + tile_h - 1) / tile_h;
  if (tiles_x * tiles_y > std::numeric_limits<std::int32_t>::max())
    throw value_error("kiln::signal: an output of " + std::to_string(out.size()) + " elements is past one launch");
  k.tiles_x = static_cast<std::int32_t>(tiles_x);
  k.tiles = tiles_x * tiles_y;
  k.aligned = aligned(k.in, p.w, item);
  k.out_aligned = aligned(k.out, p.ow, item);
  kiln::detail::cuda::make_current(d.in.device().index());
  kiln::detail::kernels::gpu::conv2d(
      d.in.device().index(), d.in.dtype(), size, k,
      stream::current(d.in.device()).native_handle());
  return out;
}

} // namespace kiln::signal::detail
