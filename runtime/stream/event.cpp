//===- runtime/stream/event.cpp - Events and elapsed time
//------------------===//
//
// kiln::event: a CUevent with timing on a GPU; on the host, where work runs at
// once, the steady_clock time at which it was recorded.
//
//===----------------------------------------------------------------------===//
#include "kiln/error.hpp"
#include "kiln/stream.hpp"

#include "runtime/cuda/driver.hpp"
#include "runtime/cuda/driver_status.hpp"
#include "runtime/stream/capture.hpp"
#include "runtime/stream/stream_impl.hpp"

namespace kiln {

event::impl::~impl() {
  if (!handle)
    return;
  if (const auto *api = detail::cuda::driver())
    api->cuEventDestroy(handle); // errors ignored: may run at process exit
}

event::event(device dev) : device_(dev) {
  check_device(dev);
  auto p = std::make_shared<impl>(dev);
  if (dev.is_cuda()) {
    const auto &api = detail::cuda::require_driver();
    detail::cuda::make_current(dev.index());
    KILN_CU(api, cuEventCreate, &p->handle, CU_EVENT_DEFAULT);
  }
  impl_ = std::move(p);
}

void event::record() { record(stream::current(device_)); }

void event::record(const stream &s) {
  if (s.get_device() != device_)
    throw device_error("cannot record an event of " + device_.str() +
                       " on a stream of " + s.get_device().str());
  if (device_.is_host()) {
    impl_->host_time = std::chrono::steady_clock::now();
  } else {
    const auto &api = detail::cuda::require_driver();
    detail::cuda::make_current(device_.index());
    KILN_CU(api, cuEventRecord, impl_->handle,
            static_cast<CUstream>(s.native_handle()));
  }
  impl_->recorded = true;
}

void event::synchronize() const {
  if (device_.is_host() || !impl_->recorded)
    return; // an event never recorded is complete, as in CUDA
  detail::check_not_capturing("event::synchronize");
  const auto &api = detail::cuda::require_driver();
  detail::cuda::make_current(device_.index());
  KILN_CU(api, cuEventSynchronize, impl_->handle);
}

bool event::query() const {
  if (device_.is_host() || !impl_->recorded)
    return true;
  const auto &api = detail::cuda::require_driver();
  detail::cuda::make_current(device_.index());
  CUresult r = api.cuEventQuery(impl_->handle);
  if (r == CUDA_ERROR_NOT_READY)
    return false;
  detail::cuda::check(r, "cuEventQuery");
  return true;
}

void event::wait(const stream &s) const {
  if (!impl_->recorded)
    return; // nothing to wait for
  if (s.get_device().is_host()) {
    // Host work runs in the calling thread at once: wait here.
    synchronize();
    return;
  }
  if (device_.is_host())
    return; // a host event is complete when recorded
  const auto &api = detail::cuda::require_driver();
  detail::cuda::make_current(
      s.get_device().index()); // events of other GPUs are allowed
  KILN_CU(api, cuStreamWaitEvent, static_cast<CUstream>(s.native_handle()),
          impl_->handle, 0);
}

float elapsed_ms(const event &start, const event &end) {
  if (start.get_device() != end.get_device())
    throw device_error("elapsed_ms: the events are on different devices (" +
                       start.get_device().str() + " and " +
                       end.get_device().str() + ")");
  const event::impl *a = start.get_impl();
  const event::impl *b = end.get_impl();
  if (!a->recorded || !b->recorded)
    throw value_error("elapsed_ms: both events must be recorded first");
  if (start.get_device().is_host())
    return std::chrono::duration<float, std::milli>(b->host_time - a->host_time)
        .count();
  detail::check_not_capturing("elapsed_ms (it waits for the end event)");
  const auto &api = detail::cuda::require_driver();
  detail::cuda::make_current(start.get_device().index());
  KILN_CU(api, cuEventSynchronize, b->handle); // NOT_READY otherwise
  float ms = 0;
  KILN_CU(api, cuEventElapsedTime, &ms, a->handle, b->handle);
  return ms;
}

} // namespace kiln
