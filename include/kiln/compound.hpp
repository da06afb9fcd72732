//===- kiln/compound.hpp - Compound assignment into arrays ---------*- C++ -*-===//
//
// `x += y`, `x -= y`, `x *= y`, `x /= y`, `x %= y` on arrays and views, as
// NumPy's in-place operators (np.add(x, y, out=x, casting='same_kind')): the
// result of `x op y` (NumPy promotion, broadcasting into x's shape) is
// written into x's elements, converted to x's dtype where NumPy's
// 'same_kind' rule allows it (int32 += float64 is NumPy's error); an operand
// that overlaps x (`x += x.T()`) is read before x is written. The eager form
// computes the result, then writes it (docs/user-guide.md, "Writing into
// arrays").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/ops.hpp"

namespace kiln {
namespace detail {

/// Throws value_error with NumPy's message unless `from` converts to `to`
/// under NumPy's 'same_kind' casting (safe casts, or within a kind: float64
/// to float32, int64 to int8; never float to int or signed to unsigned).
void check_same_kind(const char *ufunc, dtype from, dtype to);

template <element E, class R> const array<E> &write_result(const array<E> &x, const char *ufunc, const R &result) {
  check_same_kind(ufunc, result.dtype(), x.dtype());
  assign(x, result, stream::current(x.device()));
  return x;
}

} // namespace detail

#define KILN_COMPOUND_ASSIGNMENT(OP, UFUNC)                                                                     \
  template <element E, class B>                                                                                 \
    requires requires(const array<E> &x, const B &b) { x OP b; }                                                \
  const array<E> &operator OP##=(const array<E> &x, const B &b) {                                               \
    return detail::write_result(x, UFUNC, x OP b);                                                              \
  }
KILN_COMPOUND_ASSIGNMENT(+, "add")
KILN_COMPOUND_ASSIGNMENT(-, "subtract")
KILN_COMPOUND_ASSIGNMENT(*, "multiply")
KILN_COMPOUND_ASSIGNMENT(/, "divide")
KILN_COMPOUND_ASSIGNMENT(%, "remainder")
#undef KILN_COMPOUND_ASSIGNMENT

} // namespace kiln
