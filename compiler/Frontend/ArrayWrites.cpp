//===- Frontend/ArrayWrites.cpp - Which code may write into arrays --------===//
#include "Frontend/ArrayWrites.h"
#include "Frontend/ArrayExpr.h"
#include "Frontend/ElementType.h"
#include "Frontend/InPlaceUpdate.h"
#include "Frontend/LambdaCall.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

namespace kiln::frontend {
namespace {

/// A Kiln function or method whose parameter is a reference to a non-const
/// Kiln object: it may change it.
bool takesMutableKilnReference(const FunctionDecl *fd) {
  for (const ParmVarDecl *p : fd->parameters()) {
    QualType t = p->getType();
    if (!t->isReferenceType() || t.getNonReferenceType().isConstQualified()) continue;
    if (const auto *rd = t.getNonReferenceType()->getAsCXXRecordDecl(); rd && inKilnNamespace(rd, /*nested=*/true))
      return true;
  }
  return false;
}

class WriteFinder : public RecursiveASTVisitor<WriteFinder> {
public:
  bool TraverseLambdaExpr(LambdaExpr *) { return true; } // created, not run
  bool VisitCallExpr(CallExpr *call) { return keep(!callMayWriteArrays(call)); }
  bool VisitCXXConstructExpr(CXXConstructExpr *e) {
    const CXXRecordDecl *cls = e->getConstructor()->getParent();
    return keep(cls->isLambda() || e->getConstructor()->isTrivial() || cls->isInStdNamespace() ||
                inKilnNamespace(cls, /*nested=*/true));
  }
  bool VisitCXXNewExpr(CXXNewExpr *) { return keep(false); }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *) { return keep(false); }
  bool VisitAsmStmt(AsmStmt *) { return keep(false); }
  bool found() const { return !clean_; }

private:
  bool keep(bool clean) {
    clean_ &= clean;
    return clean_; // stop at the first write
  }
  bool clean_ = true;
};

} // namespace

bool callMayWriteArrays(const CallExpr *call) {
  std::string what;
  if (writtenArray(call, what)) return true;
  if (auto lambda = classifyElementwiseCall(call); lambda && lambda->into) return true;
  // An assignment operator of a class: an index proxy's scatter, or a
  // handle rebound (`r = other`), after which `r` names other data.
  if (const auto *oc = dyn_cast<CXXOperatorCallExpr>(call); oc && oc->isAssignmentOp()) return true;
  const FunctionDecl *fd = call->getDirectCallee();
  if (!fd) return true; // through a pointer, or not resolved
  if (fd->getBuiltinID()) return !scalarElementType(fd->getReturnType()).has_value(); // math, not memcpy
  const Decl *owner = fd;
  if (const auto *md = dyn_cast<CXXMethodDecl>(fd)) owner = md->getParent();
  if (inKilnNamespace(owner, /*nested=*/true))
    // Kiln's operations, views, creation functions and queries return a
    // value and write nothing; what returns nothing writes (copyto, put,
    // launch, copy_from_host) or waits (synchronize).
    return fd->getReturnType()->isVoidType() || takesMutableKilnReference(fd);
  // The standard library's scalar math (std::sqrt, std::max of floats).
  return !(fd->isInStdNamespace() && scalarElementType(fd->getReturnType()).has_value());
}

bool mayWriteArrays(const Stmt *s) {
  WriteFinder finder;
  finder.TraverseStmt(const_cast<Stmt *>(s));
  return finder.found();
}

const Expr *soleWriteReadingFirst(const Stmt *s) {
  const auto *e = dyn_cast_or_null<Expr>(s);
  if (!e) return nullptr;
  e = stripImplicit(e);
  // `static_cast<void>(x += t)`, as kilnc's own rewriting and some users write.
  if (const auto *c = dyn_cast<CastExpr>(e); c && c->getType()->isVoidType()) e = stripImplicit(c->getSubExpr());
  const auto *call = dyn_cast<CallExpr>(e);
  if (!call || !callMayWriteArrays(call) || !call->getDirectCallee()) return nullptr;
  // A user function may write between reading its arguments; Kiln's writes
  // read every operand first.
  const FunctionDecl *fd = call->getDirectCallee();
  const Decl *owner = fd;
  if (const auto *md = dyn_cast<CXXMethodDecl>(fd)) owner = md->getParent();
  if (!inKilnNamespace(owner, /*nested=*/true)) return nullptr;
  if (const auto *mc = dyn_cast<CXXMemberCallExpr>(call); mc && mayWriteArrays(mc->getImplicitObjectArgument()))
    return nullptr;
  for (const Expr *a : call->arguments())
    if (mayWriteArrays(a)) return nullptr;
  return e;
}

namespace {
class WrittenVariables : public RecursiveASTVisitor<WrittenVariables> {
public:
  bool shouldVisitLambdaBody() const { return true; }
  bool VisitExpr(Expr *e) {
    std::string what;
    const Expr *target = writtenArray(e, what);
    if (!target)
      if (auto lambda = classifyElementwiseCall(e); lambda && lambda->into) target = lambda->into;
    if (const auto *ref = target ? dyn_cast<DeclRefExpr>(stripImplicit(target)) : nullptr)
      vars.insert(ref->getDecl());
    return true;
  }
  llvm::DenseSet<const ValueDecl *> vars;
};
} // namespace

llvm::DenseSet<const ValueDecl *> writtenVariables(const Stmt *body) {
  WrittenVariables v;
  v.TraverseStmt(const_cast<Stmt *>(body));
  return std::move(v.vars);
}

} // namespace kiln::frontend
