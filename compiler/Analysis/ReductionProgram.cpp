//===- Analysis/ReductionProgram.cpp - A fused reduction kernel -----------===//
//
// The form checked here (docs/compiler-pipeline.md, "Reduction kernels"):
// arguments full tensor<?x?xT>, then kept tensor<?xT>, then scalars; one
// result, tensor<?x?xT> or tensor<?xT>; a body of constants, tensor.dim,
// tensor.empty, linalg.fill and linalg.generic ops of three shapes:
//
// * stage: iterators (parallel, reduction), inputs read through (k, r) ->
//   (k, r) or (k, r) -> (k), outputs (k, r) -> (k), a body that ends in one
//   kiln.combine of the output block arguments whose results it yields;
// * full map: iterators (parallel, parallel), the same input maps, output
//   (k, r) -> (k, r);
// * kept map: one parallel iterator, identity maps.
//
// Regions may capture scalar arguments, constants and tensor.dim of a full
// input (the kept or reduced extent).
//
//===----------------------------------------------------------------------===//
#include "Analysis/ReductionProgram.h"

#include "Dialect/Kiln/IR/Combiner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace kiln {
namespace {

enum class GenericShape { Stage, FullMap, KeptMap, Other };

bool isKeptOfFull(AffineMap m) {
  return m.getNumDims() == 2 && m.getNumResults() == 1 && m.getResult(0) == getAffineDimExpr(0, m.getContext());
}

GenericShape shapeOf(linalg::GenericOp op) {
  auto iters = op.getIteratorTypesArray();
  auto maps = op.getIndexingMapsArray();
  unsigned numIns = op.getNumDpsInputs();
  if (!op.hasPureTensorSemantics())
    return GenericShape::Other;
  if (iters.size() == 1) {
    if (iters[0] != utils::IteratorType::parallel)
      return GenericShape::Other;
    for (AffineMap m : maps)
      if (!m.isIdentity())
        return GenericShape::Other;
    return GenericShape::KeptMap;
  }
  if (iters.size() != 2 || iters[0] != utils::IteratorType::parallel)
    return GenericShape::Other;
  for (unsigned i = 0; i < numIns; ++i)
    if (!maps[i].isIdentity() && !isKeptOfFull(maps[i]))
      return GenericShape::Other;
  bool reduction = iters[1] == utils::IteratorType::reduction;
  for (unsigned i = numIns; i < maps.size(); ++i)
    if (reduction ? !isKeptOfFull(maps[i]) : !maps[i].isIdentity())
      return GenericShape::Other;
  return reduction ? GenericShape::Stage : GenericShape::FullMap;
}

bool isFullTensor(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  return r && r.getRank() == 2;
}
bool isKeptTensor(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  return r && r.getRank() == 1;
}

} // namespace

int ReductionProgram::stageOf(Value v, unsigned *component) const {
  auto res = dyn_cast<OpResult>(v);
  if (!res)
    return -1;
  for (auto [i, s] : llvm::enumerate(stages))
    if (res.getOwner() == linalg::GenericOp(s.op).getOperation()) {
      if (component)
        *component = res.getResultNumber();
      return i;
    }
  return -1;
}

SmallVector<unsigned> ReductionProgram::stagesAt(unsigned level) const {
  SmallVector<unsigned> out;
  for (auto [i, s] : llvm::enumerate(stages))
    if (s.level == level)
      out.push_back(i);
  return out;
}

unsigned ReductionProgram::vectorWidth() const {
  unsigned widest = 1;
  SmallVector<Type> types(fullTypes);
  if (!keptOutput)
    types.push_back(outputType);
  for (Type t : types) {
    if (isa<ComplexType>(t))
      return 1;
    widest = std::max(widest, std::max(1u, t.getIntOrFloatBitWidth() / 8));
  }
  // At most 4 lanes: each lane clones the whole body, and narrow types gain
  // little from more (a warp still reads 128 contiguous bytes or more).
  return std::min(16 / widest, 4u);
}

FailureOr<ReductionProgram> analyzeReductionProgram(func::FuncOp func) {
  ReductionProgram p;
  p.func = func;
  StringRef name = func.getSymName();
  auto fail = [&](Operation *at, const Twine &why) -> FailureOr<ReductionProgram> {
    return at->emitError() << "kiln.reduction_kernel @" << name << ": " << why;
  };
  if (func.isExternal())
    return fail(func, "has no body");
  // Arguments: full tensors, then kept tensors, then scalars.
  unsigned phase = 0;
  for (Type t : func.getArgumentTypes()) {
    unsigned kind = isFullTensor(t) ? 0 : isKeptTensor(t) ? 1 : isa<TensorType>(t) ? 3 : 2;
    if (kind == 3 || kind < phase)
      return fail(func, "arguments must be full tensors (tensor<?x?xT>), then kept tensors (tensor<?xT>), "
                        "then scalars");
    phase = kind;
    Type e = kind == 2 ? t : cast<TensorType>(t).getElementType();
    (kind == 0 ? p.fullTypes : kind == 1 ? p.keptTypes : p.scalarTypes).push_back(e);
  }
  if (p.fullTypes.empty())
    return fail(func, "has no full-space input");
  if (func.getNumResults() != 1)
    return fail(func, "must have one result");
  Type resultType = func.getResultTypes()[0];
  if (!isFullTensor(resultType) && !isKeptTensor(resultType))
    return fail(func, "the result must be tensor<?x?xT> or tensor<?xT>");
  p.keptOutput = isKeptTensor(resultType);
  p.outputType = cast<TensorType>(resultType).getElementType();

  Block &body = func.getBody().front();
  DenseMap<Value, unsigned> after; // passes over the data a value needs
  for (BlockArgument a : func.getArguments())
    after[a] = 0;
  for (Operation &op : body) {
    if (isa<tensor::DimOp, tensor::EmptyOp, func::ReturnOp>(op) || op.hasTrait<OpTrait::ConstantLike>())
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      after[fill.getResult(0)] = 0;
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic)
      return fail(&op, "unsupported operation '" + op.getName().getStringRef() + "'");
    GenericShape shape = shapeOf(generic);
    if (shape == GenericShape::Other)
      return fail(generic, "a linalg.generic that is neither a reduction over the reduced dimension nor a map "
                           "of the full or kept space");
    // Captured values: scalars, constants, extents.
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(generic.getRegion(), captured);
    for (Value v : captured) {
      if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == &body &&
                                                 arg.getArgNumber() >= p.numFull() + p.numKept())
        continue;
      if (Operation *def = v.getDefiningOp()) {
        if (def->hasTrait<OpTrait::ConstantLike>())
          continue;
        if (auto dim = dyn_cast<tensor::DimOp>(def); dim && isFullTensor(dim.getSource().getType()))
          if (auto c = dim.getConstantIndex(); c && (*c == 0 || *c == 1))
            continue;
      }
      return fail(generic, "a region reads a value that is neither a scalar argument, a constant nor an extent");
    }
    unsigned level = 0;
    for (Value in : generic.getDpsInputs())
      level = std::max(level, after.lookup(in));
    for (BlockArgument out : generic.getRegionOutputArgs())
      if (shape != GenericShape::Stage && !out.use_empty())
        return fail(generic, "a map reads its output");
    if (shape == GenericShape::Stage) {
      auto yield = cast<linalg::YieldOp>(generic.getRegion().front().getTerminator());
      auto combine = yield.getNumOperands() ? yield.getOperand(0).getDefiningOp<CombineOp>() : CombineOp();
      if (!combine || yield.getOperands() != ValueRange(combine.getResults()) ||
          combine.getAccumulator() != ValueRange(generic.getRegionOutputArgs()))
        return fail(generic, "a reduction's body must end in a kiln.combine of its outputs, yielded");
      for (BlockArgument out : generic.getRegionOutputArgs())
        if (!out.hasOneUse())
          return fail(generic, "a reduction reads its accumulator outside kiln.combine");
      ReductionStage s;
      s.op = generic;
      s.combine = combine;
      s.level = level;
      s.stateTypes = SmallVector<Type>(combine.getResultTypes());
      p.stages.push_back(s);
      p.numLevels = std::max(p.numLevels, level + 1);
      for (Value r : generic.getResults())
        after[r] = level + 1;
    } else {
      for (Value r : generic.getResults())
        after[r] = level;
    }
  }
  if (p.stages.empty())
    return fail(func, "has no reduction");
  p.result = cast<func::ReturnOp>(body.getTerminator()).getOperand(0);

  // The full inputs each stage, and the result, read (through maps).
  std::function<std::uint64_t(Value, bool)> inputsOf = [&](Value v, bool throughStages) -> std::uint64_t {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getOwner() == &body && arg.getArgNumber() < p.numFull() ? std::uint64_t(1) << arg.getArgNumber()
                                                                          : 0;
    auto generic = v.getDefiningOp<linalg::GenericOp>();
    if (!generic || (!throughStages && p.stageOf(v) >= 0))
      return 0;
    std::uint64_t mask = 0;
    for (Value in : generic.getDpsInputs())
      mask |= inputsOf(in, throughStages);
    return mask;
  };
  for (ReductionStage &s : p.stages) {
    for (Value in : s.op.getDpsInputs())
      s.fullInputs |= inputsOf(in, /*throughStages=*/false);
    s.shapeInputs = s.fullInputs;
    if (auto written = s.combine->getAttrOfType<IntegerAttr>(kShapeInputsAttr))
      s.shapeInputs |= static_cast<std::uint64_t>(written.getInt());
  }
  p.mapInputs = p.keptOutput ? 0 : inputsOf(p.result, /*throughStages=*/false);
  p.mapShapeInputs = p.mapInputs;
  if (auto written = func->getAttrOfType<IntegerAttr>(kMapShapeInputsAttr); written && !p.keptOutput)
    p.mapShapeInputs |= static_cast<std::uint64_t>(written.getInt());
  if (p.numFull() > 64)
    return fail(func, "more than 64 full-space inputs");
  return p;
}

//===----------------------------------------------------------------------===//
// ProgramEvaluator
//===----------------------------------------------------------------------===//

bool ProgramEvaluator::readsFull(Value tensor) const {
  if (auto arg = dyn_cast<BlockArgument>(tensor))
    return arg.getArgNumber() < p_.numFull();
  if (p_.stageOf(tensor) >= 0)
    return false;
  auto generic = tensor.getDefiningOp<linalg::GenericOp>();
  return generic && llvm::any_of(generic.getDpsInputs(), [&](Value in) { return readsFull(in); });
}

void ProgramEvaluator::mapCaptured(OpBuilder &b, linalg::GenericOp generic, IRMapping &map) {
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(generic.getRegion(), captured);
  for (Value v : captured) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      map.map(v, scalars_[arg.getArgNumber() - p_.numFull() - p_.numKept()]);
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (auto dim = dyn_cast<tensor::DimOp>(def)) {
      map.map(v, *dim.getConstantIndex() == 0 ? keptExtent_ : reducedExtent_);
      continue;
    }
    map.map(v, b.clone(*def)->getResult(0));
  }
}

void ProgramEvaluator::cloneBody(OpBuilder &b, linalg::GenericOp generic, const PointEnv &env, IRMapping &map,
                                 Operation *stopAt) {
  Block &body = generic.getRegion().front();
  for (auto [i, in] : llvm::enumerate(generic.getDpsInputs()))
    map.map(body.getArgument(i), valueAt(b, in, env));
  mapCaptured(b, generic, map);
  bool twoD = generic.getNumLoops() == 2;
  for (Operation &op : body.without_terminator()) {
    if (&op == stopAt)
      return;
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      bool reduced = twoD && index.getDim() == 1;
      map.map(index.getResult(), reduced ? env.reducedIndex : env.keptIndex);
      continue;
    }
    b.clone(op, map);
  }
}

Value ProgramEvaluator::valueAt(OpBuilder &b, Value tensor, const PointEnv &env) {
  if (Value v = env.kept.lookup(tensor))
    return v;
  if (Value v = env.full.lookup(tensor))
    return v;
  auto generic = tensor.getDefiningOp<linalg::GenericOp>();
  if (!generic || p_.stageOf(tensor) >= 0) {
    tensor.getDefiningOp() ? tensor.getDefiningOp()->emitError("kiln: value not available at this point")
                           : func::FuncOp(p_.func).emitError("kiln: argument not available at this point");
    return {};
  }
  IRMapping map;
  cloneBody(b, generic, env, map, nullptr);
  auto yield = cast<linalg::YieldOp>(generic.getRegion().front().getTerminator());
  return map.lookupOrDefault(yield.getOperand(cast<OpResult>(tensor).getResultNumber()));
}

SmallVector<Value> ProgramEvaluator::stageValues(OpBuilder &b, const ReductionStage &s, const PointEnv &env) {
  CombineOp combine = s.combine;
  IRMapping map;
  cloneBody(b, s.op, env, map, combine);
  SmallVector<Value> values;
  for (Value v : combine.getValues())
    values.push_back(map.lookupOrDefault(v));
  return values;
}

//===----------------------------------------------------------------------===//
// Vector evaluation
//===----------------------------------------------------------------------===//

static bool scalarIntOrFloat(Type t) { return t.isIntOrIndexOrFloat(); }

bool ProgramEvaluator::vectorizableBody(linalg::GenericOp generic, Operation *stopAt) const {
  for (Value in : generic.getDpsInputs())
    if (!vectorizableTensor(in))
      return false;
  for (BlockArgument arg : generic.getRegion().front().getArguments())
    if (!scalarIntOrFloat(arg.getType()))
      return false;
  for (Operation &op : generic.getRegion().front().without_terminator()) {
    if (&op == stopAt)
      return true;
    if (isa<linalg::IndexOp>(op))
      continue;
    bool elementwise = op.hasTrait<OpTrait::Elementwise>() && op.getNumRegions() == 0;
    if (!elementwise && !isa<arith::ConstantOp>(op))
      return false;
    if (!llvm::all_of(op.getResultTypes(), scalarIntOrFloat) ||
        !llvm::all_of(op.getOperandTypes(), scalarIntOrFloat))
      return false;
  }
  return true;
}

bool ProgramEvaluator::vectorizableTensor(Value tensor) const {
  if (isa<BlockArgument>(tensor) || p_.stageOf(tensor) >= 0)
    return true; // a full input, a kept input or a stage result: bound in the env
  auto generic = tensor.getDefiningOp<linalg::GenericOp>();
  return generic && vectorizableBody(generic, nullptr);
}

bool ProgramEvaluator::vectorizable(const ReductionStage &s) const {
  return vectorizableBody(s.op, s.combine);
}

/// `v` as a vector<lanes x T> (a scalar broadcast to every lane).
static Value splat(OpBuilder &b, Location loc, Value v, int64_t lanes) {
  if (isa<VectorType>(v.getType()))
    return v;
  return vector::BroadcastOp::create(b, loc, VectorType::get({lanes}, v.getType()), v);
}

Value ProgramEvaluator::valueAtVector(OpBuilder &b, Value tensor, const PointEnv &env, int64_t lanes) {
  if (Value v = env.full.lookup(tensor))
    return v;
  if (Value v = env.kept.lookup(tensor))
    return v; // the same for every lane: broadcast where used
  auto generic = tensor.getDefiningOp<linalg::GenericOp>();
  IRMapping map;
  cloneBodyVector(b, generic, env, map, nullptr, lanes);
  auto yield = cast<linalg::YieldOp>(generic.getRegion().front().getTerminator());
  return map.lookupOrDefault(yield.getOperand(cast<OpResult>(tensor).getResultNumber()));
}

void ProgramEvaluator::cloneBodyVector(OpBuilder &b, linalg::GenericOp generic, const PointEnv &env, IRMapping &map,
                                       Operation *stopAt, int64_t lanes) {
  Block &body = generic.getRegion().front();
  Location loc = generic.getLoc();
  for (auto [i, in] : llvm::enumerate(generic.getDpsInputs()))
    map.map(body.getArgument(i), valueAtVector(b, in, env, lanes));
  mapCaptured(b, generic, map);
  bool twoD = generic.getNumLoops() == 2;
  for (Operation &op : body.without_terminator()) {
    if (&op == stopAt)
      return;
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      if (twoD && index.getDim() == 1) { // the reduced index of each lane: r0 + 0, 1, ...
        auto vt = VectorType::get({lanes}, b.getIndexType());
        Value step = vector::StepOp::create(b, loc, vt);
        map.map(index.getResult(), arith::AddIOp::create(b, loc, splat(b, loc, env.reducedIndex, lanes), step));
      } else {
        map.map(index.getResult(), env.keptIndex);
      }
      continue;
    }
    if (isa<arith::ConstantOp>(op)) {
      b.clone(op, map); // scalar; broadcast where a vector operation uses it
      continue;
    }
    // An elementwise operation: the same operation on vectors, its scalar
    // operands broadcast.
    OperationState state(op.getLoc(), op.getName());
    for (Value operand : op.getOperands())
      state.addOperands(splat(b, loc, map.lookupOrDefault(operand), lanes));
    for (Type t : op.getResultTypes())
      state.addTypes(VectorType::get({lanes}, t));
    state.addAttributes(op.getAttrs());
    Operation *vop = b.create(state);
    for (auto [from, to] : llvm::zip(op.getResults(), vop->getResults()))
      map.map(from, to);
  }
}

SmallVector<Value> ProgramEvaluator::stageValuesVector(OpBuilder &b, const ReductionStage &s, const PointEnv &env,
                                                       int64_t lanes) {
  CombineOp combine = s.combine;
  IRMapping map;
  cloneBodyVector(b, s.op, env, map, combine, lanes);
  SmallVector<Value> values;
  for (Value v : combine.getValues())
    values.push_back(splat(b, combine.getLoc(), map.lookupOrDefault(v), lanes));
  return values;
}

} // namespace kiln
