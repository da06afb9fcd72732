//===- runtime/memory/caching_pool.cpp - The caching allocator
//-------------===//
//
// Allocation takes a cached block of the same stream when one fits (no driver
// call), else asks the backend (cuMemAlloc, cuMemHostAlloc or host pages,
// host_pages.hpp); on OOM or a reached limit it frees the cache and retries once.
//
//===----------------------------------------------------------------------===//
#include "runtime/memory/caching_pool.hpp"
#include "runtime/memory/host_pages.hpp"

#include "kiln/error.hpp"

#include "runtime/cuda/driver.hpp"
#include "runtime/stream/capture.hpp"

#include <limits>
#include <new>
#include <type_traits>

namespace kiln::detail {
namespace {

struct block_deleter {
  caching_pool *pool;
  std::size_t size;
  caching_pool::stream_key key;
  void operator()(void *p) const noexcept { pool->release(p, size, key); }
};

/// The deleter of a block handed out during a graph capture: the block goes
/// to the capture's sink while the graph (or the capture) lives.
struct captured_block_deleter {
  caching_pool *pool;
  std::size_t size;
  caching_pool::stream_key key;
  std::shared_ptr<capture_sink> sink;
  void operator()(void *p) const noexcept {
    if (!sink->hold(pool, p, size, key))
      pool->release(p, size, key);
  }
};

/// The sink of the calling thread's capture when it captures on `pool`.
capture_sink *capturing_on(const caching_pool *pool) noexcept {
  const active_capture *c = thread_capture();
  return c && c->pool == pool ? c->sink.get() : nullptr;
}

/// A block bigger than this many times the request is not handed out for it:
/// it stays cached for requests of its own size.
constexpr std::size_t max_waste_factor = 2;

/// Makes some context current for pinned host memory calls: the thread's own
/// when it has one, else the current device's (or cuda:0).
void ensure_context(const cuda::driver_api &api) {
  CUcontext cur = nullptr;
  if (api.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur)
    return;
  device d = device::host();
  try {
    d = current_device();
  } catch (const error &) {
  }
  cuda::make_current(d.is_cuda() ? d.index() : 0);
}

} // namespace

// free_list::hot points into its map: the lists must move, never copy, when
// lists_ grows.
static_assert(std::is_nothrow_move_constructible_v<std::map<std::size_t, std::vector<void *>>>);

caching_pool::caching_pool(device dev, backend kind)
    : device_(dev), kind_(kind) {}

std::string caching_pool::name() const {
  return kind_ == backend::pinned ? "host (pinned)" : device_.str();
}

void *caching_pool::take_cached(std::size_t rounded, stream_key key,
                                std::size_t &size) {
  for (free_list &l : lists_) {
    if (!(l.key == key))
      continue;
    if (l.hot && l.hot_size == rounded && !l.hot->empty()) { // the common case: a block of this very size
      void *p = l.hot->back();
      l.hot->pop_back();
      size = rounded;
      return p;
    }
    auto it = l.bins.lower_bound(rounded);
    while (it != l.bins.end()) {
      if (it->first > rounded * max_waste_factor)
        return nullptr;
      if (!it->second.empty()) {
        void *p = it->second.back();
        it->second.pop_back();
        size = it->first;
        return p;
      }
      // Empty bins stay for their own size (their vector keeps its capacity,
      // so alloc/free of one size never touches the heap); others are pruned.
      if (it->first == rounded) {
        ++it;
      } else {
        if (l.hot == &it->second)
          l.hot = nullptr;
        it = l.bins.erase(it);
      }
    }
    return nullptr;
  }
  return nullptr;
}

allocation caching_pool::allocate(std::size_t nbytes, const stream &s) {
  device sd = s.get_device();
  if (kind_ != backend::pinned && sd != device_)
    throw device_error("cannot allocate from the memory pool of " +
                       device_.str() + " for a stream of " + sd.str());
  if (nbytes > std::numeric_limits<std::size_t>::max() / 2)
    throw_oom(nbytes);
  std::size_t rounded =
      nbytes == 0 ? size_class
                  : (nbytes + size_class - 1) / size_class * size_class;
  stream_key key{sd.is_host() ? -1 : sd.index(), s.native_handle()};

  std::size_t size = rounded;
  void *p = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    p = take_cached(rounded, key, size);
    if (p)
      used_ += size;
  }
  if (!p) {
    size = rounded;
    p = allocate_new(rounded, nbytes);
  }
  // Should the control block fail to allocate, shared_ptr calls the deleter.
  if (capturing_on(this)) // kiln::capture: the block belongs to the graph
    return allocation(p, captured_block_deleter{this, size, key, thread_capture()->sink});
  return allocation(p, block_deleter{this, size, key});
}

void *caching_pool::allocate_new(std::size_t rounded, std::size_t nbytes) {
  for (int attempt = 0;; ++attempt) {
    bool within_limit;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      within_limit = limit_ == 0 || total_ + rounded <= limit_;
      if (within_limit)
        total_ += rounded; // reserved while the backend allocates unlocked
    }
    if (within_limit) {
      void *p = nullptr;
      try {
        p = backend_allocate(rounded);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        total_ -= rounded;
        throw;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (p) {
        used_ += rounded;
        ++backend_allocations_;
        return p;
      }
      total_ -= rounded;
    }
    // Inside kiln::capture the cache cannot be freed (that synchronizes).
    if (attempt == 1 || capturing_on(this))
      throw_oom(nbytes);
    free_all_blocks(); // synchronizes, then returns the cache to the driver
  }
}

void caching_pool::release(void *p, std::size_t size, stream_key key) noexcept {
  // A block freed by a thread that captures a graph on this pool may be used
  // by the captured work: it is kept until the graph is destroyed.
  if (capture_sink *sink = capturing_on(this); sink && sink->hold(this, p, size, key))
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  used_ -= size;
  try {
    for (free_list &l : lists_)
      if (l.key == key) {
        l.bin(size).push_back(p);
        return;
      }
    lists_.push_back(free_list{key, {}});
    lists_.back().bin(size).push_back(p);
  } catch (...) {
    // No memory to cache the block: it stays counted in total_bytes() and is
    // lost to the pool. (Cannot free it here: the deleter must not throw or
    // call the driver at exit.)
  }
}

std::size_t caching_pool::used_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

std::size_t caching_pool::total_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return total_;
}

std::size_t caching_pool::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return total_ - used_;
}

std::size_t caching_pool::backend_allocations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return backend_allocations_;
}

void caching_pool::set_limit(std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  limit_ = bytes;
}

std::size_t caching_pool::get_limit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return limit_;
}

void caching_pool::free_all_blocks() {
  // Before touching the cache: it synchronizes, which a capture forbids.
  check_not_capturing("memory_pool::free_all_blocks (it synchronizes the device)");
  std::vector<std::pair<void *, std::size_t>> blocks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (free_list &l : lists_)
      for (auto &[size, ptrs] : l.bins)
        for (void *p : ptrs)
          blocks.emplace_back(p, size);
    lists_.clear();
  }
  if (blocks.empty())
    return;
  // Work queued on any stream may still use a cached block.
  backend_synchronize();
  for (auto &[p, size] : blocks) {
    backend_free(p, size);
    std::lock_guard<std::mutex> lock(mutex_);
    total_ -= size;
  }
}

void caching_pool::throw_oom(std::size_t nbytes) {
  std::size_t used, total, limit;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    used = used_, total = total_, limit = limit_;
  }
  throw out_of_memory(
      "out of memory allocating " + std::to_string(nbytes) + " bytes on " +
      name() + " (pool: used " + std::to_string(used) + ", total " +
      std::to_string(total) + ", limit " +
      (limit ? std::to_string(limit) : std::string("none")) + ")");
}

bool capture_sink::hold(caching_pool *pool, void *p, std::size_t size,
                        caching_pool::stream_key key) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_)
    return false;
  try {
    blocks_.push_back(held{pool, p, size, key});
  } catch (...) {
    return false; // no memory to remember it: the pool takes it back
  }
  bytes_ += size;
  return true;
}

void capture_sink::close() noexcept {
  std::vector<held> blocks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    blocks.swap(blocks_);
    bytes_ = 0;
  }
  for (const held &b : blocks)
    b.pool->release(b.p, b.size, b.key);
}

std::size_t capture_sink::held_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

void *caching_pool::backend_allocate(std::size_t size) {
  if (kind_ == backend::device) {
    const auto &api = cuda::require_driver();
    cuda::make_current(device_.index());
    CUdeviceptr dptr = 0;
    CUresult r = api.cuMemAlloc(&dptr, size);
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
      return nullptr;
    cuda::check(r, "cuMemAlloc");
    return reinterpret_cast<void *>(dptr);
  }
  if (kind_ == backend::pinned) {
    if (const auto *api = cuda::driver()) {
      ensure_context(*api);
      void *p = nullptr;
      CUresult r = api->cuMemHostAlloc(&p, size, CU_MEMHOSTALLOC_PORTABLE);
      if (r == CUDA_ERROR_OUT_OF_MEMORY)
        return nullptr;
      cuda::check(r, "cuMemHostAlloc");
      return p;
    }
  }
  return allocate_host_pages(size, host_alignment);
}

void caching_pool::backend_free(void *p, std::size_t size) {
  if (kind_ == backend::device) {
    const auto &api = cuda::require_driver();
    cuda::make_current(device_.index());
    KILN_CU(api, cuMemFree, reinterpret_cast<CUdeviceptr>(p));
    return;
  }
  if (kind_ == backend::pinned) {
    if (const auto *api = cuda::driver()) {
      ensure_context(*api);
      KILN_CU(*api, cuMemFreeHost, p);
      return;
    }
  }
  free_host_pages(p, size, host_alignment);
}

void caching_pool::backend_synchronize() {
  if (kind_ == backend::device)
    kiln::synchronize(device_);
  else if (kind_ == backend::pinned)
    kiln::synchronize(); // every GPU in use: async copies may read the blocks
}

} // namespace kiln::detail
