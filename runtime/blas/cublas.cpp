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
#include "runtime/cuda/toolkit_library.hpp"

#include <mutex>
#include <string>

namespace kiln::detail::cublas {
namespace {

const cuda::loaded_library<api> &library() {
  static const auto *l = cuda::load_toolkit_library<api>(
      "cuBLAS", "libcublas.so.13",
      [](void *so, api &lib, std::string &missing) {
#define KILN_CUBLAS_FN(name) cuda::resolve(so, lib.name, #name, missing);
#include "cublas_functions.def"
#undef KILN_CUBLAS_FN
        std::string optional; // cublasGetStatusName may be absent
        cuda::resolve(so, lib.cublasGetStatusName, "cublasGetStatusName",
                      optional);
      });
  return *l;
}

} // namespace

const api &require() { return cuda::require(library()); }

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
  thread_local cuda::thread_handles<cublasHandle_t> handles;
  return handles.get(
      dev.index(),
      [&] {
        cublasHandle_t h = nullptr;
        check(lib, lib.cublasCreate_v2(&h), "cublasCreate_v2");
        return h;
      },
      [destroy = lib.cublasDestroy_v2](cublasHandle_t h) { destroy(h); });
}

} // namespace kiln::detail::cublas
