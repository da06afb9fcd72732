//===- Frontend/LambdaCall.h - kiln::elementwise call sites -----*- C++ -*-===//
//
// Finds `kiln::elementwise(f, args...)` and `kiln::elementwise_into(out, f,
// args...)` in the clang AST and names their parts: the lambda, the call
// operator clang instantiated for the arguments' element types (one per
// combination for a generic lambda), the values it captures, and the
// arguments. The lambda's body becomes an element function
// (RawKernelGen.h, emitElementFunction) that the kernel calls per element.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_LAMBDACALL_H
#define KILN_FRONTEND_LAMBDACALL_H

#include "clang/AST/Expr.h"
#include "clang/Basic/SourceLocation.h"

#include <optional>
#include <string>
#include <vector>

namespace clang {
class CXXMethodDecl;
class LambdaExpr;
class ValueDecl;
} // namespace clang

namespace kiln::frontend {

struct ElementwiseCall {
  const clang::Expr *functor = nullptr;         ///< the lambda argument as written
  const clang::LambdaExpr *lambda = nullptr;    ///< when written in the call
  const clang::CXXMethodDecl *callOperator = nullptr; ///< instantiated for the arguments
  /// Captured variables and the expressions that initialize them at the
  /// call (null when the lambda captures nothing).
  std::vector<const clang::ValueDecl *> captures;
  std::vector<const clang::Expr *> captureInits;
  std::vector<const clang::Expr *> args; ///< the arrays and scalars, in order
  const clang::Expr *into = nullptr;     ///< elementwise_into: the destination
  /// Why kilnc cannot compile this call (empty when it can), and where.
  std::string error;
  clang::SourceLocation errorAt;
};

/// The elementwise call `e` makes, if it is one of kiln::elementwise or
/// kiln::elementwise_into.
std::optional<ElementwiseCall> classifyElementwiseCall(const clang::Expr *e);

/// A lambda argument of a Kiln call and its call operator for arguments of
/// the `received` types (what the call passes it): fills `functor`,
/// `lambda`, `callOperator`, `captures` and `captureInits` of `out`, or its
/// `error` and `errorAt`. `what` names the call in messages
/// ("kiln::elementwise", "kiln::reduce's map").
void analyzeLambda(const clang::Expr *functor, const std::vector<clang::QualType> &received, llvm::StringRef what,
                   ElementwiseCall &out);

/// The lambda `e` is, when it is written there (through the copy into a
/// by-value parameter), else null.
const clang::LambdaExpr *writtenLambda(const clang::Expr *e);

/// What a lambda receives for an argument of C++ type `a`: the element
/// type of a kiln::array, a scalar as it is.
clang::QualType receivedType(clang::QualType a);

} // namespace kiln::frontend

#endif
