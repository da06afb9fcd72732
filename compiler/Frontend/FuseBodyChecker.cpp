//===- Frontend/FuseBodyChecker.cpp - What a KILN_FUSE body may hold ------===//
#include "Frontend/FuseBodyChecker.h"
#include "Frontend/ElementType.h"
#include "Frontend/LambdaCall.h"
#include "Frontend/ReductionCall.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace kiln::frontend {
namespace {

bool isArithmeticLike(QualType t) {
  return scalarElementType(t).has_value() || t->isVoidType();
}

class Checker : public RecursiveASTVisitor<Checker> {
public:
  explicit Checker(DiagnosticsEngine &diags) : diags_(diags) {
    id_ = diags.getCustomDiagID(DiagnosticsEngine::Error, "%0");
  }
  bool ok() const { return ok_; }

  void error(SourceLocation loc, const std::string &msg) {
    diags_.Report(loc, id_) << msg;
    ok_ = false;
  }

  bool VisitForStmt(ForStmt *s) { return loop(s->getBeginLoc(), "for"); }
  bool VisitCXXForRangeStmt(CXXForRangeStmt *s) { return loop(s->getBeginLoc(), "for"); }
  bool VisitWhileStmt(WhileStmt *s) { return loop(s->getBeginLoc(), "while"); }
  bool VisitDoStmt(DoStmt *s) { return loop(s->getBeginLoc(), "do"); }
  bool VisitIfStmt(IfStmt *s) {
    if (!s->isConstexpr())
      error(s->getBeginLoc(), "control flow ('if') is not supported in a KILN_FUSE function; "
                              "select elementwise with kiln::where");
    return true;
  }
  bool VisitSwitchStmt(SwitchStmt *s) {
    error(s->getBeginLoc(), "control flow ('switch') is not supported in a KILN_FUSE function; "
                            "select elementwise with kiln::where");
    return true;
  }
  bool VisitGotoStmt(GotoStmt *s) {
    error(s->getBeginLoc(), "'goto' is not supported in a KILN_FUSE function");
    return true;
  }
  bool VisitCXXTryStmt(CXXTryStmt *s) {
    error(s->getBeginLoc(), "exceptions ('try') are not supported in a KILN_FUSE function");
    return true;
  }
  bool VisitCXXThrowExpr(CXXThrowExpr *e) {
    error(e->getBeginLoc(), "exceptions ('throw') are not supported in a KILN_FUSE function");
    return true;
  }
  // The lambda of kiln::elementwise is element code: its element function
  // checks it (RawKernelGen.h), not the array rules of this body.
  bool TraverseLambdaExpr(LambdaExpr *e) {
    if (elementLambdas_.count(e)) return true;
    return RecursiveASTVisitor::TraverseLambdaExpr(e);
  }
  bool VisitLambdaExpr(LambdaExpr *e) {
    error(e->getBeginLoc(), "lambdas are not supported in a KILN_FUSE function");
    return false; // don't look inside
  }
  bool VisitCXXNewExpr(CXXNewExpr *e) {
    error(e->getBeginLoc(), "'new' is not supported in a KILN_FUSE function");
    return true;
  }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *e) {
    error(e->getBeginLoc(), "'delete' is not supported in a KILN_FUSE function");
    return true;
  }
  bool VisitAsmStmt(AsmStmt *s) {
    error(s->getBeginLoc(), "inline assembly is not supported in a KILN_FUSE function");
    return true;
  }

  // Locals are inlined into their consumers, so a scalar changed between two
  // statements would be read at its new value: modifying one is an error.
  bool VisitBinaryOperator(BinaryOperator *op) {
    if (op->isAssignmentOp()) modified(op->getLHS(), op->getOperatorLoc());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *op) {
    if (op->isIncrementDecrementOp()) modified(op->getSubExpr(), op->getOperatorLoc());
    return true;
  }

  bool VisitCallExpr(CallExpr *call) {
    if (auto lambda = classifyElementwiseCall(call); lambda && lambda->lambda)
      elementLambdas_.insert(lambda->lambda);
    if (auto r = classifyReduction(call); r && r->kind == ReduceKind::Custom)
      for (const Expr *f : {r->map, r->combine, r->post})
        if (const LambdaExpr *le = writtenLambda(f))
          elementLambdas_.insert(le);
    const FunctionDecl *fd = call->getDirectCallee();
    SourceLocation loc = call->getBeginLoc();
    if (const auto *oc = dyn_cast<CXXOperatorCallExpr>(call)) {
      loc = oc->getOperatorLoc();
      if (oc->getOperator() == OO_Equal && arrayElementType(oc->getArg(0)->getType())) {
        error(loc, "assignment to an array in a KILN_FUSE function is not supported; "
                   "declare a new local array instead");
        return true;
      }
    }
    if (!fd && call->isTypeDependent()) return true; // resolved per instantiation
    if (!fd) {
      error(loc, "a call through a function pointer is not supported in a KILN_FUSE function");
      return true;
    }
    if (inKilnNamespace(fd, /*nested=*/true)) return true; // array operations, views, creation, matmul
    if (const auto *md = dyn_cast<CXXMethodDecl>(fd); md && inKilnNamespace(md->getParent(), /*nested=*/true)) return true;
    std::string name = fd->getQualifiedNameAsString();
    if (isIO(fd, name)) {
      error(loc, "input/output ('" + name + "') is not supported in a KILN_FUSE function");
      return true;
    }
    // Scalar helpers from the standard library (std::sqrt on a scalar, std::max of two floats).
    if (fd->isInStdNamespace() && isArithmeticLike(fd->getReturnType())) return true;
    error(loc, "call to '" + name + "' is not supported in a KILN_FUSE function; only Kiln array "
               "operations and scalar arithmetic can be fused");
    return true;
  }

private:
  void modified(const Expr *target, SourceLocation loc) {
    const auto *ref = dyn_cast<DeclRefExpr>(target->IgnoreParenImpCasts());
    const auto *vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (!vd) return;
    error(loc, "modifying '" + vd->getNameAsString() + "' is not supported in a KILN_FUSE function "
               "(its statements are fused as one data flow); declare a new variable instead");
  }
  static bool isIO(const FunctionDecl *fd, const std::string &name) {
    static const char *const ioNames[] = {"printf", "fprintf", "puts", "putchar", "scanf", "fwrite", "fread",
                                          "std::printf", "std::puts", "std::fprintf", "std::getline"};
    for (const char *n : ioNames)
      if (name == n) return true;
    if (fd->getOverloadedOperator() == OO_LessLess || fd->getOverloadedOperator() == OO_GreaterGreater) {
      QualType t = fd->getReturnType().getNonReferenceType();
      if (const auto *rd = t->getAsCXXRecordDecl(); rd && rd->isInStdNamespace()) return true;
    }
    if (const auto *md = dyn_cast<CXXMethodDecl>(fd))
      if (md->getParent()->isInStdNamespace() && md->getParent()->getName().contains("stream")) return true;
    return false;
  }
  bool loop(SourceLocation loc, const char *kw) {
    error(loc, std::string("loops ('") + kw + "') are not supported in a KILN_FUSE function; write the "
               "computation as array operations, or as a KILN_RAWKERNEL");
    return true;
  }

  DiagnosticsEngine &diags_;
  unsigned id_;
  bool ok_ = true;
  llvm::SmallPtrSet<const LambdaExpr *, 4> elementLambdas_;
};

} // namespace

bool checkFuseBody(const FunctionDecl *fd, DiagnosticsEngine &diags) {
  Checker c(diags);
  QualType ret = fd->getReturnType();
  if (!ret->isDependentType() && !arrayElementType(ret)) {
    SourceLocation loc = fd->getReturnTypeSourceRange().getBegin();
    if (loc.isInvalid()) loc = fd->getLocation();
    c.error(loc, "a KILN_FUSE function must return a kiln::array, not '" + ret.getAsString() + "'");
  }
  if (fd->hasBody()) c.TraverseStmt(fd->getBody());
  return c.ok();
}

} // namespace kiln::frontend
