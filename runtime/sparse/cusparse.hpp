//===- runtime/sparse/cusparse.hpp - cuSPARSE, loaded at run time ---------===//
//
// kiln_runtime never links cuSPARSE: libcusparse.so.12 (CUDA 13's) is
// opened with dlopen on first use, as cuBLAS, cuSOLVER and cuFFT are. Handles
// are cached per (GPU, thread). Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/device.hpp"

#include <cusparse.h>

namespace kiln::detail::cusparse {

/// The cuSPARSE entry points the runtime uses.
struct api {
#define KILN_CUSPARSE_FN(name) decltype(&::name) name = nullptr;
#include "cusparse_functions.def"
#undef KILN_CUSPARSE_FN
};

/// The loaded library, or a device_error saying why it could not be loaded.
const api &require();

/// Throws kiln::cuda_error("<call> failed: CUSPARSE_STATUS (<code>)").
void check(cusparseStatus_t status, const char *call);

/// The calling thread's handle for GPU `dev` (its context current), bound
/// to `stream`.
cusparseHandle_t handle(const api &lib, device dev, void *stream);

} // namespace kiln::detail::cusparse
