//===- Frontend/StatementChain.cpp - Fusing across plain statements ------===//
#include "Frontend/StatementChain.h"
#include "Frontend/ArrayExpr.h"
#include "Frontend/ArrayWrites.h"
#include "Frontend/ElementType.h"
#include "Frontend/InPlaceUpdate.h"
#include "Frontend/LambdaCall.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <algorithm>

using namespace clang;

namespace kiln::frontend {
namespace {

/// True when evaluating `s` changes nothing a chain's inlined initializer
/// reads, and has no effect whose order against another statement's could
/// be seen: Kiln's operations, views and creation functions, scalar
/// arithmetic and the standard library's scalar math. Writes into arrays,
/// assignments, random draws, calls of user functions or through pointers
/// are not. A lambda is not looked into: creating one is harmless, and one
/// that runs later is caught by its uses (StatementChain.h).
class SideEffectFree : public RecursiveASTVisitor<SideEffectFree> {
public:
  static bool check(const Stmt *s) {
    SideEffectFree v;
    v.TraverseStmt(const_cast<Stmt *>(s));
    return v.ok_;
  }

  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitBinaryOperator(BinaryOperator *op) { return keep(!op->isAssignmentOp()); }
  bool VisitUnaryOperator(UnaryOperator *op) { return keep(!op->isIncrementDecrementOp()); }
  bool VisitCXXNewExpr(CXXNewExpr *) { return keep(false); }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *) { return keep(false); }
  bool VisitCXXThrowExpr(CXXThrowExpr *) { return keep(false); }
  bool VisitStmtExpr(StmtExpr *) { return keep(false); }
  bool VisitCXXConstructExpr(CXXConstructExpr *e) {
    const CXXRecordDecl *cls = e->getConstructor()->getParent();
    return keep(cls->isLambda() || e->getConstructor()->isTrivial() || cls->isInStdNamespace() ||
                inKilnNamespace(cls, /*nested=*/true));
  }
  bool VisitCallExpr(CallExpr *call) {
    std::string what;
    if (writtenArray(call, what)) return keep(false);
    if (const auto *oc = dyn_cast<CXXOperatorCallExpr>(call); oc && oc->isAssignmentOp()) return keep(false);
    if (auto lambda = classifyElementwiseCall(call); lambda && lambda->into) return keep(false);
    const FunctionDecl *fd = call->getDirectCallee();
    if (!fd) return keep(false);
    if (fd->getBuiltinID()) return keep(scalarElementType(fd->getReturnType()).has_value()); // math, not memcpy
    const Decl *owner = fd;
    if (const auto *md = dyn_cast<CXXMethodDecl>(fd)) owner = md->getParent();
    if (inKilnNamespace(owner, /*nested=*/true)) {
      // Kiln's operations, views, creation and queries return a value; its
      // void functions write (put, copyto, launch, synchronize) and its
      // setters change the state later statements run in.
      bool drawsRandom = false;
      for (const DeclContext *dc = owner->getDeclContext(); dc; dc = dc->getParent())
        if (const auto *ns = dyn_cast<NamespaceDecl>(dc); ns && ns->getName() == "random") drawsRandom = true;
      if (const auto *cls = dyn_cast<CXXRecordDecl>(owner); cls && cls->getName() == "generator") drawsRandom = true;
      return keep(!drawsRandom && !fd->getReturnType()->isVoidType() &&
                  !(fd->getIdentifier() && fd->getName().starts_with("set_")));
    }
    // The standard library's scalar math (std::sqrt, std::max of floats).
    return keep(fd->isInStdNamespace() && scalarElementType(fd->getReturnType()).has_value());
  }

private:
  bool keep(bool fine) {
    ok_ &= fine;
    return ok_; // stop at the first effect
  }
  bool ok_ = true;
};

/// A declaration that can stand inside a run: arrays and scalars only (no
/// guard objects whose constructors change the device or stream), with
/// initializers free of side effects.
bool isRunDeclaration(const Stmt *s) {
  const auto *ds = dyn_cast<DeclStmt>(s);
  if (!ds) return false;
  for (const Decl *d : ds->decls()) {
    const auto *vd = dyn_cast<VarDecl>(d);
    if (!vd || vd->isStaticLocal() || vd->getType()->isReferenceType()) return false;
    if (!arrayElementType(vd->getType()) && !scalarElementType(vd->getType())) return false;
    if (vd->getInit() && !SideEffectFree::check(vd->getInit())) return false;
  }
  return true;
}

/// An expression that reads everything before it has any effect: a
/// side-effect-free one, or a call of any function (`std::printf`, a user's
/// `save`) on side-effect-free arguments, whose body runs after they are
/// evaluated.
bool readsBeforeEffects(const Expr *e) {
  if (SideEffectFree::check(e)) return true;
  const auto *call = dyn_cast<CallExpr>(stripImplicit(e));
  if (!call || !call->getDirectCallee() || isa<CXXOperatorCallExpr>(call)) return false;
  if (const auto *mc = dyn_cast<CXXMemberCallExpr>(call); mc && !SideEffectFree::check(mc->getImplicitObjectArgument()))
    return false;
  for (const Expr *a : call->arguments())
    if (!SideEffectFree::check(a)) return false;
  return true;
}

/// A statement that can end a run: one whose evaluation reads the chain's
/// values before anything it changes, namely a declaration, expression or
/// `return` that reads before its effects (above), an assignment to a
/// variable (`y = t * 2`, the right side read first), or one update in place
/// whose kernel reads every operand before writing (`x += t`,
/// `elementwise_into(out, f, t)`).
bool isRunConsumer(const Stmt *s) {
  if (const auto *ds = dyn_cast<DeclStmt>(s)) {
    for (const Decl *d : ds->decls()) {
      const auto *vd = dyn_cast<VarDecl>(d);
      if (!vd || vd->isStaticLocal()) return false;
      if (vd->getInit() && !(ds->isSingleDecl() ? readsBeforeEffects(vd->getInit())
                                                : SideEffectFree::check(vd->getInit())))
        return false;
    }
    return true;
  }
  if (const auto *rs = dyn_cast<ReturnStmt>(s)) return !rs->getRetValue() || readsBeforeEffects(rs->getRetValue());
  const auto *e = dyn_cast<Expr>(s);
  if (!e) return false;
  e = stripImplicit(e);
  if (auto c = classifyCompoundAssign(e))
    return SideEffectFree::check(c->target) && SideEffectFree::check(c->value);
  if (auto lambda = classifyElementwiseCall(e); lambda && lambda->into) {
    for (const Expr *a : lambda->args)
      if (!SideEffectFree::check(a)) return false;
    return SideEffectFree::check(lambda->into);
  }
  // `v = value` to a variable: a scalar, or an array handle rebound.
  const Expr *lhs = nullptr, *rhs = nullptr;
  if (const auto *bo = dyn_cast<BinaryOperator>(e); bo && bo->getOpcode() == BO_Assign) {
    lhs = bo->getLHS();
    rhs = bo->getRHS();
  } else if (const auto *oc = dyn_cast<CXXOperatorCallExpr>(e); oc && oc->getOperator() == OO_Equal &&
                                                              oc->getNumArgs() == 2) {
    lhs = oc->getArg(0);
    rhs = oc->getArg(1);
  }
  if (lhs)
    return isa<DeclRefExpr>(lhs->IgnoreParenImpCasts()) && SideEffectFree::check(rhs);
  return readsBeforeEffects(e);
}

/// References to declarations in the code of some statements, not inside
/// lambdas (which may run after the run). A reference in an unevaluated
/// operand (`sizeof`, `decltype`) is collected too, and keeps its local: it
/// is no operand of an elementwise operation.
class RunReferences : public RecursiveASTVisitor<RunReferences> {
public:
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    refs.insert(ref);
    return true;
  }
  llvm::DenseSet<const DeclRefExpr *> refs;
};

class ChainFinder : public RecursiveASTVisitor<ChainFinder> {
public:
  ChainFinder(const BodyFacts &facts, llvm::DenseSet<const ValueDecl *> written, StatementChains &out)
      : facts_(facts), written_(std::move(written)), out_(out) {
    for (const DeclRefExpr *ref : *facts.refs)
      if (const auto *vd = dyn_cast<VarDecl>(ref->getDecl())) refsOf_[vd].push_back(ref);
  }
  bool shouldVisitLambdaBody() const { return true; }

  bool VisitCompoundStmt(CompoundStmt *block) {
    std::vector<const Stmt *> run;
    for (const Stmt *s : block->body()) {
      if (isRunDeclaration(s)) {
        run.push_back(s);
        continue;
      }
      if (isRunConsumer(s)) run.push_back(s);
      finish(run);
      run.clear();
    }
    finish(run);
    return true;
  }

private:
  /// Inlines the candidates of one run: each local whose every reference is
  /// an operand of a fusable call in the statements after its declaration.
  void finish(const std::vector<const Stmt *> &run) {
    for (size_t i = 0; i + 1 < run.size(); ++i) {
      const auto *ds = dyn_cast<DeclStmt>(run[i]);
      if (!ds || !ds->isSingleDecl() || ds->getBeginLoc().isMacroID()) continue;
      const auto *vd = dyn_cast<VarDecl>(ds->getSingleDecl());
      if (!vd || !vd->getInit() || !arrayElementType(vd->getType())) continue;
      const Expr *init = stripImplicit(vd->getInit());
      if (!facts_.fusable->count(init)) continue;
      RunReferences later;
      for (size_t j = i + 1; j < run.size(); ++j) later.TraverseStmt(const_cast<Stmt *>(run[j]));
      auto it = refsOf_.find(vd);
      if (it == refsOf_.end()) continue; // unused: left as written
      bool inlinable = true;
      for (const DeclRefExpr *ref : it->second)
        inlinable &= later.refs.count(ref) && facts_.operands->count(ref) && !ref->getBeginLoc().isMacroID() &&
                     !written_.count(vd);
      if (!inlinable) continue;
      out_.inlined[vd] = init;
      out_.removedDecls.push_back(ds);
    }
  }

  const BodyFacts &facts_;
  /// Every variable written in place somewhere in the body: `t` of
  /// `t += ...` is an operand of the update's tree, but not a value to
  /// inline.
  llvm::DenseSet<const ValueDecl *> written_;
  StatementChains &out_;
  llvm::DenseMap<const VarDecl *, std::vector<const DeclRefExpr *>> refsOf_;
};

/// Every reference to a declaration in some code, lambda bodies included,
/// for the position of each among a body's statements.
class AllReferences : public RecursiveASTVisitor<AllReferences> {
public:
  bool shouldVisitLambdaBody() const { return true; }
  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    refs.push_back(ref);
    return true;
  }
  std::vector<const DeclRefExpr *> refs;
};

} // namespace

StatementChains findStatementChains(const Stmt *body, const BodyFacts &facts) {
  StatementChains chains;
  ChainFinder finder(facts, writtenVariables(body), chains);
  finder.TraverseStmt(const_cast<Stmt *>(body));
  std::sort(chains.removedDecls.begin(), chains.removedDecls.end());
  return chains;
}

} // namespace kiln::frontend

namespace kiln::frontend {

StatementChains findFuseBodyLocals(const Stmt *body, const BodyFacts &facts) {
  StatementChains out;
  const auto *block = dyn_cast_or_null<CompoundStmt>(body);
  if (!block) return out;
  std::vector<const Stmt *> stmts(block->body_begin(), block->body_end());

  // Where each reference is: the index of its top-level statement. A body
  // has no loops or branches (FuseBodyChecker), so statements run in order.
  llvm::DenseMap<const DeclRefExpr *, unsigned> statementOf;
  std::vector<bool> writes(stmts.size()), readsFirst(stmts.size());
  for (unsigned i = 0; i < stmts.size(); ++i) {
    AllReferences refs;
    refs.TraverseStmt(const_cast<Stmt *>(stmts[i]));
    for (const DeclRefExpr *ref : refs.refs) statementOf[ref] = i;
    writes[i] = mayWriteArrays(stmts[i]);
    readsFirst[i] = writes[i] && soleWriteReadingFirst(stmts[i]);
  }

  // Candidates: array locals declared alone at the top level with a fusable
  // initializer.
  struct Candidate {
    const VarDecl *var;
    const DeclStmt *decl;
    unsigned at;
  };
  std::vector<Candidate> candidates;
  llvm::DenseMap<const DeclRefExpr *, const VarDecl *> inInitializerOf;
  for (unsigned i = 0; i < stmts.size(); ++i) {
    const auto *ds = dyn_cast<DeclStmt>(stmts[i]);
    if (!ds || !ds->isSingleDecl() || ds->getBeginLoc().isMacroID()) continue;
    const auto *vd = dyn_cast<VarDecl>(ds->getSingleDecl());
    if (!vd || !vd->getInit() || !arrayElementType(vd->getType())) continue;
    if (!facts.fusable->count(stripImplicit(vd->getInit()))) continue;
    candidates.push_back({vd, ds, i});
    AllReferences refs;
    refs.TraverseStmt(const_cast<Expr *>(vd->getInit()));
    for (const DeclRefExpr *ref : refs.refs) inInitializerOf[ref] = vd;
  }
  llvm::DenseMap<const VarDecl *, std::vector<const DeclRefExpr *>> refsOf;
  for (const DeclRefExpr *ref : *facts.refs)
    if (const auto *vd = dyn_cast<VarDecl>(ref->getDecl())) refsOf[vd].push_back(ref);
  llvm::DenseSet<const ValueDecl *> written = writtenVariables(body);

  // An inlined initializer is evaluated where its consumers are: at the
  // statement of its last use, or, for a use inside another inlined local's
  // initializer, where that one is evaluated. So the later locals are
  // decided first.
  llvm::DenseMap<const VarDecl *, unsigned> evaluatedAt;
  for (auto c = candidates.rbegin(); c != candidates.rend(); ++c) {
    auto it = refsOf.find(c->var);
    if (it == refsOf.end() || written.count(c->var)) continue; // unused (left as written) or a destination
    bool inlinable = true;
    unsigned last = c->at;
    for (const DeclRefExpr *ref : it->second) {
      auto pos = statementOf.find(ref);
      if (pos == statementOf.end() || !facts.operands->count(ref) || ref->getBeginLoc().isMacroID()) {
        inlinable = false;
        break;
      }
      unsigned at = pos->second;
      if (auto owner = inInitializerOf.find(ref); owner != inInitializerOf.end())
        if (auto e = evaluatedAt.find(owner->second); e != evaluatedAt.end()) at = e->second;
      last = std::max(last, at);
    }
    // No write may come between the declaration and the evaluation, and a
    // write at the evaluation must read its operands first (`r += t`).
    for (unsigned k = c->at + 1; inlinable && k < last; ++k) inlinable = !writes[k];
    if (inlinable && writes[last] && !readsFirst[last]) inlinable = false;
    if (!inlinable) continue;
    evaluatedAt[c->var] = last;
    out.inlined[c->var] = stripImplicit(c->var->getInit());
    out.removedDecls.push_back(c->decl);
  }
  std::sort(out.removedDecls.begin(), out.removedDecls.end());
  return out;
}

} // namespace kiln::frontend
