//===- runtime/blas/cublas.cpp - Loading cuBLAS and caching handles -------===//
//
// Opens libcublas.so.13 once (the plain soname, then the CUDA toolkit's
// library folders), resolves the entry points of cublas_functions.def, and
// keeps one cuBLAS handle per GPU for each thread.
//
//===----------------------------------------------------------------------===//
#include "cublas.hpp"

#include "kiln/error.hpp"
#include "runtime/cuda/driver.hpp"

#include <dlfcn.h>
#include <map>
#include <mutex>
#include <string>

namespace kiln::detail::cublas {
namespace {

struct loaded {
  api lib;
  bool ok = false;
  std::string reason;
};

// Never destroyed: handles may be released by thread-exit destructors late.
loaded *load() {
  auto *l = new loaded();
  const char *candidates[] = {
      "libcublas.so.13",
      "/usr/local/cuda/lib64/libcublas.so.13",
      "/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13",
  };
  void *so = nullptr;
  std::string errors;
  for (const char *path : candidates) {
    so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (so)
      break;
    const char *why = dlerror();
    errors += std::string(errors.empty() ? "" : "; ") + (why ? why : path);
  }
  if (!so) {
    l->reason = "cuBLAS (libcublas.so.13) could not be loaded: " + errors;
    return l;
  }
  std::string missing;
#define KILN_CUBLAS_FN(name)                                                   \
  if (void *p = dlsym(so, #name))                                              \
    l->lib.name = reinterpret_cast<decltype(l->lib.name)>(p);                  \
  else                                                                         \
    missing += std::string(missing.empty() ? "" : ", ") + #name;
#include "cublas_functions.def"
#undef KILN_CUBLAS_FN
  if (void *p = dlsym(so, "cublasGetStatusName"))
    l->lib.cublasGetStatusName =
        reinterpret_cast<decltype(l->lib.cublasGetStatusName)>(p);
  if (!missing.empty()) {
    l->reason = "cuBLAS (libcublas.so.13) lacks " + missing;
    return l;
  }
  l->ok = true;
  return l;
}

const loaded &library() {
  static const loaded *l = load();
  return *l;
}

/// The calling thread's handles, destroyed at thread exit.
struct thread_handles {
  std::map<int, cublasHandle_t> by_device;
  ~thread_handles() {
    const loaded &l = library();
    if (!l.ok)
      return;
    for (auto &[ordinal, h] : by_device) {
      try {
        cuda::make_current(ordinal);
        l.lib.cublasDestroy_v2(h); // errors at exit are not reportable
      } catch (...) {
      }
    }
  }
};

} // namespace

const api &require() {
  const loaded &l = library();
  if (!l.ok)
    throw device_error(l.reason);
  return l.lib;
}

void check(const api &lib, cublasStatus_t status, const char *call) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return;
  const char *name =
      lib.cublasGetStatusName ? lib.cublasGetStatusName(status) : nullptr;
  const char *text =
      lib.cublasGetStatusString ? lib.cublasGetStatusString(status) : nullptr;
  throw cuda_error(std::string(call) +
                       " failed: " + (name ? name : "CUBLAS_STATUS") + " (" +
                       std::to_string(static_cast<int>(status)) +
                       "): " + (text ? text : "unknown cuBLAS error"),
                   static_cast<int>(status));
}

cublasHandle_t handle(const api &lib, device dev) {
  thread_local thread_handles handles;
  auto it = handles.by_device.find(dev.index());
  if (it != handles.by_device.end())
    return it->second;
  cublasHandle_t h = nullptr;
  check(lib, lib.cublasCreate_v2(&h), "cublasCreate_v2");
  handles.by_device.emplace(dev.index(), h);
  return h;
}

} // namespace kiln::detail::cublas
