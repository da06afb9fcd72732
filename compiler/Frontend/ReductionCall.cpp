//===- Frontend/ReductionCall.cpp - Recognizing reduction calls -----------===//
//
// Reductions are free function templates in namespace kiln (and
// kiln::linalg::norm), methods of kiln::array<E>, or the call operator of
// kiln::all_t. Default arguments (CXXDefaultArgExpr) are reported as absent.
//
//===----------------------------------------------------------------------===//
#include "Frontend/ReductionCall.h"
#include "Frontend/InPlaceUpdate.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"

#include <functional>

using namespace clang;

namespace kiln::frontend {
namespace {

/// True for declarations directly in namespace ::kiln (or ::kiln::<sub>).
bool inNamespace(const Decl *d, llvm::StringRef sub = "") {
  const auto *ns = dyn_cast<NamespaceDecl>(d->getDeclContext()->getRedeclContext());
  if (!ns)
    return false;
  if (!sub.empty()) {
    if (ns->getName() != sub)
      return false;
    ns = dyn_cast<NamespaceDecl>(ns->getParent()->getRedeclContext());
    if (!ns)
      return false;
  }
  return ns->getName() == "kiln" && ns->getParent()->getRedeclContext()->isTranslationUnit();
}

std::optional<ReduceKind> kindOfName(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ReduceKind>>(name)
      .Case("sum", ReduceKind::Sum)
      .Case("prod", ReduceKind::Prod)
      .Case("mean", ReduceKind::Mean)
      .Case("max", ReduceKind::Max)
      .Case("min", ReduceKind::Min)
      .Case("argmax", ReduceKind::ArgMax)
      .Case("argmin", ReduceKind::ArgMin)
      .Case("all", ReduceKind::All)
      .Case("any", ReduceKind::Any)
      .Case("var", ReduceKind::Var)
      .Case("std", ReduceKind::Std)
      .Case("count_nonzero", ReduceKind::CountNonzero)
      .Default(std::nullopt);
}

/// The argument, or null for a default argument.
const Expr *given(const Expr *arg) {
  const Expr *e = arg->IgnoreImplicit();
  if (isa<CXXDefaultArgExpr>(e))
    return nullptr;
  return arg;
}

/// A class `name` declared in namespace kiln or one nested in it.
bool isRecordNamed(QualType t, llvm::StringRef name) {
  const auto *rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  if (!rd || !rd->getIdentifier() || rd->getName() != name)
    return false;
  for (const DeclContext *dc = rd->getDeclContext(); dc; dc = dc->getParent())
    if (const auto *ns = dyn_cast<NamespaceDecl>(dc); ns && ns->getName() == "kiln" &&
                                                       ns->getParent()->getRedeclContext()->isTranslationUnit())
      return true;
  return false;
}

/// Fills the arguments after the operand: (axes, keepdims), var/std's
/// (axes, ddof, keepdims) and norm's (ord, axes, keepdims). `rest` are the
/// arguments after the operand, whose parameter in `fd` is `operandParam`.
void takeArguments(ReductionCall &call, const FunctionDecl *fd, llvm::ArrayRef<const Expr *> rest,
                   unsigned operandParam) {
  auto at = [&](unsigned i) -> const Expr * { return i < rest.size() ? given(rest[i]) : nullptr; };
  unsigned next = 0;
  if (call.kind == ReduceKind::Norm)
    call.order = at(next++);
  unsigned axesParam = operandParam + 1 + next;
  call.axes = at(next++);
  bool withDdof = (call.kind == ReduceKind::Var || call.kind == ReduceKind::Std) &&
                  fd->getNumParams() > axesParam + 1 &&
                  isRecordNamed(fd->getParamDecl(axesParam + 1)->getType(), "ddof");
  if (withDdof)
    call.ddof = at(next++);
  call.keepdims = at(next++);
}

/// The innermost CXXConstructExpr of a type named `record` in `e`, through
/// temporaries and casts.
const CXXConstructExpr *constructionOf(const Expr *e, llvm::StringRef record) {
  while (e) {
    e = e->IgnoreImplicit();
    if (const auto *ce = dyn_cast<CXXConstructExpr>(e)) {
      if (isRecordNamed(ce->getType(), record))
        return ce;
      if (ce->getNumArgs() == 1) { // a copy of an explicit construction
        e = ce->getArg(0);
        continue;
      }
      return nullptr;
    }
    if (const auto *fc = dyn_cast<CXXFunctionalCastExpr>(e)) {
      e = fc->getSubExpr();
      continue;
    }
    if (const auto *p = dyn_cast<ParenExpr>(e)) {
      e = p->getSubExpr();
      continue;
    }
    if (const auto *m = dyn_cast<MaterializeTemporaryExpr>(e)) {
      e = m->getSubExpr();
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

const Decl *namedVariable(const Expr *e) {
  if (const auto *ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
    return ref->getDecl();
  return nullptr;
}

} // namespace

const char *reduceName(ReduceKind k) {
  switch (k) {
  case ReduceKind::Sum: return "sum";
  case ReduceKind::Prod: return "prod";
  case ReduceKind::Mean: return "mean";
  case ReduceKind::Max: return "max";
  case ReduceKind::Min: return "min";
  case ReduceKind::ArgMax: return "argmax";
  case ReduceKind::ArgMin: return "argmin";
  case ReduceKind::All: return "all";
  case ReduceKind::Any: return "any";
  case ReduceKind::Var: return "var";
  case ReduceKind::Std: return "std";
  case ReduceKind::CountNonzero: return "count_nonzero";
  case ReduceKind::Norm: return "linalg::norm";
  case ReduceKind::Custom: return "reduce";
  }
  return "?";
}

std::optional<ReductionCall> classifyReduction(const Expr *e) {
  e = stripImplicit(e);
  if (!e || !arrayElementType(e->getType()))
    return std::nullopt;
  ReductionCall call;
  if (const auto *oc = dyn_cast<CXXOperatorCallExpr>(e)) {
    // kiln::all(x, ...): the call operator of kiln::all_t.
    const auto *md = dyn_cast_or_null<CXXMethodDecl>(oc->getDirectCallee());
    if (oc->getOperator() != OO_Call || !md || !md->getParent()->getIdentifier() ||
        md->getParent()->getName() != "all_t" || !inNamespace(md->getParent()) || oc->getNumArgs() < 2)
      return std::nullopt;
    call.kind = ReduceKind::All;
    call.operand = oc->getArg(1);
    llvm::SmallVector<const Expr *, 2> rest(oc->arg_begin() + 2, oc->arg_end());
    takeArguments(call, md, rest, 0);
    return call;
  }
  if (const auto *mc = dyn_cast<CXXMemberCallExpr>(e)) {
    const CXXMethodDecl *md = mc->getMethodDecl();
    if (!md || !md->getIdentifier() || !arrayElementType(mc->getImplicitObjectArgument()->getType()))
      return std::nullopt;
    auto kind = kindOfName(md->getName());
    if (!kind || *kind == ReduceKind::CountNonzero)
      return std::nullopt;
    call.kind = *kind;
    call.operand = mc->getImplicitObjectArgument();
    llvm::SmallVector<const Expr *, 3> rest(mc->arg_begin(), mc->arg_end());
    // Methods have no operand parameter: parameter 0 is the axes.
    ReductionCall tmp = call;
    auto at = [&](unsigned i) -> const Expr * { return i < rest.size() ? given(rest[i]) : nullptr; };
    tmp.axes = at(0);
    bool withDdof = md->getNumParams() > 1 && isRecordNamed(md->getParamDecl(1)->getType(), "ddof");
    if (withDdof) {
      tmp.ddof = at(1);
      tmp.keepdims = at(2);
    } else {
      tmp.keepdims = at(1);
    }
    return tmp;
  }
  if (const auto *ce = dyn_cast<CallExpr>(e)) {
    const FunctionDecl *fd = ce->getDirectCallee();
    // The operand: an array, or x[mask] / x[idx] (a gather, read as a leaf).
    if (!fd || !fd->getIdentifier() || ce->getNumArgs() < 1 ||
        !(arrayElementType(ce->getArg(0)->getType()) || classifyIndexSubscript(ce->getArg(0))))
      return std::nullopt;
    if (inNamespace(fd) && fd->getName() == "reduce") {
      // kiln::reduce(x, map, combine, identity, post, axes = all, keepdims = false)
      if (ce->getNumArgs() < 5)
        return std::nullopt;
      call.kind = ReduceKind::Custom;
      call.operand = ce->getArg(0);
      call.map = ce->getArg(1);
      call.combine = ce->getArg(2);
      call.identity = ce->getArg(3);
      call.post = ce->getArg(4);
      call.axes = ce->getNumArgs() > 5 ? given(ce->getArg(5)) : nullptr;
      call.keepdims = ce->getNumArgs() > 6 ? given(ce->getArg(6)) : nullptr;
      return call;
    }
    if (inNamespace(fd, "linalg") && fd->getName() == "norm") {
      call.kind = ReduceKind::Norm;
    } else if (inNamespace(fd)) {
      auto kind = kindOfName(fd->getName());
      if (!kind)
        return std::nullopt;
      call.kind = *kind;
    } else {
      return std::nullopt;
    }
    call.operand = ce->getArg(0);
    llvm::SmallVector<const Expr *, 4> rest(ce->arg_begin() + 1, ce->arg_end());
    takeArguments(call, fd, rest, 0);
    return call;
  }
  return std::nullopt;
}

AxesSpec axesSpecOf(const Expr *arg, ASTContext &ctx) {
  AxesSpec spec;
  spec.expr = arg;
  if (!arg)
    return spec; // every axis
  spec.kind = AxesSpec::Kind::RunTime;
  const CXXConstructExpr *ce = constructionOf(arg, "axes");
  if (!ce) {
    spec.variable = namedVariable(arg);
    return spec;
  }
  if (ce->getNumArgs() != 1)
    return spec;
  const Expr *a = ce->getArg(0)->IgnoreImplicit();
  QualType pt = ce->getConstructor()->getParamDecl(0)->getType();
  if (isRecordNamed(pt, "all_t")) {
    spec.kind = AxesSpec::Kind::All;
    return spec;
  }
  if (isRecordNamed(pt, "axes")) { // a copy of another axes value
    spec.variable = namedVariable(a);
    return spec;
  }
  auto evaluate = [&](const Expr *x, long long &out) {
    Expr::EvalResult r;
    if (x->isValueDependent() || !x->EvaluateAsInt(r, ctx))
      return false;
    out = r.Val.getInt().getExtValue();
    return true;
  };
  if (const auto *il = dyn_cast<CXXStdInitializerListExpr>(a)) {
    const Expr *sub = il->getSubExpr()->IgnoreImplicit();
    if (const auto *m = dyn_cast<MaterializeTemporaryExpr>(sub))
      sub = m->getSubExpr()->IgnoreImplicit();
    const auto *init = dyn_cast<InitListExpr>(sub);
    if (!init)
      return spec;
    std::vector<long long> values;
    for (const Expr *item : init->inits()) {
      long long v;
      if (!evaluate(item, v))
        return spec;
      values.push_back(v);
    }
    spec.kind = AxesSpec::Kind::Constant;
    spec.constants = std::move(values);
    return spec;
  }
  long long v;
  if (evaluate(a, v)) {
    spec.kind = AxesSpec::Kind::Constant;
    spec.constants = {v};
  } else {
    spec.variable = namedVariable(a);
  }
  return spec;
}

KeepdimsSpec keepdimsSpecOf(const Expr *arg, ASTContext &ctx) {
  KeepdimsSpec spec;
  spec.expr = arg;
  if (!arg)
    return spec;
  bool value;
  if (!arg->isValueDependent() && arg->EvaluateAsBooleanCondition(value, ctx)) {
    spec.value = value;
    return spec;
  }
  spec.kind = KeepdimsSpec::Kind::RunTime;
  spec.variable = namedVariable(arg);
  return spec;
}

std::optional<double> fusableNormOrder(const ReductionCall &call, const AxesSpec &axes, ASTContext &ctx) {
  size_t numAxes = axes.kind == AxesSpec::Kind::Constant ? axes.constants.size() : 0;
  if (!call.order) {
    // ord=None: sqrt(sum |x|^2) for the flattened array, one axis (the
    // 2-norm) and two axes (the Frobenius norm) alike.
    if (axes.kind == AxesSpec::Kind::All || numAxes == 1 || numAxes == 2)
      return 2.0;
    return std::nullopt;
  }
  // 'fro' over two named axes is the Frobenius norm.
  if (isFrobeniusOrder(call.order))
    return numAxes == 2 ? std::optional<double>(2.0) : std::nullopt;
  // A number: a vector norm, which needs exactly one named axis.
  const CXXConstructExpr *ce = constructionOf(call.order, "norm_ord");
  if (!ce || ce->getNumArgs() != 1 || numAxes != 1)
    return std::nullopt;
  const Expr *value = ce->getArg(0);
  llvm::APFloat f(0.0);
  if (value->isValueDependent() || !value->EvaluateAsFloat(f, ctx)) {
    Expr::EvalResult r;
    if (value->isValueDependent() || !value->EvaluateAsInt(r, ctx))
      return std::nullopt;
    return static_cast<double>(r.Val.getInt().getExtValue());
  }
  return f.convertToDouble();
}

bool isFrobeniusOrder(const Expr *order) {
  if (!order)
    return false;
  if (isRecordNamed(order->getType(), "fro_t"))
    return true;
  for (const Stmt *c : order->children())
    if (const auto *e = dyn_cast_or_null<Expr>(c); e && isFrobeniusOrder(e))
      return true;
  return false;
}

bool AxesSpec::sameAs(const AxesSpec &o) const {
  if (kind != o.kind)
    return false;
  switch (kind) {
  case Kind::All:
    return true;
  case Kind::Constant:
    return constants == o.constants;
  case Kind::RunTime:
    return variable && variable == o.variable;
  }
  return false;
}

bool KeepdimsSpec::sameAs(const KeepdimsSpec &o) const {
  if (kind != o.kind)
    return false;
  if (kind == Kind::Constant)
    return value == o.value;
  return variable && variable == o.variable;
}

} // namespace kiln::frontend
