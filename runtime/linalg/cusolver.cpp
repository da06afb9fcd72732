//===- runtime/linalg/cusolver.cpp - Loading cuSOLVER ---------------------===//
//
// Opens libcusolver.so.12 once (the soname, then the CUDA toolkit's library
// folders), resolves cusolver_functions.def, and keeps one handle per GPU for
// each thread, as runtime/blas/cublas.cpp does for cuBLAS.
//
//===----------------------------------------------------------------------===//
#include "cusolver.hpp"

#include "kiln/error.hpp"
#include "runtime/cuda/driver.hpp"

#include <dlfcn.h>
#include <map>
#include <string>

namespace kiln::detail::cusolver {
namespace {

struct loaded {
  api lib;
  bool ok = false;
  std::string reason;
};

loaded *load() {
  auto *l = new loaded(); // never destroyed: handles may be released late
  const char *candidates[] = {"libcusolver.so.12", "/usr/local/cuda/lib64/libcusolver.so.12",
                              "/usr/local/cuda/targets/x86_64-linux/lib/libcusolver.so.12"};
  void *so = nullptr;
  std::string errors;
  for (const char *path : candidates) {
    if ((so = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
      break;
    const char *why = dlerror();
    errors += std::string(errors.empty() ? "" : "; ") + (why ? why : path);
  }
  if (!so) {
    l->reason = "cuSOLVER (libcusolver.so.12) could not be loaded: " + errors;
    return l;
  }
  std::string missing;
#define KILN_CUSOLVER_FN(name)                                                                                  \
  if (void *p = dlsym(so, #name))                                                                              \
    l->lib.name = reinterpret_cast<decltype(l->lib.name)>(p);                                                  \
  else                                                                                                         \
    missing += std::string(missing.empty() ? "" : ", ") + #name;
#include "cusolver_functions.def"
#undef KILN_CUSOLVER_FN
  if (!missing.empty()) {
    l->reason = "cuSOLVER (libcusolver.so.12) lacks " + missing;
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
  std::map<int, cusolverDnHandle_t> by_device;
  cusolverDnParams_t params = nullptr;
  ~thread_handles() {
    const loaded &l = library();
    if (!l.ok)
      return;
    if (params)
      l.lib.cusolverDnDestroyParams(params);
    for (auto &[ordinal, h] : by_device) {
      try {
        cuda::make_current(ordinal);
        l.lib.cusolverDnDestroy(h); // errors at exit are not reportable
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

void check(cusolverStatus_t status, const char *call) {
  if (status == CUSOLVER_STATUS_SUCCESS)
    return;
  throw cuda_error(std::string(call) + " failed: CUSOLVER_STATUS (" + std::to_string(static_cast<int>(status)) + ")",
                   static_cast<int>(status));
}

namespace {

thread_handles &handles_of_thread() {
  thread_local thread_handles handles;
  return handles;
}

} // namespace

cusolverDnParams_t params(const api &lib) {
  thread_handles &handles = handles_of_thread();
  if (!handles.params)
    check(lib.cusolverDnCreateParams(&handles.params), "cusolverDnCreateParams");
  return handles.params;
}

cusolverDnHandle_t handle(const api &lib, device dev, void *stream) {
  thread_handles &handles = handles_of_thread();
  cusolverDnHandle_t h = nullptr;
  if (auto it = handles.by_device.find(dev.index()); it != handles.by_device.end()) {
    h = it->second;
  } else {
    check(lib.cusolverDnCreate(&h), "cusolverDnCreate");
    handles.by_device.emplace(dev.index(), h);
  }
  check(lib.cusolverDnSetStream(h, static_cast<cudaStream_t>(stream)), "cusolverDnSetStream");
  return h;
}

} // namespace kiln::detail::cusolver
