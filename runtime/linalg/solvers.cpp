//===- runtime/linalg/solvers.cpp - solve, inv, det, slogdet, cholesky ----===//
//
// NumPy's square-matrix solvers, batched over the leading axes, on the
// input's device (backend.hpp: LAPACK on the host, cuSOLVER on a GPU). Each
// works on the transposes that a C-ordered stack is when read column-major
// (stack.hpp), so no matrix is moved:
//   det(A^T) = det(A);  inv(A^T) = inv(A)^T, which read back in C order is
//   inv(A);  A x = b is getrs('T') with the LU factors of A^T;  and for a
//   Hermitian A, A^T = conj(A) = U^H U (potrf 'U') gives A = L L^H with L =
//   U^T, which is U read back in C order.
// LAPACK's info says when a matrix is singular or not positive definite:
// linalg_error with NumPy's message. det and slogdet read the LU factors'
// diagonals on the host (docs/operations.md, "Linear algebra").
//
//===----------------------------------------------------------------------===//
#include "backend.hpp"
#include "solver_types.hpp"
#include "stack.hpp"

#include "kiln/array.hpp"
#include "kiln/creation.hpp"
#include "kiln/error.hpp"
#include "kiln/linalg.hpp"
#include "kiln/promote.hpp"
#include "kiln/stream.hpp"
#include "runtime/array/array_internal.hpp"

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln::detail {
namespace {

using namespace linalg_types;
using namespace linalg_stack;

template <class R> using real_of = decltype(std::abs(R()));

/// `x` on the host (a copy when it is elsewhere).
array_base on_host(const array_base &x) {
  return x.device().is_host() ? x : to_device(x, device::host(), stream::current(x.device()));
}

/// A host result back on `dev`.
array_base on(const array_base &r, device dev) {
  return dev.is_host() ? r : to_device(r, dev, stream::current(dev));
}

/// The diagonal of U in the LU factorization of each matrix of `a` (of its
/// column-major transpose: the same diagonal) and the 1-based row swaps as
/// int64, on the host. Only the diagonals and the swaps cross from a GPU (2n
/// numbers a matrix, not n^2). A zero pivot (a singular matrix) is not an
/// error here.
struct lu_diagonal {
  array_base diagonal, pivots; ///< (count, n) each
};
lu_diagonal host_lu_diagonal(const array_base &a, dtype t) {
  const stack s = as_transposes(a, t);
  array_base pivots;
  (void)linalg_backend::on(s.where()).getrf(s, pivots);
  const std::int64_t n = s.rows;
  const array_base diagonal = array_base::from_parts(s.data.storage(), t, s.where(), shape{s.count, n},
                                                     shape{n * n, n + 1}, s.data.offset());
  return {on_host(copy(diagonal, t)), on_host(copy(pivots, dtype::int64))};
}

/// (-1)^(number of row swaps).
int permutation_sign(const std::int64_t *ipiv, std::int64_t n) {
  int sign = 1;
  for (std::int64_t i = 0; i < n; ++i)
    if (ipiv[i] != i + 1)
      sign = -sign;
  return sign;
}

void throw_if_singular(const linalg_backend::info_words &info) {
  for (int v : info.read())
    if (v > 0)
      throw linalg_error("Singular matrix");
}

} // namespace

dtype linalg_dtype(dtype t) noexcept { return mean_type(t); }

array_base det(const array_base &a) {
  check_matrices(a, true);
  const dtype t = linalg_dtype(a.dtype());
  const std::int64_t n = a.shape().back();
  const shape batch = batch_of(a);
  const lu_diagonal lu = host_lu_diagonal(a, t);
  array_base out = empty(t, batch, device::host());
  with_type(t, [&]<class R>() {
    const R *u = static_cast<const R *>(lu.diagonal.data());
    const auto *piv = static_cast<const std::int64_t *>(lu.pivots.data());
    R *o = static_cast<R *>(out.data());
    for (std::int64_t b = 0; b < batch.numel(); ++b, u += n) {
      R d = R(permutation_sign(piv + b * n, n));
      for (std::int64_t i = 0; i < n; ++i)
        d *= u[i];
      o[b] = d;
    }
  });
  return on(out, a.device());
}

std::pair<array_base, array_base> slogdet(const array_base &a) {
  check_matrices(a, true);
  const dtype t = linalg_dtype(a.dtype());
  const std::int64_t n = a.shape().back();
  const shape batch = batch_of(a);
  const lu_diagonal lu = host_lu_diagonal(a, t);
  array_base sign = empty(t, batch, device::host());
  array_base logabs = empty(real_type(t), batch, device::host());
  with_type(t, [&]<class R>() {
    using V = real_of<R>;
    const R *u = static_cast<const R *>(lu.diagonal.data());
    const auto *piv = static_cast<const std::int64_t *>(lu.pivots.data());
    R *s = static_cast<R *>(sign.data());
    V *l = static_cast<V *>(logabs.data());
    for (std::int64_t b = 0; b < batch.numel(); ++b, u += n) {
      R phase = R(permutation_sign(piv + b * n, n));
      V sum = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        const R d = u[i];
        const V magnitude = std::abs(d);
        if (magnitude == V(0)) {
          phase = R(0);
          sum = -std::numeric_limits<V>::infinity();
          break;
        }
        phase *= d / magnitude;
        sum += std::log(magnitude);
      }
      s[b] = phase;
      l[b] = sum;
    }
  });
  return {on(sign, a.device()), on(logabs, a.device())};
}

array_base inv(const array_base &a) {
  check_matrices(a, true);
  const dtype t = linalg_dtype(a.dtype());
  const std::int64_t n = a.shape().back();
  const stack m = as_transposes(a, t);
  const linalg_backend::backend &lapack = linalg_backend::on(a.device());
  array_base pivots;
  const linalg_backend::info_words info = lapack.getrf(m, pivots);
  // inv(A^T) column-major is inv(A) in C order: solve A^T X = I.
  const stack x{matrix_map(reshape(m.data, shape{m.count, n, n}), element_map{.band_lo = 0, .band_hi = 0, .unit_diagonal = true}),
                m.count, n, n};
  lapack.getrs(m, pivots, x, 'N');
  throw_if_singular(info);
  return reshape(x.data, a.shape());
}

array_base solve(const array_base &a, const array_base &b) {
  check_same_device(a.device(), b.device());
  check_matrices(a, true);
  const dtype t = linalg_dtype(promote_types(a.dtype(), b.dtype()));
  const std::int64_t n = a.shape().back();
  // NumPy 2: b is a vector (M,) only when 1-d, else a stack (..., M, K).
  const bool vector = b.ndim() == 1;
  const std::int64_t bn = vector ? b.shape()[0] : (b.ndim() >= 2 ? b.shape()[b.ndim() - 2] : -1);
  if (b.ndim() == 0 || bn != n)
    throw shape_error(std::string("solve") + (vector ? "1" : "") +
                      ": Input operand 1 has a mismatch in its core dimension 0, with gufunc signature " +
                      (vector ? "(m,m),(m)->(m)" : "(m,m),(m,n)->(m,n)") + " (size " +
                      std::to_string(b.ndim() == 0 ? 0 : bn) + " is different from " + std::to_string(n) + ")");
  const std::int64_t k = vector ? 1 : b.shape().back();
  const shape batch = broadcast_shapes(batch_of(a), vector ? shape{} : batch_of(b));
  const stack m = as_transposes(broadcast_to(a, with_matrix(batch, n, n)), t);
  // The right-hand sides column-major: N x K matrices.
  const stack x = as_columns(broadcast_to(vector ? reshape(b, shape{n, 1}) : b, with_matrix(batch, n, k)), t);
  const linalg_backend::backend &lapack = linalg_backend::on(a.device());
  array_base pivots;
  const linalg_backend::info_words info = lapack.getrf(m, pivots);
  lapack.getrs(m, pivots, x, 'T'); // queued before the info words are read
  throw_if_singular(info);
  if (vector)
    return reshape(x.data, with_vector(batch, n));
  return to_rows(x, batch);
}

array_base cholesky(const array_base &a) {
  check_matrices(a, true);
  const dtype t = linalg_dtype(a.dtype());
  const std::int64_t n = a.shape().back();
  const stack m = as_transposes(a, t);
  for (int info : linalg_backend::on(a.device()).potrf(m, 'U'))
    if (info > 0)
      throw linalg_error("Matrix is not positive definite");
  // U read in C order is L; NumPy's L has zeros above the diagonal.
  return reshape(matrix_map(reshape(m.data, shape{m.count, n, n}), element_map::lower()), a.shape());
}

} // namespace kiln::detail
