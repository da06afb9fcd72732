//===- runtime/memory/pools.cpp - The default pools
//------------------------===//
//
// One caching_pool per device, created on first use, and the pinned pool.
// Pools are never destroyed: allocations may die during process exit.
//
//===----------------------------------------------------------------------===//
#include "kiln/memory.hpp"

#include "runtime/memory/caching_pool.hpp"

#include <atomic>
#include <mutex>

namespace kiln {
namespace {

constexpr int max_gpus = 64;
std::atomic<detail::caching_pool *> gpu_pools[max_gpus];
std::mutex gpu_pools_mutex;

} // namespace

memory_pool &get_default_memory_pool(device dev) {
  check_device(dev);
  if (dev.is_host()) {
    static auto *host = new detail::caching_pool(
        device::host(), detail::caching_pool::backend::host);
    return *host;
  }
  auto &slot =
      gpu_pools[dev.index()]; // check_device: index < cuda_device_count() <= 64
  if (auto *p = slot.load(std::memory_order_acquire))
    return *p;
  std::lock_guard<std::mutex> lock(gpu_pools_mutex);
  if (auto *p = slot.load(std::memory_order_relaxed))
    return *p;
  auto *p =
      new detail::caching_pool(dev, detail::caching_pool::backend::device);
  slot.store(p, std::memory_order_release);
  return *p;
}

memory_pool &get_default_pinned_memory_pool() { return detail::pinned_pool(); }

namespace detail {
caching_pool &pinned_pool() {
  static auto *pinned =
      new caching_pool(device::host(), caching_pool::backend::pinned);
  return *pinned;
}
} // namespace detail

} // namespace kiln
