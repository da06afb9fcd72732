//===- Analysis/ReductionProgram.h - A fused reduction kernel ---*- C++ -*-===//
//
// Reads a fused kiln.reduction_kernel function as the program its variants
// run: the stages (reduction linalg.generics, each with its kiln.combine),
// the level of each stage (the pass over the data it needs: softmax's sum
// reads its max, so it is one level later), the inputs each stage reads, and
// the value the function returns. ProgramEvaluator then builds, anywhere a
// variant needs it, the value of any tensor of the kernel at one point of
// the (kept, reduced) iteration space, and the values a stage folds there.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace kiln {

/// One reduction of the kernel.
struct ReductionStage {
  mlir::linalg::GenericOp op;
  CombineOp combine;
  unsigned level = 0;                     ///< the pass it runs in
  llvm::SmallVector<mlir::Type> stateTypes; ///< one per state component
  std::uint64_t fullInputs = 0;           ///< bit i: reads full input i
  /// Bit i: NumPy's operand of this reduction is computed from full input i
  /// (kiln.shape_inputs as the frontend wrote it, with fullInputs): its
  /// broadcast gives the operand's rank even where fusion folded reads away.
  std::uint64_t shapeInputs = 0;
};

struct ReductionProgram {
  mlir::func::FuncOp func;
  /// Element types as stored (bool as i8) of the full inputs, kept inputs
  /// and scalars, in argument order (full, kept, scalars).
  llvm::SmallVector<mlir::Type> fullTypes, keptTypes, scalarTypes;
  mlir::Type outputType; ///< stored element type of the result
  bool keptOutput = false;
  mlir::Value result;
  llvm::SmallVector<ReductionStage> stages; ///< in the function's order
  unsigned numLevels = 0;
  std::uint64_t mapInputs = 0; ///< full inputs the result reads outside stages
  /// Full inputs the output map's operands are computed from in the source
  /// (kiln.map_shape_inputs as the frontend wrote it, with mapInputs): they
  /// shape NumPy's result even where reads of them folded away.
  std::uint64_t mapShapeInputs = 0;

  unsigned numFull() const { return fullTypes.size(); }
  unsigned numKept() const { return keptTypes.size(); }
  mlir::BlockArgument fullArg(unsigned i) const { return mlir::func::FuncOp(func).getArgument(i); }
  mlir::BlockArgument keptArg(unsigned i) const { return mlir::func::FuncOp(func).getArgument(numFull() + i); }
  /// The stage `v` is a result of (and which component), or -1.
  int stageOf(mlir::Value v, unsigned *component = nullptr) const;
  /// The stages of one level, in order.
  llvm::SmallVector<unsigned> stagesAt(unsigned level) const;
  /// Elements per vector access of the full operands: 16 bytes over the
  /// widest, at most 4 (1 with a complex operand).
  unsigned vectorWidth() const;
};

/// Analyses `func`, a fused kiln.reduction_kernel function. Emits an error
/// on the function and fails when it is not in that form.
mlir::FailureOr<ReductionProgram> analyzeReductionProgram(mlir::func::FuncOp func);

/// Where a variant stands: the values of one point of the iteration space.
struct PointEnv {
  /// Kept-space tensors (kept inputs, stage results) -> their element here.
  llvm::DenseMap<mlir::Value, mlir::Value> kept;
  /// Full inputs -> their element here (as stored).
  llvm::DenseMap<mlir::Value, mlir::Value> full;
  mlir::Value keptIndex;    ///< linear kept index (index type)
  mlir::Value reducedIndex; ///< linear reduced index (index type)
};

/// Builds values of the kernel at a point (see PointEnv) by cloning the
/// bodies of the generics that compute them.
class ProgramEvaluator {
public:
  /// `scalars` are the variant's scalar parameters (as stored), `keptExtent`
  /// and `reducedExtent` the iteration space's extents (index type).
  ProgramEvaluator(const ReductionProgram &program, mlir::ValueRange scalars, mlir::Value keptExtent,
                   mlir::Value reducedExtent)
      : p_(program), scalars_(scalars), keptExtent_(keptExtent), reducedExtent_(reducedExtent) {}

  /// The element of `tensor` (stored type) at the point of `env`.
  mlir::Value valueAt(mlir::OpBuilder &b, mlir::Value tensor, const PointEnv &env);

  /// The values stage `s` folds at the point of `env` (the `values` of its
  /// kiln.combine).
  llvm::SmallVector<mlir::Value> stageValues(mlir::OpBuilder &b, const ReductionStage &s, const PointEnv &env);

  /// True if `tensor` (or what it is computed from) reads the full space.
  bool readsFull(mlir::Value tensor) const;

  /// Whether stage `s`'s values can be computed for several consecutive
  /// reduced indices at once, on vectors: every operation they need is
  /// elementwise over integers and floats (no calls of element functions,
  /// no complex values).
  bool vectorizable(const ReductionStage &s) const;

  /// The values stage `s` folds at `lanes` consecutive reduced indices
  /// starting at env.reducedIndex, as vector<lanes x T>: env.full maps each
  /// full input the stage reads to a vector of its elements there; kept
  /// values and scalars are the same for every lane. (The host's rows: one
  /// vector evaluation, which LLVM keeps in SIMD registers, instead of a
  /// scalar chain per lane that the SLP vectorizer only partly regroups.)
  llvm::SmallVector<mlir::Value> stageValuesVector(mlir::OpBuilder &b, const ReductionStage &s, const PointEnv &env,
                                                   int64_t lanes);

private:
  bool vectorizableTensor(mlir::Value tensor) const;
  bool vectorizableBody(mlir::linalg::GenericOp generic, mlir::Operation *stopAt) const;
  mlir::Value valueAtVector(mlir::OpBuilder &b, mlir::Value tensor, const PointEnv &env, int64_t lanes);
  void cloneBodyVector(mlir::OpBuilder &b, mlir::linalg::GenericOp generic, const PointEnv &env, mlir::IRMapping &map,
                       mlir::Operation *stopAt, int64_t lanes);

  /// Maps the values `generic`'s body uses from above: scalar parameters,
  /// the kept and reduced extents (tensor.dim), other definitions cloned.
  void mapCaptured(mlir::OpBuilder &b, mlir::linalg::GenericOp generic, mlir::IRMapping &map);
  /// Clones `generic`'s body at the point; returns the mapping (for the
  /// terminator's or the combine's operands).
  void cloneBody(mlir::OpBuilder &b, mlir::linalg::GenericOp generic, const PointEnv &env, mlir::IRMapping &map,
                 mlir::Operation *stopAt);

  const ReductionProgram &p_;
  mlir::ValueRange scalars_;
  mlir::Value keptExtent_, reducedExtent_;
};

} // namespace kiln
