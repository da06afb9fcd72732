//===- ExpandCombine.cpp - kiln.combine to arith/complex ops --------------===//
//
// The `kiln-expand-combine` pass: replaces every kiln.combine by the ops of
// its sequential update, merge(acc, lift(values)) (Dialect/Kiln/IR/
// Combiner.h). After it a reduction linalg.generic is plain linalg, e.g. for
// MLIR's own lowerings; Kiln's variant generator instead reads the combiner
// kinds to build trees.
//
//===----------------------------------------------------------------------===//
#include "Dialect/Kiln/IR/Combiner.h"
#include "Dialect/Kiln/IR/KilnDialect.h"
#include "Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace kiln {
namespace {

struct ExpandCombinePass : PassWrapper<ExpandCombinePass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExpandCombinePass)
  StringRef getArgument() const final { return "kiln-expand-combine"; }
  StringRef getDescription() const final {
    return "Replace kiln.combine by the arith/complex ops of its sequential update";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, complex::ComplexDialect>();
  }
  void runOnOperation() override {
    SmallVector<CombineOp> combines;
    getOperation()->walk([&](CombineOp op) { combines.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (CombineOp op : combines) {
      rewriter.setInsertionPoint(op);
      SmallVector<Value> state =
          buildCombinerUpdate(rewriter, op.getLoc(), Combiner::of(op), op.getAccumulator(), op.getValues());
      rewriter.replaceOp(op, state);
    }
  }
};

} // namespace

std::unique_ptr<Pass> createExpandCombinePass() { return std::make_unique<ExpandCombinePass>(); }

} // namespace kiln
