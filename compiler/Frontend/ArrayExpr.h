//===- Frontend/ArrayExpr.h - Fusable array expressions -------*- C++ -*-===//
//
// Recognizes Kiln's array operations in the clang AST (elementwise
// operations here, reductions in ReductionCall.h) and builds, for each
// expression, a tree of operations over leaves: array operands, scalar
// operands and constants. Leaves are evaluated by ordinary C++; Partition.h
// decides which parts of a tree share a kernel.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ARRAYEXPR_H
#define KILN_FRONTEND_ARRAYEXPR_H

#include "Frontend/ElementType.h"

#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <complex>
#include <memory>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class CXXMethodDecl;
class ValueDecl;
class VarDecl;
} // namespace clang

namespace kiln::frontend {

struct ElementwiseCall;

/// Every elementwise operation of SPEC.md section 1.
enum class OpKind {
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  Neg,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  And,
  Or,
  Not,
  Exp,
  Log,
  Log2,
  Log10,
  Sqrt,
  Sin,
  Cos,
  Tan,
  Tanh,
  Abs,
  Sign,
  Floor,
  Ceil,
  Round,
  Pow,
  Maximum,
  Minimum,
  Where,
  Clip,
  IsNan,
  IsInf,
  Real,
  Imag,
  Conj,
  Arg,
  // Issue 27's ufuncs: unary
  ArcSin,
  ArcCos,
  ArcTan,
  Sinh,
  Cosh,
  ArcSinh,
  ArcCosh,
  ArcTanh,
  Exp2,
  Expm1,
  Log1p,
  Cbrt,
  Deg2Rad,
  Rad2Deg,
  Rint,
  Trunc,
  Square,
  Positive,
  IsFinite,
  SignBit,
  Invert,
  // binary
  ArcTan2,
  Hypot,
  CopySign,
  LogAddExp,
  LogAddExp2,
  FMax,
  FMin,
  BitAnd,
  BitOr,
  BitXor,
  LeftShift,
  RightShift,
  LogicalXor,
  // more ufuncs (issue 27)
  Reciprocal,
  Sinc,
  Spacing,
  BitwiseCount,
  FloorDivide,
  FMod,
  FloatPower,
  Heaviside,
  NextAfter,
  Angle,         ///< angle(x, deg)
  RoundDecimals, ///< round(x, decimals)
  Gcd,
  Lcm,
  Ldexp,    ///< ldexp(x, e): e an integer
  NanToNum, ///< nan_to_num(x, nan, posinf, neginf), defaults filled in
  IsClose,  ///< isclose(a, b, rtol, atol, equal_nan)
  Cast,     ///< astype<U>()
  Lambda, ///< kiln::elementwise(f, args...): a call of the element function of
          ///< f
};

const char *opName(OpKind k);

/// Every reduction of SPEC.md section 1 (and linalg::norm).
enum class ReduceKind { Sum, Prod, Mean, Max, Min, ArgMax, ArgMin, All, Any, Var, Std, CountNonzero, Norm,
                        Custom /* kiln::reduce: the combine lambda */ };

const char *reduceName(ReduceKind k);

/// The axes of a reduction as far as the frontend can tell: every axis, a
/// list of constants, or an expression known only at run time.
struct AxesSpec {
  enum class Kind { All, Constant, RunTime } kind = Kind::All;
  std::vector<long long> constants;   ///< Constant: the axes as written
  const clang::Expr *expr = nullptr;  ///< the argument (null: the default, every axis)
  const clang::Decl *variable = nullptr; ///< RunTime: the variable it names, if any
  /// The same axes at run time, as far as the frontend can prove.
  bool sameAs(const AxesSpec &o) const;
};

/// keepdims as far as the frontend can tell.
struct KeepdimsSpec {
  enum class Kind { Constant, RunTime } kind = Kind::Constant;
  bool value = false;                 ///< Constant
  const clang::Expr *expr = nullptr;  ///< the argument (null: the default, false)
  const clang::Decl *variable = nullptr;
  bool sameAs(const KeepdimsSpec &o) const;
};

/// The boundaries of SciPy's convolve2d (kiln::signal::boundary).
enum class StencilBoundary { Fill, Wrap, Symm };

struct Node {
  enum class Kind { Op, Reduce, Stencil, Input, Scalar, Constant } kind;
  ElementType type;            ///< element type of the value
  OpKind op = OpKind::Add;     ///< for Op
  std::vector<Node *> operands;
  const clang::Expr *expr = nullptr; ///< source of the node
  unsigned index = 0;                ///< Input / Scalar: operand position
  std::complex<double> constant;     ///< Constant: value (real part for reals)
  long long intConstant = 0;         ///< Constant: exact integer value
  /// Scalar leaves read from a member of their expression (var's ddof:
  /// `.value` of the kiln::ddof argument): appended to the expression's text.
  std::string leafSuffix;

  // Reduce: the operand is operands[0]; a reduction's scalar parameters
  // (var's ddof) are further operands.
  ReduceKind reduce = ReduceKind::Sum;
  AxesSpec axes;
  KeepdimsSpec keepdims;
  double normOrder = 2; ///< Norm: the vector norm's order (2 for Frobenius)
  // Custom (kiln::reduce): the combine lambda's call operator (A, A) -> A,
  // its element function, and the identity (a constant of type A, written
  // as `identityExpr`). The map and post lambdas are Lambda nodes around it.
  const clang::CXXMethodDecl *combineOperator = nullptr;
  const clang::Expr *combineFunctor = nullptr, *identityExpr = nullptr;
  std::string combineSymbol;
  double identityFloat = 0;
  long long identityInt = 0;
  std::string normOrderText = "::kiln::detail::norm_ord{}"; ///< Norm: `ord` as written, for the eager form

  // Lambda: the lambda's call operator for these operands, and the
  // variables it captures: the first `captures.size()` operands are their
  // values at the call, the rest the arguments. `lambdaSymbol` names the
  // element function the frontend emitted for it (RawKernelGen.h).
  const clang::CXXMethodDecl *callOperator = nullptr;
  const clang::Expr *functor = nullptr; ///< the lambda argument as written
  std::vector<const clang::ValueDecl *> captures;
  std::string lambdaSymbol;

  // Stencil (kiln::signal::convolve2d / correlate2d with mode::same): the
  // operands are the image, the filter and the fill value (converted to the
  // node's type, as SciPy converts fillvalue); the output has the image's
  // shape.
  bool correlate = false;
  StencilBoundary boundary = StencilBoundary::Fill;

  bool isArray() const {
    return kind == Kind::Op || kind == Kind::Reduce || kind == Kind::Stencil ||
           kind == Kind::Input;
  }
  bool isLeaf() const { return kind == Kind::Input || kind == Kind::Scalar || kind == Kind::Constant; }
};

/// The operation a call or operator expression performs, if it is one of
/// Kiln's elementwise operations on at least one array.
std::optional<OpKind> classifyCall(const clang::Expr *e, llvm::SmallVectorImpl<const clang::Expr *> &args);

/// A convolve2d/correlate2d call kilnc fuses: mode::same and the boundary
/// written as constants, a result that is not bool.
struct StencilCall {
  const clang::Expr *image = nullptr, *filter = nullptr;
  const clang::Expr *fill = nullptr; ///< null: the default, 0
  bool correlate = false;
  StencilBoundary boundary = StencilBoundary::Fill;
};
std::optional<StencilCall> classifyStencil(const clang::Expr *e,
                                           clang::ASTContext &ctx);

/// True if `e` is a Kiln elementwise operation or reduction kilnc can fuse.
bool isFusableCall(const clang::Expr *e, clang::ASTContext &ctx);

/// The array and scalar operands of a fusable call (for finding the roots of
/// a body: every operand of a fusable call is part of its tree).
void fusableOperands(const clang::Expr *e, clang::ASTContext &ctx, llvm::SmallVectorImpl<const clang::Expr *> &out);

/// Strips implicit nodes, parentheses, temporaries and copies of arrays.
const clang::Expr *stripImplicit(const clang::Expr *e);

/// One expression tree: every Kiln operation of one full-expression (with a
/// KILN_FUSE function's locals inlined), down to the leaves.
struct ExprTree {
  const clang::Expr *root = nullptr;
  /// An update in place (`x op= value`, kiln::elementwise_into(out, ...)):
  /// the destination, which the root's kernel writes (InPlaceUpdate.h). The
  /// root's value is already of its dtype.
  const clang::Expr *update = nullptr;
  /// The update is kiln::elementwise_into, whose C++ value is void.
  bool updateIsVoid = false;
  /// The update is `x.assign(value)` (fusedAssign): the value, which the
  /// kernel computes into x without reading it.
  const clang::Expr *assignedValue = nullptr;
  /// A masked update (`x[m] = ...`, InPlaceUpdate.h): the mask, the arrays
  /// read as `w[m]` (their shapes are checked at run time), and the
  /// statement's subscript as written.
  const clang::Expr *mask = nullptr;
  std::vector<const clang::Expr *> maskedBases;
  const clang::Expr *maskedSubscript = nullptr;
  Node *rootNode = nullptr;
  std::vector<std::unique_ptr<Node>> nodes;
};

/// One fused group: a part of a tree that becomes one kernel. Its leaves are
/// the tree's leaves below it and the roots of other groups it consumes.
struct FusedGroup {
  const clang::Expr *root = nullptr;
  Node *rootNode = nullptr;
  bool isReduction = false; ///< the reduction family (some Reduce inside)
  /// Array leaves, in kernel order: `inputs` are read over the iteration
  /// space of the operations (the full space of a reduction), `keptInputs`
  /// over the kept space of a reduction kernel (after its reductions).
  std::vector<const Node *> inputs, keptInputs;
  std::vector<const Node *> scalars; ///< scalar leaves, in kernel order
  std::vector<ElementType> inputTypes, keptInputTypes, scalarTypes;
  /// The kernel position of each array leaf in each space.
  llvm::DenseMap<const Node *, unsigned> inputIndex, keptInputIndex;
  llvm::DenseMap<const Node *, unsigned> scalarIndex;
  /// Nodes of other groups this one reads as leaves.
  llvm::DenseSet<const Node *> cuts;
  /// Reduction kernels: the nodes computed over the kept space, the
  /// reductions (in evaluation order) and their shared axes and keepdims.
  llvm::DenseSet<const Node *> keptSpace;
  std::vector<const Node *> reductions;
  AxesSpec axes;
  KeepdimsSpec keepdims;
  unsigned numOps = 0;
  /// The stencil family: the group's one convolution. `inputs` are then
  /// the arrays of the image's shape (read by its producer at each tap and by
  /// its consumers at each output); the filter is the stencil's operand 1,
  /// a leaf or a cut, read as `taps`.
  const Node *stencil = nullptr;
  const Node *taps = nullptr;
};

/// Builds trees. `locals` maps local arrays of a KILN_FUSE function to their
/// initializers: references to them are inlined into the consumer.
class TreeBuilder {
public:
  TreeBuilder(clang::ASTContext &ctx,
              const llvm::DenseMap<const clang::VarDecl *, const clang::Expr *> *locals)
      : ctx_(ctx), locals_(locals) {}

  /// The deepest tree kilnc fuses into one kernel (operations from the root
  /// to a leaf, inlined locals included).
  static constexpr unsigned MaxDepth = 256;

  /// Why build() returned null: a leaf is neither an array nor a scalar
  /// kilnc can pass to a kernel (or a local is defined in terms of itself),
  /// the tree is deeper than MaxDepth, or a construct kilnc reports with a
  /// message of its own (failureMessage(): a lambda it cannot compile, an
  /// update NumPy would refuse).
  enum class Failure { None, Operand, TooDeep, Diagnostic };

  /// Builds the tree rooted at `root` (a fusable call); null on a Failure.
  std::unique_ptr<ExprTree> build(const clang::Expr *root);
  Failure failure() const { return failure_; }
  /// Failure::Diagnostic: what is wrong, and where.
  const std::string &failureMessage() const { return failureMessage_; }
  clang::SourceLocation failureLocation() const { return failureAt_; }

  /// Expressions inside leaves that are themselves fusable roots (processed
  /// first, so that their rewritten text ends up in the leaf's text).
  const std::vector<const clang::Expr *> &nestedRoots() const { return nested_; }

private:
  Node *visit(const clang::Expr *e, ExprTree &t, unsigned depth);
  Node *makeLeaf(const clang::Expr *e, ExprTree &t);
  Node *makeReduce(const clang::Expr *e, ExprTree &t, unsigned depth);
  Node *makeStencil(const clang::Expr *e, ExprTree &t, unsigned depth);
  Node *constantNode(ExprTree &t, const clang::Expr *e, ElementType type, long long value);
  /// A float64 constant.
  Node *floatConstant(ExprTree &t, const clang::Expr *e, double value);
  /// The largest (or, !upper, the lowest) finite value of a float type (of
  /// its parts for complex), as a float64 constant; 0 for the others.
  Node *largestFinite(ExprTree &t, const clang::Expr *e, ElementType type,
                      bool upper);
  void collectNestedRoots(const clang::Stmt *s);

  clang::ASTContext &ctx_;
  const llvm::DenseMap<const clang::VarDecl *, const clang::Expr *> *locals_;
  llvm::DenseMap<const void *, Node *> leafByKey_;
  std::vector<const clang::Expr *> nested_;
  llvm::SmallPtrSet<const clang::VarDecl *, 8> expanding_; ///< locals being inlined
  Node *makeLambda(const clang::Expr *e, ExprTree &t, unsigned depth);
  Node *makeCustomReduce(const clang::Expr *e, ExprTree &t, unsigned depth);
  /// A Lambda node of type `type` for the analyzed `lambda`: its operands are
  /// the captured values, then `argExprs` (visited) and `argNode` (if any).
  /// Null after a Failure::Lambda (the analysis's error) or a failed operand.
  Node *lambdaOp(const clang::Expr *e, const ElementwiseCall &lambda, ElementType type,
                 llvm::ArrayRef<const clang::Expr *> argExprs, Node *argNode, ExprTree &t, unsigned depth);
  /// Records Failure::Diagnostic with `msg` at `at`; returns null.
  Node *fail(clang::SourceLocation at, const std::string &msg);
  /// The tree of an update in place: `x op value` or the lambda of
  /// elementwise_into, converted to the destination's dtype.
  Node *makeUpdate(const clang::Expr *e, ExprTree &t);
  /// The tree of a masked update `x[m] (op)= value`: where(m, value', x).
  Node *makeMaskedUpdate(const clang::Expr *e, ExprTree &t);
  /// While building a masked update's value: its mask variable (`w[m]` is
  /// then read as w).
  const clang::ValueDecl *maskVar_ = nullptr;
  /// `value` converted to `type` (a Cast node), or `value` if it has it.
  Node *castTo(Node *value, ElementType type, const clang::Expr *e, ExprTree &t);
  Failure failure_ = Failure::None;
  std::string failureMessage_;
  clang::SourceLocation failureAt_;
};

} // namespace kiln::frontend

#endif
