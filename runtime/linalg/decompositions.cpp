//===- runtime/linalg/decompositions.cpp - svd, qr, eigh, eig -------------===//
//
// NumPy's decompositions, batched over the leading axes, on the input's
// device (backend.hpp). Where the transposes a C-ordered stack is when read
// column-major serve, nothing is moved:
//   svd: A^T = U' S V'^H gives A = conj(V') S U'^T, and LAPACK's V'^H read
//     in C order is conj(V') = U, its U' read in C order U'^T = V^H;
//   eigh: A^T = conj(A) has A's eigenvalues and the conjugate eigenvectors,
//     and A's lower triangle is A^T's upper.
// qr and eig factor the matrices themselves (one strided copy in, one out).
// cuSOLVER's gesvd needs rows >= cols: a GPU factors a tall matrix itself.
//
//===----------------------------------------------------------------------===//
#include "backend.hpp"
#include "stack.hpp"

#include "kiln/error.hpp"
#include "kiln/linalg.hpp"
#include "kiln/ops.hpp"
#include "kiln/promote.hpp"
#include "kiln/reductions.hpp"
#include "kiln/stream.hpp"

#include <string>

namespace kiln::detail {
namespace {

using namespace linalg_stack;

/// An empty array of dtype `t` on `dev` (a result NumPy would not return).
array_base nothing(dtype t, device dev) { return empty(t, shape{0}, dev); }

} // namespace

dtype eig_dtype(dtype t) noexcept {
  const dtype r = linalg_dtype(t);
  return r == dtype::float32 || r == dtype::complex64 ? dtype::complex64 : dtype::complex128;
}

std::tuple<array_base, array_base, array_base> svd(const array_base &a, bool full_matrices, bool vectors) {
  check_matrices(a, false);
  const dtype t = linalg_dtype(a.dtype());
  const std::int64_t m = a.shape()[a.ndim() - 2], n = a.shape()[a.ndim() - 1], k = std::min(m, n);
  const shape batch = batch_of(a);
  const linalg_backend::backend &lapack = linalg_backend::on(a.device());
  const bool transposes = a.device().is_host() || m < n;
  const stack s = transposes ? as_transposes(a, t) : as_columns(a, t);
  linalg_backend::svd_factors f = lapack.gesvd(s, vectors, full_matrices);
  for (int info : f.info)
    if (info != 0)
      throw linalg_error("SVD did not converge");
  array_base values = reshape(f.s, with_vector(batch, k));
  if (!vectors)
    return {nothing(t, a.device()), values, nothing(t, a.device())};
  if (transposes) // U = V'^H and V^H = U' read in C order
    return {transposes_of(f.vt, batch), values, transposes_of(f.u, batch)};
  return {to_rows(f.u, batch), values, to_rows(f.vt, batch)};
}

std::pair<array_base, array_base> qr(const array_base &a, qr_mode mode) {
  check_matrices(a, false);
  const dtype t = linalg_dtype(a.dtype());
  const std::int64_t m = a.shape()[a.ndim() - 2], n = a.shape()[a.ndim() - 1], k = std::min(m, n);
  const shape batch = batch_of(a);
  const linalg_backend::backend &lapack = linalg_backend::on(a.device());
  const stack s = as_columns(a, t);
  const array_base tau = lapack.geqrf(s);
  const std::int64_t r_rows = mode == qr_mode::complete ? m : k;
  array_base r = to_rows(s, batch, r_rows, n, element_map::upper());
  if (mode == qr_mode::r)
    return {nothing(t, a.device()), r};
  // Q's columns from the k reflectors (the first k columns of s).
  const std::int64_t q_cols = mode == qr_mode::complete ? m : k;
  stack q = s;
  if (q_cols != n) {
    q = make_stack(t, s.count, m, q_cols, a.device());
    const std::int64_t shared = std::min(n, q_cols);
    const slice_arg first[] = {kiln::all, kiln::range(0, shared), kiln::all};
    assign(slice(q.data, first), slice(s.data, first), stream::current(a.device()));
  }
  lapack.orgqr(q, tau, k);
  return {to_rows(q, batch), r};
}

std::pair<array_base, array_base> eigh(const array_base &a, char uplo, bool vectors) {
  if (uplo != 'L' && uplo != 'U')
    throw value_error("UPLO argument must be 'L' or 'U'");
  check_matrices(a, true);
  const dtype t = linalg_dtype(a.dtype());
  const std::int64_t n = a.shape().back();
  const shape batch = batch_of(a);
  const stack s = as_transposes(a, t); // conj(A), whose upper triangle is A's lower
  linalg_backend::eigen_factors f = linalg_backend::on(a.device()).syevd(s, vectors, uplo == 'L' ? 'U' : 'L');
  for (int info : f.info)
    if (info > 0)
      throw linalg_error("Eigenvalues did not converge");
  array_base w = reshape(f.w, with_vector(batch, n));
  if (!vectors)
    return {w, nothing(t, a.device())};
  // conj(A)'s eigenvectors are conj(v): conjugated back, column j is v_j.
  return {w, to_rows(s, batch, element_map{.conj = true})};
}

std::pair<array_base, array_base> eig(const array_base &a, bool vectors) {
  check_matrices(a, true);
  const dtype t = eig_dtype(a.dtype());
  const std::int64_t n = a.shape().back();
  const shape batch = batch_of(a);
  // NumPy checks first: LAPACK's geev may not return on them.
  if (a.size() > 0 && (kind_of(a.dtype()) == scalar_kind::floating || kind_of(a.dtype()) == scalar_kind::complex)) {
    const array_base bad = eager(op::logical_or, {eager(op::isnan, {a}), eager(op::isinf, {a})});
    bool any = false;
    item(reduce(reduction::any, bad, kiln::all, false), &any);
    if (any)
      throw linalg_error("Array must not contain infs or NaNs");
  }
  const stack s = as_columns(a, t);
  const stack vr = make_stack(t, s.count, n, n, a.device());
  linalg_backend::eigen_factors f = linalg_backend::on(a.device()).geev(s, vectors ? &vr : nullptr);
  for (int info : f.info)
    if (info > 0)
      throw linalg_error("Eigenvalues did not converge");
  array_base w = reshape(f.w, with_vector(batch, n));
  if (!vectors)
    return {w, nothing(t, a.device())};
  return {w, to_rows(vr, batch)};
}

} // namespace kiln::detail
