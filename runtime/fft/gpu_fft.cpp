//===- runtime/fft/gpu_fft.cpp - FFTs in cuFFT ----------------------------===//
//
// cuFFT transforms up to three contiguous innermost axes of a batch. A
// transform's axes are moved last (a view; a copy only when the input is not
// then contiguous, and always for c2r, whose input cuFFT overwrites), one
// cached plan (plan_cache.hpp) runs out of place on the current stream with
// a work area from Kiln's pool, the scale is one more pass
// (kiln_scale_<dtype>) when it is not 1, and the result is viewed back in
// the caller's axis order. More than three axes run as several transforms:
// c2c in groups of three, r2c as its real axes then c2c over the rest, c2r
// as c2c over the leading axes then its real ones.
//
//===----------------------------------------------------------------------===//
#include "transform.hpp"

#include "cufft.hpp"
#include "plan_cache.hpp"

#include "kiln/error.hpp"
#include "kiln/stream.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/kernels/gpu_kernels.hpp"

#include <algorithm>
#include <numeric>

namespace kiln::detail::fft_run {
namespace {

/// The transform of t's axes [first, last) alone (the lengths with them),
/// unscaled.
transform part(const transform &t, array_base in, kind k, std::size_t first, std::size_t last) {
  transform p;
  p.k = k;
  p.forward = t.forward;
  p.in = std::move(in);
  p.axes.assign(t.axes.begin() + first, t.axes.begin() + last);
  p.n.assign(t.n.begin() + first, t.n.begin() + last);
  return p;
}

cufftType type_of(kind k, dtype real) {
  const bool single = real == dtype::float32;
  switch (k) {
  case kind::c2c:
    return single ? CUFFT_C2C : CUFFT_Z2Z;
  case kind::r2c:
    return single ? CUFFT_R2C : CUFFT_D2Z;
  case kind::c2r:
    return single ? CUFFT_C2R : CUFFT_Z2D;
  }
  return CUFFT_C2C;
}

/// One cuFFT plan over up to three axes.
array_base run_plan(const transform &t) {
  const array_base &x = t.in;
  const std::int64_t nd = x.ndim(), rank = static_cast<std::int64_t>(t.axes.size());
  // The transform's axes last, in the caller's order.
  std::vector<std::int64_t> perm;
  for (std::int64_t d = 0; d < nd; ++d)
    if (std::find(t.axes.begin(), t.axes.end(), d) == t.axes.end())
      perm.push_back(d);
  perm.insert(perm.end(), t.axes.begin(), t.axes.end());
  array_base moved = transpose(x, perm);
  if (!moved.is_contiguous() || t.k == kind::c2r) // cuFFT's c2r overwrites its input
    moved = copy(moved, moved.dtype());
  shape out_moved = moved.shape();
  const shape out_full = t.out_shape();
  for (std::int64_t d = 0; d < nd; ++d)
    out_moved[static_cast<std::size_t>(d)] = out_full[static_cast<std::size_t>(perm[static_cast<std::size_t>(d)])];
  const dtype real = real_type(x.dtype());
  const dtype complex = real == dtype::float32 ? dtype::complex64 : dtype::complex128;
  array_base out = empty(t.k == kind::c2r ? real : complex, out_moved, x.device());
  std::int64_t batch = 1;
  for (std::int64_t d = 0; d < nd - rank; ++d)
    batch *= moved.shape()[static_cast<std::size_t>(d)];
  if (out.size() > 0 && moved.size() > 0) {
    const device dev = x.device();
    cuda::make_current(dev.index());
    fft_plans::key key;
    key.device = dev.index();
    key.type = type_of(t.k, real);
    key.rank = static_cast<int>(rank);
    for (std::int64_t i = 0; i < rank; ++i)
      key.n[static_cast<std::size_t>(i)] = t.n[static_cast<std::size_t>(i)];
    key.batch = batch;
    const std::shared_ptr<fft_plans::plan> plan = fft_plans::acquire(key);
    const cufft::api &lib = cufft::require();
    const stream s = stream::current(dev);
    std::lock_guard<std::mutex> lock(plan->use);
    array_base work;
    try {
      work = empty(dtype::uint8, shape{std::max<std::int64_t>(std::int64_t(plan->work_bytes), 1)}, dev);
    } catch (const out_of_memory &) {
      kiln::fft::plan_cache(dev).clear(); // the cached plans' memory back, then once more
      work = empty(dtype::uint8, shape{std::max<std::int64_t>(std::int64_t(plan->work_bytes), 1)}, dev);
    }
    cufft::check(lib.cufftSetStream(plan->handle, static_cast<cudaStream_t>(s.native_handle())), "cufftSetStream");
    cufft::check(lib.cufftSetWorkArea(plan->handle, work.data()), "cufftSetWorkArea");
    const int direction = t.forward ? CUFFT_FORWARD : CUFFT_INVERSE;
    void *in = moved.data(), *o = out.data();
    switch (key.type) {
    case CUFFT_C2C:
      cufft::check(lib.cufftExecC2C(plan->handle, static_cast<cufftComplex *>(in), static_cast<cufftComplex *>(o), direction),
                   "cufftExecC2C");
      break;
    case CUFFT_Z2Z:
      cufft::check(lib.cufftExecZ2Z(plan->handle, static_cast<cufftDoubleComplex *>(in),
                                    static_cast<cufftDoubleComplex *>(o), direction),
                   "cufftExecZ2Z");
      break;
    case CUFFT_R2C:
      cufft::check(lib.cufftExecR2C(plan->handle, static_cast<cufftReal *>(in), static_cast<cufftComplex *>(o)),
                   "cufftExecR2C");
      break;
    case CUFFT_D2Z:
      cufft::check(lib.cufftExecD2Z(plan->handle, static_cast<cufftDoubleReal *>(in),
                                    static_cast<cufftDoubleComplex *>(o)),
                   "cufftExecD2Z");
      break;
    case CUFFT_C2R:
      cufft::check(lib.cufftExecC2R(plan->handle, static_cast<cufftComplex *>(in), static_cast<cufftReal *>(o)),
                   "cufftExecC2R");
      break;
    case CUFFT_Z2D:
      cufft::check(lib.cufftExecZ2D(plan->handle, static_cast<cufftDoubleComplex *>(in),
                                    static_cast<cufftDoubleReal *>(o)),
                   "cufftExecZ2D");
      break;
    default:
      break;
    }
  }
  // Back to the caller's axis order (a view).
  std::vector<std::int64_t> inverse(perm.size());
  for (std::size_t d = 0; d < perm.size(); ++d)
    inverse[static_cast<std::size_t>(perm[d])] = static_cast<std::int64_t>(d);
  if (t.scale != 1.0)
    scale_in_place(out, t.scale, false);
  return transpose(out, inverse);
}

} // namespace

array_base run_gpu(const transform &t) {
  const std::size_t rank = t.axes.size();
  if (rank <= 3)
    return run_plan(t);
  array_base r;
  if (t.k == kind::c2c) { // the last three axes, then the others
    r = run_plan(part(t, t.in, kind::c2c, rank - 3, rank));
    transform rest = part(t, r, kind::c2c, 0, rank - 3);
    rest.scale = t.scale;
    return run_gpu(rest);
  }
  if (t.k == kind::r2c) { // the real axes (the last three), then c2c over the rest
    r = run_plan(part(t, t.in, kind::r2c, rank - 3, rank));
    transform rest = part(t, r, kind::c2c, 0, rank - 3);
    rest.scale = t.scale;
    return run_gpu(rest);
  }
  // c2r: c2c over the leading axes (their lengths as given), then the real ones.
  r = run_gpu(part(t, t.in, kind::c2c, 0, rank - 3));
  transform last = part(t, r, kind::c2r, rank - 3, rank);
  last.scale = t.scale;
  return run_plan(last);
}

} // namespace kiln::detail::fft_run
