//===- runtime/array/dlpack.cpp - DLPack export and import ----------------===//
//
// to_dlpack hands out a DLManagedTensor (DLPack 0.8) that keeps the array's
// buffer alive until the consumer calls its deleter; from_dlpack adopts one,
// calling its deleter when the last array viewing it dies. No copies.
//
//===----------------------------------------------------------------------===//
#include "kiln/dlpack.h"
#include "runtime/array/array_internal.hpp"

#include <cstdint>
#include <string>

namespace kiln::detail {
namespace {

/// What a DLManagedTensor made by to_dlpack owns.
struct export_context {
  array_base keep; // holds the buffer
  kiln::shape shape, strides;
  DLManagedTensor tensor{};
};

void delete_export(DLManagedTensor *t) {
  if (t)
    delete static_cast<export_context *>(t->manager_ctx);
}

DLDataType dl_dtype(kiln::dtype t) {
  DLDataType d{};
  d.lanes = 1;
  d.bits = static_cast<std::uint8_t>(itemsize(t) * 8);
  switch (t) {
  case kiln::dtype::bool_:
    d.code = kDLBool;
    break;
  case kiln::dtype::int8:
  case kiln::dtype::int32:
  case kiln::dtype::int64:
    d.code = kDLInt;
    break;
  case kiln::dtype::uint8:
    d.code = kDLUInt;
    break;
  case kiln::dtype::float32:
  case kiln::dtype::float64:
    d.code = kDLFloat;
    break;
  case kiln::dtype::complex64:
  case kiln::dtype::complex128:
    d.code = kDLComplex;
    break;
  }
  return d;
}

kiln::dtype kiln_dtype(DLDataType d) {
  if (d.lanes == 1) {
    switch (d.code) {
    case kDLBool:
      if (d.bits == 8)
        return kiln::dtype::bool_;
      break;
    case kDLInt:
      if (d.bits == 8)
        return kiln::dtype::int8;
      if (d.bits == 32)
        return kiln::dtype::int32;
      if (d.bits == 64)
        return kiln::dtype::int64;
      break;
    case kDLUInt:
      if (d.bits == 8)
        return kiln::dtype::uint8;
      break;
    case kDLFloat:
      if (d.bits == 32)
        return kiln::dtype::float32;
      if (d.bits == 64)
        return kiln::dtype::float64;
      break;
    case kDLComplex:
      if (d.bits == 64)
        return kiln::dtype::complex64;
      if (d.bits == 128)
        return kiln::dtype::complex128;
      break;
    default:
      break;
    }
  }
  throw value_error("unsupported DLPack dtype (code " + std::to_string(d.code) +
                    ", bits " + std::to_string(d.bits) + ", lanes " +
                    std::to_string(d.lanes) + ")");
}

device kiln_device(DLDevice d) {
  switch (d.device_type) {
  case kDLCPU:
  case kDLCUDAHost:
    return device::host();
  case kDLCUDA:
  case kDLCUDAManaged:
    return device::cuda(d.device_id);
  default:
    throw device_error("unsupported DLPack device type " +
                       std::to_string(static_cast<int>(d.device_type)));
  }
}

} // namespace

DLManagedTensor *to_dlpack(const array_base &x) {
  auto *ctx = new export_context{x, x.shape(), x.strides(), {}};
  DLTensor &t = ctx->tensor.dl_tensor;
  t.data = x.data();
  t.device.device_type = x.device().is_host() ? kDLCPU : kDLCUDA;
  t.device.device_id = x.device().is_host() ? 0 : x.device().index();
  t.ndim = static_cast<std::int32_t>(x.ndim());
  t.dtype = dl_dtype(x.dtype());
  t.shape = ctx->shape.data();
  t.strides = ctx->strides.data();
  t.byte_offset = 0;
  ctx->tensor.manager_ctx = ctx;
  ctx->tensor.deleter = &delete_export;
  return &ctx->tensor;
}

namespace {

/// The most dimensions an imported tensor may have (NumPy's limit, and the
/// reductions').
constexpr std::int32_t max_ndim = 64;

/// Alignment the first element must have: the element's own (GPU kernels
/// load complex128 as 16-byte pairs; host code as the C++ type).
std::size_t required_alignment(kiln::dtype t, device dev) {
  std::size_t item = itemsize(t);
  if (dev.is_cuda())
    return item;
  return is_complex(t) ? item / 2 : item;
}

} // namespace

array_base from_dlpack(DLManagedTensor *t) {
  if (!t)
    throw value_error("from_dlpack: null DLManagedTensor");
  const DLTensor &dl = t->dl_tensor;
  // Check everything before taking ownership: on error the caller keeps it.
  kiln::dtype dt = kiln_dtype(dl.dtype);
  device dev = kiln_device(dl.device);
  check_device(dev);
  if (dl.ndim < 0 || dl.ndim > max_ndim)
    throw value_error("from_dlpack: invalid ndim " + std::to_string(dl.ndim) +
                      " (0 to " + std::to_string(max_ndim) + " dimensions)");
  if (dl.ndim > 0 && !dl.shape)
    throw value_error("from_dlpack: null shape for a tensor of ndim " +
                      std::to_string(dl.ndim));
  kiln::shape sh(std::span<const std::int64_t>(
      dl.shape, static_cast<std::size_t>(dl.ndim)));
  for (std::int64_t d : sh)
    if (d < 0)
      throw value_error("from_dlpack: negative dimension in shape " +
                        to_string(sh));
  const std::int64_t item = static_cast<std::int64_t>(itemsize(dt));
  std::int64_t nbytes = item;
  for (std::int64_t d : sh)
    if (__builtin_mul_overflow(nbytes, d, &nbytes))
      throw value_error("from_dlpack: the shape " + to_string(sh) + " of " +
                        std::string(name(dt)) + " is too big (over 2^63 bytes)");
  kiln::shape st = dl.strides
                       ? kiln::shape(std::span<const std::int64_t>(
                             dl.strides, static_cast<std::size_t>(dl.ndim)))
                       : contiguous_strides(sh);
  if (nbytes > 0) {
    if (!dl.data)
      throw value_error("from_dlpack: null data for a tensor of shape " +
                        to_string(sh));
    // The bytes the strides reach, [lo, hi) from the first element, must
    // be computable and inside the address space.
    std::int64_t lo = 0, hi = 0;
    bool overflow = false;
    for (std::size_t i = 0; i < sh.size() && !overflow; ++i) {
      std::int64_t span = 0;
      overflow = __builtin_mul_overflow(sh[i] - 1, st[i], &span) ||
                 __builtin_add_overflow(span < 0 ? lo : hi, span,
                                        span < 0 ? &lo : &hi);
    }
    overflow = overflow || __builtin_mul_overflow(lo, item, &lo) ||
               __builtin_mul_overflow(hi, item, &hi) ||
               __builtin_add_overflow(hi, item, &hi);
    const std::uintptr_t first =
        reinterpret_cast<std::uintptr_t>(dl.data) + dl.byte_offset;
    if (dl.byte_offset > static_cast<std::uint64_t>(INT64_MAX) ||
        first < reinterpret_cast<std::uintptr_t>(dl.data))
      throw value_error("from_dlpack: byte_offset " +
                        std::to_string(dl.byte_offset) +
                        " reaches outside the address space");
    const std::uintptr_t below = std::uintptr_t{0} - static_cast<std::uintptr_t>(lo);
    if (!overflow && (first < below ||
                      UINTPTR_MAX - first < static_cast<std::uintptr_t>(hi)))
      overflow = true;
    if (overflow)
      throw value_error("from_dlpack: the strides " + to_string(st) +
                        " of shape " + to_string(sh) +
                        " reach outside the address space");
    std::size_t align = required_alignment(dt, dev);
    if (first % align != 0)
      throw value_error("from_dlpack: data + byte_offset is not aligned to " +
                        std::to_string(align) + " bytes, as " +
                        std::string(name(dt)) + " elements on " + dev.str() +
                        " must be (byte_offset " +
                        std::to_string(dl.byte_offset) + ")");
  }
  void *first = dl.data ? static_cast<char *>(dl.data) + dl.byte_offset : nullptr;
  allocation storage(first, [t](void *) {
    if (t->deleter)
      t->deleter(t);
  });
  return array_base::from_parts(std::move(storage), dt, dev, std::move(sh),
                                std::move(st), 0);
}

} // namespace kiln::detail
