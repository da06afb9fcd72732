//===- runtime/sparse/cusparse.cpp - Loading cuSPARSE ---------------------===//
#include "cusparse.hpp"

#include "kiln/error.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/cuda/toolkit_library.hpp"

#include <string>

namespace kiln::detail::cusparse {
namespace {

const cuda::loaded_library<api> &library() {
  static const auto *l = cuda::load_toolkit_library<api>(
      "cuSPARSE", "libcusparse.so.12",
      [](void *so, api &lib, std::string &missing) {
#define KILN_CUSPARSE_FN(name) cuda::resolve(so, lib.name, #name, missing);
#include "cusparse_functions.def"
#undef KILN_CUSPARSE_FN
      });
  return *l;
}

} // namespace

const api &require() { return cuda::require(library()); }

void check(cusparseStatus_t status, const char *call) {
  if (status == CUSPARSE_STATUS_SUCCESS)
    return;
  throw cuda_error(std::string(call) + " failed: CUSPARSE_STATUS (" + std::to_string(static_cast<int>(status)) + ")",
                   static_cast<int>(status));
}

cusparseHandle_t handle(const api &lib, device dev, void *stream) {
  thread_local cuda::thread_handles<cusparseHandle_t> handles;
  const cusparseHandle_t h = handles.get(
      dev.index(),
      [&] {
        cusparseHandle_t made = nullptr;
        check(lib.cusparseCreate(&made), "cusparseCreate");
        return made;
      },
      [destroy = lib.cusparseDestroy](cusparseHandle_t made) { destroy(made); });
  check(lib.cusparseSetStream(h, static_cast<cudaStream_t>(stream)), "cusparseSetStream");
  return h;
}

} // namespace kiln::detail::cusparse
