//===- runtime/blas/host_blas.hpp - A CPU BLAS, loaded at run time --------===//
//
// The host's float and complex matrix products run in an optimized BLAS
// (OpenBLAS, Debian's libopenblas0) through its CBLAS interface. As cuBLAS
// on the GPU, it is opened with dlopen on first use, never linked: a
// program starts and runs without it, on Kiln's blocked loop
// (host_matmul.cpp). Internal to the runtime; docs/operations.md, "matmul".
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace kiln::detail::host_blas {

/// CBLAS's enums (cblas.h), as the ABI fixes them.
enum order : int { row_major = 101 };
enum transpose : int { no_trans = 111, trans = 112 };

/// The entry points the runtime uses (CBLAS with 32-bit integers, the LP64
/// interface of Debian's OpenBLAS and of the reference CBLAS).
struct api {
  void (*sgemm)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *,
                int) = nullptr;
  void (*dgemm)(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *,
                int) = nullptr;
  void (*cgemm)(int, int, int, int, int, int, const void *, const void *, int, const void *, int, const void *,
                void *, int) = nullptr;
  void (*zgemm)(int, int, int, int, int, int, const void *, const void *, int, const void *, int, const void *,
                void *, int) = nullptr;
  std::string path; ///< the library file opened
};

/// The loaded library, or nullptr when there is none: $KILN_BLAS names the
/// one to open (`none` turns the BLAS off), else libopenblas.so.0,
/// libopenblas.so, libcblas.so.3, libblas.so.3 on the loader's path. Its
/// threads are set to Kiln's host thread count (KILN_NUM_THREADS).
const api *get();

/// Why get() is nullptr ("" when a library is loaded), for diagnostics.
std::string unavailable_reason();

} // namespace kiln::detail::host_blas
