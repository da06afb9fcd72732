//===- Frontend/RankInference.cpp - Array ranks known at compile time -----===//
#include "Frontend/RankInference.h"
#include "Frontend/ArrayExpr.h"
#include "Frontend/ReductionCall.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace kiln::frontend {
namespace {

bool inKiln(const Decl *d) { return inKilnNamespace(d, /*nested=*/true); }

bool isShapeType(QualType t) {
  const auto *rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  return rd && rd->getIdentifier() && rd->getName() == "shape" && inKiln(rd);
}

const DeclRefExpr *refTo(const Expr *e, const VarDecl *vd) {
  const auto *ref = dyn_cast_or_null<DeclRefExpr>(e ? e->IgnoreParenImpCasts() : nullptr);
  return ref && ref->getDecl() == vd ? ref : nullptr;
}

bool isNonConstLvalueRef(QualType t) { return t->isLValueReferenceType() && !t.getNonReferenceType().isConstQualified(); }

/// Finds uses of a variable that may change it.
class ModificationFinder : public RecursiveASTVisitor<ModificationFinder> {
public:
  explicit ModificationFinder(const VarDecl *vd) : vd_(vd) {}
  bool modified = false;

  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *e) {
    if (e->isAssignmentOp() && e->getNumArgs() > 0 && refTo(e->getArg(0), vd_))
      modified = true;
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *e) {
    if (e->isAssignmentOp() && refTo(e->getLHS(), vd_))
      modified = true;
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *e) {
    if (e->getOpcode() == UO_AddrOf && refTo(e->getSubExpr(), vd_))
      modified = true;
    return true;
  }
  bool VisitCallExpr(CallExpr *e) {
    const FunctionDecl *fd = e->getDirectCallee();
    for (unsigned i = 0; i < e->getNumArgs(); ++i) {
      if (!refTo(e->getArg(i), vd_))
        continue;
      unsigned p = i;
      if (isa<CXXOperatorCallExpr>(e) && fd && isa<CXXMethodDecl>(fd)) {
        if (i == 0)
          continue; // the object of a member operator (kiln::array's are const but =)
        p = i - 1;
      }
      if (!fd || p >= fd->getNumParams() || isNonConstLvalueRef(fd->getParamDecl(p)->getType()))
        modified = true;
    }
    return true;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *e) {
    if (const CXXMethodDecl *md = e->getMethodDecl(); md && !md->isConst() &&
                                                     refTo(e->getImplicitObjectArgument(), vd_))
      modified = true;
    return true;
  }
  bool VisitVarDecl(VarDecl *v) {
    if (v != vd_ && isNonConstLvalueRef(v->getType()) && refTo(v->getInit(), vd_))
      modified = true;
    return true;
  }

private:
  const VarDecl *vd_;
};

} // namespace

std::optional<unsigned> RankInference::shapeRank(const Expr *arg) {
  if (!arg || !isShapeType(arg->getType()))
    return std::nullopt;
  const Expr *e = arg->IgnoreImplicit();
  while (true) {
    if (const auto *m = dyn_cast<MaterializeTemporaryExpr>(e))
      e = m->getSubExpr()->IgnoreImplicit();
    else if (const auto *f = dyn_cast<CXXFunctionalCastExpr>(e))
      e = f->getSubExpr()->IgnoreImplicit();
    else if (const auto *b = dyn_cast<CXXBindTemporaryExpr>(e))
      e = b->getSubExpr()->IgnoreImplicit();
    else
      break;
  }
  const auto *ce = dyn_cast<CXXConstructExpr>(e);
  if (!ce || ce->getNumArgs() != 1)
    return std::nullopt;
  const Expr *a = ce->getArg(0)->IgnoreImplicit();
  if (const auto *il = dyn_cast<CXXStdInitializerListExpr>(a)) {
    const Expr *sub = il->getSubExpr()->IgnoreImplicit();
    if (const auto *m = dyn_cast<MaterializeTemporaryExpr>(sub))
      sub = m->getSubExpr()->IgnoreImplicit();
    if (const auto *init = dyn_cast<InitListExpr>(sub))
      return init->getNumInits();
  }
  return std::nullopt;
}

bool RankInference::unmodified(const VarDecl *vd) {
  if (auto it = unmodified_.find(vd); it != unmodified_.end())
    return it->second;
  bool ok = vd->isLocalVarDecl() && !vd->getType()->isReferenceType() && fn_ && fn_->getBody();
  if (ok) {
    ModificationFinder finder(vd);
    finder.TraverseStmt(fn_->getBody());
    ok = !finder.modified;
  }
  unmodified_[vd] = ok;
  return ok;
}

std::optional<unsigned> RankInference::rankOf(const Expr *e, unsigned depth) {
  e = stripImplicit(e);
  if (!e || depth > 64)
    return std::nullopt;
  // Elementwise: the broadcast rank of the array operands.
  llvm::SmallVector<const Expr *, 4> args;
  if (classifyCall(e, args)) {
    std::optional<unsigned> rank = 0;
    for (const Expr *a : args) {
      if (!arrayElementType(a->getType()))
        continue;
      auto r = rankOf(a, depth + 1);
      if (!r)
        return std::nullopt;
      rank = std::max(*rank, *r);
    }
    return rank;
  }
  if (auto call = classifyReduction(e)) {
    auto r = rankOf(call->operand, depth + 1);
    KeepdimsSpec kd = keepdimsSpecOf(call->keepdims, ctx_);
    AxesSpec ax = axesSpecOf(call->axes, ctx_);
    if (!r || kd.kind != KeepdimsSpec::Kind::Constant || call->kind == ReduceKind::Norm)
      return std::nullopt;
    if (kd.value)
      return r;
    if (ax.kind == AxesSpec::Kind::All)
      return 0u;
    if (ax.kind == AxesSpec::Kind::Constant && ax.constants.size() <= *r)
      return *r - unsigned(ax.constants.size());
    return std::nullopt;
  }
  if (const auto *ref = dyn_cast<DeclRefExpr>(e)) {
    const auto *vd = dyn_cast<VarDecl>(ref->getDecl());
    if (vd && vd->getInit() && unmodified(vd))
      return rankOf(vd->getInit(), depth + 1);
    return std::nullopt;
  }
  if (const auto *mc = dyn_cast<CXXMemberCallExpr>(e)) {
    const CXXMethodDecl *md = mc->getMethodDecl();
    if (!md || !md->getIdentifier())
      return std::nullopt;
    llvm::StringRef name = md->getName();
    const CXXRecordDecl *cls = md->getParent();
    bool onArray = arrayElementType(mc->getImplicitObjectArgument()->getType()).has_value();
    if (onArray && name == "reshape" && mc->getNumArgs() == 1)
      return shapeRank(mc->getArg(0));
    if (onArray && (name == "T" || name == "transpose" || name == "copy" || name == "astype" || name == "to"))
      return rankOf(mc->getImplicitObjectArgument(), depth + 1);
    // kiln::random generators: random/normal/integers take one shape.
    if (inKiln(cls) && (name == "random" || name == "normal" || name == "integers"))
      for (const Expr *a : mc->arguments())
        if (auto r = shapeRank(a))
          return r;
    return std::nullopt;
  }
  if (const auto *ce = dyn_cast<CallExpr>(e)) {
    const FunctionDecl *fd = ce->getDirectCallee();
    if (!fd || !fd->getIdentifier() || !inKiln(fd))
      return std::nullopt;
    llvm::StringRef name = fd->getName();
    if (name == "arange" || name == "linspace")
      return 1u;
    if (name == "empty" || name == "zeros" || name == "ones" || name == "full" || name == "asarray" ||
        name == "broadcast_to")
      for (const Expr *a : ce->arguments())
        if (auto r = shapeRank(a))
          return r;
    if ((name == "zeros_like" || name == "ones_like" || name == "empty_like") && ce->getNumArgs() >= 1)
      return rankOf(ce->getArg(0), depth + 1);
  }
  return std::nullopt;
}

} // namespace kiln::frontend
