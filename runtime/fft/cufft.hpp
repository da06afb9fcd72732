//===- runtime/fft/cufft.hpp - cuFFT, loaded at run time ------------------===//
//
// kiln_runtime never links cuFFT: libcufft.so.12 (CUDA 13's) is opened with
// dlopen on first use, as cuBLAS and cuSOLVER are, and the entry points are
// resolved by name. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cufft.h>

namespace kiln::detail::cufft {

/// The cuFFT entry points the runtime uses.
struct api {
#define KILN_CUFFT_FN(name) decltype(&::name) name = nullptr;
#include "cufft_functions.def"
#undef KILN_CUFFT_FN
};

/// The loaded library, or a device_error saying why it could not be loaded.
const api &require();

/// Throws kiln::cuda_error("<call> failed: CUFFT_... (<code>)"), or
/// kiln::out_of_memory for CUFFT_ALLOC_FAILED.
void check(cufftResult result, const char *call);

} // namespace kiln::detail::cufft
