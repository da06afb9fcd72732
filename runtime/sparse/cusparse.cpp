//===- runtime/sparse/cusparse.cpp - Loading cuSPARSE ---------------------===//
#include "cusparse.hpp"

#include "kiln/error.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/cuda/toolkit_library.hpp"

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
  std::string errors;
  void *so = cuda::open_toolkit_library("libcusparse.so.12", errors);
  if (!so) {
    l->reason = "cuSPARSE (libcusparse.so.12) could not be loaded: " + errors;
    return l;
  }
  std::string missing;
#define KILN_CUSPARSE_FN(name) cuda::resolve(so, l->lib.name, #name, missing);
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
