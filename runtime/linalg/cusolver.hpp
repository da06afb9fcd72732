//===- runtime/linalg/cusolver.hpp - cuSOLVER, loaded at run time ---------===//
//
// kiln_runtime never links cuSOLVER: libcusolver.so.12 (CUDA 13's) is opened
// with dlopen on first use, as cuBLAS is (runtime/blas/cublas.hpp), and the
// dense entry points the solvers call are resolved by name. Handles are
// cached per (GPU, thread). Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/device.hpp"

#include <cusolverDn.h>

namespace kiln::detail::cusolver {

/// The cuSOLVER entry points the runtime uses.
struct api {
#define KILN_CUSOLVER_FN(name) decltype(&::name) name = nullptr;
#include "cusolver_functions.def"
#undef KILN_CUSOLVER_FN
};

/// The loaded library, or a device_error saying why it could not be loaded.
const api &require();

/// Throws kiln::cuda_error("<call> failed: CUSOLVER_STATUS_... (<code>)").
void check(cusolverStatus_t status, const char *call);

/// The calling thread's handle for GPU `dev` (its context current), bound
/// to `stream` (a CUstream, nullptr for the default stream).
cusolverDnHandle_t handle(const api &lib, device dev, void *stream);

/// The calling thread's options of the 64-bit API (cuSOLVER's defaults).
cusolverDnParams_t params(const api &lib);

} // namespace kiln::detail::cusolver
