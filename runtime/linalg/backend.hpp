//===- runtime/linalg/backend.hpp - LAPACK's operations on a device -------===//
//
// The column-major operations kiln::linalg is built from, on stacks of
// matrices (stack.hpp), in place, each matrix of the batch in turn: LAPACK on
// the host (lapack_backend.cpp), cuSOLVER and cuBLAS on a GPU
// (cusolver_backend.cpp) queued on the current stream. Each factorization
// returns LAPACK's info of every matrix (read from a GPU once per call: the
// one synchronization a checked solver pays); NumPy's errors are the
// callers'. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "stack.hpp"

#include "kiln/array.hpp"

#include <cstdint>
#include <vector>

namespace kiln::detail::linalg_backend {

using linalg_stack::stack;

/// LAPACK's op(A): 'N', 'T' or 'C'.
using operation = char;

/// LAPACK's info of each matrix of a batch (int32 words on the stack's
/// device), read when a caller asks: a GPU's factorization is followed by
/// the work queued after it before the host waits for the words.
struct info_words {
  array_base words; ///< (count,)
  /// The words on the host (a synchronizing copy from a GPU).
  std::vector<int> read() const;
};

/// The singular values (count, k) and, when asked, the singular vectors of
/// each matrix (gesvd's U and V^H, k = min(rows, cols) columns and rows,
/// or all when full).
struct svd_factors {
  array_base s;
  stack u, vt;
  std::vector<int> info;
};

/// Eigenvalues (count, n), real for eigh and complex for eig, and infos.
struct eigen_factors {
  array_base w;
  std::vector<int> info;
};

class backend {
public:
  virtual ~backend() = default;

  /// LU with partial pivoting (getrf); `pivots` becomes the 1-based row
  /// swaps, (count, min(rows, cols)), int32 on the host, int64 on a GPU.
  virtual info_words getrf(const stack &a, array_base &pivots) const = 0;
  /// Solves op(A_i) X_i = B_i with A_i's LU factors from getrf (getrs).
  virtual void getrs(const stack &lu, const array_base &pivots, const stack &b, operation op) const = 0;
  /// Cholesky factors of the `uplo` ('U' or 'L') triangle (potrf).
  virtual std::vector<int> potrf(const stack &a, char uplo) const = 0;
  /// Solves A_i X_i = B_i with A_i's Cholesky factors (potrs).
  virtual void potrs(const stack &c, const stack &b, char uplo) const = 0;
  /// Solves op(A_i) X_i = B_i for triangular A_i (trtrs, cuBLAS's trsm).
  /// The host's trtrs reports a zero on the diagonal (info > 0) and solves
  /// nothing; cuBLAS checks nothing (infos 0).
  virtual std::vector<int> trsm(const stack &a, const stack &b, char uplo, operation op, bool unit_diagonal) const = 0;
  /// Householder QR (geqrf): R above the diagonal, the reflectors below;
  /// returns tau, (count, min(rows, cols)).
  virtual array_base geqrf(const stack &a) const = 0;
  /// Overwrites `q` (whose first k columns hold geqrf's reflectors) with the
  /// first q.cols columns of Q (orgqr / ungqr).
  virtual void orgqr(const stack &q, const array_base &tau, std::int64_t k) const = 0;
  /// The SVD (gesdd on the host; gesvd on a GPU, which needs rows >= cols).
  /// `a` is destroyed.
  virtual svd_factors gesvd(const stack &a, bool vectors, bool full) const = 0;
  /// Eigenvalues (ascending) and, with `vectors`, eigenvectors in place of
  /// each Hermitian matrix's `uplo` triangle (syevd / heevd).
  virtual eigen_factors syevd(const stack &a, bool vectors, char uplo) const = 0;
  /// Eigenvalues and right eigenvectors (into `vr`, when given) of each
  /// complex matrix (geev); `a` is destroyed.
  virtual eigen_factors geev(const stack &a, const stack *vr) const = 0;
};

/// LAPACK through LAPACKE (lapack_backend.cpp) and cuSOLVER
/// (cusolver_backend.cpp), each loaded at run time on first use.
const backend &host_backend();
const backend &gpu_backend();

/// The backend of arrays on `dev`.
inline const backend &on(device dev) { return dev.is_host() ? host_backend() : gpu_backend(); }

} // namespace kiln::detail::linalg_backend
