//===- Frontend/KernelCall.cpp - The C++ that calls a kernel --------------===//
#include "Frontend/KernelCall.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace kiln::frontend {
namespace {

/// A typed literal with the exact value of a constant (hexadecimal floats).
std::string literal(const Node &n) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto real = [&](double v) {
    if (std::isnan(v))
      os << "__builtin_nan(\"\")";
    else if (std::isinf(v))
      os << (v < 0 ? "-" : "") << "__builtin_inf()";
    else
      os << llvm::format("%a", v);
  };
  switch (kindOf(n.type)) {
  case TypeKind::Bool:
    os << (n.intConstant != 0 || n.constant.real() != 0 ? "true" : "false");
    break;
  case TypeKind::Int:
    os << "static_cast<" << cxxSpelling(n.type) << ">(" << n.intConstant << "LL)";
    break;
  case TypeKind::Float:
    os << "static_cast<" << cxxSpelling(n.type) << ">(";
    real(n.constant.real());
    os << ")";
    break;
  case TypeKind::Complex:
    os << cxxSpelling(n.type) << "(";
    real(n.constant.real());
    os << ", ";
    real(n.constant.imag());
    os << ")";
    break;
  }
  return s;
}

const char *binaryOperator(OpKind k) {
  switch (k) {
  case OpKind::Add: return "+";
  case OpKind::Sub: return "-";
  case OpKind::Mul: return "*";
  case OpKind::Div: return "/";
  case OpKind::Rem: return "%";
  case OpKind::Eq: return "==";
  case OpKind::Ne: return "!=";
  case OpKind::Lt: return "<";
  case OpKind::Le: return "<=";
  case OpKind::Gt: return ">";
  case OpKind::Ge: return ">=";
  case OpKind::And: return "&&";
  case OpKind::BitAnd:
    return "&";
  case OpKind::BitOr:
    return "|";
  case OpKind::BitXor:
    return "^";
  case OpKind::LeftShift:
    return "<<";
  case OpKind::RightShift:
    return ">>";
  case OpKind::Or: return "||";
  default: return nullptr;
  }
}

/// Writes the eager form of a reduction group over its evaluated leaves.
class FallbackWriter {
public:
  FallbackWriter(const FusedGroup &g, const llvm::DenseMap<const Node *, std::string> &leafNames,
                 const TextOf &textOf)
      : g_(g), names_(leafNames), textOf_(textOf) {}

  std::string text(const Node &n) {
    if (auto it = names_.find(&n); it != names_.end() && (n.isLeaf() || g_.cuts.count(&n)))
      return it->second;
    if (n.kind == Node::Kind::Constant)
      return literal(n);
    auto arg = [&](unsigned i) { return text(*n.operands[i]); };
    if (n.kind == Node::Kind::Reduce) {
      // The group's axes; keepdims the node's own where it is a constant
      // (a group's reductions may differ in it: difftest seed 7021 #184).
      std::string x = arg(0), ax = "__kiln_ax",
                  kd = n.keepdims.kind == KeepdimsSpec::Kind::Constant
                           ? (n.keepdims.value ? "true" : "false")
                           : "__kiln_kd";
      switch (n.reduce) {
      case ReduceKind::Var:
      case ReduceKind::Std:
        return std::string("::kiln::") + reduceName(n.reduce) + "(" + x + ", " + ax + ", ::kiln::ddof(" + arg(1) +
               "), " + kd + ")";
      case ReduceKind::Norm:
        return "::kiln::linalg::norm(" + x + ", " + n.normOrderText + ", " + ax + ", " + kd + ")";
      case ReduceKind::Custom: // the fold alone: map and post are Lambda nodes around it
        return "::kiln::detail::reduce_fold(" + x + ", " + textOf_(n.combineFunctor) + ", static_cast<" +
               cxxSpelling(n.type) + ">(" + textOf_(n.identityExpr) + "), " + ax + ", " + kd + ")";
      default:
        return std::string("::kiln::") + reduceName(n.reduce) + "(" + x + ", " + ax + ", " + kd + ")";
      }
    }
    if (const char *op = binaryOperator(n.op))
      return "(" + arg(0) + " " + op + " " + arg(1) + ")";
    switch (n.op) {
    case OpKind::Neg:
      return "(-" + arg(0) + ")";
    case OpKind::Not:
      return "(!" + arg(0) + ")";
    case OpKind::Invert:
      return "(~" + arg(0) + ")";
    case OpKind::Cast:
      return "(" + arg(0) + ").template astype<" + cxxSpelling(n.type) + ">()";
    case OpKind::Lambda: {
      // The lambda as written (it reads its captures itself), on the
      // arguments after the captured values.
      std::string call = "::kiln::elementwise(" + textOf_(n.functor);
      for (size_t i = n.captures.size(); i < n.operands.size(); ++i)
        call += ", " + arg(i);
      return call + ")";
    }
    default:
      break;
    }
    std::string call = std::string("::kiln::") + opName(n.op) + "(";
    for (size_t i = 0; i < n.operands.size(); ++i)
      call += (i ? ", " : "") + arg(i);
    return call + ")";
  }

private:
  const FusedGroup &g_;
  const llvm::DenseMap<const Node *, std::string> &names_;
  const TextOf &textOf_;
};

/// True if the group holds a kiln::elementwise lambda (its eager form names
/// the lambda, which may capture the caller's locals).
bool hasLambda(const FusedGroup &g, const Node &n) {
  if (n.kind == Node::Kind::Op && n.op == OpKind::Lambda)
    return true;
  if (n.isLeaf() || (&n != g.rootNode && g.cuts.count(&n)))
    return false;
  for (const Node *o : n.operands)
    if (hasLambda(g, *o))
      return true;
  return false;
}

/// `{inputs...}, {scalars...}` of an elementwise kernel's call (with
/// `taps`, `{inputs...}, filter, {scalars...}` of a stencil kernel's).
std::string operandListsWith(const FusedGroup &g, const TextOf &textOf,
                             bool taps) {
  std::string s = "{";
  for (size_t i = 0; i < g.inputs.size(); ++i)
    s += (i ? ", " : "") + std::string("::kiln::detail::in(") + leafText(*g.inputs[i], textOf) + ")";
  s += taps ? "}, " + leafText(*g.taps, textOf) + ", {" : "}, {";
  for (size_t i = 0; i < g.scalars.size(); ++i)
    s += (i ? ", " : "") + std::string("::kiln::detail::scalar(") + leafText(*g.scalars[i], textOf) + ")";
  return s + "}";
}

std::string operandLists(const FusedGroup &g, const TextOf &textOf) {
  return operandListsWith(g, textOf, false);
}

std::string elementwiseCall(const FusedGroup &g, const std::string &outType, const std::string &kernelRef,
                            const TextOf &textOf) {
  return "::kiln::detail::call_fused<" + outType + ">(" + kernelRef + ", " + operandLists(g, textOf) + ")";
}

/// A stencil group: kiln::detail::call_stencil with the group's leaves,
/// each evaluated once (the runtime runs the kernel, or the group's unfused
/// form through the kernels of its producer and consumer).
std::string stencilCall(const FusedGroup &g, const std::string &outType,
                        const std::string &kernelRef, const TextOf &textOf) {
  return "::kiln::detail::call_stencil<" + outType + ">(" + kernelRef + ", " +
         operandListsWith(g, textOf, true) + ")";
}

std::string reductionCall(const FusedGroup &g, const std::string &outType, const std::string &kernelRef,
                          const TextOf &textOf) {
  // One lambda parameter per distinct leaf, in the order the kernel takes
  // them: full inputs, kept inputs, scalars.
  llvm::DenseMap<const Node *, std::string> names;
  std::vector<const Node *> params;
  auto name = [&](const Node *leaf, const char *prefix) {
    if (!names.count(leaf)) {
      names[leaf] = std::string(prefix) + std::to_string(params.size());
      params.push_back(leaf);
    }
    return names[leaf];
  };
  auto list = [&](const std::vector<const Node *> &leaves, const char *wrap, const char *prefix) {
    std::string s = "{";
    for (size_t i = 0; i < leaves.size(); ++i)
      s += (i ? ", " : "") + std::string(wrap) + "(" + name(leaves[i], prefix) + ")";
    return s + "}";
  };
  std::string full = list(g.inputs, "::kiln::detail::in", "__kiln_a");
  std::string kept = list(g.keptInputs, "::kiln::detail::in", "__kiln_a");
  std::string scalars = list(g.scalars, "::kiln::detail::scalar", "__kiln_s");
  std::string arrayType = "::kiln::array<" + outType + ">";

  std::string s = hasLambda(g, *g.rootNode) ? "[&](" : "[](";
  for (const Node *p : params)
    s += "const auto &" + names[p] + ", ";
  // One line: the rewritten source keeps the original's line numbers.
  s += "const ::kiln::axes &__kiln_ax, bool __kiln_kd) -> " + arrayType + " { ";
  s += "return ::kiln::detail::call_reduction<" + outType + ">(" + kernelRef + ", " + full + ", " + kept + ", " +
       scalars + ", __kiln_ax, __kiln_kd, ";
  s += "[&]() -> " + arrayType + " { return " + FallbackWriter(g, names, textOf).text(*g.rootNode) + "; }); ";
  s += "}(";
  for (const Node *p : params)
    s += leafText(*p, textOf) + ", ";
  std::string axes = g.axes.expr ? "::kiln::axes(" + textOf(g.axes.expr) + ")" : "::kiln::axes(::kiln::all)";
  std::string keepdims = g.keepdims.kind == KeepdimsSpec::Kind::Constant ? (g.keepdims.value ? "true" : "false")
                         : "static_cast<bool>(" + textOf(g.keepdims.expr) + ")";
  return s + axes + ", " + keepdims + ")";
}

} // namespace

std::string leafText(const Node &leaf, const TextOf &textOf) {
  std::string t = textOf(leaf.expr);
  if (!leaf.leafSuffix.empty())
    return "(" + t + ")" + leaf.leafSuffix;
  return t;
}

std::string kernelCallIntoText(const FusedGroup &g, const std::string &dst, const std::string &kernelRef,
                               const TextOf &textOf, bool assign) {
  return std::string("::kiln::detail::") + (assign ? "call_fused_assign(" : "call_fused_into(") + kernelRef + ", " +
         dst + ", " + operandLists(g, textOf) + ")";
}

std::string kernelCallText(const FusedGroup &g, const std::string &outType, const std::string &kernelRef,
                           const TextOf &textOf) {
  if (g.stencil)
    return stencilCall(g, outType, kernelRef, textOf);
  return g.isReduction ? reductionCall(g, outType, kernelRef, textOf) : elementwiseCall(g, outType, kernelRef, textOf);
}

} // namespace kiln::frontend
