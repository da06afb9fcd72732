//===- runtime/linalg/factorizations.cpp - SciPy's LU and Cholesky --------===//
//
// scipy.linalg's lu_factor, lu_solve, lu, cho_factor, cho_solve and
// solve_triangular, batched over leading axes, on the input's device
// (backend.hpp). These factor the matrices themselves (a column-major copy
// of each), as SciPy hands LAPACK a Fortran-ordered array: the factors and
// pivots are LAPACK's, as SciPy's are.
//
//===----------------------------------------------------------------------===//
#include "backend.hpp"
#include "solver_types.hpp"
#include "stack.hpp"

#include "kiln/creation.hpp"
#include "kiln/error.hpp"
#include "kiln/linalg.hpp"
#include "kiln/ops.hpp"
#include "kiln/promote.hpp"
#include "kiln/stream.hpp"
#include "runtime/array/array_internal.hpp"

#include <span>
#include <string>
#include <vector>

namespace kiln::detail {
namespace {

using namespace linalg_stack;

/// Right-hand sides for (..., N, N) matrices: b (N,) is one vector (x has
/// the matrices' batch and N), else b is a stack (..., N, K) broadcast with
/// the matrices'. `incompatible` is the error for a b of the wrong size.
struct right_hand_sides {
  stack x;
  shape batch;
  bool vector = false;

  right_hand_sides(const array_base &a, const array_base &b, dtype t, const std::string &incompatible) {
    const std::int64_t n = a.shape().back();
    vector = b.ndim() == 1;
    if (b.ndim() == 0 || b.shape()[vector ? 0 : b.ndim() - 2] != n)
      throw value_error(incompatible);
    const std::int64_t k = vector ? 1 : b.shape().back();
    batch = broadcast_shapes(batch_of(a), vector ? shape{} : batch_of(b));
    x = as_columns(broadcast_to(vector ? reshape(b, shape{n, 1}) : b, with_matrix(batch, n, k)), t);
  }

  array_base result() const {
    return vector ? reshape(x.data, with_vector(batch, x.rows)) : to_rows(x, batch);
  }
};

/// The matrices of (..., N, N) `a` broadcast to `batch`, column-major.
stack broadcast_matrices(const array_base &a, const shape &batch, dtype t) {
  const std::int64_t n = a.shape().back();
  return as_columns(broadcast_to(a, with_matrix(batch, n, n)), t);
}

} // namespace

std::pair<array_base, array_base> lu_factor(const array_base &a) {
  check_matrices(a, false);
  const dtype t = linalg_dtype(a.dtype());
  const shape batch = batch_of(a);
  const stack s = as_columns(a, t);
  array_base pivots;
  (void)linalg_backend::on(a.device()).getrf(s, pivots); // a zero pivot is U's business
  const std::int64_t k = std::min(s.rows, s.cols);
  // LAPACK's 1-based swaps, SciPy's 0-based int32.
  const array_base piv = eager(op::subtract, {copy(pivots, dtype::int32), std::int32_t(1)});
  return {to_rows(s, batch), reshape(piv, with_vector(batch, k))};
}

array_base lu_solve(const array_base &lu, const array_base &piv, const array_base &b, int trans) {
  check_same_device(lu.device(), b.device());
  check_same_device(lu.device(), piv.device());
  if (trans < 0 || trans > 2)
    throw value_error("trans must be 0, 1 or 2, not " + std::to_string(trans));
  check_matrices(lu, true);
  const dtype t = linalg_dtype(promote_types(lu.dtype(), b.dtype()));
  const std::int64_t n = lu.shape().back();
  if (piv.ndim() < 1 || piv.shape().back() != n)
    throw value_error("lu_solve: piv of shape " + shape_repr(piv.shape()) +
                      " does not match lu of shape " + shape_repr(lu.shape()));
  const right_hand_sides rhs(lu, b, t,
                             "Shapes of lu " + shape_repr(lu.shape()) +
                                 " and b " + shape_repr(b.shape()) +
                                 " are incompatible");
  const stack m = broadcast_matrices(lu, rhs.batch, t);
  // Back to LAPACK's 1-based swaps in the backend's integer type.
  const dtype index = lu.device().is_host() ? dtype::int32 : dtype::int64;
  const array_base pivots = copy(
      broadcast_to(eager(op::add, {copy(piv, dtype::int64), std::int64_t(1)}), with_vector(rhs.batch, n)), index);
  linalg_backend::on(lu.device()).getrs(m, reshape(pivots, shape{m.count, n}), rhs.x, "NTC"[trans]);
  return rhs.result();
}

std::tuple<array_base, array_base, array_base> lu(const array_base &a) {
  check_matrices(a, false);
  const dtype t = linalg_dtype(a.dtype());
  const shape batch = batch_of(a);
  const std::int64_t m = a.shape()[a.ndim() - 2], n = a.shape().back(), k = std::min(m, n);
  const stack s = as_columns(a, t);
  array_base pivots;
  (void)linalg_backend::on(a.device()).getrf(s, pivots);
  // P from the swaps: row i of P^T A is A's row perm[i], so P[perm[i], i] = 1.
  const array_base swaps = copy(to_device(copy(pivots, dtype::int64), device::host(), stream::current(a.device())),
                                dtype::int64);
  std::vector<double> p(static_cast<std::size_t>(s.count * m * m), 0.0);
  std::vector<std::int64_t> perm(static_cast<std::size_t>(m));
  for (std::int64_t b = 0; b < s.count; ++b) {
    for (std::int64_t i = 0; i < m; ++i)
      perm[i] = i;
    const auto *ipiv = static_cast<const std::int64_t *>(swaps.data()) + b * k;
    for (std::int64_t i = 0; i < k; ++i)
      std::swap(perm[i], perm[ipiv[i] - 1]);
    for (std::int64_t i = 0; i < m; ++i)
      p[static_cast<std::size_t>((b * m + perm[i]) * m + i)] = 1.0;
  }
  array_base permutation = copy(
      to_device(kiln::asarray<double>(std::span<const double>(p.data(), p.size()), with_matrix(batch, m, m),
                                      device::host()),
                a.device(), stream::current(a.device())),
      t);
  const element_map unit_lower{.band_hi = 0, .unit_diagonal = true};
  return {permutation, to_rows(s, batch, m, k, unit_lower), to_rows(s, batch, k, n, element_map::upper())};
}

array_base cho_factor(const array_base &a, bool lower) {
  check_matrices(a, true);
  const dtype t = linalg_dtype(a.dtype());
  const stack s = as_columns(a, t);
  const std::vector<int> info = linalg_backend::on(a.device()).potrf(s, lower ? 'L' : 'U');
  for (int v : info)
    if (v > 0)
      throw linalg_error(std::to_string(v) + "-th leading minor of the array is not positive definite");
  return to_rows(s, batch_of(a));
}

array_base cho_solve(const array_base &c, bool lower, const array_base &b) {
  check_same_device(c.device(), b.device());
  check_matrices(c, false);
  if (c.shape()[c.ndim() - 2] != c.shape().back())
    throw value_error("The factored matrix c is not square.");
  const dtype t = linalg_dtype(promote_types(c.dtype(), b.dtype()));
  const right_hand_sides rhs(c, b, t,
                             "incompatible dimensions (" +
                                 shape_repr(c.shape()) + " and " +
                                 shape_repr(b.shape()) + ")");
  linalg_backend::on(c.device()).potrs(broadcast_matrices(c, rhs.batch, t), rhs.x, lower ? 'L' : 'U');
  return rhs.result();
}

array_base solve_triangular(const array_base &a, const array_base &b, int trans, bool lower, bool unit_diagonal) {
  check_same_device(a.device(), b.device());
  if (trans < 0 || trans > 2)
    throw value_error("trans must be 0, 1 or 2, not " + std::to_string(trans));
  check_matrices(a, false);
  if (a.shape()[a.ndim() - 2] != a.shape().back())
    throw value_error("expected square matrix");
  const dtype t = linalg_dtype(promote_types(a.dtype(), b.dtype()));
  const right_hand_sides rhs(a, b, t,
                             "shapes of a " + shape_repr(a.shape()) +
                                 " and b " + shape_repr(b.shape()) +
                                 " are incompatible");
  const std::vector<int> info = linalg_backend::on(a.device()).trsm(broadcast_matrices(a, rhs.batch, t), rhs.x,
                                                                    lower ? 'L' : 'U', "NTC"[trans], unit_diagonal);
  for (int v : info)
    if (v > 0)
      throw linalg_error("singular matrix: resolution failed at diagonal " + std::to_string(v - 1));
  return rhs.result();
}

} // namespace kiln::detail
