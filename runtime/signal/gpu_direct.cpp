//===- runtime/signal/gpu_direct.cpp - Direct correlation on a GPU --------===//
//
// kiln_conv2d (runtime/kernels/cuda/signal_kernels.cu) for 1-d (one row) and
// 2-d inputs of float and complex dtypes: square 3, 5 and 7 filters in their
// unrolled kernels, others in the general one while the tile and taps fit
// its 40 KiB of shared memory. (A 1-d signal is one row of a 64-row tile:
// correct, not yet fast.)
//
//===----------------------------------------------------------------------===//
#include "direct.hpp"

#include "kiln/error.hpp"
#include "kiln/promote.hpp"
#include "kiln/stream.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/kernels/gpu_kernels.hpp"

namespace kiln::signal::detail {
namespace {

constexpr std::int64_t tile_w = 32, tile_h = 64, general_bytes = 40960;

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
  const std::int64_t bytes = std::int64_t(itemsize(t)) * ((tile_h + p.kh - 1) * (tile_w + p.kw - 1) + p.kh * p.kw);
  const bool unrolled = p.kh == p.kw && (p.kh == 3 || p.kh == 5 || p.kh == 7); // static shared memory, up to 48 KiB
  return bytes <= (unrolled ? 49152 : general_bytes);
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
  const std::int64_t tiles_x = (p.ow + tile_w - 1) / tile_w, tiles_y = (p.oh + tile_h - 1) / tile_h;
  if (tiles_x * tiles_y > std::numeric_limits<std::int32_t>::max())
    throw value_error("kiln::signal: an output of " + std::to_string(out.size()) + " elements is past one launch");
  k.tiles_x = static_cast<std::int32_t>(tiles_x);
  const int unrolled = p.kh == p.kw && (p.kh == 3 || p.kh == 5 || p.kh == 7) ? int(p.kh) : 0;
  kiln::detail::cuda::make_current(d.in.device().index());
  kiln::detail::kernels::gpu::conv2d(d.in.device().index(), d.in.dtype(), unrolled, k, tiles_y,
                                     stream::current(d.in.device()).native_handle());
  return out;
}

} // namespace kiln::signal::detail
