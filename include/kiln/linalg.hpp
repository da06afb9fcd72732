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
  enum class kind : std::uint8_t { none, number, fro };
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

/// Infinity, for ord (np.inf).
inline constexpr double inf = std::numeric_limits<double>::infinity();

/// np.linalg.norm. With one axis (or a 1-d array and kiln::all): the vector
/// norm of order `ord`: sum(|x|^ord)^(1/ord), 2 by default, max |x| for inf,
/// min |x| for -inf, the count of non-zeros for 0. With two axes (or a 2-d
/// array and kiln::all): the Frobenius norm (default or linalg::fro) or the
/// matrix norms of order 1, -1, inf, -inf; orders 2, -2 and the nuclear norm
/// need an SVD and are a value_error. An array of more than 2 dimensions
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

} // namespace linalg

} // namespace kiln
