//===- runtime/fft/cufft.cpp - Loading cuFFT ------------------------------===//
#include "cufft.hpp"

#include "kiln/error.hpp"

#include <dlfcn.h>
#include <string>

namespace kiln::detail::cufft {
namespace {

struct loaded {
  api lib;
  bool ok = false;
  std::string reason;
};

loaded *load() {
  auto *l = new loaded(); // never destroyed: plans may be destroyed late
  const char *candidates[] = {"libcufft.so.12", "/usr/local/cuda/lib64/libcufft.so.12",
                              "/usr/local/cuda/targets/x86_64-linux/lib/libcufft.so.12"};
  void *so = nullptr;
  std::string errors;
  for (const char *path : candidates) {
    if ((so = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
      break;
    const char *why = dlerror();
    errors += std::string(errors.empty() ? "" : "; ") + (why ? why : path);
  }
  if (!so) {
    l->reason = "cuFFT (libcufft.so.12) could not be loaded: " + errors;
    return l;
  }
  std::string missing;
#define KILN_CUFFT_FN(name)                                                                                     \
  if (void *p = dlsym(so, #name))                                                                              \
    l->lib.name = reinterpret_cast<decltype(l->lib.name)>(p);                                                  \
  else                                                                                                         \
    missing += std::string(missing.empty() ? "" : ", ") + #name;
#include "cufft_functions.def"
#undef KILN_CUFFT_FN
  if (!missing.empty()) {
    l->reason = "cuFFT (libcufft.so.12) lacks " + missing;
    return l;
  }
  l->ok = true;
  return l;
}

const char *result_name(cufftResult r) {
  switch (r) {
  case CUFFT_INVALID_PLAN:
    return "CUFFT_INVALID_PLAN";
  case CUFFT_ALLOC_FAILED:
    return "CUFFT_ALLOC_FAILED";
  case CUFFT_INVALID_VALUE:
    return "CUFFT_INVALID_VALUE";
  case CUFFT_INTERNAL_ERROR:
    return "CUFFT_INTERNAL_ERROR";
  case CUFFT_EXEC_FAILED:
    return "CUFFT_EXEC_FAILED";
  case CUFFT_SETUP_FAILED:
    return "CUFFT_SETUP_FAILED";
  case CUFFT_INVALID_SIZE:
    return "CUFFT_INVALID_SIZE";
  case CUFFT_NOT_SUPPORTED:
    return "CUFFT_NOT_SUPPORTED";
  default:
    return "CUFFT_ERROR";
  }
}

} // namespace

const api &require() {
  static const loaded *l = load();
  if (!l->ok)
    throw device_error(l->reason);
  return l->lib;
}

void check(cufftResult result, const char *call) {
  if (result == CUFFT_SUCCESS)
    return;
  const std::string what = std::string(call) + " failed: " + result_name(result) + " (" +
                           std::to_string(static_cast<int>(result)) + ")";
  if (result == CUFFT_ALLOC_FAILED)
    throw out_of_memory(what);
  throw cuda_error(what, static_cast<int>(result));
}

} // namespace kiln::detail::cufft
