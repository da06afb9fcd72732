//===- Frontend/InPlaceUpdate.cpp - Writes into arrays --------------------===//
#include "Frontend/InPlaceUpdate.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace kiln::frontend {

std::optional<CompoundAssignCall> classifyCompoundAssign(const Expr *e) {
  const auto *oc = dyn_cast_or_null<CXXOperatorCallExpr>(stripImplicit(e));
  if (!oc || oc->getNumArgs() != 2)
    return std::nullopt;
  CompoundAssignCall c;
  switch (oc->getOperator()) {
  case OO_PlusEqual: c.op = OpKind::Add, c.ufunc = "add"; break;
  case OO_MinusEqual: c.op = OpKind::Sub, c.ufunc = "subtract"; break;
  case OO_StarEqual: c.op = OpKind::Mul, c.ufunc = "multiply"; break;
  case OO_SlashEqual: c.op = OpKind::Div, c.ufunc = "divide"; break;
  case OO_PercentEqual: c.op = OpKind::Rem, c.ufunc = "remainder"; break;
  case OO_AmpEqual: c.op = OpKind::And, c.ufunc = "bitwise_and"; break;
  case OO_PipeEqual: c.op = OpKind::Or, c.ufunc = "bitwise_or"; break;
  default: return std::nullopt;
  }
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
