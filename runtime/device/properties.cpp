//===- runtime/device/properties.cpp - Device properties
//-------------------===//
//
// kiln::properties: driver attributes of a GPU (cached), or for the host its
// CPU model, core count, physical memory and L2 size.
//
//===----------------------------------------------------------------------===//
#include "kiln/device.hpp"
#include "kiln/error.hpp"

#include "runtime/cuda/driver.hpp"

#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>

namespace kiln {
namespace {

device_properties host_properties() {
  device_properties p;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::size_t b = line.find_first_not_of(" \t", colon + 1);
        p.name = b == std::string::npos ? "" : line.substr(b);
      }
      break;
    }
  }
  if (p.name.empty())
    p.name = "host CPU";
  p.multiprocessors = static_cast<int>(std::thread::hardware_concurrency());
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0)
    p.total_memory =
        static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
  p.max_threads_per_block = 1; // raw kernels run their threads in sequence
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (l2 > 0)
    p.l2_cache_bytes = static_cast<std::size_t>(l2);
  return p;
}

device_properties gpu_properties(int ordinal) {
  const auto &api = detail::cuda::require_driver();
  CUdevice dev{};
  KILN_CU(api, cuDeviceGet, &dev, ordinal);
  device_properties p;
  char name[256] = {};
  KILN_CU(api, cuDeviceGetName, name, static_cast<int>(sizeof name - 1), dev);
  p.name = name;
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    KILN_CU(api, cuDeviceGetAttribute, &v, a, dev);
    return v;
  };
  p.multiprocessors = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  p.compute_capability_major =
      attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  p.compute_capability_minor =
      attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  p.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  p.l2_cache_bytes =
      static_cast<std::size_t>(attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  std::size_t total = 0;
  KILN_CU(api, cuDeviceTotalMem, &total, dev);
  p.total_memory = total;
  return p;
}

} // namespace

device_properties properties(device dev) {
  check_device(dev);
  static std::mutex mutex;
  static auto *cache = new std::map<int, device_properties>(); // -1: the host
  int key = dev.is_host() ? -1 : dev.index();
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache->find(key);
    if (it != cache->end())
      return it->second;
  }
  device_properties p =
      dev.is_host() ? host_properties() : gpu_properties(dev.index());
  std::lock_guard<std::mutex> lock(mutex);
  return cache->emplace(key, std::move(p)).first->second;
}

} // namespace kiln
