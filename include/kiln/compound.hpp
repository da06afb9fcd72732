//===- kiln/compound.hpp - Compound assignment into arrays ---------*- C++
//-*-===//
//
// `x += y`, `x -= y`, `x *= y`, `x /= y`, `x %= y` (and `&=`, `|=`, `^=`,
// `<<=`, `>>=` on integer and bool arrays) on arrays and views, as
// NumPy's in-place operators (np.add(x, y, out=x, casting='same_kind')): the
// result of `x op y` (NumPy promotion, broadcasting into x's shape) is
// written into x's elements, converted to x's dtype where NumPy's
// 'same_kind' rule allows it (int32 += float64 is NumPy's error); an operand
// that overlaps x (`x += x.T()`) is read before x is written. This eager form
// computes the result, then writes it; in a file kilnc compiles the update is
// one fused kernel that writes x in place (docs/user-guide.md, "Writing into
// arrays").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/ops.hpp"

#include <utility>

namespace kiln {
namespace detail {

/// Throws value_error with NumPy's message unless `from` converts to `to`
/// under NumPy's 'same_kind' casting (safe casts, or within a kind: float64
/// to float32, int64 to int8; never float to int or signed to unsigned).
void check_same_kind(const char *ufunc, dtype from, dtype to);

/// x[...] = value, where value is an operation's result over x (NumPy's
/// `out=x`): the result must not need a larger x.
template <element E> const array<E> &write_update(const array<E> &x, const array_base &value) {
  if (!x.writeable())
    throw value_error("assignment destination is read-only");
  if (shape b = broadcast_shapes(x.shape(), value.shape()); b != x.shape())
    throw shape_error("non-broadcastable output operand with shape " + to_string(x.shape()) +
                      " doesn't match the broadcast shape " + to_string(b));
  assign(x, value, stream::current(x.device()));
  return x;
}

template <element E, class R> const array<E> &write_result(const array<E> &x, const char *ufunc, const R &result) {
  check_same_kind(ufunc, result.dtype(), x.dtype());
  return write_update(x, result);
}

} // namespace detail

// The third template parameter is the type of `x OP b`: kilnc reads it to
// build the fused update (docs/frontend.md, "In-place updates").
#define KILN_COMPOUND_ASSIGNMENT(OP, UFUNC)                                                                     \
  template <element E, class B, class R = decltype(std::declval<const array<E> &>() OP std::declval<const B &>())> \
  const array<E> &operator OP##=(const array<E> &x, const B &b) {                                               \
    return detail::write_result(x, UFUNC, x OP b);                                                              \
  }
KILN_COMPOUND_ASSIGNMENT(+, "add")
KILN_COMPOUND_ASSIGNMENT(-, "subtract")
KILN_COMPOUND_ASSIGNMENT(*, "multiply")
KILN_COMPOUND_ASSIGNMENT(/, "divide")
KILN_COMPOUND_ASSIGNMENT(%, "remainder")
// On integer and bool arrays (NumPy's bitwise ufuncs; on bools & | ^ are the
// logical and, or, xor).
KILN_COMPOUND_ASSIGNMENT(&, "bitwise_and")
KILN_COMPOUND_ASSIGNMENT(|, "bitwise_or")
KILN_COMPOUND_ASSIGNMENT(^, "bitwise_xor")
KILN_COMPOUND_ASSIGNMENT(<<, "left_shift")
KILN_COMPOUND_ASSIGNMENT(>>, "right_shift")
#undef KILN_COMPOUND_ASSIGNMENT

} // namespace kiln
