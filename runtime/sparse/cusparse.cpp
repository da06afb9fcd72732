//===- runtime/sparse/cusparse.cpp - Loading cuSPARSE ---------------------===//
#include "cusparse.hpp"

#include "kiln/error.hpp"
#include "runtime/cuda/driver.hpp"

#include <dlfcn.h>
#include <map>
#include <string>

namespace kiln::detail::cusparse {
namespace {

struct loaded {
  api lib;
  bool ok = false;
  std::string reason;
};

loaded *load() {
  auto *l = new loaded(); // never destroyed: handles may be released late
  const char *candidates[] = {"libcusparse.so.12", "/usr/local/cuda/lib64/libcusparse.so.12",
                              "/usr/local/cuda/targets/x86_64-linux/lib/libcusparse.so.12"};
  void *so = nullptr;
  std::string errors;
  for (const char *path : candidates) {
    if ((so = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
      break;
    const char *why = dlerror();
    errors += std::string(errors.empty() ? "" : "; ") + (why ? why : path);
  }
  if (!so) {
    l->reason = "cuSPARSE (libcusparse.so.12) could not be loaded: " + errors;
    return l;
  }
  std::string missing;
#define KILN_CUSPARSE_FN(name)                                                                                  \
  if (void *p = dlsym(so, #name))                                                                              \
    l->lib.name = reinterpret_cast<decltype(l->lib.name)>(p);                                                  \
  else                                                                                                         \
    missing += std::string(missing.empty() ? "" : ", ") + #name;
#include "cusparse_functions.def"
#undef KILN_CUSPARSE_FN
  if (!missing.empty()) {
    l->reason = "cuSPARSE (libcusparse.so.12) lacks " + missing;
    return l;
  }
  l->ok = true;
  return l;
}

const loaded &library() {
  static const loaded *l = load();
  return *l;
}

struct thread_handles {
  std::map<int, cusparseHandle_t> by_device;
  ~thread_handles() {
    const loaded &l = library();
    if (!l.ok)
      return;
    for (auto &[ordinal, h] : by_device) {
      try {
        cuda::make_current(ordinal);
        l.lib.cusparseDestroy(h); // errors at exit are not reportable
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

void check(cusparseStatus_t status, const char *call) {
  if (status == CUSPARSE_STATUS_SUCCESS)
    return;
  throw cuda_error(std::string(call) + " failed: CUSPARSE_STATUS (" + std::to_string(static_cast<int>(status)) + ")",
                   static_cast<int>(status));
}

cusparseHandle_t handle(const api &lib, device dev, void *stream) {
  thread_local thread_handles handles;
  cusparseHandle_t h = nullptr;
  if (auto it = handles.by_device.find(dev.index()); it != handles.by_device.end()) {
    h = it->second;
  } else {
    check(lib.cusparseCreate(&h), "cusparseCreate");
    handles.by_device.emplace(dev.index(), h);
  }
  check(lib.cusparseSetStream(h, static_cast<cudaStream_t>(stream)), "cusparseSetStream");
  return h;
}

} // namespace kiln::detail::cusparse
