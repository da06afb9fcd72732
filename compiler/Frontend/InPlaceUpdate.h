//===- Frontend/InPlaceUpdate.h - Writes into arrays ----------*- C++ -*-===//
//
// Recognizes the array statements that write into an existing array:
// compound assignment `x op= value` (include/kiln/compound.hpp) on a Kiln
// array or view. Its tree is `x op value`, converted to x's dtype, and the
// rewritten code runs the kernel with x as its output (NumPy's
// `ufunc(x, value, out=x)`): one kernel that reads x and value once and
// writes x in place. kiln::elementwise_into (LambdaCall.h) takes the same
// path with its `out`.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_INPLACEUPDATE_H
#define KILN_FRONTEND_INPLACEUPDATE_H

#include "Frontend/ArrayExpr.h"

#include <optional>

namespace kiln::frontend {

/// One `x op= value` on a Kiln array.
struct CompoundAssignCall {
  OpKind op = OpKind::Add;   ///< the operation: Add for `+=`, And for `&=`, ...
  const char *ufunc = "";    ///< NumPy's name of it, for messages ("add")
  const clang::Expr *target = nullptr; ///< x
  const clang::Expr *value = nullptr;
  /// The element type of `x op value` (compound.hpp's template argument R).
  std::optional<ElementType> resultType;
};

/// `e` as a compound assignment into a Kiln array, if it is one.
std::optional<CompoundAssignCall> classifyCompoundAssign(const clang::Expr *e);

/// NumPy's 'same_kind' casting: within a kind any size, across kinds only
/// up (bool, unsigned, signed, float, complex), never signed to unsigned.
bool castsSameKind(ElementType from, ElementType to);

} // namespace kiln::frontend

#endif
