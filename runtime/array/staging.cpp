//===- runtime/array/staging.cpp - Pageable transfers through pinned memory
//-===//
//
// The driver side of staging.hpp: the configuration (constants, overridden
// by KILN_STAGING_CHUNK_MIB / KILN_STAGING_THREADS), the multi-threaded host
// copy, and the two staged copies, which run the pipelines of staging.hpp
// with two buffers of the pinned pool and two events on the caller's stream.
// Anything that keeps a copy from being staged (a small copy, staging turned
// off, host memory the driver already knows, no pinned memory, no events) is
// found before anything is queued, and the caller then uses the driver's own
// path: staging never makes a transfer fail.
//
//===----------------------------------------------------------------------===//
#include "runtime/array/staging.hpp"

#include "kiln/error.hpp"
#include "kiln/memory.hpp"
#include "kiln/stream.hpp"

#include "runtime/cuda/driver.hpp"
#include "runtime/parallel/thread_pool.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

namespace kiln::detail::staging {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

/// A decimal integer in [0, max] with optional surrounding spaces, or -1.
long long parse_bounded(const char *s, long long max) noexcept {
  if (!s)
    return -1;
  while (is_space(*s))
    ++s;
  if (*s < '0' || *s > '9')
    return -1;
  long long v = 0;
  for (; *s >= '0' && *s <= '9'; ++s) {
    v = v * 10 + (*s - '0');
    if (v > max)
      return -1;
  }
  while (is_space(*s))
    ++s;
  return *s == '\0' ? v : -1;
}

std::mutex config_mutex;
bool config_set = false;
config the_config;

} // namespace

config parse_env(const char *chunk_mib, const char *threads) noexcept {
  config c;
  const long long mb = parse_bounded(chunk_mib, 1024);
  if (mb >= 0) {
    c.max_chunk = static_cast<std::size_t>(mb) * mib;
    c.min_chunk = std::min(c.min_chunk, c.max_chunk);
  }
  c.threads = parallel::parse_num_threads(threads, default_threads);
  return c;
}

config current_config() noexcept {
  std::lock_guard<std::mutex> lock(config_mutex);
  if (!config_set) {
    the_config = parse_env(std::getenv("KILN_STAGING_CHUNK_MIB"),
                           std::getenv("KILN_STAGING_THREADS"));
    config_set = true;
  }
  return the_config;
}

config set_config_for_testing(const config &c) noexcept {
  config old = current_config();
  std::lock_guard<std::mutex> lock(config_mutex);
  the_config = c;
  return old;
}

void parallel_copy(void *dst, const void *src, std::size_t n, int threads) {
  if (n == 0)
    return;
  // Ranges in whole pages, so that two threads never write one cache line.
  constexpr std::size_t page = 4096;
  auto *d = static_cast<char *>(dst);
  const auto *s = static_cast<const char *>(src);
  const auto pages = static_cast<std::int64_t>(ceil_div(n, page));
  parallel::parallel_for_limited(
      pages, static_cast<std::int64_t>(copy_grain_bytes / page), threads,
      [&](std::int64_t begin, std::int64_t end) {
        const std::size_t lo = static_cast<std::size_t>(begin) * page;
        const std::size_t hi =
            std::min(n, static_cast<std::size_t>(end) * page);
        std::memcpy(d + lo, s + lo, hi - lo);
      });
}

namespace {

/// The staging buffers, the events and the stream of one staged copy. Its
/// destructor, when the copy did not complete (an exception), waits for the
/// stream before the buffers go back to the pool; if even that fails, the
/// buffers are leaked rather than reused under a DMA.
class gpu_engine {
public:
  gpu_engine(const cuda::driver_api &api, CUstream s, char *device, char *host,
             std::size_t chunk, int threads)
      : api_(api), stream_(s), device_(device), host_(host), chunk_(chunk),
        threads_(threads) {}

  gpu_engine(const gpu_engine &) = delete;
  gpu_engine &operator=(const gpu_engine &) = delete;

  ~gpu_engine() {
    if (queued_ && api_.cuStreamSynchronize(stream_) != CUDA_SUCCESS)
      new allocation(std::move(staging_)); // never freed: a DMA may use it
    for (CUevent e : events_)
      if (e)
        api_.cuEventDestroy(e); // errors ignored
  }

  /// Takes the pinned buffers and makes the events; false (nothing queued)
  /// when either is not to be had.
  bool setup(int buffers) {
    try {
      staging_ = get_default_pinned_memory_pool().allocate(
          static_cast<std::size_t>(buffers) * chunk_,
          stream::default_stream(device::host()));
    } catch (const kiln::error &) { // out_of_memory, a cuMemHostAlloc error
      return false;
    } catch (const std::bad_alloc &) {
      return false;
    }
    for (int b = 0; b < buffers; ++b)
      if (api_.cuEventCreate(&events_[b], CU_EVENT_DISABLE_TIMING) !=
          CUDA_SUCCESS) {
        events_[b] = nullptr;
        return false;
      }
    return true;
  }

  // Host -> device.
  void fill(int b, range r) {
    parallel_copy(buffer(b), host_ + r.offset, r.size, threads_);
  }
  void transfer_to_device(int b, range r) {
    queued_ = true;
    KILN_CU(api_, cuMemcpyHtoDAsync,
            reinterpret_cast<CUdeviceptr>(device_ + r.offset), buffer(b),
            r.size, stream_);
  }
  void finish() {
    KILN_CU(api_, cuStreamSynchronize, stream_);
    queued_ = false;
  }

  // Device -> host.
  void transfer_to_host(int b, range r) {
    queued_ = true;
    KILN_CU(api_, cuMemcpyDtoHAsync, buffer(b),
            reinterpret_cast<CUdeviceptr>(device_ + r.offset), r.size, stream_);
  }
  void drain(int b, range r) {
    parallel_copy(host_ + r.offset, buffer(b), r.size, threads_);
  }

  void record(int b) { KILN_CU(api_, cuEventRecord, events_[b], stream_); }
  void wait(int b) { KILN_CU(api_, cuEventSynchronize, events_[b]); }
  /// Every transfer queued so far has completed (after the last wait of a
  /// device -> host copy).
  void done() { queued_ = false; }

private:
  char *buffer(int b) const {
    return static_cast<char *>(staging_.get()) +
           static_cast<std::size_t>(b) * chunk_;
  }

  const cuda::driver_api &api_;
  CUstream stream_;
  char *device_;
  char *host_;
  std::size_t chunk_;
  int threads_;
  allocation staging_;
  CUevent events_[max_buffers] = {};
  bool queued_ = false;
};

/// The adapters the pipelines of staging.hpp call.
struct h2d_adapter {
  gpu_engine &e;
  void fill(int b, range r) { e.fill(b, r); }
  void transfer(int b, range r) { e.transfer_to_device(b, r); }
  void record(int b) { e.record(b); }
  void wait(int b) { e.wait(b); }
  void finish() { e.finish(); }
};
struct d2h_adapter {
  gpu_engine &e;
  void transfer(int b, range r) { e.transfer_to_host(b, r); }
  void record(int b) { e.record(b); }
  void wait(int b) { e.wait(b); }
  void drain(int b, range r) { e.drain(b, r); }
};

/// True when `host` is memory the driver does not know (plain pageable
/// memory): pinned, registered or managed memory keeps the driver's path,
/// which reads it directly. cuPointerGetAttributes (plural) answers a memory
/// type of 0 for a pointer it does not know, where the singular form fails
/// with CUDA_ERROR_INVALID_VALUE -- an API error compute-sanitizer reports
/// on every transfer.
bool is_pageable(const cuda::driver_api &api, const void *host) {
  unsigned int type = 0, managed = 0;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED};
  void *data[] = {&type, &managed};
  return api.cuPointerGetAttributes(2, attributes, data, reinterpret_cast<CUdeviceptr>(host)) == CUDA_SUCCESS &&
         type == 0 && managed == 0;
}

} // namespace

bool to_device(void *device_dst, const void *host, std::size_t nbytes,
               void *stream_handle) {
  const config c = current_config();
  const plan p = make_plan(nbytes, c);
  const cuda::driver_api *api = cuda::driver();
  if (!p.staged || !api || !is_pageable(*api, host))
    return false;
  gpu_engine e(*api, static_cast<CUstream>(stream_handle),
               static_cast<char *>(device_dst),
               const_cast<char *>(static_cast<const char *>(host)), p.chunk,
               c.threads);
  if (!e.setup(p.buffers))
    return false;
  h2d_adapter a{e};
  run_h2d(a, p, nbytes);
  return true;
}

bool to_host(void *host_dst, const void *device_src, std::size_t nbytes,
             void *stream_handle) {
  const config c = current_config();
  const plan p = make_plan(nbytes, c);
  const cuda::driver_api *api = cuda::driver();
  if (!p.staged || !api || !is_pageable(*api, host_dst))
    return false;
  gpu_engine e(*api, static_cast<CUstream>(stream_handle),
               const_cast<char *>(static_cast<const char *>(device_src)),
               static_cast<char *>(host_dst), p.chunk, c.threads);
  if (!e.setup(p.buffers))
    return false;
  d2h_adapter a{e};
  run_d2h(a, p, nbytes);
  e.done();
  return true;
}

} // namespace kiln::detail::staging
