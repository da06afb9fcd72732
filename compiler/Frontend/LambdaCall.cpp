//===- Frontend/LambdaCall.cpp - kiln::elementwise call sites -------------===//
#include "Frontend/LambdaCall.h"
#include "Frontend/ElementType.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/LambdaCapture.h"

using namespace clang;

namespace kiln::frontend {

/// The lambda itself when the argument is written in the call (through the
/// copy into the by-value parameter).
const LambdaExpr *writtenLambda(const Expr *e) {
  while (e) {
    e = e->IgnoreImplicit()->IgnoreParens();
    if (const auto *le = dyn_cast<LambdaExpr>(e))
      return le;
    if (const auto *ce = dyn_cast<CXXConstructExpr>(e); ce && ce->getNumArgs() == 1) {
      e = ce->getArg(0);
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

QualType receivedType(QualType a) {
  a = a.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  if (const auto *spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(a->getAsCXXRecordDecl()))
    if (spec->getName() == "array" && inKilnNamespace(spec) && spec->getTemplateArgs().size() == 1)
      return spec->getTemplateArgs()[0].getAsType().getCanonicalType().getUnqualifiedType();
  return a;
}

namespace {

QualType parameterValueType(const ParmVarDecl *p) {
  return p->getType().getNonReferenceType().getCanonicalType().getUnqualifiedType();
}

/// The call operator clang instantiated for `received` (a generic lambda
/// has one per combination of argument types).
const CXXMethodDecl *callOperatorFor(const CXXRecordDecl *closure, const std::vector<QualType> &received) {
  const FunctionTemplateDecl *tmpl = closure->getDependentLambdaCallOperator();
  // A parameter spelled `auto` takes the argument's type exactly; one with a
  // written type converts the argument to it.
  auto matches = [&](const FunctionDecl *fd) {
    const FunctionDecl *pattern = tmpl->getTemplatedDecl();
    if (fd->getNumParams() != received.size() || pattern->getNumParams() != received.size())
      return false;
    for (unsigned i = 0; i < received.size(); ++i)
      if (pattern->getParamDecl(i)->getType()->isDependentType() &&
          parameterValueType(fd->getParamDecl(i)) != received[i])
        return false;
    return true;
  };
  if (!closure->isGenericLambda()) {
    const CXXMethodDecl *op = closure->getLambdaCallOperator();
    return op && op->getNumParams() == received.size() ? op : nullptr;
  }
  if (!tmpl)
    return nullptr;
  for (const FunctionDecl *spec : tmpl->specializations())
    if (matches(spec) && spec->hasBody())
      return cast<CXXMethodDecl>(spec);
  return nullptr;
}

} // namespace

void analyzeLambda(const Expr *functor, const std::vector<QualType> &received, llvm::StringRef what,
                   ElementwiseCall &out) {
  out.functor = functor;
  const std::string w = what.str();
  auto fail = [&](SourceLocation at, std::string msg) {
    out.error = std::move(msg);
    out.errorAt = at;
  };
  const CXXRecordDecl *closure = functor->getType().getNonReferenceType()->getAsCXXRecordDecl();
  if (!closure || !closure->isLambda())
    return fail(functor->getBeginLoc(), w + " takes a lambda, whose body kilnc compiles into the "
                                          "kernel (not a function pointer or another callable)");
  out.callOperator = callOperatorFor(closure, received);
  if (!out.callOperator)
    return fail(functor->getBeginLoc(), "kilnc cannot find the lambda's call operator for these arguments (it "
                                          "takes " + std::to_string(received.size()) + " argument(s) here)");
  if (!out.callOperator->isConst())
    return fail(functor->getBeginLoc(), "a 'mutable' lambda is not supported by " + w + " (each element "
                                          "runs the lambda afresh)");

  out.lambda = writtenLambda(functor);
  if (!out.lambda) {
    if (closure->capture_size() != 0)
      return fail(functor->getBeginLoc(), "a lambda that captures variables must be written in the " + w +
                                            " call itself (kilnc passes the captured values at the "
                                            "call); or pass them as arguments");
    return;
  }
  auto init = out.lambda->capture_init_begin();
  for (const LambdaCapture &cap : out.lambda->captures()) {
    const Expr *value = *init++;
    if (!cap.capturesVariable())
      return fail(cap.getLocation(), "a lambda of " + w + " captures scalars only (not 'this')");
    const ValueDecl *var = cap.getCapturedVar();
    QualType t = var->getType().getNonReferenceType();
    if (!t->isArithmeticType())
      return fail(cap.getLocation(), "a lambda of " + w + " captures scalars only; '" +
                                         var->getNameAsString() + "' is a '" + t.getAsString() +
                                         "' (pass arrays as arguments)");
    out.captures.push_back(var);
    out.captureInits.push_back(value);
  }
}

std::optional<ElementwiseCall> classifyElementwiseCall(const Expr *e) {
  const auto *call = dyn_cast_or_null<CallExpr>(e ? e->IgnoreImplicit()->IgnoreParens() : nullptr);
  if (!call || isa<CXXOperatorCallExpr>(call) || isa<CXXMemberCallExpr>(call))
    return std::nullopt;
  const FunctionDecl *fd = call->getDirectCallee();
  if (!fd || !fd->getIdentifier() || !inKilnNamespace(fd))
    return std::nullopt;
  bool into = fd->getName() == "elementwise_into";
  if (!into && fd->getName() != "elementwise")
    return std::nullopt;
  unsigned first = into ? 1 : 0; // the functor's position
  if (call->getNumArgs() < first + 2)
    return std::nullopt;

  ElementwiseCall c;
  c.into = into ? call->getArg(0) : nullptr;
  c.functor = call->getArg(first);
  for (unsigned i = first + 1; i < call->getNumArgs(); ++i)
    c.args.push_back(call->getArg(i));
  auto fail = [&](SourceLocation at, std::string msg) {
    c.error = std::move(msg);
    c.errorAt = at;
    return c;
  };

  std::vector<QualType> received;
  for (const Expr *a : c.args)
    received.push_back(receivedType(a->getType()));
  analyzeLambda(c.functor, received, "kiln::elementwise", c);
  return c;
}

} // namespace kiln::frontend
