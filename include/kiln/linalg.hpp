//===- kiln/linalg.hpp - Matrix products -------------------------*- C++
//-*-===//
//
// kiln::matmul and kiln::dot with NumPy's semantics. On a CUDA device the
// floating and complex products run in cuBLAS (loaded at run time); on the
// host, and for integer and bool arrays, in a cache-blocked loop. See
// docs/operations.md.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/promote.hpp"

namespace kiln {

namespace detail {
/// np.matmul on untyped arrays; result dtype promote_types(a, b).
array_base matmul(const array_base &a, const array_base &b);
/// np.dot on untyped arrays; result dtype promote_types(a, b).
array_base dot(const array_base &a, const array_base &b);
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

} // namespace kiln
