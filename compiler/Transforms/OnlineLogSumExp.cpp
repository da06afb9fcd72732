//===- Transforms/OnlineLogSumExp.cpp - max and sum(exp(x - max)) at once -===//
//
// The `kiln-online-logsumexp` pass. Softmax, log-softmax and logsumexp
// reduce twice: m = max(v), then s = sum(exp(v - m)), which reads m, so the
// sum is a level later and a variant passes over the data once for each
// (twice through memory where a kept element's data does not stay in
// cache: a whole-array logsumexp, a column's, a long row's). In a fused
// reduction kernel this pass replaces such a pair by one stage of the
// online `logsumexp` combiner (KilnOps.td), whose state (m, s) gives both
// results in one pass: the running maximum, and the sum rescaled whenever
// the maximum grows (Milakov and Gimelshein, "Online normalizer calculation
// for softmax", 2018).
//
// The pair: a `max` stage of a float value v, and a `sum` stage whose value
// is exactly `exp(v' - m)`, where m is the max stage's result and v' is the
// same computation as v (same operations on the same inputs read through the
// same maps: fusion clones v into both bodies). The new stage sits where the
// max stage was; its results replace both stages' results, so the output
// map and any other stage read them as before.
//
//===----------------------------------------------------------------------===//
#include "Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace kiln {
namespace {

/// The kiln.combine of a reduction generic with one result, or null.
CombineOp combineOf(linalg::GenericOp op) {
  if (op.getNumReductionLoops() == 0 || op.getNumResults() != 1)
    return nullptr;
  auto yield = cast<linalg::YieldOp>(op.getRegion().front().getTerminator());
  auto combine = yield.getValues().front().getDefiningOp<CombineOp>();
  if (!combine || combine->getBlock() != &op.getRegion().front() || combine.getAccumulator().size() != 1 ||
      combine.getAccumulator().front() != op.getRegionOutputArgs().front())
    return nullptr;
  return combine;
}

/// Whether `a` (in `ga`'s body) and `b` (in `gb`'s body) compute the same
/// value at every point of the iteration space that the two generics share.
class SameValue {
public:
  SameValue(linalg::GenericOp ga, linalg::GenericOp gb) : ga_(ga), gb_(gb) {}

  bool operator()(Value a, Value b) {
    if (auto it = known_.find({a, b}); it != known_.end())
      return it->second;
    bool same = compute(a, b);
    known_[{a, b}] = same;
    return same;
  }

private:
  Block &bodyA() { return ga_.getRegion().front(); }
  Block &bodyB() { return gb_.getRegion().front(); }

  bool compute(Value a, Value b) {
    if (a.getType() != b.getType())
      return false;
    auto argA = dyn_cast<BlockArgument>(a), argB = dyn_cast<BlockArgument>(b);
    bool insideA = argA ? argA.getOwner() == &bodyA() : a.getDefiningOp()->getBlock() == &bodyA();
    bool insideB = argB ? argB.getOwner() == &bodyB() : b.getDefiningOp()->getBlock() == &bodyB();
    if (!insideA || !insideB) // captured from above (scalars, constants): the same value
      return !insideA && !insideB && a == b;
    if (argA || argB) {
      // Inputs read at the same point: the same tensor through the same map.
      if (!argA || !argB)
        return false;
      unsigned i = argA.getArgNumber(), j = argB.getArgNumber();
      if (i >= ga_.getNumDpsInputs() || j >= gb_.getNumDpsInputs())
        return false; // an accumulator
      return ga_.getDpsInputs()[i] == gb_.getDpsInputs()[j] &&
             ga_.getIndexingMapsArray()[i] == gb_.getIndexingMapsArray()[j];
    }
    Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
    if (x->getName() != y->getName() || x->getAttrDictionary() != y->getAttrDictionary() ||
        x->getNumOperands() != y->getNumOperands() || x->getNumRegions() != 0 || y->getNumRegions() != 0 ||
        cast<OpResult>(a).getResultNumber() != cast<OpResult>(b).getResultNumber() || !isPure(x))
      return false;
    for (auto [u, v] : llvm::zip(x->getOperands(), y->getOperands()))
      if (!(*this)(u, v))
        return false;
    return true;
  }

  linalg::GenericOp ga_, gb_;
  llvm::DenseMap<std::pair<Value, Value>, bool> known_;
};

/// If `sum` is the sum of exp(v - m) of `max`'s result m and its value v,
/// true.
bool pairs(linalg::GenericOp max, CombineOp maxCombine, linalg::GenericOp sum, CombineOp sumCombine) {
  if (max.getIteratorTypesArray() != sum.getIteratorTypesArray() ||
      max.getIndexingMapsArray().back() != sum.getIndexingMapsArray().back() ||
      max.getResult(0).getType() != sum.getResult(0).getType() ||
      !max.getDpsInits().front().getDefiningOp<linalg::FillOp>())
    return false;
  auto exp = sumCombine.getValues().front().getDefiningOp<math::ExpOp>();
  if (!exp || exp->getBlock() != &sum.getRegion().front())
    return false;
  auto sub = exp.getOperand().getDefiningOp<arith::SubFOp>();
  if (!sub || sub->getBlock() != &sum.getRegion().front())
    return false;
  // m: an input of `sum` that is max's result, read at the kept point.
  auto mArg = dyn_cast<BlockArgument>(sub.getRhs());
  if (!mArg || mArg.getOwner() != &sum.getRegion().front() || mArg.getArgNumber() >= sum.getNumDpsInputs() ||
      sum.getDpsInputs()[mArg.getArgNumber()] != max.getResult(0) ||
      sum.getIndexingMapsArray()[mArg.getArgNumber()] != max.getIndexingMapsArray().back())
    return false;
  // (Fast-math flags would let exp(v - m) be rewritten; the pair has none.)
  if (sub.getFastmath() != arith::FastMathFlags::none || exp.getFastmath() != arith::FastMathFlags::none)
    return false;
  return SameValue(max, sum)(maxCombine.getValues().front(), sub.getLhs());
}

/// Replaces `max` and `sum` by one logsumexp stage at `max`.
void fuse(RewriterBase &rewriter, linalg::GenericOp max, CombineOp maxCombine, linalg::GenericOp sum,
          CombineOp sumCombine) {
  // The sum's accumulator starts at 0 (its identity), in a tensor like the
  // max's (a linalg.fill of -inf; `pairs` checked).
  auto maxInit = max.getDpsInits().front().getDefiningOp<linalg::FillOp>();
  rewriter.setInsertionPoint(max);
  Type f = sumCombine.getValues().front().getType();
  Value zero = arith::ConstantOp::create(rewriter, sum.getLoc(), f, rewriter.getFloatAttr(f, 0.0));
  Value sumInit = linalg::FillOp::create(rewriter, sum.getLoc(), zero, maxInit.getOutputs().front()).getResult(0);
  SmallVector<Value> outs{max.getDpsInits().front(), sumInit};
  SmallVector<AffineMap> maps(max.getIndexingMapsArray());
  maps.push_back(sum.getIndexingMapsArray().back());
  SmallVector<Type> resultTypes{max.getResult(0).getType(), sum.getResult(0).getType()};
  auto fused = linalg::GenericOp::create(rewriter, max.getLoc(), resultTypes, max.getDpsInputs(), outs, maps,
                                         max.getIteratorTypesArray());
  Block &from = max.getRegion().front();
  Block *to = rewriter.createBlock(&fused.getRegion());
  for (BlockArgument arg : from.getArguments())
    to->addArgument(arg.getType(), arg.getLoc());
  to->addArgument(sum.getRegionOutputArgs().front().getType(), sum.getLoc());
  IRMapping map;
  for (auto [a, b] : llvm::zip(from.getArguments(), to->getArguments()))
    map.map(a, b);
  rewriter.setInsertionPointToStart(to);
  for (Operation &op : from.without_terminator())
    if (&op != maxCombine.getOperation())
      rewriter.clone(op, map);
  Value value = map.lookup(maxCombine.getValues().front());
  auto combine = CombineOp::create(rewriter, maxCombine.getLoc(), CombinerKind::LogSumExp,
                                   ValueRange{to->getArgument(from.getNumArguments() - 1), to->getArguments().back()},
                                   ValueRange{value}, FlatSymbolRefAttr(), TypedAttr());
  // The shape inputs of both reductions (each NumPy operand's broadcast).
  std::int64_t shape = 0;
  for (CombineOp c : {maxCombine, sumCombine})
    if (auto attr = c->getAttrOfType<IntegerAttr>(kShapeInputsAttr))
      shape |= attr.getInt();
  if (maxCombine->hasAttr(kShapeInputsAttr) || sumCombine->hasAttr(kShapeInputsAttr))
    combine->setAttr(kShapeInputsAttr, rewriter.getI64IntegerAttr(shape));
  linalg::YieldOp::create(rewriter, max.getLoc(), combine.getResults());
  Operation *oldInit = sum.getDpsInits().front().getDefiningOp();
  rewriter.replaceOp(sum, fused.getResult(1));
  rewriter.replaceOp(max, fused.getResult(0));
  if (oldInit && oldInit->use_empty())
    rewriter.eraseOp(oldInit);
}

struct OnlineLogSumExpPass : PassWrapper<OnlineLogSumExpPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(OnlineLogSumExpPass)
  StringRef getArgument() const final { return "kiln-online-logsumexp"; }
  StringRef getDescription() const final {
    return "Fuse max(v) and sum(exp(v - max)) of a reduction kernel into one online logsumexp stage";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<KilnDialect, linalg::LinalgDialect, math::MathDialect, arith::ArithDialect>();
  }

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr(kReductionKernelAttr) || func.isExternal())
        continue;
      // The float sums first: fusing erases a sum and the max it reads, and
      // a second sum of the same max then reads the fused stage (two
      // results: not a max any more).
      SmallVector<linalg::GenericOp> sums;
      func.walk([&](linalg::GenericOp op) {
        CombineOp c = combineOf(op);
        if (c && c.getKind() == CombinerKind::Sum && isa<FloatType>(c.getValues().front().getType()))
          sums.push_back(op);
      });
      for (linalg::GenericOp sum : sums) {
        CombineOp sumCombine = combineOf(sum);
        for (Value in : sum.getDpsInputs()) {
          auto max = in.getDefiningOp<linalg::GenericOp>();
          CombineOp maxCombine = max ? combineOf(max) : nullptr;
          if (maxCombine && maxCombine.getKind() == CombinerKind::Max && pairs(max, maxCombine, sum, sumCombine)) {
            fuse(rewriter, max, maxCombine, sum, sumCombine);
            break;
          }
        }
      }
    }
  }
};

} // namespace

std::unique_ptr<Pass> createOnlineLogSumExpPass() { return std::make_unique<OnlineLogSumExpPass>(); }

} // namespace kiln
