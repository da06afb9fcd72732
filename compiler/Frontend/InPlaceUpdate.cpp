//===- Frontend/InPlaceUpdate.cpp - Writes into arrays --------------------===//
#include "Frontend/InPlaceUpdate.h"
#include "Frontend/ReductionCall.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace kiln::frontend {

/// The ufunc of a compound assignment operator (`+=` is add), as an OpKind
/// and NumPy's name.
static std::optional<std::pair<OpKind, const char *>>
compoundOperator(OverloadedOperatorKind k) {
  switch (k) {
  case OO_PlusEqual:
    return std::pair{OpKind::Add, "add"};
  case OO_MinusEqual:
    return std::pair{OpKind::Sub, "subtract"};
  case OO_StarEqual:
    return std::pair{OpKind::Mul, "multiply"};
  case OO_SlashEqual:
    return std::pair{OpKind::Div, "divide"};
  case OO_PercentEqual:
    return std::pair{OpKind::Rem, "remainder"};
  case OO_AmpEqual:
    return std::pair{OpKind::BitAnd, "bitwise_and"};
  case OO_PipeEqual:
    return std::pair{OpKind::BitOr, "bitwise_or"};
  case OO_CaretEqual:
    return std::pair{OpKind::BitXor, "bitwise_xor"};
  case OO_LessLessEqual:
    return std::pair{OpKind::LeftShift, "left_shift"};
  case OO_GreaterGreaterEqual:
    return std::pair{OpKind::RightShift, "right_shift"};
  default:
    return std::nullopt;
  }
}

std::optional<CompoundAssignCall> classifyCompoundAssign(const Expr *e) {
  const auto *oc = dyn_cast_or_null<CXXOperatorCallExpr>(stripImplicit(e));
  if (!oc || oc->getNumArgs() != 2)
    return std::nullopt;
  CompoundAssignCall c;
  std::optional<std::pair<OpKind, const char *>> op =
      compoundOperator(oc->getOperator());
  if (!op)
    return std::nullopt;
  std::tie(c.op, c.ufunc) = *op;
  const FunctionDecl *fd = oc->getDirectCallee();
  if (!fd || isa<CXXMethodDecl>(fd) || !arrayElementType(oc->getArg(0)->getType()))
    return std::nullopt;
  const auto *ns = dyn_cast<NamespaceDecl>(fd->getDeclContext()->getRedeclContext());
  if (!ns || ns->getName() != "kiln")
    return std::nullopt;
  c.target = oc->getArg(0);
  c.value = oc->getArg(1);
  // compound.hpp's operators name the type of `x op value` as their last
  // template argument.
  if (const TemplateArgumentList *args = fd->getTemplateSpecializationArgs(); args && args->size() >= 1) {
    const TemplateArgument &r = args->get(args->size() - 1);
    if (r.getKind() == TemplateArgument::Type)
      c.resultType = arrayElementType(r.getAsType());
  }
  return c;
}

std::optional<AssignCall> classifyAssign(const Expr *e) {
  const auto *mc = dyn_cast_or_null<CXXMemberCallExpr>(stripImplicit(e));
  const CXXMethodDecl *md = mc ? mc->getMethodDecl() : nullptr;
  if (!md || !md->getIdentifier() || md->getName() != "assign" || mc->getNumArgs() != 1 ||
      !arrayElementType(mc->getImplicitObjectArgument()->getType()) || !arrayElementType(mc->getArg(0)->getType()))
    return std::nullopt;
  return AssignCall{mc->getImplicitObjectArgument(), mc->getArg(0)};
}

std::optional<AssignCall> fusedAssign(const Expr *e, ASTContext &ctx) {
  auto a = classifyAssign(e);
  // A reduction's result is allocated by its kernel and then copied, as
  // array::assign would; only elementwise values are computed into x.
  const Expr *value = a ? stripImplicit(a->value) : nullptr;
  if (value && isFusableCall(value, ctx) && !classifyReduction(value))
    return a;
  return std::nullopt;
}

/// The variable `e` names, if it is a plain reference to one.
static const ValueDecl *namedVariable(const Expr *e) {
  const auto *ref = dyn_cast_or_null<DeclRefExpr>(stripImplicit(e));
  return ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
}

std::optional<IndexSubscript> classifyIndexSubscript(const Expr *e) {
  const auto *oc = dyn_cast_or_null<CXXOperatorCallExpr>(stripImplicit(e));
  if (!oc || oc->getOperator() != OO_Subscript || oc->getNumArgs() != 2 || !arrayElementType(oc->getArg(0)->getType()))
    return std::nullopt;
  std::optional<ElementType> index = arrayElementType(oc->getArg(1)->getType());
  if (!index || (kindOf(*index) != TypeKind::Bool && kindOf(*index) != TypeKind::Int))
    return std::nullopt;
  return IndexSubscript{oc->getArg(0), oc->getArg(1), kindOf(*index) == TypeKind::Bool};
}

/// True when every array `e` reads is `w[m]` with the mask variable `m`
/// (elementwise operations over such reads and scalars).
static bool readsOnlyMasked(const Expr *e, const ValueDecl *m) {
  e = stripImplicit(e);
  if (auto sub = classifyIndexSubscript(e))
    return sub->isMask && namedVariable(sub->index) == m && namedVariable(sub->base);
  llvm::SmallVector<const Expr *, 4> args;
  if (classifyCall(e, args)) {
    for (const Expr *a : args)
      if (!readsOnlyMasked(a, m))
        return false;
    return true;
  }
  return !arrayElementType(e->getType()); // a scalar leaf
}

std::optional<MaskedAssignCall> classifyMaskedAssign(const Expr *e) {
  const auto *oc = dyn_cast_or_null<CXXOperatorCallExpr>(stripImplicit(e));
  if (!oc || oc->getNumArgs() != 2)
    return std::nullopt;
  MaskedAssignCall c;
  // x[m] = v, and the arithmetic compound assignments (mask.hpp's).
  const OverloadedOperatorKind k = oc->getOperator();
  if (k != OO_Equal) {
    if (k != OO_PlusEqual && k != OO_MinusEqual && k != OO_StarEqual &&
        k != OO_SlashEqual)
      return std::nullopt;
    std::tie(c.op, c.ufunc) = *compoundOperator(k);
  }
  auto sub = classifyIndexSubscript(oc->getArg(0));
  if (!sub || !sub->isMask)
    return std::nullopt;
  c.maskVar = namedVariable(sub->index);
  if (!c.maskVar || !namedVariable(sub->base) || !readsOnlyMasked(oc->getArg(1), c.maskVar))
    return std::nullopt;
  c.subscript = stripImplicit(oc->getArg(0));
  c.target = stripImplicit(sub->base);
  c.mask = stripImplicit(sub->index);
  c.value = oc->getArg(1);
  return c;
}

const Expr *writtenArray(const Expr *e, std::string &what) {
  e = stripImplicit(e);
  if (const auto *oc = dyn_cast_or_null<CXXOperatorCallExpr>(e); oc && oc->getNumArgs() == 2) {
    if (auto c = classifyCompoundAssign(oc)) {
      what = getOperatorSpelling(oc->getOperator());
      return c->target;
    }
    OverloadedOperatorKind k = oc->getOperator();
    if (k == OO_Equal || k == OO_PlusEqual || k == OO_MinusEqual || k == OO_StarEqual || k == OO_SlashEqual ||
        k == OO_PercentEqual)
      if (auto sub = classifyIndexSubscript(oc->getArg(0))) {
        what = std::string("[") + (sub->isMask ? "mask" : "indices") + "] " + getOperatorSpelling(k);
        return sub->base;
      }
    return nullptr;
  }
  if (const auto *mc = dyn_cast_or_null<CXXMemberCallExpr>(e)) {
    const CXXMethodDecl *md = mc->getMethodDecl();
    if (md && md->getIdentifier() && (md->getName() == "assign" || md->getName() == "fill") &&
        arrayElementType(mc->getImplicitObjectArgument()->getType())) {
      what = md->getName().str();
      return mc->getImplicitObjectArgument();
    }
  }
  return nullptr;
}

const VarDecl *constArrayVariable(const Expr *target) {
  const auto *ref = dyn_cast_or_null<DeclRefExpr>(stripImplicit(target));
  const auto *vd = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!vd || !arrayElementType(vd->getType()))
    return nullptr;
  return vd->getType().getNonReferenceType().isConstQualified() ? vd : nullptr;
}

bool castsSameKind(ElementType from, ElementType to) {
  auto rank = [](ElementType t) {
    switch (kindOf(t)) {
    case TypeKind::Bool: return 0;
    case TypeKind::Int: return isUnsigned(t) ? 1 : 2;
    case TypeKind::Float: return 3;
    case TypeKind::Complex: return 4;
    }
    return 4;
  };
  int f = rank(from), t = rank(to);
  return f == t || (f < t && !(f == 2 && t == 1));
}

} // namespace kiln::frontend
