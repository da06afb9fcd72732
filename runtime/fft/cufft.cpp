//===- runtime/fft/cufft.cpp - Loading cuFFT ------------------------------===//
#include "cufft.hpp"

#include "kiln/error.hpp"
#include "runtime/cuda/toolkit_library.hpp"

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
  std::string errors;
  void *so = cuda::open_toolkit_library("libcufft.so.12", errors);
  if (!so) {
    l->reason = "cuFFT (libcufft.so.12) could not be loaded: " + errors;
    return l;
  }
  std::string missing;
#define KILN_CUFFT_FN(name) cuda::resolve(so, l->lib.name, #name, missing);
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
