//===- Frontend/ReductionCall.h - Recognizing reduction calls --*- C++ -*-===//
//
// Finds Kiln's reductions in the clang AST in every spelling a user writes:
// free functions (`kiln::sum(x, -1)`), methods (`x.sum(-1)`), the callable
// `kiln::all(x)` and `kiln::linalg::norm(x, ord, axis)`, and names their
// arguments (operand, axes, keepdims, ddof, ord), defaults left out.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_REDUCTIONCALL_H
#define KILN_FRONTEND_REDUCTIONCALL_H

#include "Frontend/ArrayExpr.h"

#include <optional>

namespace kiln::frontend {

struct ReductionCall {
  ReduceKind kind = ReduceKind::Sum;
  const clang::Expr *operand = nullptr;
  const clang::Expr *axes = nullptr;     ///< null: the default (every axis)
  const clang::Expr *keepdims = nullptr; ///< null: the default (false)
  const clang::Expr *ddof = nullptr;     ///< var/std; null: 0
  const clang::Expr *order = nullptr;    ///< norm; null: the default (ord=None)
  /// kiln::reduce(x, map, combine, identity, post, axes, keepdims)
  const clang::Expr *map = nullptr, *combine = nullptr, *identity = nullptr, *post = nullptr;
};

/// The reduction `e` calls, if it is one of Kiln's.
std::optional<ReductionCall> classifyReduction(const clang::Expr *e);

/// The axes argument as far as it can be known at compile time.
AxesSpec axesSpecOf(const clang::Expr *axesArg, clang::ASTContext &ctx);

/// The keepdims argument as far as it can be known at compile time.
KeepdimsSpec keepdimsSpecOf(const clang::Expr *keepdimsArg, clang::ASTContext &ctx);

/// The order of a norm call kilnc fuses: sum(|x|^p)^(1/p) over the axes
/// (p = 2 for the default and the Frobenius norm). nullopt when the norm is
/// left to the runtime: an order known only at run time, or one whose
/// meaning depends on the array's rank (a number or 'fro' with kiln::all),
/// or a matrix norm.
/// True if a norm's `ord` argument is kiln::linalg::fro.
bool isFrobeniusOrder(const clang::Expr *order);

std::optional<double> fusableNormOrder(const ReductionCall &call, const AxesSpec &axes, clang::ASTContext &ctx);

} // namespace kiln::frontend

#endif
