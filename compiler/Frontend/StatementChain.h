//===- Frontend/StatementChain.h - Fusing across plain statements -*- C++ -*-===//
//
// Outside KILN_FUSE functions, kilnc fuses a chain of consecutive array
// statements of one block into one kernel, as a KILN_FUSE body is fused:
//
//   auto t = a * x;          // inlined into u, declaration removed
//   auto u = t + y;          // inlined into z, declaration removed
//   auto z = kiln::sqrt(u);  // one kernel: reads a*x+y's leaves, writes z
//
// A local is inlined when the change cannot be seen: it is an array declared
// by value with a fusable initializer, every use of it is an operand of an
// elementwise operation or reduction in the statements that follow it in
// the same run, and nothing between its declaration and its last use can
// change what its initializer reads. A run is a sequence of consecutive
// statements of one block: declarations of arrays and scalars whose
// initializers have no side effects (Kiln operations, views, creation,
// scalar arithmetic), ended by one consumer (any statement of that kind, a
// call of any function on such arguments, a `return`, an assignment to a
// variable, or one update in place such as `x += ...`). A call of a user
// function whose value is an operand, a write into an array, a random draw,
// a lambda that might run later or any control flow ends the run before it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_STATEMENTCHAIN_H
#define KILN_FRONTEND_STATEMENTCHAIN_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <vector>

namespace kiln::frontend {

/// What the body scan of a function found, for the chain analysis.
struct BodyFacts {
  /// The fusable calls (roots and operands alike) and, among them, the
  /// expressions that are an operand of another fusable call.
  const llvm::DenseSet<const clang::Expr *> *fusable = nullptr;
  const llvm::DenseSet<const clang::Expr *> *operands = nullptr;
  /// Every reference to a declaration in the body.
  const std::vector<const clang::DeclRefExpr *> *refs = nullptr;
};

/// The locals of a plain function's chains: each inlined local's
/// initializer, and the declarations to remove.
struct StatementChains {
  llvm::DenseMap<const clang::VarDecl *, const clang::Expr *> inlined;
  std::vector<const clang::DeclStmt *> removedDecls;
};

/// Finds the chains in `body` (every block in it, lambda bodies included).
StatementChains findStatementChains(const clang::Stmt *body, const BodyFacts &facts);

/// The locals of a KILN_FUSE body to inline: each array local declared at
/// the top level with a fusable initializer whose every use is an operand
/// of a fusable call, unless an array may be written (ArrayWrites.h)
/// between its declaration and where its inlined initializer would be
/// evaluated, which would then read what the write left instead of what it
/// read in its own statement (issue 24). Such a local keeps its storage: it
/// is computed by its own kernel before the write.
StatementChains findFuseBodyLocals(const clang::Stmt *body, const BodyFacts &facts);

} // namespace kiln::frontend

#endif
