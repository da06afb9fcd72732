//===- Transforms/FuseKernels.cpp - Fuse each kernel into one generic -----===//
//
// The `kiln-fuse-kernels` pass: MLIR's elementwise producer/consumer fusion
// (linalg::populateElementwiseOpsFusionPatterns), then, for elementwise
// kernels, a Kiln step that merges the independent rank-1 generics left over
// (several outputs) into one, so that each kiln.kernel function reads its
// inputs once and writes each output once. In a reduction kernel the same
// fusion folds every map into the reductions and the output map that read
// it; canonicalize and CSE clean up (and merge repeated reductions).
//
//===----------------------------------------------------------------------===//
#include "Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace kiln {
namespace {

/// True for the generics the frontend emits: rank 1, parallel, identity maps.
bool isRank1Elementwise(linalg::GenericOp op) {
  if (op.getNumLoops() != 1 || op.getNumParallelLoops() != 1 ||
      !op.hasPureTensorSemantics())
    return false;
  return llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); });
}

/// Merges `first` into `second` (both rank-1 elementwise, `first` before
/// `second` in the block, `second` not using `first`): one generic with the
/// inputs, outputs and bodies of both, placed at `second`.
void mergeSiblings(RewriterBase &rewriter, linalg::GenericOp first,
                   linalg::GenericOp second) {
  SmallVector<Value> ins(first.getDpsInputs());
  llvm::append_range(ins, second.getDpsInputs());
  SmallVector<Value> outs(first.getDpsInits());
  llvm::append_range(outs, second.getDpsInits());
  SmallVector<Type> resultTypes(first.getResultTypes());
  llvm::append_range(resultTypes, second.getResultTypes());
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<AffineMap> maps(ins.size() + outs.size(),
                              AffineMap::getMultiDimIdentityMap(1, ctx));
  SmallVector<utils::IteratorType> iterators{utils::IteratorType::parallel};

  rewriter.setInsertionPoint(second);
  auto merged = linalg::GenericOp::create(
      rewriter, second.getLoc(), resultTypes, ins, outs, maps, iterators);
  Block *block = rewriter.createBlock(&merged.getRegion());
  SmallVector<Location> locs(ins.size() + outs.size(), second.getLoc());
  SmallVector<Type> argTypes;
  for (Value v : llvm::concat<Value>(ins, outs))
    argTypes.push_back(cast<ShapedType>(v.getType()).getElementType());
  block->addArguments(argTypes, locs);

  IRMapping map;
  auto mapArgs = [&](linalg::GenericOp op, unsigned inBase, unsigned outBase) {
    Block &body = op.getRegion().front();
    for (unsigned i = 0; i < op.getNumDpsInputs(); ++i)
      map.map(body.getArgument(i), block->getArgument(inBase + i));
    for (unsigned i = 0; i < op.getNumDpsInits(); ++i)
      map.map(body.getArgument(op.getNumDpsInputs() + i),
              block->getArgument(outBase + i));
  };
  mapArgs(first, 0, ins.size());
  mapArgs(second, first.getNumDpsInputs(), ins.size() + first.getNumDpsInits());
  rewriter.setInsertionPointToStart(block);
  SmallVector<Value> yields;
  for (linalg::GenericOp op : {first, second}) {
    for (Operation &inner : op.getRegion().front().without_terminator())
      rewriter.clone(inner, map);
    for (Value v : op.getRegion().front().getTerminator()->getOperands())
      yields.push_back(map.lookupOrDefault(v));
  }
  linalg::YieldOp::create(rewriter, second.getLoc(), yields);

  unsigned n = first.getNumResults();
  rewriter.replaceOp(first, merged.getResults().take_front(n));
  rewriter.replaceOp(second, merged.getResults().drop_front(n));
}

/// Merges all independent rank-1 generics of `func` into one, pairwise.
void mergeIndependentGenerics(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  while (true) {
    SmallVector<linalg::GenericOp> generics;
    func.walk([&](linalg::GenericOp op) { generics.push_back(op); });
    if (generics.size() < 2)
      return;
    bool merged = false;
    for (size_t i = 0; i + 1 < generics.size() && !merged; ++i) {
      linalg::GenericOp a = generics[i], b = generics[i + 1];
      if (a->getBlock() != b->getBlock() || !isRank1Elementwise(a) ||
          !isRank1Elementwise(b))
        continue;
      bool dependent = llvm::any_of(b->getOperands(), [&](Value v) {
        return v.getDefiningOp() == a.getOperation();
      });
      // b's operands must dominate a's position too? No: the merged op sits at
      // b, and a's operands dominate b because a precedes b.
      if (dependent)
        continue;
      mergeSiblings(rewriter, a, b);
      merged = true;
    }
    if (!merged)
      return;
  }
}

struct FuseKernelsPass : PassWrapper<FuseKernelsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseKernelsPass)
  StringRef getArgument() const final { return "kiln-fuse-kernels"; }
  StringRef getDescription() const final {
    return "Fuse each kiln.kernel function into one elementwise linalg.generic";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect, tensor::TensorDialect>();
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Fuse every producer into its consumers: a kernel is one pass over
    // memory, recomputing a cheap producer beats a temporary array.
    linalg::ControlFusionFn always = [](OpOperand *) { return true; };
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, always);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::EmptyOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::DimOp::getCanonicalizationPatterns(patterns, ctx);
    FrozenRewritePatternSet frozen(std::move(patterns));

    OpPassManager cleanup(func::FuncOp::getOperationName());
    cleanup.addPass(createCanonicalizerPass());
    cleanup.addPass(createCSEPass());

    for (auto func : getOperation().getOps<func::FuncOp>()) {
      bool reduction = func->hasAttr(kReductionKernelAttr);
      if ((!func->hasAttr(kKernelAttr) && !reduction) || func.isExternal())
        continue;
      unsigned before = 0;
      func.walk([&](linalg::GenericOp) { ++before; });
      if (!func->hasAttr(kOpsBeforeFusionAttr))
        func->setAttr(kOpsBeforeFusionAttr,
                      IntegerAttr::get(IntegerType::get(ctx, 32), before));
      if (failed(applyPatternsGreedily(func, frozen)))
        return signalPassFailure();
      // Reduction kernels keep their stages and maps apart (the variant
      // generator schedules them); elementwise ones become one generic.
      if (!reduction)
        mergeIndependentGenerics(func);
      if (failed(runPipeline(cleanup, func)))
        return signalPassFailure();
      // Merging can expose duplicate inputs and producers: fuse again.
      if (failed(applyPatternsGreedily(func, frozen)) ||
          failed(runPipeline(cleanup, func)))
        return signalPassFailure();
    }
  }
};

} // namespace

std::unique_ptr<Pass> createFuseKernelsPass() {
  return std::make_unique<FuseKernelsPass>();
}

} // namespace kiln
