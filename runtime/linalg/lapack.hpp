//===- runtime/linalg/lapack.hpp - LAPACK, loaded at run time -------------===//
//
// The host's solvers run in LAPACK through its C interface, LAPACKE (Debian's
// liblapacke3 over OpenBLAS's LAPACK), opened with dlopen on first use as
// the CPU BLAS is (runtime/blas/host_blas.hpp): a program starts without it,
// and only a solver call needs it. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/dtype.hpp"

namespace kiln::detail::lapack {

/// LAPACKE's column-major layout (lapacke.h's LAPACK_COL_MAJOR): LAPACK's
/// own, so LAPACKE copies nothing. A C-ordered matrix read in column-major
/// order is its transpose; the solvers work on that (solvers.cpp).
inline constexpr int col_major = 102;

/// One element type's entry points (complex ones take their arrays as
/// void *: lapack_complex_float/double are layout-compatible with
/// std::complex). lapack_int is 32-bit (Debian's LP64 LAPACKE).
struct routines {
  int (*getrf)(int, int, int, void *, int, int *) = nullptr;
  int (*getrs)(int, char, int, int, const void *, int, const int *, void *, int) = nullptr;
  int (*getri)(int, int, void *, int, const int *) = nullptr;
  int (*potrf)(int, char, int, void *, int) = nullptr;
  int (*potrs)(int, char, int, int, const void *, int, void *, int) = nullptr;
  int (*trtrs)(int, char, char, char, int, int, const void *, int, void *, int) = nullptr;
  int (*geqrf)(int, int, int, void *, int, void *) = nullptr;
  /// orgqr, or ungqr for complex types.
  int (*orgqr)(int, int, int, int, void *, int, const void *) = nullptr;
  /// gesdd (jobz, m, n, a, lda, s, u, ldu, vt, ldvt); s is real.
  int (*gesdd)(int, char, int, int, void *, int, void *, void *, int, void *, int) = nullptr;
  /// syevd, or heevd for complex types (jobz, uplo, n, a, lda, w); w is real.
  int (*syevd)(int, char, char, int, void *, int, void *) = nullptr;
  /// geev of complex types only (jobvl, jobvr, n, a, lda, w, vl, ldvl, vr,
  /// ldvr); null for real ones.
  int (*geev)(int, char, char, int, void *, int, void *, void *, int, void *, int) = nullptr;
};

/// The routines of float32, float64, complex64 or complex128; throws
/// kiln::error saying what to install when LAPACKE cannot be loaded
/// ($KILN_LAPACKE names the library; else liblapacke.so.3, liblapacke.so).
const routines &require(dtype t);

} // namespace kiln::detail::lapack
