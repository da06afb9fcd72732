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
#include "runtime/cuda/toolkit_library.hpp"

#include <string>

namespace kiln::detail::cusolver {
namespace {

const cuda::loaded_library<api> &library() {
  static const auto *l = cuda::load_toolkit_library<api>(
      "cuSOLVER", "libcusolver.so.12",
      [](void *so, api &lib, std::string &missing) {
#define KILN_CUSOLVER_FN(name) cuda::resolve(so, lib.name, #name, missing);
#include "cusolver_functions.def"
#undef KILN_CUSOLVER_FN
      });
  return *l;
}

} // namespace

const api &require() { return cuda::require(library()); }

void check(cusolverStatus_t status, const char *call) {
  if (status == CUSOLVER_STATUS_SUCCESS)
    return;
  throw cuda_error(std::string(call) + " failed: CUSOLVER_STATUS (" + std::to_string(static_cast<int>(status)) + ")",
                   static_cast<int>(status));
}

namespace {

/// The calling thread's options of the 64-bit API, destroyed at thread exit.
struct thread_params {
  cusolverDnParams_t params = nullptr;
  decltype(&::cusolverDnDestroyParams) destroy = nullptr;
  ~thread_params() {
    if (params)
      destroy(params);
  }
};

} // namespace

cusolverDnParams_t params(const api &lib) {
  thread_local thread_params p;
  if (!p.params) {
    check(lib.cusolverDnCreateParams(&p.params), "cusolverDnCreateParams");
    p.destroy = lib.cusolverDnDestroyParams;
  }
  return p.params;
}

cusolverDnHandle_t handle(const api &lib, device dev, void *stream) {
  thread_local cuda::thread_handles<cusolverDnHandle_t> handles;
  const cusolverDnHandle_t h = handles.get(
      dev.index(),
      [&] {
        cusolverDnHandle_t made = nullptr;
        check(lib.cusolverDnCreate(&made), "cusolverDnCreate");
        return made;
      },
      [destroy = lib.cusolverDnDestroy](cusolverDnHandle_t made) { destroy(made); });
  check(lib.cusolverDnSetStream(h, static_cast<cudaStream_t>(stream)), "cusolverDnSetStream");
  return h;
}

} // namespace kiln::detail::cusolver
