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
#include <string>

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

/// `x.assign(value)` on a Kiln array with a Kiln array value (NumPy's
/// `x[...] = value`). kilnc fuses it when the value is an array operation
/// (ArrayExpr.h, fusedAssign): one kernel computes the value into x,
/// converted to x's dtype (setitem's unsafe casting, as array::assign), where
/// the runtime would compute a temporary and copy it.
struct AssignCall {
  const clang::Expr *target = nullptr; ///< x
  const clang::Expr *value = nullptr;
};
std::optional<AssignCall> classifyAssign(const clang::Expr *e);
/// `x.assign(value)` whose value is an array operation: a fusable call of
/// its own (the root of an update that does not read x). A bare array or a
/// view stays array::assign's copy.
std::optional<AssignCall> fusedAssign(const clang::Expr *e, clang::ASTContext &ctx);

/// `x[i]` on a Kiln array x with a Kiln array i of bools (a boolean mask)
/// or integers (indices): the proxy of NumPy's advanced indexing, which
/// converts to a new array (a gather) and takes `=` and `op=` (a scatter).
struct IndexSubscript {
  const clang::Expr *base = nullptr;  ///< x
  const clang::Expr *index = nullptr; ///< i
  bool isMask = false;                ///< i is an array of bools
};
std::optional<IndexSubscript> classifyIndexSubscript(const clang::Expr *e);

/// `x[m] = value` or `x[m] op= value` that kilnc fuses into one kernel
/// writing x where the mask m holds: `where(m, value', x)` (value' is the
/// value with every `w[m]` read as w; for `op=`, `x op value'`, converted to
/// x's dtype). It applies when x and m are variables and every array the
/// value reads is `w[m]` with that same m and a variable w (the tutorial's
/// `Z[mask] = Z[mask] * Z[mask] + C[mask]`); the rewritten code checks at run
/// time that x, m and every w have one shape, and runs the statement as
/// written (a gather, then a scatter) otherwise.
struct MaskedAssignCall {
  std::optional<OpKind> op;  ///< none for `=`
  const char *ufunc = "";
  const clang::Expr *subscript = nullptr; ///< x[m] as written
  const clang::Expr *target = nullptr;    ///< x
  const clang::Expr *mask = nullptr;      ///< m
  const clang::Expr *value = nullptr;
  const clang::ValueDecl *maskVar = nullptr;
};
std::optional<MaskedAssignCall> classifyMaskedAssign(const clang::Expr *e);

/// The array a statement writes into: the destination of `x op= v`, of
/// `x[i] = v` / `x[i] op= v`, of `x.assign(v)` and `x.fill(v)`; null for
/// anything else. `what` is set to the operation's spelling ("+=", "fill").
const clang::Expr *writtenArray(const clang::Expr *e, std::string &what);

/// The variable a write goes into when it is declared const (`const
/// kiln::array<float> &x`, `const auto y = ...`): kilnc refuses to write into
/// it, as C++ refuses to modify a const object.
const clang::VarDecl *constArrayVariable(const clang::Expr *target);

/// NumPy's 'same_kind' casting: within a kind any size, across kinds only
/// up (bool, unsigned, signed, float, complex), never signed to unsigned.
bool castsSameKind(ElementType from, ElementType to);

} // namespace kiln::frontend

#endif
