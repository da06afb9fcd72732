//===- Frontend/ArrayWrites.h - Which code may write into arrays -*- C++ -*-===//
//
// Inlining a local into its consumers moves the reads of its initializer to
// where the consumers run. That is invisible only when nothing between the
// two can write into an array the initializer reads, and since arrays are
// handles (a view, a copy of the handle, a by-value parameter all share the
// data) kilnc cannot tell which array a write reaches. So the question asked
// here is the conservative one: may evaluating this code write into any
// array at all?
//
// It may when it holds a write form kilnc knows (`x op= v`, `x[m] = v`,
// `x[i] op= v`, `x.assign(v)`, `x.fill(v)`: InPlaceUpdate.h's writtenArray),
// `kiln::elementwise_into`, an assignment operator on a class object (an
// index proxy's scatter), a Kiln function or method that returns nothing
// (`copyto`, `put`, `launch`, `copy_from_host`), or a call of anything that
// is neither Kiln's nor the standard library's scalar math (a user function,
// a call through a pointer, a constructor of a user's class).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ARRAYWRITES_H
#define KILN_FRONTEND_ARRAYWRITES_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseSet.h"

namespace kiln::frontend {

/// True when the call itself (not its arguments) may write into an array.
bool callMayWriteArrays(const clang::CallExpr *call);

/// True when evaluating `s` may write into an array anywhere in it. Lambda
/// bodies are not looked into (creating a lambda runs nothing); a lambda
/// that is called is a call of a user function.
bool mayWriteArrays(const clang::Stmt *s);

/// The statement `s` when it is exactly one write whose operands are all
/// evaluated before it writes (`x += t`, `x[m] = t`, `kiln::copyto(x, t)`,
/// `x.assign(t)`, `elementwise_into(x, f, t)`), with no other write in
/// them; null otherwise. A local inlined into such a statement reads its
/// arrays before the write, as it would have in its own statement.
const clang::Expr *soleWriteReadingFirst(const clang::Stmt *s);

/// Every variable of `body` written through a write form by name (`x += ...`,
/// `x[m] = ...`, `x.fill(...)`, `elementwise_into(x, ...)`), lambda bodies
/// included: such a variable is a destination, never a value to inline.
llvm::DenseSet<const clang::ValueDecl *> writtenVariables(const clang::Stmt *body);

} // namespace kiln::frontend

#endif
