//===- Frontend/ArrayExpr.h - Fusable array expressions -------*- C++ -*-===//
//
// Recognizes Kiln's elementwise operations in the clang AST and builds, for
// each fused group, a tree of operations over leaves: array operands, scalar
// operands and constants. Leaves are evaluated by ordinary C++; the tree
// becomes one kernel.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ARRAYEXPR_H
#define KILN_FRONTEND_ARRAYEXPR_H

#include "Frontend/ElementType.h"

#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"

#include <complex>
#include <memory>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class VarDecl;
} // namespace clang

namespace kiln::frontend {

/// Every elementwise operation of SPEC.md section 1.
enum class OpKind {
  Add, Sub, Mul, Div, Rem, Neg,
  Eq, Ne, Lt, Le, Gt, Ge,
  And, Or, Not,
  Exp, Log, Log2, Log10, Sqrt, Sin, Cos, Tan, Tanh, Abs, Sign, Floor, Ceil, Round,
  Pow, Maximum, Minimum, Where, Clip, IsNan, IsInf,
  Real, Imag, Conj, Arg,
  Cast, ///< astype<U>()
};

const char *opName(OpKind k);

/// The operation a call or operator expression performs, if it is one of
/// Kiln's elementwise operations on at least one array.
std::optional<OpKind> classifyCall(const clang::Expr *e, llvm::SmallVectorImpl<const clang::Expr *> &args);

/// Strips implicit nodes, parentheses, temporaries and copies of arrays.
const clang::Expr *stripImplicit(const clang::Expr *e);

struct Node {
  enum class Kind { Op, Input, Scalar, Constant } kind;
  ElementType type;            ///< element type of the value
  OpKind op = OpKind::Add;     ///< for Op
  std::vector<Node *> operands;
  const clang::Expr *expr = nullptr; ///< source of the node
  unsigned index = 0;                ///< Input / Scalar: operand position
  std::complex<double> constant;     ///< Constant: value (real part for reals)
  long long intConstant = 0;         ///< Constant: exact integer value
  bool isArray() const { return kind == Kind::Op || kind == Kind::Input; }
};

/// One fused group: a tree with its leaves, ready for MLIR and rewriting.
struct FusedGroup {
  const clang::Expr *root = nullptr;
  Node *rootNode = nullptr;
  std::vector<std::unique_ptr<Node>> nodes;
  std::vector<const clang::Expr *> inputs;  ///< array leaves, in kernel order
  std::vector<const clang::Expr *> scalars; ///< scalar leaves, in kernel order
  std::vector<ElementType> inputTypes, scalarTypes;
  unsigned numOps = 0;
};

/// Builds groups. `locals` maps local arrays of a KILN_FUSE function to their
/// initializers: references to them are inlined into the consumer.
class GroupBuilder {
public:
  GroupBuilder(clang::ASTContext &ctx,
               const llvm::DenseMap<const clang::VarDecl *, const clang::Expr *> *locals)
      : ctx_(ctx), locals_(locals) {}

  /// Builds the group rooted at `root` (an elementwise operation).
  std::unique_ptr<FusedGroup> build(const clang::Expr *root);

  /// Expressions inside leaves that are themselves fusable roots (processed
  /// first, so that their rewritten text ends up in the leaf's text).
  const std::vector<const clang::Expr *> &nestedRoots() const { return nested_; }

private:
  Node *visit(const clang::Expr *e, FusedGroup &g, unsigned depth);
  Node *makeLeaf(const clang::Expr *e, FusedGroup &g);
  void collectNestedRoots(const clang::Stmt *s);

  clang::ASTContext &ctx_;
  const llvm::DenseMap<const clang::VarDecl *, const clang::Expr *> *locals_;
  llvm::DenseMap<const void *, Node *> leafByKey_;
  std::vector<const clang::Expr *> nested_;
};

} // namespace kiln::frontend

#endif
