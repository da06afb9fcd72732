//===- Frontend/ArrayExpr.cpp - Fusable array expressions -----------------===//
#include "Frontend/ArrayExpr.h"
#include "Frontend/InPlaceUpdate.h"
#include "Frontend/LambdaCall.h"
#include "Frontend/ReductionCall.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

using namespace clang;

namespace kiln::frontend {

const char *opName(OpKind k) {
  switch (k) {
    // clang-format off
#define CASE(K, S) case OpKind::K: return S;
  CASE(Add, "+") CASE(Sub, "-") CASE(Mul, "*") CASE(Div, "/") CASE(Rem, "%")
  CASE(Neg, "unary -") CASE(Eq, "==") CASE(Ne, "!=") CASE(Lt, "<")
  CASE(Le, "<=") CASE(Gt, ">") CASE(Ge, ">=") CASE(And, "&&") CASE(Or, "||")
  CASE(Not, "!") CASE(Exp, "exp") CASE(Log, "log") CASE(Log2, "log2")
  CASE(Log10, "log10") CASE(Sqrt, "sqrt") CASE(Sin, "sin") CASE(Cos, "cos")
  CASE(Tan, "tan") CASE(Tanh, "tanh") CASE(Abs, "abs") CASE(Sign, "sign")
  CASE(Floor, "floor") CASE(Ceil, "ceil") CASE(Round, "round") CASE(Pow, "pow")
  CASE(Maximum, "maximum") CASE(Minimum, "minimum") CASE(Where, "where")
  CASE(Clip, "clip") CASE(IsNan, "isnan") CASE(IsInf, "isinf")
  CASE(Real, "real") CASE(Imag, "imag") CASE(Conj, "conj") CASE(Arg, "arg")
  CASE(ArcSin, "arcsin") CASE(ArcCos, "arccos") CASE(ArcTan, "arctan")
  CASE(Sinh, "sinh") CASE(Cosh, "cosh") CASE(ArcSinh, "arcsinh")
  CASE(ArcCosh, "arccosh") CASE(ArcTanh, "arctanh") CASE(Exp2, "exp2")
  CASE(Expm1, "expm1") CASE(Log1p, "log1p") CASE(Cbrt, "cbrt")
  CASE(Deg2Rad, "deg2rad") CASE(Rad2Deg, "rad2deg") CASE(Rint, "rint")
  CASE(Trunc, "trunc") CASE(Square, "square") CASE(Positive, "positive")
  CASE(IsFinite, "isfinite") CASE(SignBit, "signbit") CASE(Invert, "~")
  CASE(ArcTan2, "arctan2") CASE(Hypot, "hypot") CASE(CopySign, "copysign")
  CASE(LogAddExp, "logaddexp") CASE(LogAddExp2, "logaddexp2")
  CASE(FMax, "fmax") CASE(FMin, "fmin") CASE(BitAnd, "&") CASE(BitOr, "|")
  CASE(BitXor, "^") CASE(LeftShift, "<<") CASE(RightShift, ">>")
  CASE(LogicalXor, "logical_xor") CASE(Reciprocal, "reciprocal")
  CASE(Sinc, "sinc") CASE(Spacing, "spacing")
  CASE(BitwiseCount, "bitwise_count") CASE(FloorDivide, "floor_divide")
  CASE(FMod, "fmod") CASE(FloatPower, "float_power")
  CASE(Heaviside, "heaviside") CASE(NextAfter, "nextafter")
  CASE(Angle, "angle") CASE(RoundDecimals, "round") CASE(Gcd, "gcd")
  CASE(Lcm, "lcm") CASE(Ldexp, "ldexp") CASE(NanToNum, "nan_to_num")
  CASE(IsClose, "isclose") CASE(Cast, "astype") CASE(Lambda, "elementwise")
#undef CASE
    // clang-format on
  }
  return "?";
}

const Expr *stripImplicit(const Expr *e) {
  while (e) {
    const Expr *next = nullptr;
    if (const auto *ic = dyn_cast<ImplicitCastExpr>(e)) next = ic->getSubExpr();
    else if (const auto *p = dyn_cast<ParenExpr>(e)) next = p->getSubExpr();
    else if (const auto *m = dyn_cast<MaterializeTemporaryExpr>(e)) next = m->getSubExpr();
    else if (const auto *b = dyn_cast<CXXBindTemporaryExpr>(e)) next = b->getSubExpr();
    else if (const auto *c = dyn_cast<ExprWithCleanups>(e)) next = c->getSubExpr();
    else if (const auto *ce = dyn_cast<ConstantExpr>(e)) next = ce->getSubExpr();
    else if (const auto *k = dyn_cast<CXXConstructExpr>(e)) {
      // A copy or move of an array (e.g. returning by value) is not an operation.
      if (k->getNumArgs() == 1 && k->getConstructor()->isCopyOrMoveConstructor() &&
          arrayElementType(k->getType()))
        next = k->getArg(0);
    }
    if (!next) return e;
    e = next;
  }
  return e;
}

static std::optional<OpKind> operatorKind(OverloadedOperatorKind op, unsigned nargs) {
  switch (op) {
  case OO_Plus: return nargs == 2 ? std::optional(OpKind::Add) : std::nullopt;
  case OO_Minus: return nargs == 2 ? OpKind::Sub : OpKind::Neg;
  case OO_Star: return nargs == 2 ? std::optional(OpKind::Mul) : std::nullopt;
  case OO_Slash: return OpKind::Div;
  case OO_Percent: return OpKind::Rem;
  case OO_EqualEqual: return OpKind::Eq;
  case OO_ExclaimEqual: return OpKind::Ne;
  case OO_Less: return OpKind::Lt;
  case OO_LessEqual: return OpKind::Le;
  case OO_Greater: return OpKind::Gt;
  case OO_GreaterEqual: return OpKind::Ge;
  case OO_AmpAmp: return OpKind::And;
  case OO_PipePipe: return OpKind::Or;
  case OO_Exclaim: return OpKind::Not;
  case OO_Amp:
    return nargs == 2 ? std::optional(OpKind::BitAnd) : std::nullopt;
  case OO_Pipe:
    return OpKind::BitOr;
  case OO_Caret:
    return OpKind::BitXor;
  case OO_Tilde:
    return OpKind::Invert;
  case OO_LessLess:
    return OpKind::LeftShift;
  case OO_GreaterGreater:
    return OpKind::RightShift;
  default: return std::nullopt;
  }
}

static std::optional<OpKind> functionKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<OpKind>>(name)
      .Case("exp", OpKind::Exp)
      .Case("log", OpKind::Log)
      .Case("log2", OpKind::Log2)
      .Case("log10", OpKind::Log10)
      .Case("sqrt", OpKind::Sqrt)
      .Case("sin", OpKind::Sin)
      .Case("cos", OpKind::Cos)
      .Case("tan", OpKind::Tan)
      .Case("tanh", OpKind::Tanh)
      .Case("abs", OpKind::Abs)
      .Case("sign", OpKind::Sign)
      .Case("floor", OpKind::Floor)
      .Case("ceil", OpKind::Ceil)
      .Case("round", OpKind::Round)
      .Case("pow", OpKind::Pow)
      .Case("maximum", OpKind::Maximum)
      .Case("minimum", OpKind::Minimum)
      .Case("where", OpKind::Where)
      .Case("clip", OpKind::Clip)
      .Case("isnan", OpKind::IsNan)
      .Case("isinf", OpKind::IsInf)
      .Case("real", OpKind::Real)
      .Case("imag", OpKind::Imag)
      .Case("conj", OpKind::Conj)
      .Case("arg", OpKind::Arg)
      .Case("isclose", OpKind::IsClose)
      .Case("arcsin", OpKind::ArcSin)
      .Case("arccos", OpKind::ArcCos)
      .Case("arctan", OpKind::ArcTan)
      .Case("sinh", OpKind::Sinh)
      .Case("cosh", OpKind::Cosh)
      .Case("arcsinh", OpKind::ArcSinh)
      .Case("arccosh", OpKind::ArcCosh)
      .Case("arctanh", OpKind::ArcTanh)
      .Case("exp2", OpKind::Exp2)
      .Case("expm1", OpKind::Expm1)
      .Case("log1p", OpKind::Log1p)
      .Case("cbrt", OpKind::Cbrt)
      .Case("deg2rad", OpKind::Deg2Rad)
      .Case("radians", OpKind::Deg2Rad)
      .Case("rad2deg", OpKind::Rad2Deg)
      .Case("degrees", OpKind::Rad2Deg)
      .Case("rint", OpKind::Rint)
      .Case("trunc", OpKind::Trunc)
      .Case("fix", OpKind::Trunc)
      .Case("square", OpKind::Square)
      .Case("positive", OpKind::Positive)
      .Case("negative", OpKind::Neg)
      .Case("absolute", OpKind::Abs)
      .Case("fabs", OpKind::Abs)
      .Case("isfinite", OpKind::IsFinite)
      .Case("signbit", OpKind::SignBit)
      .Case("invert", OpKind::Invert)
      .Case("bitwise_not", OpKind::Invert)
      .Case("bitwise_invert", OpKind::Invert)
      .Case("arctan2", OpKind::ArcTan2)
      .Case("hypot", OpKind::Hypot)
      .Case("copysign", OpKind::CopySign)
      .Case("logaddexp", OpKind::LogAddExp)
      .Case("logaddexp2", OpKind::LogAddExp2)
      .Case("fmax", OpKind::FMax)
      .Case("fmin", OpKind::FMin)
      .Case("bitwise_and", OpKind::BitAnd)
      .Case("bitwise_or", OpKind::BitOr)
      .Case("bitwise_xor", OpKind::BitXor)
      .Case("left_shift", OpKind::LeftShift)
      .Case("right_shift", OpKind::RightShift)
      .Case("logical_and", OpKind::And)
      .Case("logical_or", OpKind::Or)
      .Case("logical_not", OpKind::Not)
      .Case("logical_xor", OpKind::LogicalXor)
      // NumPy's names of the operators
      .Case("add", OpKind::Add)
      .Case("subtract", OpKind::Sub)
      .Case("multiply", OpKind::Mul)
      .Case("divide", OpKind::Div)
      .Case("true_divide", OpKind::Div)
      .Case("remainder", OpKind::Rem)
      .Case("mod", OpKind::Rem)
      .Case("power", OpKind::Pow)
      .Case("equal", OpKind::Eq)
      .Case("not_equal", OpKind::Ne)
      .Case("less", OpKind::Lt)
      .Case("less_equal", OpKind::Le)
      .Case("greater", OpKind::Gt)
      .Case("greater_equal", OpKind::Ge)
      .Case("conjugate", OpKind::Conj)
      .Case("reciprocal", OpKind::Reciprocal)
      .Case("sinc", OpKind::Sinc)
      .Case("spacing", OpKind::Spacing)
      .Case("bitwise_count", OpKind::BitwiseCount)
      .Case("floor_divide", OpKind::FloorDivide)
      .Case("fmod", OpKind::FMod)
      .Case("float_power", OpKind::FloatPower)
      .Case("heaviside", OpKind::Heaviside)
      .Case("nextafter", OpKind::NextAfter)
      .Case("angle", OpKind::Angle)
      .Case("gcd", OpKind::Gcd)
      .Case("lcm", OpKind::Lcm)
      .Case("ldexp", OpKind::Ldexp)
      .Case("nan_to_num", OpKind::NanToNum)
      .Default(std::nullopt);
}

/// std::nullopt, NumPy's None for clip's bounds.
static bool isNullopt(const Expr *e) {
  const auto *rd = stripImplicit(e)->getType()->getAsCXXRecordDecl();
  return rd && rd->getName() == "nullopt_t" && rd->isInStdNamespace();
}

std::optional<OpKind> classifyCall(const Expr *e, llvm::SmallVectorImpl<const Expr *> &args) {
  e = stripImplicit(e);
  args.clear();
  if (auto lambda = classifyElementwiseCall(e)) { // also elementwise_into, of type void
    args.append(lambda->captureInits.begin(), lambda->captureInits.end());
    args.append(lambda->args.begin(), lambda->args.end());
    return OpKind::Lambda;
  }
  if (!e || !arrayElementType(e->getType())) return std::nullopt;
  if (const auto *oc = dyn_cast<CXXOperatorCallExpr>(e)) {
    const FunctionDecl *fd = oc->getDirectCallee();
    if (!fd || isa<CXXMethodDecl>(fd) || !inKilnNamespace(fd)) return std::nullopt;
    auto k = operatorKind(oc->getOperator(), oc->getNumArgs());
    if (k) args.append(oc->arg_begin(), oc->arg_end());
    return k;
  }
  if (const auto *mc = dyn_cast<CXXMemberCallExpr>(e)) {
    const CXXMethodDecl *md = mc->getMethodDecl();
    if (md && md->getIdentifier() && md->getName() == "astype" &&
        (arrayElementType(mc->getImplicitObjectArgument()->getType()) ||
         classifyIndexSubscript(mc->getImplicitObjectArgument()))) {
      args.push_back(mc->getImplicitObjectArgument());
      return OpKind::Cast;
    }
    return std::nullopt;
  }
  if (const auto *call = dyn_cast<CallExpr>(e)) {
    const FunctionDecl *fd = call->getDirectCallee();
    if (!fd || !fd->getIdentifier() || !inKilnNamespace(fd)) return std::nullopt;
    auto k = functionKind(fd->getName());
    if (k) args.append(call->arg_begin(), call->arg_end());
    if (k == OpKind::Round && args.size() == 2) // round(x, decimals)
      return OpKind::RoundDecimals;
    return k;
  }
  return std::nullopt;
}

std::optional<StencilCall> classifyStencil(const Expr *e, ASTContext &ctx) {
  const auto *call = dyn_cast_or_null<CallExpr>(stripImplicit(e));
  if (!call || call->getNumArgs() != 5)
    return std::nullopt;
  const FunctionDecl *fd = call->getDirectCallee();
  if (!fd || !fd->getIdentifier() ||
      (fd->getName() != "convolve2d" && fd->getName() != "correlate2d"))
    return std::nullopt;
  const auto *ns =
      dyn_cast<NamespaceDecl>(fd->getDeclContext()->getRedeclContext());
  if (!ns || ns->getName() != "signal" || !inKilnNamespace(ns))
    return std::nullopt;
  std::optional<ElementType> type = arrayElementType(call->getType());
  if (!type ||
      *type ==
          ElementType::Bool) // bool sums are logical ORs: the runtime's loop
    return std::nullopt;
  // mode::same (the output has the image's shape) and a boundary, both
  // known here; anything else is the runtime's call.
  auto constant = [&](const Expr *a) -> std::optional<long long> {
    Expr::EvalResult r;
    if (a->isValueDependent() || !a->EvaluateAsInt(r, ctx) || r.HasSideEffects)
      return std::nullopt;
    return r.Val.getInt().getExtValue();
  };
  std::optional<long long> mode = constant(call->getArg(2)),
                           boundary = constant(call->getArg(3));
  if (mode != 1 || !boundary || *boundary < 0 ||
      *boundary > 2) // mode::same; fill, wrap, symm
    return std::nullopt;
  StencilCall s;
  s.image = call->getArg(0);
  s.filter = call->getArg(1);
  if (!isa<CXXDefaultArgExpr>(call->getArg(4)))
    s.fill = call->getArg(4);
  s.correlate = fd->getName() == "correlate2d";
  s.boundary = static_cast<StencilBoundary>(*boundary);
  return s;
}

bool isFusableCall(const Expr *e, ASTContext &ctx) {
  llvm::SmallVector<const Expr *, 4> args;
  if (classifyCall(e, args) || classifyStencil(e, ctx) ||
      classifyCompoundAssign(e) || classifyMaskedAssign(e) ||
      fusedAssign(e, ctx))
    return true;
  auto r = classifyReduction(e);
  if (!r)
    return false;
  if (r->kind == ReduceKind::Norm)
    return fusableNormOrder(*r, axesSpecOf(r->axes, ctx), ctx).has_value();
  return true;
}

void fusableOperands(const Expr *e, ASTContext &ctx, llvm::SmallVectorImpl<const Expr *> &out) {
  out.clear();
  llvm::SmallVector<const Expr *, 4> args;
  if (classifyCall(e, args)) {
    out.append(args.begin(), args.end());
    return;
  }
  if (auto c = classifyCompoundAssign(e)) {
    out.append({c->target, c->value});
    return;
  }
  if (auto c = classifyMaskedAssign(e)) {
    out.append({c->subscript, c->value});
    return;
  }
  if (auto a = fusedAssign(e, ctx)) {
    out.append({a->target, a->value});
    return;
  }
  if (auto r = classifyReduction(e)) {
    out.push_back(r->operand);
    if (r->ddof)
      out.push_back(r->ddof);
  }
  if (auto st = classifyStencil(e, ctx)) {
    out.append({st->image, st->filter});
    if (st->fill)
      out.push_back(st->fill);
  }
}

std::unique_ptr<ExprTree> TreeBuilder::build(const Expr *root) {
  auto t = std::make_unique<ExprTree>();
  t->root = stripImplicit(root);
  leafByKey_.clear();
  nested_.clear();
  expanding_.clear();
  failure_ = Failure::None;
  failureMessage_.clear();
  if (auto lambda = classifyElementwiseCall(t->root); lambda && lambda->into) {
    t->update = stripImplicit(lambda->into);
    t->updateIsVoid = true;
  } else if (auto c = classifyCompoundAssign(t->root)) {
    t->update = stripImplicit(c->target);
  } else if (auto a = fusedAssign(t->root, ctx_)) {
    t->update = stripImplicit(a->target);
    t->assignedValue = a->value;
  } else if (auto m = classifyMaskedAssign(t->root)) {
    t->update = m->target;
    t->mask = m->mask;
    t->maskedSubscript = m->subscript;
    t->updateIsVoid = true;
  }
  maskVar_ = nullptr;
  t->rootNode = t->mask ? makeMaskedUpdate(t->root, *t) : t->update ? makeUpdate(t->root, *t) : visit(t->root, *t, 0);
  if (!t->rootNode) {
    if (failure_ == Failure::None)
      failure_ = Failure::Operand;
    return nullptr;
  }
  return t;
}

Node *TreeBuilder::visit(const Expr *e, ExprTree &t, unsigned depth) {
  e = stripImplicit(e);
  if (depth > MaxDepth) {
    failure_ = Failure::TooDeep;
    return nullptr;
  }
  if (maskVar_) // the value of a masked update: w[m] is read as w
    if (auto sub = classifyIndexSubscript(e); sub && sub->isMask) {
      const auto *ref = dyn_cast<DeclRefExpr>(stripImplicit(sub->index));
      if (ref && ref->getDecl() == maskVar_) {
        Node *base = makeLeaf(stripImplicit(sub->base), t);
        if (base)
          t.maskedBases.push_back(base->expr);
        return base;
      }
    }
  llvm::SmallVector<const Expr *, 4> args;
  if (auto k = classifyCall(e, args); k == OpKind::Lambda)
    return makeLambda(e, t, depth);
  else if (k) {
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Op;
    node->op = *k;
    node->type = *arrayElementType(e->getType());
    node->expr = e;
    if (*k == OpKind::Clip && args.size() == 3 &&
        (isNullopt(args[1]) || isNullopt(args[2]))) {
      // clip(x, lo, std::nullopt) is NumPy's clip(x, lo, None): maximum(x, lo)
      // (and minimum(x, hi)), whose ties differ from clip's.
      node->op = isNullopt(args[2]) ? OpKind::Maximum : OpKind::Minimum;
      args.erase(args.begin() + (isNullopt(args[2]) ? 2 : 1));
    }
    for (const Expr *a : args) {
      Node *child = visit(a, t, depth + 1);
      if (!child)
        return nullptr;
      node->operands.push_back(child);
    }
    if (*k == OpKind::NanToNum) // the header's defaults: 0, max, lowest
      for (unsigned i = node->operands.size(); i < 4; ++i)
        node->operands.push_back(
            i == 1 ? floatConstant(t, e, 0.0)
                   : largestFinite(t, e, node->type, /*upper=*/i == 2));
    t.nodes.push_back(std::move(node));
    return t.nodes.back().get();
  }
  if (classifyStencil(e, ctx_))
    return makeStencil(e, t, depth);
  if (isFusableCall(e, ctx_))
    return makeReduce(e, t, depth);
  if (locals_) {
    if (const auto *ref = dyn_cast<DeclRefExpr>(e))
      if (const auto *vd = dyn_cast<VarDecl>(ref->getDecl()))
        if (const Expr *init = locals_->lookup(vd)) {
          if (!expanding_.insert(vd).second)
            return nullptr; // a local defined in terms of itself
          Node *node = visit(init, t, depth + 1);
          expanding_.erase(vd);
          return node;
        }
  }
  return makeLeaf(e, t);
}

Node *TreeBuilder::castTo(Node *value, ElementType type, const Expr *e, ExprTree &t) {
  if (value->type == type)
    return value;
  if (value->kind == Node::Kind::Constant) { // converted here, as C++ converts it
    auto node = std::make_unique<Node>(*value);
    node->type = type;
    bool integral = kindOf(value->type) == TypeKind::Bool || kindOf(value->type) == TypeKind::Int;
    double real = integral ? static_cast<double>(value->intConstant) : value->constant.real();
    switch (kindOf(type)) {
    case TypeKind::Bool:
      node->intConstant = value->intConstant != 0 || value->constant != std::complex<double>(0);
      node->constant = static_cast<double>(node->intConstant);
      break;
    case TypeKind::Int:
      node->intConstant = integral ? value->intConstant : static_cast<long long>(real);
      node->constant = static_cast<double>(node->intConstant);
      break;
    case TypeKind::Float:
      node->constant = real;
      break;
    case TypeKind::Complex:
      node->constant = integral ? std::complex<double>(real) : value->constant;
      break;
    }
    t.nodes.push_back(std::move(node));
    return t.nodes.back().get();
  }
  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::Op;
  node->op = OpKind::Cast;
  node->type = type;
  node->expr = e;
  node->operands.push_back(value);
  t.nodes.push_back(std::move(node));
  return t.nodes.back().get();
}

Node *TreeBuilder::makeUpdate(const Expr *e, ExprTree &t) {
  // The destination is a leaf: the array (or view) written, never an
  // operation's result, which would be a temporary nobody sees again.
  if (isFusableCall(t.update, ctx_))
    return fail(t.update->getBeginLoc(),
                "this writes into the result of an array operation, a temporary that is discarded at the end of "
                "the statement; write into a named array or a view of one");
  std::optional<ElementType> dstType = arrayElementType(t.update->getType());
  if (!dstType)
    return nullptr;
  if (t.updateIsVoid) { // elementwise_into(out, f, ...): f's value, converted
    Node *value = visit(e, t, 0);
    return value ? castTo(value, *dstType, e, t) : nullptr;
  }
  if (t.assignedValue) { // x.assign(value): the value, converted
    Node *value = visit(t.assignedValue, t, 1);
    if (!value)
      return nullptr;
    Node *root = castTo(value, *dstType, e, t);
    if (root == value) { // x's dtype already: the value's operation, as the statement
      t.nodes.push_back(std::make_unique<Node>(*value));
      root = t.nodes.back().get();
      root->expr = e;
    }
    return root;
  }
  CompoundAssignCall c = *classifyCompoundAssign(e);
  if (!c.resultType)
    return fail(e->getBeginLoc(), "kilnc cannot read the result type of this compound assignment");
  auto numpyName = [](ElementType t) { return t == ElementType::Bool ? "bool" : runtimeDTypeName(t); };
  if (!castsSameKind(*c.resultType, *dstType))
    return fail(e->getBeginLoc(), std::string("Cannot cast ufunc '") + c.ufunc + "' output from dtype('" +
                                      numpyName(*c.resultType) + "') to dtype('" + numpyName(*dstType) +
                                      "') with casting rule 'same_kind'");
  Node *dst = makeLeaf(t.update, t);
  Node *value = dst ? visit(c.value, t, 1) : nullptr;
  if (!value)
    return nullptr;
  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::Op;
  node->op = c.op;
  node->type = *c.resultType;
  node->expr = e;
  node->operands = {dst, value};
  t.nodes.push_back(std::move(node));
  return castTo(t.nodes.back().get(), *dstType, e, t);
}

Node *TreeBuilder::makeMaskedUpdate(const Expr *e, ExprTree &t) {
  MaskedAssignCall c = *classifyMaskedAssign(e);
  if (isFusableCall(t.update, ctx_))
    return fail(t.update->getBeginLoc(),
                "this writes into the result of an array operation, a temporary that is discarded at the end of "
                "the statement; write into a named array or a view of one");
  std::optional<ElementType> dstType = arrayElementType(t.update->getType());
  if (!dstType)
    return nullptr;
  Node *mask = makeLeaf(t.mask, t);
  Node *dst = makeLeaf(t.update, t);
  maskVar_ = c.maskVar;
  Node *value = mask && dst ? visit(c.value, t, 1) : nullptr;
  maskVar_ = nullptr;
  if (!value)
    return nullptr;
  if (c.op) { // x[m] op= v: x op v where m holds, with NumPy's casting check
    ElementType r = value->isArray() ? promote(dst->type, value->type) : promoteWithScalar(dst->type, value->type);
    if (*c.op == OpKind::Div && (kindOf(r) == TypeKind::Bool || kindOf(r) == TypeKind::Int))
      r = ElementType::Float64; // true division
    if (!castsSameKind(r, *dstType))
      return fail(e->getBeginLoc(), std::string("Cannot cast ufunc '") + c.ufunc + "' output from dtype('" +
                                        (r == ElementType::Bool ? "bool" : runtimeDTypeName(r)) + "') to dtype('" +
                                        (*dstType == ElementType::Bool ? "bool" : runtimeDTypeName(*dstType)) +
                                        "') with casting rule 'same_kind'");
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Op;
    node->op = *c.op;
    node->type = r;
    node->expr = e;
    node->operands = {dst, value};
    t.nodes.push_back(std::move(node));
    value = t.nodes.back().get();
  }
  value = castTo(value, *dstType, e, t);
  auto where = std::make_unique<Node>();
  where->kind = Node::Kind::Op;
  where->op = OpKind::Where;
  where->type = *dstType;
  where->expr = e;
  where->operands = {mask, value, dst};
  t.nodes.push_back(std::move(where));
  return t.nodes.back().get();
}

Node *TreeBuilder::fail(SourceLocation at, const std::string &msg) {
  failure_ = Failure::Diagnostic;
  failureMessage_ = msg;
  failureAt_ = at;
  return nullptr;
}

Node *TreeBuilder::lambdaOp(const Expr *e, const ElementwiseCall &lambda, ElementType type,
                            llvm::ArrayRef<const Expr *> argExprs, Node *argNode, ExprTree &t, unsigned depth) {
  if (!lambda.error.empty())
    return fail(lambda.errorAt, lambda.error);
  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::Op;
  node->op = OpKind::Lambda;
  node->expr = e;
  node->type = type;
  node->callOperator = lambda.callOperator;
  node->functor = lambda.functor;
  node->captures = lambda.captures;
  auto operand = [&](const Expr *a) {
    Node *child = visit(a, t, depth + 1);
    if (child)
      node->operands.push_back(child);
    return child != nullptr;
  };
  for (const Expr *init : lambda.captureInits)
    if (!operand(init))
      return nullptr;
  for (const Expr *a : argExprs)
    if (!operand(a))
      return nullptr;
  if (argNode)
    node->operands.push_back(argNode);
  t.nodes.push_back(std::move(node));
  return t.nodes.back().get();
}

Node *TreeBuilder::makeLambda(const Expr *e, ExprTree &t, unsigned depth) {
  ElementwiseCall call = *classifyElementwiseCall(e);
  if (!call.error.empty())
    return fail(call.errorAt, call.error);
  std::optional<ElementType> type = call.into ? exactElementType(call.callOperator->getReturnType())
                                              : arrayElementType(e->getType());
  if (!type)
    return fail(call.functor->getBeginLoc(), "the lambda of kiln::elementwise returns '" +
                                                          call.callOperator->getReturnType().getAsString() +
                                                          "', not a Kiln element type");
  return lambdaOp(e, call, *type, call.args, nullptr, t, depth);
}

/// kiln::reduce(x, map, combine, identity, post, axes, keepdims): post over a
/// Custom reduction of map over x.
Node *TreeBuilder::makeCustomReduce(const Expr *e, ExprTree &t, unsigned depth) {
  ReductionCall call = *classifyReduction(e);
  // The types the header computes: T (x's element), A = map(T), R = post(A).
  const auto *fd = cast<CallExpr>(stripImplicit(e))->getDirectCallee();
  const TemplateArgumentList *targs = fd ? fd->getTemplateSpecializationArgs() : nullptr;
  if (!targs || targs->size() < 1)
    return fail(e->getBeginLoc(), "kilnc cannot read the types of this kiln::reduce call");
  QualType elemT = targs->get(0).getAsType().getCanonicalType();
  Node *x = visit(call.operand, t, depth + 1);
  if (!x)
    return nullptr;
  ElementwiseCall map;
  analyzeLambda(call.map, {elemT}, "kiln::reduce", map);
  if (!map.error.empty())
    return fail(map.errorAt, map.error);
  QualType accT = map.callOperator->getReturnType().getNonReferenceType().getCanonicalType().getUnqualifiedType();
  std::optional<ElementType> acc = exactElementType(accT);
  if (!acc || kindOf(*acc) == TypeKind::Complex)
    return fail(call.map->getBeginLoc(), "kiln::reduce's map returns '" + accT.getAsString() +
                                                      "'; the accumulator is bool, an integer, float or double");
  Node *mapped = lambdaOp(e, map, *acc, {}, x, t, depth);
  if (!mapped)
    return nullptr;

  ElementwiseCall combine;
  analyzeLambda(call.combine, {accT, accT}, "kiln::reduce", combine);
  if (!combine.error.empty())
    return fail(combine.errorAt, combine.error);
  if (!combine.captures.empty())
    return fail(call.combine->getBeginLoc(),
                         "kiln::reduce's combine lambda cannot capture variables (it runs at every step of the "
                         "reduction tree, in several kernels); pass values through map");
  Expr::EvalResult value;
  const Expr *identity = call.identity->IgnoreImplicit();
  if (identity->isValueDependent() || !identity->EvaluateAsRValue(value, ctx_) || value.HasSideEffects ||
      !(value.Val.isInt() || value.Val.isFloat()))
    return fail(call.identity->getBeginLoc(), "kiln::reduce's identity must be a constant (an integer or "
                                                       "floating-point literal or constexpr value)");

  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::Reduce;
  node->reduce = ReduceKind::Custom;
  node->type = *acc;
  node->expr = e;
  node->axes = axesSpecOf(call.axes, ctx_);
  node->keepdims = keepdimsSpecOf(call.keepdims, ctx_);
  node->combineOperator = combine.callOperator;
  node->combineFunctor = call.combine;
  node->identityExpr = call.identity;
  if (value.Val.isInt()) {
    node->identityInt = value.Val.getInt().getExtValue();
    node->identityFloat = static_cast<double>(node->identityInt);
  } else {
    node->identityFloat = value.Val.getFloat().convertToDouble();
    node->identityInt = static_cast<long long>(node->identityFloat);
  }
  node->operands.push_back(mapped);
  t.nodes.push_back(std::move(node));
  Node *reduced = t.nodes.back().get();

  std::optional<ElementType> result = arrayElementType(e->getType());
  if (!result)
    return fail(e->getBeginLoc(), "kilnc cannot read the result type of this kiln::reduce call");
  ElementwiseCall post;
  analyzeLambda(call.post, {accT}, "kiln::reduce", post);
  return lambdaOp(e, post, *result, {}, reduced, t, depth);
}

Node *TreeBuilder::constantNode(ExprTree &t, const Expr *e, ElementType type, long long value) {
  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::Constant;
  node->type = type;
  node->expr = e;
  node->intConstant = value;
  node->constant = static_cast<double>(value);
  t.nodes.push_back(std::move(node));
  return t.nodes.back().get();
}

Node *TreeBuilder::floatConstant(ExprTree &t, const Expr *e, double value) {
  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::Constant;
  node->type = ElementType::Float64;
  node->expr = e;
  node->constant = value;
  t.nodes.push_back(std::move(node));
  return t.nodes.back().get();
}

Node *TreeBuilder::largestFinite(ExprTree &t, const Expr *e, ElementType type,
                                 bool upper) {
  if (kindOf(type) != TypeKind::Float && kindOf(type) != TypeKind::Complex)
    return floatConstant(t, e, 0.0); // (nan_to_num leaves integers alone)
  const double limit =
      realPart(type) == ElementType::Float32
          ? static_cast<double>(std::numeric_limits<float>::max())
          : std::numeric_limits<double>::max();
  return floatConstant(
      t, e, upper ? limit : -limit); // float64, as the header's parameters
}

Node *TreeBuilder::makeReduce(const Expr *e, ExprTree &t, unsigned depth) {
  ReductionCall call = *classifyReduction(e);
  if (call.kind == ReduceKind::Custom)
    return makeCustomReduce(e, t, depth);
  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::Reduce;
  node->reduce = call.kind;
  node->type = *arrayElementType(e->getType());
  node->expr = e;
  node->axes = axesSpecOf(call.axes, ctx_);
  node->keepdims = keepdimsSpecOf(call.keepdims, ctx_);
  if (call.kind == ReduceKind::Norm) {
    node->normOrder = *fusableNormOrder(call, node->axes, ctx_);
    if (isFrobeniusOrder(call.order))
      node->normOrderText = "::kiln::linalg::fro";
    else if (call.order && std::isinf(node->normOrder))
      node->normOrderText = node->normOrder > 0 ? "::kiln::detail::norm_ord(::kiln::linalg::inf)"
                                                : "::kiln::detail::norm_ord(-::kiln::linalg::inf)";
    else if (call.order)
      node->normOrderText = "::kiln::detail::norm_ord(" + llvm::formatv("{0:e16}", node->normOrder).str() + ")";
  }
  Node *operand = visit(call.operand, t, depth + 1);
  if (!operand)
    return nullptr;
  node->operands.push_back(operand);
  if (call.kind == ReduceKind::Var || call.kind == ReduceKind::Std) {
    // ddof: a constant, or the `.value` of the kiln::ddof argument.
    Node *ddof = nullptr;
    if (!call.ddof) {
      ddof = constantNode(t, e, ElementType::Int64, 0);
    } else {
      Expr::EvalResult r;
      const Expr *inner = call.ddof->IgnoreImplicit();
      if (const auto *ce = dyn_cast<CXXConstructExpr>(inner); ce && ce->getNumArgs() == 1)
        inner = ce->getArg(0);
      else if (const auto *fc = dyn_cast<CXXFunctionalCastExpr>(inner))
        inner = fc->getSubExpr();
      if (!inner->isValueDependent() && inner->EvaluateAsInt(r, ctx_) && !r.HasSideEffects) {
        ddof = constantNode(t, call.ddof, ElementType::Int64, r.Val.getInt().getExtValue());
      } else {
        auto leaf = std::make_unique<Node>();
        leaf->kind = Node::Kind::Scalar;
        leaf->type = ElementType::Int64;
        leaf->expr = call.ddof;
        leaf->leafSuffix = ".value";
        t.nodes.push_back(std::move(leaf));
        ddof = t.nodes.back().get();
        collectNestedRoots(call.ddof);
      }
    }
    node->operands.push_back(ddof);
  }
  t.nodes.push_back(std::move(node));
  return t.nodes.back().get();
}

Node *TreeBuilder::makeStencil(const Expr *e, ExprTree &t, unsigned depth) {
  StencilCall call = *classifyStencil(e, ctx_);
  auto node = std::make_unique<Node>();
  node->kind = Node::Kind::Stencil;
  node->type = *arrayElementType(e->getType());
  node->expr = e;
  node->correlate = call.correlate;
  node->boundary = call.boundary;
  for (const Expr *a : {call.image, call.filter}) {
    Node *child = visit(a, t, depth + 1);
    if (!child)
      return nullptr;
    node->operands.push_back(child);
  }
  // The fill value as written, before its conversion to std::complex<double>
  // (a float stays a float scalar); the default is the constant 0.
  Node *fill = nullptr;
  if (call.fill) {
    const Expr *f = stripImplicit(call.fill);
    if (const auto *k = dyn_cast<CXXConstructExpr>(f);
        k && k->getNumArgs() >= 1 &&
        !k->getConstructor()->isCopyOrMoveConstructor() &&
        llvm::all_of(llvm::drop_begin(k->arguments()),
                     [](const Expr *a) { return isa<CXXDefaultArgExpr>(a); }) &&
        scalarElementType(stripImplicit(k->getArg(0))->getType()))
      f = stripImplicit(k->getArg(0));
    fill = makeLeaf(f, t);
  } else {
    fill = constantNode(t, e, ElementType::Float64, 0);
  }
  if (!fill)
    return nullptr;
  node->operands.push_back(fill);
  t.nodes.push_back(std::move(node));
  return t.nodes.back().get();
}

Node *TreeBuilder::makeLeaf(const Expr *e, ExprTree &t) {
  const void *key = e;
  if (const auto *ref = dyn_cast<DeclRefExpr>(e))
    key = ref->getDecl();
  if (Node *n = leafByKey_.lookup(key))
    return n;

  auto node = std::make_unique<Node>();
  node->expr = e;
  std::optional<ElementType> ty = arrayElementType(e->getType());
  if (auto sub = classifyIndexSubscript(e); !ty && sub)
    ty = arrayElementType(sub->base->getType()); // x[m], x[idx]: the gather it converts to
  if (ty) {
    node->kind = Node::Kind::Input;
    node->type = *ty;
    if (!isa<DeclRefExpr>(e))
      collectNestedRoots(e);
  } else if (auto s = scalarElementType(e->getType())) {
    node->type = *s;
    Expr::EvalResult r;
    if (!e->isValueDependent() && e->EvaluateAsRValue(r, ctx_) && !r.HasSideEffects) {
      node->kind = Node::Kind::Constant;
      const APValue &v = r.Val;
      if (v.isInt()) {
        node->intConstant = v.getInt().getExtValue();
        node->constant = static_cast<double>(node->intConstant);
      } else if (v.isFloat()) {
        node->constant = v.getFloat().convertToDouble();
      } else if (v.isComplexFloat()) {
        node->constant = {v.getComplexFloatReal().convertToDouble(), v.getComplexFloatImag().convertToDouble()};
      } else {
        node->kind = Node::Kind::Scalar;
      }
    } else {
      node->kind = Node::Kind::Scalar;
    }
    if (node->kind == Node::Kind::Scalar && !isa<DeclRefExpr>(e))
      collectNestedRoots(e);
  } else {
    return nullptr;
  }
  t.nodes.push_back(std::move(node));
  leafByKey_[key] = t.nodes.back().get();
  return t.nodes.back().get();
}

void TreeBuilder::collectNestedRoots(const Stmt *s) {
  for (const Stmt *child : s->children()) {
    if (!child)
      continue;
    if (const auto *ce = dyn_cast<Expr>(child); ce && isFusableCall(ce, ctx_)) {
      nested_.push_back(stripImplicit(ce));
      continue;
    }
    collectNestedRoots(child);
  }
}

} // namespace kiln::frontend
