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
} // namespace detail

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

} // namespace linalg

} // namespace kiln
