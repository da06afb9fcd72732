//===- runtime/fft/cufft.cpp - Loading cuFFT ------------------------------===//
#include "cufft.hpp"

#include "kiln/error.hpp"
#include "runtime/cuda/toolkit_library.hpp"

#include <string>

namespace kiln::detail::cufft {
namespace {

const cuda::loaded_library<api> &library() {
  static const auto *l = cuda::load_toolkit_library<api>(
      "cuFFT", "libcufft.so.12", [](void *so, api &lib, std::string &missing) {
#define KILN_CUFFT_FN(name) cuda::resolve(so, lib.name, #name, missing);
#include "cufft_functions.def"
#undef KILN_CUFFT_FN
      });
  return *l;
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

const api &require() { return cuda::require(library()); }

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
