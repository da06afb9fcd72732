//===- runtime/blas/cublas.hpp - cuBLAS, loaded at run time ---------------===//
//
// kiln_runtime never links cuBLAS: libcublas.so.13 is opened with dlopen on
// first use and the few entry points the runtime calls are resolved by name.
// Handles are cached per (GPU, thread). Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/device.hpp"

#include <cublas_api.h>

namespace kiln::detail::cublas {

/// The cuBLAS entry points the runtime uses.
struct api {
#define KILN_CUBLAS_FN(name) decltype(&::name) name = nullptr;
#include "cublas_functions.def"
#undef KILN_CUBLAS_FN
  decltype(&::cublasGetStatusName) cublasGetStatusName = nullptr; // optional
};

/// The loaded library, or a device_error saying why it could not be loaded
/// (named paths and dlerror()).
const api &require();

/// Throws kiln::cuda_error("<call> failed: CUBLAS_STATUS_... (<code>):
/// <message>").
void check(const api &lib, cublasStatus_t status, const char *call);

/// The calling thread's handle for GPU `dev`, created on first use (the
/// GPU's context must be current) and destroyed when the thread exits.
cublasHandle_t handle(const api &lib, device dev);

} // namespace kiln::detail::cublas
