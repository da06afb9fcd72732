//===- runtime/stream/graph.cpp - CUDA graphs: kiln::capture, graph::launch ===//
//
// kiln::capture(s, fn) begins a stream capture on s (relaxed mode), runs fn
// with s current and s's device current, ends the capture and instantiates
// the graph. While fn runs the calling thread has an active_capture
// (capture.hpp): the device pool gives the blocks the graph may use to the
// graph's capture_sink, and the runtime's synchronizing operations throw.
// On the host device the graph keeps fn and launch runs it.
// docs/runtime-graphs.md.
//
//===----------------------------------------------------------------------===//
#include "kiln/graph.hpp"

#include "kiln/error.hpp"
#include "kiln/memory.hpp"

#include "runtime/cuda/driver.hpp"
#include "runtime/cuda/driver_status.hpp"
#include "runtime/memory/caching_pool.hpp"
#include "runtime/stream/capture.hpp"

#include <atomic>
#include <exception>
#include <mutex>
#include <string>

namespace kiln {

struct graph::impl {
  device dev;
  /// The callable: what launch runs on the host; on a GPU kept alive (with
  /// whatever it captured by value, which the graph may use) until the end.
  std::function<void()> fn;
  CUgraph cu_graph = nullptr;
  CUgraphExec exec = nullptr;
  CUstream capture_stream = nullptr;
  std::shared_ptr<detail::capture_sink> sink;
  /// Launched on a stream other than capture_stream: the destructor then
  /// waits for the device before the graph's memory goes back to the pool.
  std::atomic<bool> launched_elsewhere{false};
  /// CUDA's graph objects are not thread-safe: launches take turns.
  std::mutex launch_mutex;

  explicit impl(device d) : dev(d) {}
  impl(const impl &) = delete;
  impl &operator=(const impl &) = delete;
  ~impl();
};

namespace detail {
namespace {

thread_local const active_capture *tl_capture = nullptr;

bool is_capture_error(int code) noexcept {
  switch (code) {
  case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED:
  case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED:
  case CUDA_ERROR_STREAM_CAPTURE_MERGE:
  case CUDA_ERROR_STREAM_CAPTURE_UNMATCHED:
  case CUDA_ERROR_STREAM_CAPTURE_UNJOINED:
  case CUDA_ERROR_STREAM_CAPTURE_ISOLATION:
  case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT:
  case CUDA_ERROR_CAPTURED_EVENT:
  case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD:
    return true;
  default:
    return false;
  }
}

/// Makes the GPU's retained context current, ignoring errors (destructors).
void make_current_quietly(const cuda::driver_api &api, int ordinal) noexcept {
  CUcontext ctx = cuda::retained_context(ordinal);
  if (!ctx)
    return;
  CUcontext cur = nullptr;
  if (api.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur != ctx)
    api.cuCtxSetCurrent(ctx);
}

} // namespace

const active_capture *thread_capture() noexcept { return tl_capture; }

capture_scope::capture_scope(const active_capture *c) noexcept { tl_capture = c; }
capture_scope::~capture_scope() { tl_capture = nullptr; }

void check_not_capturing(const char *what) {
  const active_capture *c = tl_capture;
  if (!c)
    return;
  throw cuda_error(std::string(what) + " is not allowed inside kiln::capture (capturing on " +
                       c->dev.str() +
                       "): it waits for the GPU or reads its results, and the captured work only "
                       "runs at kiln::graph::launch; do it before or after the capture "
                       "(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; the capture is abandoned when "
                       "this error leaves the lambda)",
                   CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
}

graph capture_function(const stream &s, std::function<void()> fn) {
  if (!fn)
    throw value_error("kiln::capture: the callable is empty");
  if (const active_capture *c = tl_capture)
    throw value_error("kiln::capture cannot be nested: this thread is already capturing on " +
                      c->dev.str());
  const device dev = s.get_device();
  auto p = std::make_unique<graph::impl>(dev);
  if (dev.is_host()) {
    // Host work runs at once, in the calling thread: the graph is the
    // callable, run by each launch (docs/runtime-graphs.md).
    p->fn = std::move(fn);
    return graph(std::move(p));
  }
  auto h = static_cast<CUstream>(s.native_handle());
  if (!h)
    throw value_error("kiln::capture needs a stream made with kiln::stream(" + dev.str() +
                      "): CUDA cannot capture the default stream of " + dev.str());
  const cuda::driver_api &api = cuda::require_driver();
  cuda::make_current(dev.index());
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  KILN_CU(api, cuStreamIsCapturing, h, &status);
  if (status != CU_STREAM_CAPTURE_STATUS_NONE)
    throw value_error("kiln::capture: the stream is already being captured");
  auto &pool = static_cast<caching_pool &>(get_default_memory_pool(dev));
  auto sink = std::make_shared<capture_sink>();

  // Relaxed: the pool may call cuMemAlloc and the first launch of a kernel
  // load its module while capturing; the runtime's own synchronizing calls
  // are refused by check_not_capturing, and CUDA refuses to synchronize a
  // capturing stream in any mode.
  KILN_CU(api, cuStreamBeginCapture, h, CU_STREAM_CAPTURE_MODE_RELAXED);
  std::exception_ptr failure;
  {
    const active_capture state{dev, h, &pool, sink};
    try {
      device_scope on_device(dev);
      stream_scope on_stream(s);
      capture_scope capturing(&state);
      fn();
    } catch (...) {
      failure = std::current_exception();
    }
  }
  cuda::make_current(dev.index()); // fn may have switched contexts
  CUgraph g = nullptr;
  const CUresult end = api.cuStreamEndCapture(h, &g);
  if (failure || end != CUDA_SUCCESS) {
    if (g)
      api.cuGraphDestroy(g);
    sink->close(); // the memory of the partial graph goes back to the pool
    if (failure) {
      try {
        std::rethrow_exception(failure);
      } catch (const cuda_error &e) {
        const std::string what = e.what();
        if (is_capture_error(e.code()) && what.find("kiln::capture") == std::string::npos)
          throw cuda_error("kiln::capture: an operation inside the lambda is not allowed while a "
                           "graph is captured (the capture was abandoned): " +
                               what,
                           e.code());
        throw;
      }
    }
    try {
      cuda::check(end, "cuStreamEndCapture");
    } catch (const cuda_error &e) {
      throw cuda_error(std::string("kiln::capture: ") + e.what() +
                           " (an operation inside the lambda invalidated the capture, e.g. an "
                           "error caught inside it; the capture was abandoned)",
                       e.code());
    }
  }
  CUgraphExec exec = nullptr;
  const CUresult r = api.cuGraphInstantiateWithFlags(&exec, g, 0);
  if (r != CUDA_SUCCESS) {
    api.cuGraphDestroy(g);
    sink->close();
    cuda::check(r, "cuGraphInstantiateWithFlags");
  }
  p->fn = std::move(fn);
  p->cu_graph = g;
  p->exec = exec;
  p->capture_stream = h;
  p->sink = std::move(sink);
  return graph(std::move(p));
}

} // namespace detail

graph::impl::~impl() {
  if (cu_graph || exec) {
    // At process exit the driver may be gone: errors are ignored.
    if (const auto *api = detail::cuda::driver()) {
      detail::make_current_quietly(*api, dev.index());
      // Its memory may still be in use on another stream: wait for it
      // before the blocks go back to the pool (below). An executable graph
      // still running is freed by the driver when it completes.
      if (launched_elsewhere.load(std::memory_order_relaxed))
        api->cuCtxSynchronize();
      if (exec)
        api->cuGraphExecDestroy(exec);
      if (cu_graph)
        api->cuGraphDestroy(cu_graph);
    }
  }
  // Launches on the capturing stream are ordered before any later use of
  // these blocks: the pool hands them out again on that stream only.
  if (sink)
    sink->close();
}

graph::graph() noexcept = default;
graph::graph(std::unique_ptr<impl> p) noexcept : impl_(std::move(p)) {}
graph::graph(graph &&) noexcept = default;
graph &graph::operator=(graph &&) noexcept = default;
graph::~graph() = default;

namespace {
void require(const std::unique_ptr<graph::impl> &p, const char *what) {
  if (!p)
    throw value_error(std::string("kiln::graph::") + what +
                      ": the graph is empty (default-constructed or moved from)");
}
} // namespace

void graph::launch(const stream &s) const {
  require(impl_, "launch");
  const device dev = impl_->dev;
  if (s.get_device() != dev)
    throw device_error("kiln::graph::launch: the graph was captured on " + dev.str() +
                       " but the stream is of " + s.get_device().str());
  if (dev.is_host()) {
    device_scope on_device(dev);
    stream_scope on_stream(s);
    impl_->fn();
    return;
  }
  const auto &api = detail::cuda::require_driver();
  detail::cuda::make_current(dev.index());
  auto h = static_cast<CUstream>(s.native_handle());
  {
    std::lock_guard<std::mutex> lock(impl_->launch_mutex);
    KILN_CU(api, cuGraphLaunch, impl_->exec, h);
  }
  if (h != impl_->capture_stream)
    impl_->launched_elsewhere.store(true, std::memory_order_relaxed);
  detail::cuda::launched(api, dev.index(), "kiln::graph (a captured graph)", h);
}

void graph::launch() const {
  require(impl_, "launch");
  launch(stream::current(impl_->dev));
}

device graph::get_device() const {
  require(impl_, "get_device");
  return impl_->dev;
}

std::size_t graph::num_nodes() const {
  require(impl_, "num_nodes");
  if (!impl_->cu_graph)
    return 0;
  const auto &api = detail::cuda::require_driver();
  detail::cuda::make_current(impl_->dev.index());
  std::size_t n = 0;
  KILN_CU(api, cuGraphGetNodes, impl_->cu_graph, nullptr, &n);
  return n;
}

std::size_t graph::owned_bytes() const {
  require(impl_, "owned_bytes");
  return impl_->sink ? impl_->sink->held_bytes() : 0;
}

} // namespace kiln
