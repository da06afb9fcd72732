//===- runtime/stream/stream.cpp - Streams and the current stream
//----------===//
//
// kiln::stream: a non-blocking CUstream on a GPU's primary context, the
// legacy default stream, or a host stream (work runs at once, nothing to do).
// Each thread keeps a current stream per device (stream_scope).
//
//===----------------------------------------------------------------------===//
#include "kiln/stream.hpp"
#include "kiln/error.hpp"

#include "runtime/cuda/driver.hpp"
#include "runtime/cuda/driver_status.hpp"
#include "runtime/stream/capture.hpp"
#include "runtime/stream/stream_impl.hpp"

#include <optional>
#include <vector>

namespace kiln {
namespace {

/// The calling thread's current streams: slot 0 the host, slot i+1 cuda:i.
/// Empty slot: the device's default stream.
thread_local std::vector<std::optional<stream>> current_streams;

std::optional<stream> &slot(device dev) {
  std::size_t i = dev.is_host() ? 0 : static_cast<std::size_t>(dev.index()) + 1;
  if (current_streams.size() <= i)
    current_streams.resize(i + 1);
  return current_streams[i];
}

} // namespace

stream::impl::~impl() {
  if (!handle)
    return;
  if (const auto *api = detail::cuda::driver()) {
    // Synchronize first: the pool keys cached blocks by CUstream, and a new
    // stream may get this handle back; no work of this one may still run.
    // Errors are ignored (at process exit the driver may be shut down).
    if (CUcontext ctx = detail::cuda::retained_context(dev.index())) {
      CUcontext cur = nullptr;
      if (api->cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur != ctx)
        api->cuCtxSetCurrent(ctx);
    }
    api->cuStreamSynchronize(handle);
    api->cuStreamDestroy(handle);
  }
}

stream::stream(device dev) : device_(dev) {
  check_device(dev);
  auto p = std::make_shared<impl>(dev);
  if (dev.is_cuda()) {
    const auto &api = detail::cuda::require_driver();
    detail::cuda::make_current(dev.index());
    KILN_CU(api, cuStreamCreate, &p->handle, CU_STREAM_NON_BLOCKING);
  }
  impl_ = std::move(p);
}

stream stream::default_stream(device dev) {
  check_device(dev);
  return stream(dev, nullptr);
}

stream stream::current(device dev) {
  std::optional<stream> &s = slot(dev);
  if (s)
    return *s;
  return default_stream(dev);
}

void *stream::native_handle() const noexcept {
  return impl_ ? impl_->handle : nullptr;
}

void stream::synchronize() const {
  if (device_.is_host())
    return;
  detail::check_not_capturing("stream::synchronize");
  const auto &api = detail::cuda::require_driver();
  detail::cuda::make_current(device_.index());
  KILN_CU(api, cuStreamSynchronize, static_cast<CUstream>(native_handle()));
}

bool stream::query() const {
  if (device_.is_host())
    return true;
  const auto &api = detail::cuda::require_driver();
  detail::cuda::make_current(device_.index());
  CUresult r = api.cuStreamQuery(static_cast<CUstream>(native_handle()));
  if (r == CUDA_ERROR_NOT_READY)
    return false;
  detail::cuda::check(r, "cuStreamQuery");
  return true;
}

stream_scope::stream_scope(const stream &s)
    : previous_(stream::current(s.get_device())) {
  slot(s.get_device()) = s;
}

stream_scope::~stream_scope() { slot(previous_.get_device()) = previous_; }

void synchronize(device dev) {
  if (dev.is_host()) {
    check_device(dev);
    return;
  }
  check_device(dev);
  detail::check_not_capturing("kiln::synchronize");
  const auto &api = detail::cuda::require_driver();
  detail::cuda::make_current(dev.index());
  KILN_CU(api, cuCtxSynchronize);
}

void synchronize() {
  detail::check_not_capturing("kiln::synchronize");
  // All GPUs this process has used (whose primary context is retained): the
  // current device among them, and no work can be queued on the others.
  int n = cuda_device_count();
  for (int i = 0; i < n; ++i)
    if (detail::cuda::retained_context(i))
      synchronize(device::cuda(i));
}

} // namespace kiln
