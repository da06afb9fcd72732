//===- runtime/nvrtc/nvrtc_library.cpp - Loading NVRTC at run time --------===//
//
// Opens libnvrtc with dlopen once (as runtime/cuda/driver.cpp opens libcuda)
// and resolves every entry point of nvrtc_functions.def with dlsym. No NVRTC:
// loaded() is nullptr and require() throws compile_error saying what to
// install; nothing else in the runtime needs NVRTC.
//
//===----------------------------------------------------------------------===//
#include "runtime/nvrtc/nvrtc_library.hpp"

#include "kiln/error.hpp"

#include <atomic>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <vector>

namespace kiln::detail::nvrtc {
namespace {

// Never destroyed (and never unloaded): modules made from its output live as
// long as the process.
struct attempt {
  library lib;
  bool ok = false;
  std::string reason;
};

/// Where to look, in order.
std::vector<std::string> candidates() {
  if (const char *forced = std::getenv("KILN_NVRTC"); forced && *forced)
    return {forced};
  std::vector<std::string> names = {"libnvrtc.so.13", "libnvrtc.so", "libnvrtc.so.12"};
  std::vector<std::string> dirs;
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    dirs.push_back(std::string(home) + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  std::vector<std::string> all = names;
  for (const std::string &d : dirs)
    for (const std::string &n : names)
      all.push_back(d + "/" + n);
  return all;
}

attempt *load() {
  auto *a = new attempt();
  const std::vector<std::string> tried = candidates();
  void *handle = nullptr;
  std::string first_error;
  for (const std::string &name : tried) {
    handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      a->lib.path = name;
      break;
    }
    if (first_error.empty()) {
      const char *why = dlerror();
      first_error = why ? why : name + ": cannot be loaded";
    }
  }
  if (!handle) {
    std::string list;
    for (const std::string &name : tried)
      list += (list.empty() ? "" : ", ") + name;
    a->reason = "NVRTC could not be loaded (tried " + list + "; " + first_error + ")";
    return a;
  }
  std::string missing;
#define KILN_NVRTC_FN(name)                                                                                    \
  if (void *p = dlsym(handle, #name))                                                                          \
    a->lib.name = reinterpret_cast<decltype(a->lib.name)>(p);                                                  \
  else                                                                                                         \
    missing += std::string(missing.empty() ? "" : ", ") + #name;
#include "runtime/nvrtc/nvrtc_functions.def"
#undef KILN_NVRTC_FN
  if (!missing.empty()) {
    a->reason = "the NVRTC library " + a->lib.path + " lacks entry points: " + missing + " (CUDA 12 or newer needed)";
    return a;
  }
  if (a->lib.nvrtcVersion(&a->lib.major, &a->lib.minor) != NVRTC_SUCCESS) {
    a->reason = "nvrtcVersion failed in " + a->lib.path;
    return a;
  }
  a->ok = true;
  return a;
}

std::atomic<attempt *> current{nullptr};
std::mutex load_mutex;

const attempt &get() {
  if (attempt *a = current.load(std::memory_order_acquire))
    return *a;
  std::lock_guard<std::mutex> lock(load_mutex);
  attempt *a = current.load(std::memory_order_relaxed);
  if (!a) {
    a = load(); // intentionally leaked
    current.store(a, std::memory_order_release);
  }
  return *a;
}

} // namespace

const library *loaded() noexcept {
  try {
    const attempt &a = get();
    return a.ok ? &a.lib : nullptr;
  } catch (...) { // std::bad_alloc
    return nullptr;
  }
}

std::string unavailable_reason() {
  const attempt &a = get();
  return a.ok ? std::string() : a.reason;
}

const library &require() {
  const attempt &a = get();
  if (a.ok)
    return a.lib;
  throw compile_error("kiln::raw_module: cannot compile CUDA source: " + a.reason +
                      "; install NVRTC, the CUDA toolkit's runtime compiler (the cuda-nvrtc-13-0 package, or the "
                      "whole CUDA 13 toolkit), and make it visible (the library path, CUDA_HOME, or KILN_NVRTC=<path "
                      "of libnvrtc.so>); KILN_RAWKERNEL kernels, compiled ahead of time by kilnc, need no NVRTC");
}

std::string result_text(const library &lib, nvrtcResult r) {
  const char *name = lib.nvrtcGetErrorString ? lib.nvrtcGetErrorString(r) : nullptr;
  return std::string(name ? name : "NVRTC_ERROR") + " (" + std::to_string(static_cast<int>(r)) + ")";
}

void reset_for_testing() {
  std::lock_guard<std::mutex> lock(load_mutex);
  current.store(nullptr, std::memory_order_release);
}

} // namespace kiln::detail::nvrtc
