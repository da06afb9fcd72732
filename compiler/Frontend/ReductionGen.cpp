//===- Frontend/ReductionGen.cpp - Reduction groups to MLIR ---------------===//
//
// A group with reductions becomes a `kiln.reduction_kernel` func.func over
// the canonical iteration space (kept k, reduced r) that the runtime maps
// every call onto (docs/compiler-pipeline.md, "Reduction kernels"):
//
// * arguments: the full-space inputs as tensor<?x?xT> (read at (k, r)), the
//   kept-space inputs as tensor<?xT> (read at k), then the scalars;
// * an elementwise operation of the full space is a 2-D parallel
//   linalg.generic; one of the kept space a 1-D parallel generic; a kept
//   value read in the full space (a keepdims result broadcast back) uses the
//   indexing map (k, r) -> (k);
// * a reduction is a 2-D linalg.generic with a reduction iterator whose
//   region maps the element (a cast, |x|^2, the index for argmax) and folds
//   it with kiln.combine, followed by a 1-D generic that finishes it (mean's
//   division by the count, var's m2 / (count - ddof), argmax's index);
// * the result: tensor<?x?xR> (full space) or tensor<?xR> (kept space).
//
// MLIR's elementwise fusion then folds the producers into the reductions and
// the finishing maps into their consumers (--emit=fused-mlir).
//
//===----------------------------------------------------------------------===//
#include "Dialect/Kiln/IR/Combiner.h"
#include "Dialect/Kiln/IR/KilnDialect.h"
#include "Analysis/ReductionProgram.h"
#include "Frontend/KernelGen.h"
#include "Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"

#include "clang/Basic/SourceManager.h"

#include <cmath>
#include <map>

using namespace mlir;

namespace kiln::frontend {
namespace {

/// Maps one element of a reduction's operand to the values kiln.combine
/// folds. `x` is the element (bool as i1); `index` gives the reduced index.
using ElementMap = std::function<SmallVector<Value>(ScalarBuilder &, Value x, const std::function<Value()> &index)>;

class ReductionEmitter {
public:
  ReductionEmitter(ModuleOp module, const FusedGroup &g, const clang::SourceManager &sm, const NodeErrorFn &onError)
      : module_(module), g_(g), sm_(sm), onError_(onError), b_(module.getContext()) {}

  bool emit(StringRef name) {
    MLIRContext *ctx = module_.getContext();
    auto dyn = ShapedType::kDynamic;
    SmallVector<Type> args;
    for (ElementType t : g_.inputTypes)
      args.push_back(RankedTensorType::get({dyn, dyn}, storageType(*ctx, t)));
    for (ElementType t : g_.keptInputTypes)
      args.push_back(RankedTensorType::get({dyn}, storageType(*ctx, t)));
    for (ElementType t : g_.scalarTypes)
      args.push_back(storageType(*ctx, t));
    bool keptResult = isKept(g_.rootNode);
    Type resultElem = storageType(*ctx, g_.rootNode->type);
    Type result = keptResult ? RankedTensorType::get({dyn}, resultElem) : RankedTensorType::get({dyn, dyn}, resultElem);
    Location loc = locOf(g_.root);
    b_.setInsertionPointToEnd(module_.getBody());
    auto fn = func::FuncOp::create(b_, loc, name, b_.getFunctionType(args, {result}));
    fn->setAttr(kReductionKernelAttr, b_.getUnitAttr());
    if (!keptResult)
      fn->setAttr(kMapShapeInputsAttr, b_.getI64IntegerAttr(static_cast<std::int64_t>(mapLeaves(g_.rootNode))));
    entry_ = fn.addEntryBlock();
    b_.setInsertionPointToStart(entry_);
    Value c0 = arith::ConstantIndexOp::create(b_, loc, 0), c1 = arith::ConstantIndexOp::create(b_, loc, 1);
    keptSize_ = tensor::DimOp::create(b_, loc, entry_->getArgument(0), c0);
    reducedSize_ = tensor::DimOp::create(b_, loc, entry_->getArgument(0), c1);
    Value r = tensorOf(*g_.rootNode, keptResult);
    if (!r) {
      fn.erase();
      return false;
    }
    func::ReturnOp::create(b_, loc, r);
    return true;
  }

private:
  Location locOf(const clang::Expr *e) {
    clang::PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(e->getBeginLoc()));
    if (p.isInvalid())
      return b_.getUnknownLoc();
    return FileLineColLoc::get(b_.getContext(), p.getFilename(), p.getLine(), p.getColumn());
  }

  bool isLeaf(const Node *n) const { return n->kind == Node::Kind::Input || g_.cuts.count(n); }
  std::uint64_t operandLeaves_ = 0; ///< mapLeaves of the reduction being emitted

  /// The full inputs (bits) that shape NumPy's value of `n`, whatever the
  /// element math folds: its leaves, and through a reduction with keepdims
  /// (whose result keeps its operand's rank) that operand's.
  std::uint64_t mapLeaves(const Node *n) const {
    if (isLeaf(n) && n != g_.rootNode) {
      auto it = g_.inputIndex.find(n);
      return it == g_.inputIndex.end() ? 0 : std::uint64_t(1) << it->second;
    }
    if (n->kind == Node::Kind::Reduce)
      return n->keepdims.kind == KeepdimsSpec::Kind::Constant && n->keepdims.value ? mapLeaves(n->operands[0]) : 0;
    std::uint64_t mask = 0;
    for (const Node *c : n->operands)
      mask |= mapLeaves(c);
    return mask;
  }
  bool isKept(const Node *n) const { return g_.keptSpace.count(n); }

  /// The tensor holding array node `n`: leaves in the space asked for,
  /// operations in their own space.
  Value tensorOf(const Node &n, bool keptSpace) {
    if (isLeaf(&n)) {
      if (keptSpace)
        return entry_->getArgument(g_.inputs.size() + g_.keptInputIndex.lookup(&n));
      return entry_->getArgument(g_.inputIndex.lookup(&n));
    }
    // A KILN_FUSE local used twice is two subtrees of one source
    // expression: computed once.
    auto key = std::make_pair(static_cast<const void *>(n.expr), isKept(&n));
    if (auto it = tensors_.find(key); it != tensors_.end())
      return it->second;
    Value v = n.kind == Node::Kind::Reduce ? emitReduce(n) : emitMap(n);
    if (v)
      tensors_[key] = v;
    return v;
  }

  /// A scalar or constant operand's value inside a region.
  Value scalarValue(ScalarBuilder &sb, const Node &op) {
    if (op.kind == Node::Kind::Constant)
      return sb.constant(op.type, op.constant, op.intConstant);
    Value v = entry_->getArgument(g_.inputs.size() + g_.keptInputs.size() + g_.scalarIndex.lookup(&op));
    if (op.type == ElementType::Bool) // bool scalars pass as a byte
      v = arith::TruncIOp::create(sb.builder(), sb.loc(), sb.builder().getI1Type(), v);
    return v;
  }

  Value emptyTensor(Location loc, bool kept, Type element) {
    SmallVector<OpFoldResult> sizes{OpFoldResult(keptSize_)};
    if (!kept)
      sizes.push_back(OpFoldResult(reducedSize_));
    return tensor::EmptyOp::create(b_, loc, sizes, element);
  }

  /// An elementwise operation: a parallel generic over its space.
  Value emitMap(const Node &n) {
    MLIRContext *ctx = module_.getContext();
    Location loc = locOf(n.expr);
    bool kept = isKept(&n);
    SmallVector<Value> ins;
    SmallVector<AffineMap> maps;
    SmallVector<int> argOf(n.operands.size(), -1);
    unsigned rank = kept ? 1 : 2;
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap keptOfFull = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
    for (auto [i, op] : llvm::enumerate(n.operands)) {
      if (!op->isArray())
        continue;
      bool operandKept = isLeaf(op) ? kept : isKept(op);
      Value t = tensorOf(*op, operandKept);
      if (!t)
        return {};
      argOf[i] = ins.size();
      ins.push_back(t);
      maps.push_back(kept || !operandKept ? identity : keptOfFull);
    }
    maps.push_back(identity);
    Value init = emptyTensor(loc, kept, storageType(*ctx, n.type));
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    bool ok = true;
    auto gen = linalg::GenericOp::create(
        b_, loc, TypeRange{init.getType()}, ins, ValueRange{init}, maps, iters,
        [&](OpBuilder &rb, Location rl, ValueRange blockArgs) {
          ScalarBuilder sb(rb, rl);
          SmallVector<Value> vals;
          for (auto [i, op] : llvm::enumerate(n.operands)) {
            Value v = argOf[i] >= 0 ? blockArgs[argOf[i]] : scalarValue(sb, *op);
            if (argOf[i] >= 0 && op->type == ElementType::Bool)
              v = arith::TruncIOp::create(rb, rl, rb.getI1Type(), v); // bool arrays hold bytes
            vals.push_back(v);
          }
          Value r = emitElementwise(sb, n, vals, onError_);
          if (!r) {
            ok = false;
            r = sb.zero(n.type);
          }
          linalg::YieldOp::create(rb, rl, toStorage(rb, rl, r, n.type));
        });
    if (!ok) {
      gen.erase();
      return {};
    }
    return gen.getResult(0);
  }

  /// The full inputs (bit i: argument i) that `v` is computed from through
  /// elementwise generics, not through other reductions.
  std::uint64_t fullInputsOf(Value v) const {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getOwner() == entry_ && arg.getArgNumber() < g_.inputTypes.size()
                 ? std::uint64_t(1) << arg.getArgNumber()
                 : 0;
    auto generic = v.getDefiningOp<linalg::GenericOp>();
    if (!generic || generic.getNumReductionLoops() > 0)
      return 0;
    std::uint64_t mask = 0;
    for (Value in : generic.getDpsInputs())
      mask |= fullInputsOf(in);
    return mask;
  }

  static Value toStorage(OpBuilder &b, Location loc, Value v, ElementType t) {
    if (t == ElementType::Bool)
      return arith::ExtUIOp::create(b, loc, b.getI8Type(), v);
    return v;
  }

  /// A reduction generic over `src` (the operand, tensor<?x?xS>): maps each
  /// element with `map` to values of `valueTypes` and folds them with `kind`.
  /// Returns the state tensors (tensor<?xState_i>).
  SmallVector<Value> reduceGeneric(Location loc, const Combiner &kind, Value src, ElementType srcType,
                                   TypeRange valueTypes, const ElementMap &map) {
    MLIRContext *ctx = module_.getContext();
    SmallVector<Type> state = *combinerStateTypes(kind, valueTypes);
    SmallVector<Value> identity = buildCombinerIdentity(b_, loc, kind, state);
    SmallVector<Value> inits;
    for (auto [t, id] : llvm::zip(state, identity)) {
      Value empty = emptyTensor(loc, /*kept=*/true, t);
      inits.push_back(linalg::FillOp::create(b_, loc, id, empty).getResult(0));
    }
    AffineMap full = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap kept = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
    SmallVector<AffineMap> maps{full};
    maps.append(state.size(), kept);
    SmallVector<utils::IteratorType> iters{utils::IteratorType::parallel, utils::IteratorType::reduction};
    SmallVector<Type> resultTypes;
    for (Value i : inits)
      resultTypes.push_back(i.getType());
    auto gen = linalg::GenericOp::create(
        b_, loc, resultTypes, ValueRange{src}, inits, maps, iters,
        [&](OpBuilder &rb, Location rl, ValueRange args) {
          ScalarBuilder sb(rb, rl);
          Value x = args[0];
          if (srcType == ElementType::Bool)
            x = arith::TruncIOp::create(rb, rl, rb.getI1Type(), x);
          auto index = [&]() -> Value {
            Value i = linalg::IndexOp::create(rb, rl, 1);
            return arith::IndexCastOp::create(rb, rl, rb.getI64Type(), i);
          };
          SmallVector<Value> values = map(sb, x, index);
          auto combine = CombineOp::create(rb, rl, kind.kind, args.drop_front(1), values, kind.function,
                                           kind.identity);
          combine->setAttr(kShapeInputsAttr,
                           rb.getI64IntegerAttr(static_cast<std::int64_t>(fullInputsOf(src) | operandLeaves_)));
          linalg::YieldOp::create(rb, rl, combine.getResults());
        });
    return SmallVector<Value>(gen.getResults());
  }

  /// A kept-space generic over `states` computing one value of type `t`.
  Value finish(Location loc, ValueRange states, ElementType t,
               const std::function<Value(ScalarBuilder &, ValueRange)> &body) {
    MLIRContext *ctx = module_.getContext();
    Value init = emptyTensor(loc, /*kept=*/true, storageType(*ctx, t));
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
    SmallVector<AffineMap> maps(states.size() + 1, id);
    SmallVector<utils::IteratorType> iters{utils::IteratorType::parallel};
    auto gen = linalg::GenericOp::create(b_, loc, TypeRange{init.getType()}, states, ValueRange{init}, maps, iters,
                                         [&](OpBuilder &rb, Location rl, ValueRange args) {
                                           ScalarBuilder sb(rb, rl);
                                           Value r = body(sb, args.drop_back());
                                           linalg::YieldOp::create(rb, rl, toStorage(rb, rl, r, t));
                                         });
    return gen.getResult(0);
  }

  /// The reduced extent as a float of type `t` (inside a region).
  Value countAs(ScalarBuilder &sb, ElementType t) {
    OpBuilder &b = sb.builder();
    Value n = arith::IndexCastOp::create(b, sb.loc(), b.getI64Type(), reducedSize_);
    return sb.cast(n, ElementType::Int64, t);
  }

  Value emitReduce(const Node &n) {
    MLIRContext *ctx = module_.getContext();
    Location loc = locOf(n.expr);
    const Node &operand = *n.operands[0];
    ElementType s = operand.type, r = n.type;
    Value src = tensorOf(operand, /*keptSpace=*/false);
    if (!src)
      return {};
    // The operand's leaves shape NumPy's operand even where its element math
    // folds to a constant (`any(imag(b), -1, true)` of a bool b).
    operandLeaves_ = mapLeaves(&operand);
    auto typeOf = [&](ElementType t) { return valueType(*ctx, t); };
    auto castTo = [&](ElementType t) -> ElementMap {
      return [=](ScalarBuilder &sb, Value x, const std::function<Value()> &) -> SmallVector<Value> {
        return {sb.cast(x, s, t)};
      };
    };
    // max/min/argmax compare in a signed type: bool and uint8 widen to int32.
    ElementType ordered = (s == ElementType::Bool || s == ElementType::UInt8) ? ElementType::Int32 : s;
    auto single = [&](CombinerKind kind, ElementType valueType, const ElementMap &map) {
      return reduceGeneric(loc, kind, src, s, TypeRange{typeOf(valueType)}, map)[0];
    };
    auto passThrough = [](ScalarBuilder &, ValueRange v) { return v[0]; };

    switch (n.reduce) {
    case ReduceKind::Sum:
    case ReduceKind::Prod: {
      Value st = single(n.reduce == ReduceKind::Sum ? CombinerKind::Sum : CombinerKind::Prod, r, castTo(r));
      return finish(loc, st, r, passThrough);
    }
    case ReduceKind::CountNonzero: {
      Value st = single(CombinerKind::Sum, ElementType::Int64,
                        [=](ScalarBuilder &sb, Value x, const std::function<Value()> &) -> SmallVector<Value> {
                          return {sb.cast(sb.isNonZero(x, s), ElementType::Bool, ElementType::Int64)};
                        });
      return finish(loc, st, r, passThrough);
    }
    case ReduceKind::Mean: {
      Value st = single(CombinerKind::Sum, r, castTo(r));
      return finish(loc, st, r, [&](ScalarBuilder &sb, ValueRange v) {
        return sb.arithmetic(OpKind::Div, v[0], countAs(sb, r), r);
      });
    }
    case ReduceKind::Max:
    case ReduceKind::Min: {
      CombinerKind kind = n.reduce == ReduceKind::Max ? CombinerKind::Max : CombinerKind::Min;
      Value st = single(kind, ordered, castTo(ordered));
      return finish(loc, st, r, [&](ScalarBuilder &sb, ValueRange v) { return sb.cast(v[0], ordered, r); });
    }
    case ReduceKind::ArgMax:
    case ReduceKind::ArgMin: {
      CombinerKind kind = n.reduce == ReduceKind::ArgMax ? CombinerKind::ArgMax : CombinerKind::ArgMin;
      SmallVector<Value> st = reduceGeneric(
          loc, kind, src, s, TypeRange{typeOf(ordered), b_.getI64Type()},
          [=](ScalarBuilder &sb, Value x, const std::function<Value()> &index) -> SmallVector<Value> {
            return {sb.cast(x, s, ordered), index()};
          });
      return finish(loc, st[1], r, passThrough);
    }
    case ReduceKind::All:
    case ReduceKind::Any: {
      CombinerKind kind = n.reduce == ReduceKind::All ? CombinerKind::All : CombinerKind::Any;
      Value st = single(kind, ElementType::Bool,
                        [=](ScalarBuilder &sb, Value x, const std::function<Value()> &) -> SmallVector<Value> {
                          return {sb.isNonZero(x, s)};
                        });
      return finish(loc, st, r, passThrough);
    }
    case ReduceKind::Var:
    case ReduceKind::Std:
      return emitMoments(n, src, loc);
    case ReduceKind::Norm:
      return emitNorm(n, src, loc);
    case ReduceKind::Custom: {
      // kiln::reduce: the operand is map's result (type r); combine's element
      // function merges, from the identity constant.
      Type t = typeOf(r);
      TypedAttr identity = isa<FloatType>(t) ? TypedAttr(b_.getFloatAttr(t, n.identityFloat))
                           : t.isInteger(1)  ? TypedAttr(b_.getBoolAttr(n.identityInt != 0))
                                             : TypedAttr(b_.getIntegerAttr(
                                                   t, APInt(t.getIntOrFloatBitWidth(), std::uint64_t(n.identityInt),
                                                            /*isSigned=*/false, /*implicitTrunc=*/true)));
      Combiner combiner(CombinerKind::Custom, FlatSymbolRefAttr::get(ctx, n.combineSymbol), identity);
      Value st = reduceGeneric(loc, combiner, src, s, TypeRange{t}, castTo(r))[0];
      return finish(loc, st, r, passThrough);
    }
    }
    return {};
  }

  /// var/std: Welford over the values (over the real and imaginary parts
  /// separately for complex), then m2 / max(count - ddof, 0).
  Value emitMoments(const Node &n, Value src, Location loc) {
    MLIRContext *ctx = module_.getContext();
    ElementType s = n.operands[0]->type, r = n.type; // r: a real float type
    Type rt = valueType(*ctx, r);
    bool complexInput = kindOf(s) == TypeKind::Complex;
    auto part = [&](bool imag) -> ElementMap {
      return [=](ScalarBuilder &sb, Value x, const std::function<Value()> &) -> SmallVector<Value> {
        if (!complexInput)
          return {sb.cast(x, s, r)};
        OpBuilder &b = sb.builder();
        Value p = imag ? Value(complex::ImOp::create(b, sb.loc(), x)) : Value(complex::ReOp::create(b, sb.loc(), x));
        return {sb.cast(p, realPart(s), r)};
      };
    };
    SmallVector<Value> states = reduceGeneric(loc, CombinerKind::Welford, src, s, TypeRange{rt}, part(false));
    SmallVector<Value> finishIns{states[1], states[2]}; // m2, count
    if (complexInput)
      finishIns.push_back(reduceGeneric(loc, CombinerKind::Welford, src, s, TypeRange{rt}, part(true))[1]);
    const Node &ddof = *n.operands[1];
    bool isStd = n.reduce == ReduceKind::Std;
    return finish(loc, finishIns, r, [&](ScalarBuilder &sb, ValueRange v) {
      OpBuilder &b = sb.builder();
      Location l = sb.loc();
      Value m2 = v[0];
      if (v.size() > 2)
        m2 = arith::AddFOp::create(b, l, m2, v[2]);
      Value d = sb.cast(scalarValue(sb, ddof), ddof.type, ElementType::Int64);
      Value dof = arith::MaxSIOp::create(b, l, arith::SubIOp::create(b, l, v[1], d), sb.zero(ElementType::Int64));
      Value var = arith::DivFOp::create(b, l, m2, sb.cast(dof, ElementType::Int64, r));
      return isStd ? Value(math::SqrtOp::create(b, l, var)) : var;
    });
  }

  /// A vector norm of order p (2 also for the Frobenius norm), as NumPy:
  /// sqrt(sum |x|^2), sum |x|, max |x|, min |x|, the count of non-zeros,
  /// else sum(|x|^p)^(1/p).
  Value emitNorm(const Node &n, Value src, Location loc) {
    MLIRContext *ctx = module_.getContext();
    ElementType s = n.operands[0]->type, r = n.type;
    double p = n.normOrder;
    Type rt = valueType(*ctx, r);
    auto absOf = [=](ScalarBuilder &sb, Value x) -> Value {
      if (kindOf(s) == TypeKind::Complex)
        return sb.cast(complex::AbsOp::create(sb.builder(), sb.loc(), x), realPart(s), r);
      return math::AbsFOp::create(sb.builder(), sb.loc(), sb.cast(x, s, r));
    };
    auto fold = [&](CombinerKind kind, const std::function<Value(ScalarBuilder &, Value)> &f) {
      return reduceGeneric(loc, kind, src, s, TypeRange{rt},
                           [=](ScalarBuilder &sb, Value x, const std::function<Value()> &) -> SmallVector<Value> {
                             return {f(sb, x)};
                           })[0];
    };
    auto passThrough = [](ScalarBuilder &, ValueRange v) { return v[0]; };
    if (p == 2) {
      Value st = fold(CombinerKind::Sum, [=](ScalarBuilder &sb, Value x) -> Value {
        OpBuilder &b = sb.builder();
        if (kindOf(s) == TypeKind::Complex) {
          Value re = sb.cast(complex::ReOp::create(b, sb.loc(), x), realPart(s), r);
          Value im = sb.cast(complex::ImOp::create(b, sb.loc(), x), realPart(s), r);
          return arith::AddFOp::create(b, sb.loc(), arith::MulFOp::create(b, sb.loc(), re, re),
                                       arith::MulFOp::create(b, sb.loc(), im, im));
        }
        Value v = sb.cast(x, s, r);
        return arith::MulFOp::create(b, sb.loc(), v, v);
      });
      return finish(loc, st, r, [](ScalarBuilder &sb, ValueRange v) -> Value {
        return math::SqrtOp::create(sb.builder(), sb.loc(), v[0]);
      });
    }
    if (p == 1)
      return finish(loc, fold(CombinerKind::Sum, absOf), r, passThrough);
    if (std::isinf(p))
      return finish(loc, fold(p > 0 ? CombinerKind::Max : CombinerKind::Min, absOf), r, passThrough);
    if (p == 0) {
      Value st = fold(CombinerKind::Sum, [=](ScalarBuilder &sb, Value x) -> Value {
        return sb.cast(sb.isNonZero(x, s), ElementType::Bool, r);
      });
      return finish(loc, st, r, passThrough);
    }
    Value st = fold(CombinerKind::Sum, [=](ScalarBuilder &sb, Value x) -> Value {
      return math::PowFOp::create(sb.builder(), sb.loc(), absOf(sb, x), sb.constant(r, p, 0));
    });
    return finish(loc, st, r, [=](ScalarBuilder &sb, ValueRange v) -> Value {
      return math::PowFOp::create(sb.builder(), sb.loc(), v[0], sb.constant(r, 1.0 / p, 0));
    });
  }

  ModuleOp module_;
  const FusedGroup &g_;
  const clang::SourceManager &sm_;
  const NodeErrorFn &onError_;
  OpBuilder b_;
  Block *entry_ = nullptr;
  Value keptSize_, reducedSize_;
  std::map<std::pair<const void *, bool>, Value> tensors_;
};

} // namespace

bool emitReductionKernel(ModuleOp module, StringRef name, const FusedGroup &group, const clang::SourceManager &sm,
                         const NodeErrorFn &onError) {
  ReductionEmitter e(module, group, sm, onError);
  return e.emit(name);
}

bool reductionSurvivesFusion(ModuleOp module, StringRef name) {
  auto kernel = dyn_cast_or_null<func::FuncOp>(SymbolTable::lookupSymbolIn(module, name));
  if (!kernel)
    return true;
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  OwningOpRef<ModuleOp> copy = ModuleOp::create(kernel.getLoc());
  b.setInsertionPointToEnd(copy->getBody());
  auto fn = cast<func::FuncOp>(b.clone(*kernel));
  // Only the answer matters here: the pipeline reports the real errors.
  ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
  PassManager pm(ctx);
  pm.addPass(createFuseKernelsPass());
  if (failed(pm.run(*copy)))
    return true; // not this check's to report
  return succeeded(analyzeReductionProgram(fn));
}

} // namespace kiln::frontend
