//===- Combiner.h - What each reduction combiner computes -------*- C++ -*-===//
//
// The semantics of kiln.combine kinds as builders of arith/complex ops: the
// state a kind keeps, its identity, lifting one element's values into a
// state, and merging two states. Everything that lowers reductions (the
// per-thread loops, warp trees, cross-block combines, the host loops and the
// kiln-expand-combine pass) builds from these, so every place agrees.
//
// Values may be scalars or vectors of them (host lanes), except complex
// values, which are scalars only.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/IR/Builders.h"

namespace kiln {

class CombineOp;

/// What a kiln.combine computes: its kind, and for `custom` the merge
/// function (a `func.func (T, T) -> T`) and the identity constant.
struct Combiner {
  CombinerKind kind;
  mlir::FlatSymbolRefAttr function; ///< custom
  mlir::TypedAttr identity;         ///< custom
  Combiner(CombinerKind k) : kind(k) {}
  Combiner(CombinerKind k, mlir::FlatSymbolRefAttr f, mlir::TypedAttr id) : kind(k), function(f), identity(id) {}
  /// The combiner of `op` (its kind and attributes).
  static Combiner of(CombineOp op);
  bool operator==(CombinerKind k) const { return kind == k; }
};

/// The state types of `kind` reducing values of `valueTypes`; failure when
/// the kind does not apply to these types.
mlir::FailureOr<llvm::SmallVector<mlir::Type>> combinerStateTypes(const Combiner &kind, mlir::TypeRange valueTypes);

/// The identity state: merge(identity, s) == s for every state s.
llvm::SmallVector<mlir::Value> buildCombinerIdentity(mlir::OpBuilder &b, mlir::Location loc, const Combiner &kind,
                                                     mlir::TypeRange stateTypes);

/// The state of a single element with `values`.
llvm::SmallVector<mlir::Value> buildCombinerLift(mlir::OpBuilder &b, mlir::Location loc, const Combiner &kind,
                                                 mlir::ValueRange values);

/// merge(a, b), where `a` holds the elements that come first (for the
/// order-sensitive tie rules of argmax/argmin, indices decide, so the
/// argument order matters only for rounding).
llvm::SmallVector<mlir::Value> buildCombinerMerge(mlir::OpBuilder &b, mlir::Location loc, const Combiner &kind,
                                                  mlir::ValueRange a, mlir::ValueRange bState);

/// merge(acc, lift(values)): what kiln.combine computes, for an element
/// folded after every element `acc` holds (a reduction folds in index
/// order; argmax/argmin use that to skip index compares).
llvm::SmallVector<mlir::Value> buildCombinerUpdate(mlir::OpBuilder &b, mlir::Location loc, const Combiner &kind,
                                                   mlir::ValueRange acc, mlir::ValueRange values);

/// Whether `kind` folds several elements at once more cheaply than one
/// update each (buildCombinerUpdateMany): welford and logsumexp.
bool combinerFoldsBatches(const Combiner &kind);

/// merge(acc, lift(x_0), ..., lift(x_k-1)): several elements' (single)
/// values folded at once, after every element `acc` holds. welford merges
/// their exact moments (mean and the sum of squared deviations: one
/// division, no chain of dependent updates); logsumexp joins their maximum
/// to the state's first, then adds exp(x - m) of each at the new maximum m
/// (one exp an element and one for the state, no selects: NumPy's NaN for
/// infinite and all -inf groups comes by itself); other kinds update once
/// an element.
llvm::SmallVector<mlir::Value> buildCombinerUpdateMany(mlir::OpBuilder &b, mlir::Location loc, const Combiner &kind,
                                                       mlir::ValueRange acc, llvm::ArrayRef<mlir::Value> xs);

} // namespace kiln
