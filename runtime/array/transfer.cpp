//===- runtime/array/transfer.cpp - Moving arrays between devices ---------===//
//
// to_device (H2D, D2H, D2D on one GPU, and between GPUs: a peer copy where
// peer access can be enabled, else staged through pinned host memory),
// copy_to_host / copy_from_host in C order (a non-contiguous array goes
// through a contiguous temporary on its device), and item. Synchronous forms
// wait on the stream; async forms only queue (pinned host memory expected).
// Synchronous copies of pageable memory of at least a few MiB are staged
// through the pinned pool (runtime/array/staging.hpp).
//
//===----------------------------------------------------------------------===//
#include "runtime/array/array_internal.hpp"
#include "runtime/array/staging.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/cuda/driver_status.hpp"
#include "runtime/device/peer.hpp"
#include "runtime/kernels/kernels.hpp"
#include "runtime/stream/capture.hpp"

#include <cstring>

namespace kiln::detail {
namespace {

CUdeviceptr dptr(const void *p) { return reinterpret_cast<CUdeviceptr>(p); }
CUstream native(const stream &s) {
  return static_cast<CUstream>(s.native_handle());
}

void sync_stream(const cuda::driver_api &api, const stream &s) {
  KILN_CU(api, cuStreamSynchronize, native(s));
}

/// Copies `x` (on a GPU) to another GPU, contiguous on `dev`, queued on `s`
/// (a stream of `dev`).
array_base gpu_to_gpu(const array_base &x, device dev, const stream &s,
                      bool &must_sync) {
  const cuda::driver_api &api = cuda::require_driver();
  const int from = x.device().index(), to = dev.index();
  const stream src_stream = stream::current(x.device());
  array_base src = x;
  if (!x.is_contiguous()) {
    src = copy(x, x.dtype()); // on src_stream
    must_sync = true;         // the temporary dies when we return
  }
  const std::size_t nbytes = static_cast<std::size_t>(x.nbytes());
  array_base out = allocate(x.dtype(), x.shape(), dev, s);
  if (nbytes == 0)
    return out;

  if (enable_peer_access(to, from)) {
    // Order the copy after the work already queued on the source's stream.
    event ready(x.device());
    ready.record(src_stream);
    ready.wait(s);
    cuda::make_current(to);
    KILN_CU(api, cuMemcpyPeerAsync, dptr(out.data()), cuda::primary_context(to),
            dptr(src.data()), cuda::primary_context(from), nbytes, native(s));
    return out;
  }
  // No peer access: device -> pinned host -> device.
  check_not_capturing(
      "a copy between GPUs without peer access (staged through the host)");
  allocation staging = get_default_pinned_memory_pool().allocate(
      nbytes, stream::default_stream(device::host()));
  cuda::make_current(from);
  KILN_CU(api, cuMemcpyDtoHAsync, staging.get(), dptr(src.data()), nbytes,
          native(src_stream));
  sync_stream(api, src_stream);
  cuda::make_current(to);
  KILN_CU(api, cuMemcpyHtoDAsync, dptr(out.data()), staging.get(), nbytes,
          native(s));
  must_sync = true; // the staging buffer dies when we return
  return out;
}

} // namespace

void copy_to_host(const array_base &x, void *host, const stream &s,
                  bool async) {
  if (x.size() == 0)
    return;
  if (!host)
    throw value_error("copy_to_host: null host pointer");
  if (x.device().is_host()) {
    if (x.is_contiguous()) {
      std::memcpy(host, x.data(), static_cast<std::size_t>(x.nbytes()));
    } else {
      array_base dst =
          wrap(host, x.dtype(), x.shape(), device::host(), nullptr);
      kernels::copy_cast(dst, x, s);
    }
    return;
  }
  check_stream(x.device(), s);
  if (!async)
    check_not_capturing("a copy from the GPU to the host (to_vector, "
                        "copy_to_host, to_device(host), "
                        "nonzero, an eager operation on GPU arrays, ...)");
  const cuda::driver_api &api = cuda::require_driver();
  cuda::make_current(x.device().index());
  array_base src = x;
  if (!x.is_contiguous()) {
    // The temporary returns to the pool on `s`: later users of that memory on
    // `s` are ordered after this copy.
    src = allocate(x.dtype(), x.shape(), x.device(), s);
    kernels::copy_cast(src, x, s);
  }
  const std::size_t nbytes = static_cast<std::size_t>(x.nbytes());
  // Synchronous: staged through pinned buffers when the plan says so (then
  // complete on return), else the driver's own path.
  if (!async && staging::to_host(host, src.data(), nbytes, s.native_handle()))
    return;
  KILN_CU(api, cuMemcpyDtoHAsync, host, dptr(src.data()), nbytes, native(s));
  if (!async)
    sync_stream(api, s);
}

void copy_from_host(const array_base &x, const void *host, const stream &s,
                    bool async) {
  if (x.size() == 0)
    return;
  if (!host)
    throw value_error("copy_from_host: null host pointer");
  if (x.device().is_host()) {
    if (x.is_contiguous()) {
      std::memmove(x.data(), host, static_cast<std::size_t>(x.nbytes()));
    } else {
      array_base src = wrap(const_cast<void *>(host), x.dtype(), x.shape(),
                            device::host(), nullptr);
      assign(x, src, s);
    }
    return;
  }
  check_stream(x.device(), s);
  if (!async)
    check_not_capturing(
        "a synchronous copy from the host to the GPU (copy_from_host, asarray, "
        "to_device of a host array, ...; copy_from_host_async from pinned "
        "memory is captured)");
  const cuda::driver_api &api = cuda::require_driver();
  cuda::make_current(x.device().index());
  const std::size_t nbytes = static_cast<std::size_t>(x.nbytes());
  // Synchronous: staged through pinned buffers when the plan says so, else
  // (and always for the async form) the driver's own path.
  auto upload = [&](void *dst) {
    if (async || !staging::to_device(dst, host, nbytes, s.native_handle()))
      KILN_CU(api, cuMemcpyHtoDAsync, dptr(dst), host, nbytes, native(s));
  };
  if (x.is_contiguous()) {
    upload(x.data());
  } else {
    array_base tmp = allocate(x.dtype(), x.shape(), x.device(), s);
    upload(tmp.data());
    kernels::copy_cast(x, tmp, s);
  }
  if (!async)
    sync_stream(api, s);
}

array_base to_device(const array_base &x, device dev, const stream &s) {
  check_device(dev);
  const device from = x.device();
  if (from.is_host() && dev.is_host()) {
    array_base out = allocate(x.dtype(), x.shape(), dev, s);
    assign(out, x, s);
    return out;
  }
  if (from.is_host()) { // H2D on s (a stream of dev)
    check_stream(dev, s);
    array_base src = x.is_contiguous() ? x : copy(x, x.dtype());
    array_base out = allocate(x.dtype(), x.shape(), dev, s);
    // Waits: the host source (maybe a temporary) must outlive the copy.
    copy_from_host(out, src.data(), s, false);
    return out;
  }
  if (dev.is_host()) { // D2H on s (a stream of x's GPU); host arrays are always
                       // ready
    array_base out = allocate(x.dtype(), x.shape(), dev, stream::current(dev));
    copy_to_host(x, out.data(), s, false);
    return out;
  }
  check_stream(dev, s);
  if (from == dev) {
    // Order after the work queued on x's current stream when s is another.
    stream cur = stream::current(from);
    if (!(cur == s)) {
      event ready(from);
      ready.record(cur);
      ready.wait(s);
    }
    array_base out = allocate(x.dtype(), x.shape(), dev, s);
    assign(out, x, s);
    return out;
  }
  bool must_sync = false;
  array_base out = gpu_to_gpu(x, dev, s, must_sync);
  if (must_sync)
    sync_stream(cuda::require_driver(), s);
  return out;
}

void item(const array_base &x, void *out) {
  if (x.size() != 1)
    throw value_error("can only convert an array of size 1 to a Python scalar");
  const std::size_t n = itemsize(x.dtype());
  if (x.device().is_host()) {
    std::memcpy(out, x.data(), n);
    return;
  }
  check_not_capturing("item() (it reads the GPU's result on the host)");
  const cuda::driver_api &api = cuda::require_driver();
  cuda::make_current(x.device().index());
  stream s = stream::current(x.device());
  KILN_CU(api, cuMemcpyDtoHAsync, out, dptr(x.data()), n, native(s));
  sync_stream(api, s);
}

} // namespace kiln::detail
