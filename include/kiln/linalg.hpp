//===- kiln/linalg.hpp - Matrix products and norms ---------------*- C++ -*-===//
//
// kiln::matmul and kiln::dot with NumPy's semantics. On a CUDA device the
// floating and complex products run in cuBLAS (loaded at run time); on the
// host, and for integer and bool arrays, in a cache-blocked loop. And
// kiln::linalg::norm (vector norms and the Frobenius norm), a reduction that
// kilnc fuses. See docs/operations.md.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/axes.hpp"
#include "kiln/promote.hpp"

#include <cstdint>
#include <limits>
#include <complex>
#include <tuple>
#include <type_traits>
#include <utility>

namespace kiln {

namespace detail {
/// np.matmul on untyped arrays; result dtype promote_types(a, b).
array_base matmul(const array_base &a, const array_base &b);
/// np.dot on untyped arrays; result dtype promote_types(a, b).
array_base dot(const array_base &a, const array_base &b);

/// The `ord` of linalg::norm: a number (1, 2, inf, -inf, 0, any p) or
/// linalg::fro; the default is NumPy's ord=None.
struct norm_ord {
  enum class kind : std::uint8_t { none, number, fro, nuc };
  kind k = kind::none;
  double p = 2;
  constexpr norm_ord() noexcept = default;
  constexpr norm_ord(double value) noexcept : k(kind::number), p(value) {}
};

/// np.linalg.norm on an untyped array; the result has var_type's dtype.
array_base norm(const array_base &x, const norm_ord &ord, const axes &ax, bool keepdims);

/// The dtype linalg's solvers compute in for inputs of dtype `t`: float64
/// for bool and integers, else `t` (NumPy's).
dtype linalg_dtype(dtype t) noexcept;
/// np.linalg.solve, inv, det, slogdet and cholesky on untyped arrays.
array_base solve(const array_base &a, const array_base &b);
array_base inv(const array_base &a);
array_base det(const array_base &a);
std::pair<array_base, array_base> slogdet(const array_base &a);
array_base cholesky(const array_base &a);

/// The complex dtype of eig's results for inputs of dtype `t`.
dtype eig_dtype(dtype t) noexcept;
/// np.linalg.svd (U, S, Vh; U and Vh empty without `vectors`).
std::tuple<array_base, array_base, array_base> svd(const array_base &a, bool full_matrices, bool vectors);
/// np.linalg.qr's modes.
enum class qr_mode : std::uint8_t { reduced, complete, r };
std::pair<array_base, array_base> qr(const array_base &a, qr_mode mode);
/// np.linalg.eigh (eigenvectors empty without `vectors`); uplo 'L' or 'U'.
std::pair<array_base, array_base> eigh(const array_base &a, char uplo, bool vectors);
/// np.linalg.eig (eigenvectors empty without `vectors`).
std::pair<array_base, array_base> eig(const array_base &a, bool vectors);
/// np.linalg.pinv, lstsq, matrix_rank, cond, matrix_power.
array_base pinv(const array_base &a, double rcond);
std::tuple<array_base, array_base, array_base, array_base> lstsq(const array_base &a, const array_base &b, double rcond);
array_base matrix_rank(const array_base &a, double tol);
array_base cond(const array_base &x, const norm_ord &p);
array_base matrix_power(const array_base &a, std::int64_t n);
/// scipy.linalg.lu_factor, lu_solve, lu, cho_factor, cho_solve,
/// solve_triangular.
std::pair<array_base, array_base> lu_factor(const array_base &a);
array_base lu_solve(const array_base &lu, const array_base &piv, const array_base &b, int trans);
std::tuple<array_base, array_base, array_base> lu(const array_base &a);
array_base cho_factor(const array_base &a, bool lower);
array_base cho_solve(const array_base &c, bool lower, const array_base &b);
array_base solve_triangular(const array_base &a, const array_base &b, int trans, bool lower, bool unit_diagonal);
} // namespace detail

/// The element type of linalg's solvers for inputs of type T: double for
/// bool and integers, else T.
template <element T>
using linalg_t = std::conditional_t<std::is_integral_v<T>, double, T>;

/// The matrix product, as np.matmul: a 1-d operand is a row (first) or a
/// column (second) vector whose axis is removed from the result; operands of
/// more than 2 dimensions are stacks of matrices, broadcast over their
/// leading dimensions. 0-d operands are an error (shape_error).
template <element A, element B>
array<promote_t<A, B>> matmul(const array<A> &a, const array<B> &b) {
  return array<promote_t<A, B>>(detail::matmul(a, b));
}

/// np.dot: the inner product of 1-d arrays (a 0-d array), the matrix product
/// of 2-d arrays, a sum product over a's last axis and b's only axis (b 1-d)
/// or second-to-last axis (b n-d), and a product when either is 0-d.
template <element A, element B>
array<promote_t<A, B>> dot(const array<A> &a, const array<B> &b) {
  return array<promote_t<A, B>>(detail::dot(a, b));
}

template <element E>
template <element U>
array<promote_t<E, U>> array<E>::dot(const array<U> &y) const {
  return kiln::dot(*this, y);
}

namespace linalg {

/// The Frobenius norm, as linalg::norm's ord ('fro').
struct fro_t {
  constexpr operator detail::norm_ord() const noexcept {
    detail::norm_ord o;
    o.k = detail::norm_ord::kind::fro;
    return o;
  }
};
inline constexpr fro_t fro{};

/// The nuclear norm, as linalg::norm's ord ('nuc'): the sum of the
/// singular values.
struct nuc_t {
  constexpr operator detail::norm_ord() const noexcept {
    detail::norm_ord o;
    o.k = detail::norm_ord::kind::nuc;
    return o;
  }
};
inline constexpr nuc_t nuc{};

/// Infinity, for ord (np.inf).
inline constexpr double inf = std::numeric_limits<double>::infinity();

/// np.linalg.norm. With one axis (or a 1-d array and kiln::all): the vector
/// norm of order `ord`: sum(|x|^ord)^(1/ord), 2 by default, max |x| for inf,
/// min |x| for -inf, the count of non-zeros for 0. With two axes (or a 2-d
/// array and kiln::all): the Frobenius norm (default or linalg::fro) or the
/// matrix norms of order 1, -1, inf, -inf, 2 and -2 (the largest and
/// smallest singular value) and linalg::nuc (their sum). An array of more
/// than 2 dimensions
/// with kiln::all and the default ord is flattened (2-norm). The result has
/// var_result_t's type (float64 for integers, the real type for complex).
template <element T>
array<var_result_t<T>> norm(const array<T> &x, detail::norm_ord ord = {}, const axes &ax = all,
                            bool keepdims = false) {
  return array<var_result_t<T>>(detail::norm(x, ord, ax, keepdims));
}

/// np.linalg.solve: x with a @ x == b, for a of shape (..., M, M) and b of
/// shape (M,) or (..., M, K), batched over the broadcast leading axes, in
/// the dtype of linalg_t<promote_t<A, B>>. LU with partial pivoting
/// (LAPACK's gesv); linalg_error "Singular matrix" for an exactly singular
/// matrix, as NumPy. Through LAPACK on the host and cuSOLVER on a GPU
/// (docs/operations.md, "Linear algebra").
template <element A, element B>
array<linalg_t<promote_t<A, B>>> solve(const array<A> &a, const array<B> &b) {
  return array<linalg_t<promote_t<A, B>>>(detail::solve(a, b));
}

/// np.linalg.inv of each (..., M, M) matrix; linalg_error "Singular matrix".
template <element T> array<linalg_t<T>> inv(const array<T> &a) {
  return array<linalg_t<T>>(detail::inv(a));
}

/// np.linalg.det of each (..., M, M) matrix (shape (...)); 0 for a singular
/// one, 1 for an empty one.
template <element T> array<linalg_t<T>> det(const array<T> &a) { return array<linalg_t<T>>(detail::det(a)); }

/// np.linalg.slogdet: sign (of the determinant's type; a unit complex
/// number for complex matrices, 0 when singular) and log|det| (real; -inf
/// when singular), each of shape (...).
template <element T> struct slogdet_result {
  array<linalg_t<T>> sign;
  array<var_result_t<T>> logabsdet;
};
template <element T> slogdet_result<T> slogdet(const array<T> &a) {
  auto [sign, logabsdet] = detail::slogdet(a);
  return {array<linalg_t<T>>(sign), array<var_result_t<T>>(logabsdet)};
}

/// np.linalg.cholesky: the lower-triangular L with a == L @ L^H for each
/// Hermitian positive-definite (..., M, M) matrix (only its lower triangle
/// is read); linalg_error "Matrix is not positive definite".
template <element T> array<linalg_t<T>> cholesky(const array<T> &a) {
  return array<linalg_t<T>>(detail::cholesky(a));
}

/// The element type of eig's results: complex, of linalg_t<T>'s precision.
template <element T> using eig_t = std::complex<var_result_t<T>>;

/// np.linalg.svd's result: a == U @ diag(S) @ Vh for each matrix.
template <element T> struct svd_result {
  array<linalg_t<T>> U;
  array<var_result_t<T>> S;
  array<linalg_t<T>> Vh;
};

/// np.linalg.svd of each (..., M, N) matrix: U (..., M, M) and Vh (..., N,
/// N) with `full_matrices` (NumPy's default), else (..., M, K) and (..., K,
/// N), K = min(M, N); S (..., K) descending. linalg_error "SVD did not
/// converge". LAPACK's gesdd on the host, cuSOLVER's gesvd on a GPU.
template <element T> svd_result<T> svd(const array<T> &a, bool full_matrices = true) {
  auto [u, s, vh] = detail::svd(a, full_matrices, true);
  return {array<linalg_t<T>>(u), array<var_result_t<T>>(s), array<linalg_t<T>>(vh)};
}

/// np.linalg.svdvals: the singular values (..., K), descending (NumPy's
/// svd(a, compute_uv=False)).
template <element T> array<var_result_t<T>> svdvals(const array<T> &a) {
  return array<var_result_t<T>>(std::get<1>(detail::svd(a, false, false)));
}

/// np.linalg.qr's mode: `reduced` (Q (..., M, K), R (..., K, N)),
/// `complete` (Q (..., M, M), R (..., M, N)) or `r` (R only; Q is empty).
using qr_mode = detail::qr_mode;

template <element T> struct qr_result {
  array<linalg_t<T>> Q;
  array<linalg_t<T>> R;
};

/// np.linalg.qr: a == Q @ R with Q's columns orthonormal and R upper
/// triangular (Householder reflections: LAPACK's geqrf and orgqr).
template <element T> qr_result<T> qr(const array<T> &a, qr_mode mode = qr_mode::reduced) {
  auto [q, r] = detail::qr(a, mode);
  return {array<linalg_t<T>>(q), array<linalg_t<T>>(r)};
}

template <element T> struct eigh_result {
  array<var_result_t<T>> eigenvalues;
  array<linalg_t<T>> eigenvectors;
};

/// np.linalg.eigh: the eigenvalues (..., M), ascending, and eigenvectors (the
/// columns of (..., M, M)) of each Hermitian matrix, read from its lower
/// (`uplo` 'L', NumPy's default) or upper triangle. linalg_error
/// "Eigenvalues did not converge".
template <element T> eigh_result<T> eigh(const array<T> &a, char uplo = 'L') {
  auto [w, v] = detail::eigh(a, uplo, true);
  return {array<var_result_t<T>>(w), array<linalg_t<T>>(v)};
}

/// np.linalg.eigvalsh: eigh's eigenvalues alone.
template <element T> array<var_result_t<T>> eigvalsh(const array<T> &a, char uplo = 'L') {
  return array<var_result_t<T>>(detail::eigh(a, uplo, false).first);
}

template <element T> struct eig_result {
  array<eig_t<T>> eigenvalues;
  array<eig_t<T>> eigenvectors;
};

/// np.linalg.eig: the eigenvalues (..., M) and right eigenvectors (columns
/// of unit norm) of each square matrix, always complex (NumPy returns a
/// real array when every imaginary part is 0: docs/operations.md).
/// linalg_error "Array must not contain infs or NaNs", "Eigenvalues did not
/// converge".
template <element T> eig_result<T> eig(const array<T> &a) {
  auto [w, v] = detail::eig(a, true);
  return {array<eig_t<T>>(w), array<eig_t<T>>(v)};
}

/// np.linalg.eigvals: eig's eigenvalues alone.
template <element T> array<eig_t<T>> eigvals(const array<T> &a) {
  return array<eig_t<T>>(detail::eig(a, false).first);
}

/// np.linalg.pinv: the Moore-Penrose pseudo-inverse (..., N, M) of each
/// (..., M, N) matrix from its SVD, singular values at most rcond times the
/// largest counted as zero (NumPy's default rcond 1e-15).
template <element T> array<linalg_t<T>> pinv(const array<T> &a, double rcond = 1e-15) {
  return array<linalg_t<T>>(detail::pinv(a, rcond));
}

/// np.linalg.lstsq's result: the least-squares solution, the residuals'
/// squared norms (shape (K,) or (1,) for a vector b, when rank == N < M;
/// else empty), the rank of a and its singular values.
template <element T> struct lstsq_result {
  array<linalg_t<T>> x;
  array<var_result_t<T>> residuals;
  std::int64_t rank;
  array<var_result_t<T>> s;
};

/// np.linalg.lstsq: the x minimizing |b - a @ x| for a (M, N) and b (M,) or
/// (M, K) (the minimum-norm one when a is rank-deficient), from a's SVD;
/// singular values at most rcond times the largest count as zero; a
/// negative rcond (the default) is NumPy's None: machine epsilon times
/// max(M, N).
template <element A, element B>
lstsq_result<promote_t<A, B>> lstsq(const array<A> &a, const array<B> &b, double rcond = -1) {
  using T = promote_t<A, B>;
  auto [x, residuals, rank, s] = detail::lstsq(a, b, rcond);
  std::int64_t r = 0;
  detail::item(rank, &r);
  return {array<linalg_t<T>>(x), array<var_result_t<T>>(residuals), r, array<var_result_t<T>>(s)};
}

/// np.linalg.matrix_rank: the number of singular values above `tol` (a
/// negative tol, the default, is NumPy's: S.max() * max(M, N) * eps) of
/// each matrix; for a 0-d or 1-d array, 1 unless every element is 0.
template <element T> array<std::int64_t> matrix_rank(const array<T> &a, double tol = -1) {
  return array<std::int64_t>(detail::matrix_rank(a, tol));
}

/// np.linalg.cond: the condition number of each square (or, for the default
/// and 2, -2, any) matrix in the norm `p`: by default (and 2) the ratio of
/// the largest singular value to the smallest; inf for a singular matrix.
template <element T> array<var_result_t<T>> cond(const array<T> &x, detail::norm_ord p = {}) {
  return array<var_result_t<T>>(detail::cond(x, p));
}

/// np.linalg.matrix_power: a @ a @ ... (n times) by repeated squaring; the
/// identity for n == 0 and powers of inv(a) for n < 0. Integer matrices
/// keep their type for n >= 0.
template <element T> array<T> matrix_power(const array<T> &a, std::int64_t n) {
  return array<T>(detail::matrix_power(a, n));
}

/// scipy.linalg.lu_factor's result: L (unit diagonal, not stored) and U in
/// one matrix, and the 0-based row swaps (row i was swapped with piv[i]).
template <element T> struct lu_factor_result {
  array<linalg_t<T>> lu;
  array<std::int32_t> piv;
};

/// scipy.linalg.lu_factor: LU with partial pivoting of each (..., M, N)
/// matrix (getrf). A singular matrix is not an error here (a zero on U's
/// diagonal; lu_solve then divides by it).
template <element T> lu_factor_result<T> lu_factor(const array<T> &a) {
  auto [f, p] = detail::lu_factor(a);
  return {array<linalg_t<T>>(f), array<std::int32_t>(p)};
}

/// scipy.linalg.lu_solve: x with op(a) @ x == b from lu_factor's result;
/// trans 0 (a), 1 (a^T) or 2 (a^H). b is (N,) or (..., N, K).
template <element T, element B>
array<linalg_t<promote_t<T, B>>> lu_solve(const lu_factor_result<T> &factors, const array<B> &b, int trans = 0) {
  return array<linalg_t<promote_t<T, B>>>(detail::lu_solve(factors.lu, factors.piv, b, trans));
}

template <element T> struct lu_result {
  array<linalg_t<T>> P;
  array<linalg_t<T>> L;
  array<linalg_t<T>> U;
};

/// scipy.linalg.lu: a == P @ L @ U for each (..., M, N) matrix, P (..., M,
/// M) a permutation, L (..., M, K) unit lower triangular, U (..., K, N)
/// upper triangular.
template <element T> lu_result<T> lu(const array<T> &a) {
  auto [p, l, u] = detail::lu(a);
  return {array<linalg_t<T>>(p), array<linalg_t<T>>(l), array<linalg_t<T>>(u)};
}

/// scipy.linalg.cho_factor's result: the Cholesky factor in the `lower` (or
/// upper) triangle of `c`; the other triangle keeps a's entries.
template <element T> struct cho_factor_result {
  array<linalg_t<T>> c;
  bool lower;
};

/// scipy.linalg.cho_factor: a == U^H @ U (or L @ L^H when `lower`) for each
/// Hermitian positive-definite matrix; linalg_error "<k>-th leading minor of
/// the array is not positive definite".
template <element T> cho_factor_result<T> cho_factor(const array<T> &a, bool lower = false) {
  return {array<linalg_t<T>>(detail::cho_factor(a, lower)), lower};
}

/// scipy.linalg.cho_solve: x with a @ x == b from cho_factor's result.
template <element T, element B>
array<linalg_t<promote_t<T, B>>> cho_solve(const cho_factor_result<T> &factors, const array<B> &b) {
  return array<linalg_t<promote_t<T, B>>>(detail::cho_solve(factors.c, factors.lower, b));
}

/// scipy.linalg.solve_triangular: x with op(a) @ x == b, a's `lower` (or
/// upper) triangle read, its diagonal taken as ones when `unit_diagonal`;
/// trans 0, 1 (a^T) or 2 (a^H). linalg_error "singular matrix: resolution
/// failed at diagonal <i>" on the host (cuBLAS checks nothing: a zero on
/// the diagonal gives infinities there).
template <element A, element B>
array<linalg_t<promote_t<A, B>>> solve_triangular(const array<A> &a, const array<B> &b, int trans = 0,
                                                  bool lower = false, bool unit_diagonal = false) {
  return array<linalg_t<promote_t<A, B>>>(detail::solve_triangular(a, b, trans, lower, unit_diagonal));
}

} // namespace linalg

} // namespace kiln
