//===- runtime/linalg/solvers.cpp - solve, inv, det, slogdet, cholesky ----===//
//
// NumPy's square-matrix solvers, batched over the leading axes. Each input is
// copied to the host, C-contiguous, in the solver's dtype (float64 for
// integers); each matrix of the batch goes to LAPACK in its own
// column-major layout (lapack.hpp), so LAPACKE copies nothing: a C-ordered
// matrix read column-major is A^T, and
//   det(A^T) = det(A);  inv(A^T) = inv(A)^T, which read back in C order is
//   inv(A);  A x = b is getrs('T') with the LU factors of A^T;  and for a
//   Hermitian A, A^T = conj(A) = U^H U (potrf 'U') gives A = L L^H with L =
//   U^T, which is U read back in C order.
// A result is copied back to the input's device. LAPACK's info says when a
// matrix is singular or not positive definite: linalg_error with NumPy's
// message.
//
// On a GPU the same column-major calls go to cuSOLVER (gpu_solvers.hpp):
// getrf, getrs, potrf; det and slogdet read the factors' diagonals on the
// host, and cholesky zeroes the upper triangle there (docs/operations.md,
// "Linear algebra").
//
//===----------------------------------------------------------------------===//
#include "gpu_solvers.hpp"
#include "lapack.hpp"
#include "solver_types.hpp"

#include "kiln/array.hpp"
#include "kiln/creation.hpp"
#include "kiln/error.hpp"
#include "kiln/linalg.hpp"
#include "kiln/promote.hpp"
#include "kiln/stream.hpp"

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln::detail {
namespace {

using namespace linalg_types;

/// NumPy's LinAlgError for an input that is not a stack of square matrices.
void check_square(const array_base &a) {
  if (a.ndim() < 2)
    throw linalg_error(std::to_string(a.ndim()) +
                       "-dimensional array given. Array must be at least two-dimensional");
  const std::int64_t n = a.shape()[a.ndim() - 1];
  if (a.shape()[a.ndim() - 2] != n)
    throw linalg_error("Last 2 dimensions of the array must be square");
  if (n > std::numeric_limits<int>::max())
    throw value_error("kiln::linalg: matrices of " + std::to_string(n) + " rows are past LAPACK's 32-bit sizes");
}

/// The leading (batch) dimensions of a stack of matrices.
shape batch_of(const array_base &a) {
  shape batch;
  for (std::size_t d = 0; d + 2 < a.shape().size(); ++d)
    batch.push_back(a.shape()[d]);
  return batch;
}

/// `x` on the host, C-contiguous, in dtype `t` (always a copy: LAPACK
/// overwrites it).
array_base host_copy(const array_base &x, dtype t) {
  const array_base h = x.device().is_host() ? x : to_device(x, device::host(), stream::current(x.device()));
  return copy(h, t);
}

/// A host result back on `dev`.
array_base on(const array_base &r, device dev) {
  return dev.is_host() ? r : to_device(r, dev, stream::current(dev));
}

template <class R> using real_of = decltype(std::abs(R()));

/// The LU factors of each matrix of `a` (as its column-major transpose), on
/// the host, with their 1-based row swaps: LAPACK's getrf on the host,
/// cuSOLVER's on a GPU. A zero pivot (a singular matrix) is not an error
/// here.
struct lu_factors {
  array_base factors;
  std::vector<int> pivots;
};
lu_factors lu_of(const array_base &a, dtype t, std::int64_t count, int n) {
  lu_factors r;
  if (!a.device().is_host()) {
    const array_base m = copy(a, t);
    (void)gpu_linalg::lu(m, count, n, r.pivots);
    r.factors = to_device(m, device::host(), stream::current(a.device()));
    return r;
  }
  r.factors = host_copy(a, t);
  r.pivots.assign(static_cast<std::size_t>(count * n), 0);
  with_type(t, [&]<class R>() {
    const lapack::routines &lp = lapack::require(t);
    R *p = static_cast<R *>(r.factors.data());
    for (std::int64_t b = 0; b < count && n > 0; ++b)
      (void)lp.getrf(lapack::col_major, n, n, p + b * std::int64_t(n) * n, n, r.pivots.data() + b * n);
  });
  return r;
}

/// (-1)^(number of row swaps).
int permutation_sign(const int *ipiv, int n) {
  int sign = 1;
  for (int i = 0; i < n; ++i)
    if (ipiv[i] != i + 1)
      sign = -sign;
  return sign;
}

} // namespace

dtype linalg_dtype(dtype t) noexcept { return mean_type(t); }

array_base det(const array_base &a) {
  check_square(a);
  const dtype t = linalg_dtype(a.dtype());
  const int n = static_cast<int>(a.shape().back());
  const shape batch = batch_of(a);
  const lu_factors lu = lu_of(a, t, batch.numel(), n);
  array_base out = empty(t, batch, device::host());
  with_type(t, [&]<class R>() {
    const R *u = static_cast<const R *>(lu.factors.data());
    R *o = static_cast<R *>(out.data());
    for (std::int64_t b = 0; b < batch.numel(); ++b, u += std::int64_t(n) * n) {
      R d = R(permutation_sign(lu.pivots.data() + b * n, n));
      for (int i = 0; i < n; ++i)
        d *= u[std::int64_t(i) * n + i];
      o[b] = d;
    }
  });
  return on(out, a.device());
}

std::pair<array_base, array_base> slogdet(const array_base &a) {
  check_square(a);
  const dtype t = linalg_dtype(a.dtype());
  const int n = static_cast<int>(a.shape().back());
  const shape batch = batch_of(a);
  const lu_factors lu = lu_of(a, t, batch.numel(), n);
  array_base sign = empty(t, batch, device::host());
  array_base logabs = empty(real_type(t), batch, device::host());
  with_type(t, [&]<class R>() {
    using V = real_of<R>;
    const R *u = static_cast<const R *>(lu.factors.data());
    R *s = static_cast<R *>(sign.data());
    V *l = static_cast<V *>(logabs.data());
    for (std::int64_t b = 0; b < batch.numel(); ++b, u += std::int64_t(n) * n) {
      R phase = R(permutation_sign(lu.pivots.data() + b * n, n));
      V sum = 0;
      for (int i = 0; i < n; ++i) {
        const R d = u[std::int64_t(i) * n + i];
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

/// count n x n identity matrices on `dev`, in dtype `t`.
array_base identities(dtype t, std::int64_t count, std::int64_t n, device dev) {
  std::vector<double> eye(static_cast<std::size_t>(count * n * n), 0.0);
  for (std::int64_t b = 0; b < count; ++b)
    for (std::int64_t i = 0; i < n; ++i)
      eye[static_cast<std::size_t>((b * n + i) * n + i)] = 1.0;
  const array_base host = kiln::asarray<double>(std::span<const double>(eye.data(), eye.size()), shape{count, n, n},
                                                device::host());
  return dev.is_host() ? copy(host, t) : copy(to_device(host, dev, stream::current(dev)), t);
}

array_base inv(const array_base &a) {
  check_square(a);
  const dtype t = linalg_dtype(a.dtype());
  const int n = static_cast<int>(a.shape().back());
  const std::int64_t count = batch_of(a).numel();
  if (!a.device().is_host()) {
    // inv(A^T) column-major is inv(A) in C order: solve A^T X = I.
    const array_base m = copy(a, t);
    std::vector<int> pivots;
    for (int info : gpu_linalg::lu(m, count, n, pivots))
      if (info > 0)
        throw linalg_error("Singular matrix");
    const array_base x = identities(t, count, n, a.device());
    gpu_linalg::lu_solve(m, pivots, x, count, n, n, /*transposed=*/false);
    return reshape(x, a.shape());
  }
  array_base m = host_copy(a, t);
  with_type(t, [&]<class R>() {
    const lapack::routines &lp = lapack::require(t);
    R *p = static_cast<R *>(m.data());
    std::vector<int> ipiv(static_cast<std::size_t>(std::max(n, 1)));
    for (std::int64_t b = 0; b < count && n > 0; ++b) {
      R *matrix = p + b * std::int64_t(n) * n;
      if (lp.getrf(lapack::col_major, n, n, matrix, n, ipiv.data()) > 0 ||
          lp.getri(lapack::col_major, n, matrix, n, ipiv.data()) > 0)
        throw linalg_error("Singular matrix");
    }
  });
  return m;
}

array_base solve(const array_base &a, const array_base &b) {
  if (!(a.device() == b.device()))
    throw device_error("arrays are on different devices: " + a.device().str() + " and " + b.device().str());
  check_square(a);
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
  shape a_shape = batch, b_shape = batch;
  a_shape.push_back(n);
  a_shape.push_back(n);
  b_shape.push_back(n);
  b_shape.push_back(k);
  const bool gpu = !a.device().is_host();
  array_base am = gpu ? copy(broadcast_to(a, a_shape), t) : host_copy(broadcast_to(a, a_shape), t);
  // The right-hand sides column-major (K columns of N): b's (..., K, N)
  // transpose in C order; a vector already is.
  const array_base bb = broadcast_to(vector ? reshape(b, shape{n, 1}) : b, b_shape);
  std::vector<std::int64_t> swap_last(bb.ndim());
  for (std::size_t d = 0; d < swap_last.size(); ++d)
    swap_last[d] = static_cast<std::int64_t>(d);
  std::swap(swap_last[swap_last.size() - 1], swap_last[swap_last.size() - 2]);
  array_base bm = gpu ? copy(transpose(bb, swap_last), t) : host_copy(transpose(bb, swap_last), t);
  if (k > std::numeric_limits<int>::max())
    throw value_error("kiln::linalg::solve: " + std::to_string(k) + " right-hand sides are past LAPACK's 32-bit sizes");
  if (gpu) {
    std::vector<int> pivots;
    for (int info : gpu_linalg::lu(am, batch.numel(), int(n), pivots))
      if (info > 0)
        throw linalg_error("Singular matrix");
    gpu_linalg::lu_solve(am, pivots, bm, batch.numel(), int(n), int(k), /*transposed=*/true);
  } else with_type(t, [&]<class R>() {
    const lapack::routines &lp = lapack::require(t);
    R *ap = static_cast<R *>(am.data()), *bp = static_cast<R *>(bm.data());
    std::vector<int> ipiv(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)));
    if (n == 0)
      return;
    for (std::int64_t i = 0, count = batch.numel(); i < count; ++i) {
      R *matrix = ap + i * n * n;
      if (lp.getrf(lapack::col_major, int(n), int(n), matrix, int(n), ipiv.data()) > 0)
        throw linalg_error("Singular matrix");
      (void)lp.getrs(lapack::col_major, 'T', int(n), int(k), matrix, int(n), ipiv.data(), bp + i * n * k, int(n));
    }
  });
  if (!vector) { // back to (..., N, K)
    bm = copy(transpose(bm, swap_last), t);
  }
  if (vector) {
    shape out = batch;
    out.push_back(n);
    return gpu ? reshape(bm, out) : on(reshape(bm, out), a.device());
  }
  return gpu ? bm : on(bm, a.device());
}

array_base cholesky(const array_base &a) {
  check_square(a);
  const dtype t = linalg_dtype(a.dtype());
  const int n = static_cast<int>(a.shape().back());
  const std::int64_t count = batch_of(a).numel();
  array_base m;
  if (!a.device().is_host()) {
    const array_base g = copy(a, t);
    if (!gpu_linalg::cholesky_upper(g, count, n))
      throw linalg_error("Matrix is not positive definite");
    m = to_device(g, device::host(), stream::current(a.device())); // the zeros above are written here
  } else {
    m = host_copy(a, t);
  }
  with_type(t, [&]<class R>() {
    R *p = static_cast<R *>(m.data());
    for (std::int64_t b = 0; b < count && n > 0; ++b) {
      R *matrix = p + b * std::int64_t(n) * n;
      if (a.device().is_host() && lapack::require(t).potrf(lapack::col_major, 'U', n, matrix, n) > 0)
        throw linalg_error("Matrix is not positive definite");
      for (int i = 0; i < n; ++i) // NumPy's L has zeros above the diagonal
        for (int j = i + 1; j < n; ++j)
          matrix[std::int64_t(i) * n + j] = R(0);
    }
  });
  return on(m, a.device());
}

} // namespace kiln::detail
