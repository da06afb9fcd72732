//===- runtime/fft/plan_cache.cpp - cuFFT plans, cached per device --------===//
//
// One LRU list per device under one mutex; kiln::fft::plan_cache's methods
// read and set its limits. A plan dropped from the cache while an execution
// holds it is destroyed when that execution lets it go (shared_ptr).
//
//===----------------------------------------------------------------------===//
#include "plan_cache.hpp"

#include "cufft.hpp"

#include "kiln/error.hpp"
#include "kiln/fft.hpp"
#include "runtime/cuda/driver.hpp"

#include <list>
#include <map>
#include <utility>

namespace kiln::detail::fft_plans {
namespace {

struct device_cache {
  std::list<std::pair<key, std::shared_ptr<plan>>> lru; ///< most recent first
  std::size_t max_plans = 16;
  std::int64_t max_bytes = -1;
  std::int64_t bytes = 0;

  void trim() {
    while (!lru.empty() && (lru.size() > max_plans || (max_bytes >= 0 && bytes > max_bytes))) {
      bytes -= static_cast<std::int64_t>(lru.back().second->work_bytes);
      lru.pop_back();
    }
  }
};

std::mutex &caches_mutex() {
  static std::mutex m;
  return m;
}

/// Every device's cache (never destroyed: plans may be let go at exit).
std::map<int, device_cache> &caches() {
  static auto *c = new std::map<int, device_cache>();
  return *c;
}

std::shared_ptr<plan> make(const key &k) {
  const cufft::api &lib = cufft::require();
  auto p = std::make_shared<plan>();
  p->device = k.device;
  cufft::check(lib.cufftCreate(&p->handle), "cufftCreate");
  cufft::check(lib.cufftSetAutoAllocation(p->handle, 0), "cufftSetAutoAllocation");
  long long n[3] = {k.n[0], k.n[1], k.n[2]};
  std::size_t work = 0;
  cufft::check(lib.cufftMakePlanMany64(p->handle, k.rank, n, nullptr, 1, 0, nullptr, 1, 0, k.type, k.batch, &work),
               "cufftMakePlanMany64");
  p->work_bytes = work;
  return p;
}

void clear_device(int device) {
  std::lock_guard<std::mutex> lock(caches_mutex());
  if (auto it = caches().find(device); it != caches().end()) {
    it->second.lru.clear();
    it->second.bytes = 0;
  }
}

} // namespace

plan::~plan() {
  if (!handle)
    return;
  try {
    cuda::make_current(device);
    cufft::require().cufftDestroy(handle);
  } catch (...) { // errors at teardown are not reportable
  }
}

std::shared_ptr<plan> acquire(const key &k) {
  {
    std::lock_guard<std::mutex> lock(caches_mutex());
    device_cache &c = caches()[k.device];
    for (auto it = c.lru.begin(); it != c.lru.end(); ++it)
      if (it->first == k) {
        c.lru.splice(c.lru.begin(), c.lru, it);
        return it->second;
      }
  }
  std::shared_ptr<plan> p;
  try {
    p = make(k);
  } catch (const out_of_memory &) {
    clear_device(k.device); // the cached plans' memory back, then once more
    p = make(k);
  }
  std::lock_guard<std::mutex> lock(caches_mutex());
  device_cache &c = caches()[k.device];
  if (c.max_plans > 0) {
    c.lru.emplace_front(k, p);
    c.bytes += static_cast<std::int64_t>(p->work_bytes);
    c.trim();
  }
  return p;
}

} // namespace kiln::detail::fft_plans

namespace kiln::fft {

using kiln::detail::fft_plans::caches;
using kiln::detail::fft_plans::caches_mutex;

std::size_t plan_cache::size() const {
  std::lock_guard<std::mutex> lock(caches_mutex());
  return caches()[dev_.index()].max_plans;
}

void plan_cache::set_size(std::size_t plans) {
  std::lock_guard<std::mutex> lock(caches_mutex());
  auto &c = caches()[dev_.index()];
  c.max_plans = plans;
  c.trim();
}

std::int64_t plan_cache::memsize() const {
  std::lock_guard<std::mutex> lock(caches_mutex());
  return caches()[dev_.index()].max_bytes;
}

void plan_cache::set_memsize(std::int64_t bytes) {
  std::lock_guard<std::mutex> lock(caches_mutex());
  auto &c = caches()[dev_.index()];
  c.max_bytes = bytes < 0 ? -1 : bytes;
  c.trim();
}

std::size_t plan_cache::count() const {
  std::lock_guard<std::mutex> lock(caches_mutex());
  return caches()[dev_.index()].lru.size();
}

std::int64_t plan_cache::current_memsize() const {
  std::lock_guard<std::mutex> lock(caches_mutex());
  return caches()[dev_.index()].bytes;
}

void plan_cache::clear() { kiln::detail::fft_plans::clear_device(dev_.index()); }

} // namespace kiln::fft
