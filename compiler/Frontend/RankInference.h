//===- Frontend/RankInference.h - Array ranks known at compile time -*- C++ -*-===//
//
// kiln::array carries its rank at run time, but often the source says it:
// an array created with a braced shape (`kiln::zeros<float>({3, 4})`), a
// reshape to one, a view or elementwise result of such arrays, a reduction
// over constant axes, and a local variable initialized so and never
// modified. kilnc uses the rank to report a reduction axis that is out of
// range at compile time, as a clang diagnostic, instead of at run time.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_RANKINFERENCE_H
#define KILN_FRONTEND_RANKINFERENCE_H

#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace clang {
class ASTContext;
class FunctionDecl;
class VarDecl;
} // namespace clang

namespace kiln::frontend {

class RankInference {
public:
  /// Ranks of expressions in the body of `fn`.
  RankInference(clang::ASTContext &ctx, const clang::FunctionDecl *fn) : ctx_(ctx), fn_(fn) {}

  /// The rank `e` (an array expression) certainly has, if known.
  std::optional<unsigned> rankOf(const clang::Expr *e, unsigned depth = 0);

private:
  /// The number of dimensions of a kiln::shape argument built from a braced
  /// list.
  std::optional<unsigned> shapeRank(const clang::Expr *shapeArg);
  /// True if nothing in the function can change `vd` after its
  /// initialization (no assignment, no non-const reference, no address).
  bool unmodified(const clang::VarDecl *vd);

  clang::ASTContext &ctx_;
  const clang::FunctionDecl *fn_;
  llvm::DenseMap<const clang::VarDecl *, bool> unmodified_;
};

} // namespace kiln::frontend

#endif
