//===- VariantCommon.cpp - Shared pieces of reduction variants ------------===//
#include "Conversion/ReductionToVariants/VariantCommon.h"
#include "Conversion/ReductionToVariants/ReductionVariants.h"

#include "Dialect/Kiln/IR/Combiner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace kiln::reduction {

std::string variantSuffix(Layout layout, bool warpRows) {
  switch (layout) {
  case Layout::Rows:
    return warpRows ? "_rrowsw" : "_rrows";
  case Layout::Cols:
    return "_rcols";
  case Layout::General:
    return "_rgeneral";
  }
  return "";
}

unsigned fullRank(Layout l) { return l == Layout::Rows ? 2 : l == Layout::Cols ? 3 : 8; }
unsigned keptRank(Layout l) { return l == Layout::Rows ? 1 : l == Layout::Cols ? 2 : 4; }

static MemRefType fullMemref(Type element, Layout l) {
  auto dyn = ShapedType::kDynamic;
  unsigned rank = fullRank(l);
  SmallVector<int64_t> sizes(rank, dyn), strides(rank, dyn);
  if (l != Layout::General)
    strides.back() = 1; // the contiguous dimension
  return MemRefType::get(sizes, element, StridedLayoutAttr::get(element.getContext(), dyn, strides));
}

static MemRefType keptMemref(Type element, Layout l) {
  auto dyn = ShapedType::kDynamic;
  unsigned rank = keptRank(l);
  SmallVector<int64_t> sizes(rank, dyn), strides(rank, dyn);
  return MemRefType::get(sizes, element, StridedLayoutAttr::get(element.getContext(), dyn, strides));
}

FunctionType variantSignature(const ReductionProgram &p, Layout layout) {
  MLIRContext *ctx = mlir::func::FuncOp(p.func).getContext();
  SmallVector<Type> params;
  for (Type t : p.fullTypes)
    params.push_back(fullMemref(t, layout));
  for (Type t : p.keptTypes)
    params.push_back(keptMemref(t, layout));
  params.push_back(p.keptOutput ? keptMemref(p.outputType, layout) : fullMemref(p.outputType, layout));
  params.append(p.scalarTypes.begin(), p.scalarTypes.end());
  Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  params.push_back(MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 8)));
  params.append({i32, i32, i32, i32, i64, i64});
  return FunctionType::get(ctx, params, {});
}

Params bindParams(OpBuilder &b, Location loc, const ReductionProgram &p, ValueRange args) {
  Params r;
  unsigned i = 0;
  for (unsigned j = 0; j < p.numFull(); ++j)
    r.full.push_back(args[i++]);
  for (unsigned j = 0; j < p.numKept(); ++j)
    r.kept.push_back(args[i++]);
  r.out = args[i++];
  for (unsigned j = 0; j < p.scalarTypes.size(); ++j)
    r.scalars.push_back(args[i++]);
  r.workspace = args[i++];
  auto toIndex = [&](Value v) -> Value { return arith::IndexCastOp::create(b, loc, b.getIndexType(), v); };
  r.phase = toIndex(args[i++]);
  r.level = toIndex(args[i++]);
  r.split = toIndex(args[i++]);
  r.flags = toIndex(args[i++]);
  r.first = toIndex(args[i++]);
  r.count = toIndex(args[i++]);
  return r;
}

Value cidx(OpBuilder &b, Location loc, int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
Value minIdx(OpBuilder &b, Location loc, Value a, Value c) { return arith::MinUIOp::create(b, loc, a, c); }
Value ceilDiv(OpBuilder &b, Location loc, Value a, Value c) {
  return arith::DivUIOp::create(b, loc, arith::AddIOp::create(b, loc, a, arith::SubIOp::create(b, loc, c, cidx(b, loc, 1))),
                                c);
}
Value cmpIdx(OpBuilder &b, Location loc, arith::CmpIPredicate pred, Value a, Value c) {
  return arith::CmpIOp::create(b, loc, pred, a, c);
}
Value flagSet(OpBuilder &b, Location loc, Value flags, int64_t bit) {
  Value masked = arith::AndIOp::create(b, loc, flags, cidx(b, loc, bit));
  return cmpIdx(b, loc, arith::CmpIPredicate::ne, masked, cidx(b, loc, 0));
}

Value fullOutputEnd(OpBuilder &b, Location loc, Value flags, Value rbeg, Value rend) {
  // min(rend, max(rbeg, 1)): [0, 1) for the chunk that starts at 0, empty
  // for the others.
  Value cut = minIdx(b, loc, rend, arith::MaxUIOp::create(b, loc, rbeg, cidx(b, loc, 1)));
  return arith::SelectOp::create(b, loc, flagSet(b, loc, flags, reduction_output_once), cut, rend);
}

void ifThen(OpBuilder &b, Location loc, Value cond, const std::function<void()> &then) {
  auto op = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(op.thenBlock());
  then();
}

Space::Space(OpBuilder &b, Location loc, Layout layout, const Params &params) : layout_(layout) {
  Value f = params.full.front();
  auto dim = [&](unsigned d) -> Value { return memref::DimOp::create(b, loc, f, d); };
  switch (layout) {
  case Layout::Rows:
    nk_ = dim(0);
    nr_ = dim(1);
    keptSizes_ = {nk_};
    break;
  case Layout::Cols:
    outer_ = dim(0);
    nr_ = dim(1);
    inner_ = dim(2);
    nk_ = arith::MulIOp::create(b, loc, outer_, inner_);
    keptSizes_ = {outer_, inner_};
    break;
  case Layout::General: {
    Value nk = cidx(b, loc, 1), nr = cidx(b, loc, 1);
    for (unsigned d = 0; d < 4; ++d) {
      keptSizes_.push_back(dim(d));
      nk = arith::MulIOp::create(b, loc, nk, keptSizes_.back());
      reducedSizes_.push_back(dim(4 + d));
      nr = arith::MulIOp::create(b, loc, nr, reducedSizes_.back());
    }
    nk_ = nk;
    nr_ = nr;
    break;
  }
  }
}

static SmallVector<Value> decompose(OpBuilder &b, Location loc, Value linear, ArrayRef<Value> sizes) {
  SmallVector<Value> coords(sizes.size());
  Value rest = linear;
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    if (d == 0) {
      coords[d] = rest;
      break;
    }
    coords[d] = arith::RemUIOp::create(b, loc, rest, sizes[d]);
    rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
  }
  return coords;
}

SmallVector<Value> Space::keptCoords(OpBuilder &b, Location loc, Value k) const {
  if (layout_ == Layout::Rows)
    return {k};
  return decompose(b, loc, k, keptSizes_);
}

SmallVector<Value> Space::reducedCoords(OpBuilder &b, Location loc, Value r) const {
  return decompose(b, loc, r, reducedSizes_);
}

/// decompose() in 32-bit arithmetic where `fits` (a uniform branch).
static SmallVector<Value> decomposeNarrow(OpBuilder &b, Location loc, Value r, ArrayRef<Value> all, Value fits) {
  SmallVector<Type> types(all.size(), b.getIndexType());
  auto branch = scf::IfOp::create(b, loc, types, fits, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  auto narrow = [&](Value v) -> Value { return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), v); };
  SmallVector<Value> sizes;
  for (Value s : all)
    sizes.push_back(narrow(s));
  SmallVector<Value> coords = decompose(b, loc, narrow(r), sizes);
  for (Value &c : coords)
    c = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), c);
  scf::YieldOp::create(b, loc, coords);
  b.setInsertionPointToStart(branch.elseBlock());
  scf::YieldOp::create(b, loc, decompose(b, loc, r, all));
  return SmallVector<Value>(branch.getResults());
}

SmallVector<Value> Space::keptCoordsNarrow(OpBuilder &b, Location loc, Value k, Value fits) const {
  return decomposeNarrow(b, loc, k, keptSizes_, fits);
}

SmallVector<Value> Space::reducedCoordsNarrow(OpBuilder &b, Location loc, Value r, Value fits) const {
  return decomposeNarrow(b, loc, r, reducedSizes_, fits);
}

SmallVector<Value> Space::startReducedCoords(OpBuilder &b, Location loc, Value r) const {
  SmallVector<Value> sizes;
  for (Value s : reducedSizes_)
    sizes.push_back(arith::MaxUIOp::create(b, loc, s, arith::ConstantIndexOp::create(b, loc, 1)));
  return decompose(b, loc, r, sizes);
}

SmallVector<Value> Space::nextReducedCoords(OpBuilder &b, Location loc, ArrayRef<Value> coords) const {
  SmallVector<Value> next(coords.begin(), coords.end());
  Value carry = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  for (int d = static_cast<int>(next.size()) - 1; d >= 0; --d) {
    Value step = arith::SelectOp::create(b, loc, carry, arith::ConstantIndexOp::create(b, loc, 1),
                                         arith::ConstantIndexOp::create(b, loc, 0));
    Value bumped = arith::AddIOp::create(b, loc, next[d], step);
    if (d == 0) { // the outermost coordinate runs past its extent only at the end
      next[d] = bumped;
      break;
    }
    Value wraps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bumped, reducedSizes_[d]);
    next[d] = arith::SelectOp::create(b, loc, wraps, arith::ConstantIndexOp::create(b, loc, 0), bumped);
    carry = wraps;
  }
  return next;
}

//===----------------------------------------------------------------------===//
// States
//===----------------------------------------------------------------------===//

/// A stage's own slot.
static Slot ownSlot(const ReductionProgram &p, unsigned stage) {
  CombineOp combine = p.stages[stage].combine;
  return Slot{stage, Combiner::of(combine), p.stages[stage].stateTypes, nullptr};
}

LevelStates LevelStates::identity(OpBuilder &b, Location loc, const ReductionProgram &p, ArrayRef<unsigned> stages) {
  SmallVector<Slot> slots;
  for (unsigned s : stages)
    slots.push_back(ownSlot(p, s));
  return identity(b, loc, p, slots);
}

LevelStates LevelStates::identity(OpBuilder &b, Location loc, const ReductionProgram &p, ArrayRef<Slot> slots) {
  LevelStates s;
  s.program = &p;
  s.slots.assign(slots.begin(), slots.end());
  for (const Slot &slot : slots) {
    auto id = buildCombinerIdentity(b, loc, slot.kind, slot.types);
    s.values.append(id.begin(), id.end());
  }
  return s;
}

LevelStates LevelStates::with(ValueRange v) const {
  LevelStates s = *this;
  s.values.assign(v.begin(), v.end());
  return s;
}

ValueRange LevelStates::of(unsigned i) const {
  unsigned offset = 0;
  for (unsigned j = 0; j < i; ++j)
    offset += slots[j].types.size();
  return ValueRange(values).slice(offset, slots[i].types.size());
}

SmallVector<Type> LevelStates::types() const {
  SmallVector<Type> t;
  for (Value v : values)
    t.push_back(v.getType());
  return t;
}

SmallVector<unsigned> LevelStates::stages() const {
  SmallVector<unsigned> out;
  for (const Slot &s : slots)
    out.push_back(s.stage);
  return out;
}

LevelStates LevelStates::update(OpBuilder &b, Location loc, ProgramEvaluator &eval, const PointEnv &env) const {
  LevelStates out = *this;
  out.values.clear();
  for (auto [i, slot] : llvm::enumerate(slots)) {
    SmallVector<Value> vals = eval.stageValues(b, program->stages[slot.stage], env);
    if (slot.map)
      vals = slot.map(b, loc, vals);
    auto next = buildCombinerUpdate(b, loc, slot.kind, of(i), vals);
    out.values.append(next.begin(), next.end());
  }
  return out;
}

LevelStates LevelStates::merge(OpBuilder &b, Location loc, const LevelStates &other) const {
  LevelStates out = *this;
  out.values.clear();
  for (auto [i, slot] : llvm::enumerate(slots)) {
    auto next = buildCombinerMerge(b, loc, slot.kind, of(i), other.of(i));
    out.values.append(next.begin(), next.end());
  }
  return out;
}

LevelStates LevelStates::select(OpBuilder &b, Location loc, Value cond, const LevelStates &other) const {
  LevelStates out = *this;
  for (auto [v, o] : llvm::zip(out.values, other.values))
    v = arith::SelectOp::create(b, loc, cond, v, o);
  return out;
}

LevelStates LevelStates::mergeTree(OpBuilder &b, Location loc, ArrayRef<LevelStates> lanes) {
  SmallVector<LevelStates> level(lanes.begin(), lanes.end());
  while (level.size() > 1) {
    SmallVector<LevelStates> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2)
      next.push_back(level[i].merge(b, loc, level[i + 1]));
    if (level.size() % 2)
      next.push_back(level.back());
    level = std::move(next);
  }
  return level.front();
}

/// Whether foldLevel folds stage `s` in two passes: welford (the sum, then
/// the squared deviations) and logsumexp (the max, then exp(v - max)).
static bool twoPasses(const ReductionProgram &p, unsigned s) {
  return combinerFoldsBatches(CombineOp(p.stages[s].combine).getKind());
}

/// The slots of foldLevel's first pass: the stages' own, but a welford
/// stage's is the sum of its values and a logsumexp stage's their max.
static SmallVector<Slot> firstPassSlots(const ReductionProgram &p, unsigned level) {
  SmallVector<Slot> first;
  for (unsigned s : p.stagesAt(level)) {
    CombinerKind kind = CombineOp(p.stages[s].combine).getKind();
    if (kind == CombinerKind::Welford)
      first.push_back(Slot{s, CombinerKind::Sum, {p.stages[s].stateTypes[0]}, nullptr});
    else if (kind == CombinerKind::LogSumExp)
      first.push_back(Slot{s, CombinerKind::Max, {p.stages[s].stateTypes[0]}, nullptr});
    else
      first.push_back(ownSlot(p, s));
  }
  return first;
}

SmallVector<Type> stageStateTypes(const ReductionProgram &p, unsigned level) {
  SmallVector<Type> t;
  for (unsigned s : p.stagesAt(level))
    t.append(p.stages[s].stateTypes.begin(), p.stages[s].stateTypes.end());
  return t;
}

SmallVector<SmallVector<Type>> foldPassTypes(const ReductionProgram &p, unsigned level) {
  SmallVector<SmallVector<Type>> passes(1);
  for (const Slot &s : firstPassSlots(p, level)) {
    passes[0].append(s.types.begin(), s.types.end());
    if (twoPasses(p, s.stage)) {
      if (passes.size() == 1)
        passes.emplace_back();
      passes[1].push_back(s.types[0]);
    }
  }
  return passes;
}

LevelStates LevelStates::updateSeveral(OpBuilder &b, Location loc, ProgramEvaluator &eval,
                                       ArrayRef<PointEnv> envs) const {
  LevelStates out = *this;
  out.values.clear();
  for (auto [i, slot] : llvm::enumerate(slots)) {
    const ReductionStage &stage = program->stages[slot.stage];
    SmallVector<SmallVector<Value>> vals;
    for (const PointEnv &env : envs) {
      SmallVector<Value> v = eval.stageValues(b, stage, env);
      vals.push_back(slot.map ? slot.map(b, loc, v) : v);
    }
    SmallVector<Value> state(of(i).begin(), of(i).end());
    if (combinerFoldsBatches(slot.kind) && envs.size() > 1) {
      SmallVector<Value> xs;
      for (auto &v : vals)
        xs.push_back(v[0]);
      state = buildCombinerUpdateMany(b, loc, slot.kind, state, xs);
    } else {
      for (auto &v : vals)
        state = buildCombinerUpdate(b, loc, slot.kind, state, v);
    }
    out.values.append(state.begin(), state.end());
  }
  return out;
}

std::vector<LevelStates> LevelStates::updateVector(OpBuilder &b, Location loc, ProgramEvaluator &eval,
                                                  ArrayRef<PointEnv> envs, ArrayRef<LevelStates> lanes) {
  std::vector<LevelStates> out;
  for (const LevelStates &l : lanes) {
    out.push_back(l);
    out.back().values.clear();
  }
  const LevelStates &first = lanes.front();
  for (auto [i, slot] : llvm::enumerate(first.slots)) {
    const ReductionStage &stage = first.program->stages[slot.stage];
    auto valuesAt = [&](unsigned lane) {
      SmallVector<Value> vals = eval.stageValues(b, stage, envs[lane]);
      return slot.map ? slot.map(b, loc, vals) : vals;
    };
    if (!combinerFoldsBatches(slot.kind) || lanes.size() == 1) {
      for (auto [l, lane] : llvm::enumerate(lanes)) {
        auto next = buildCombinerUpdate(b, loc, slot.kind, lane.of(i), valuesAt(l));
        out[l].values.append(next.begin(), next.end());
      }
      continue;
    }
    // The vector's elements at once into the first lane's state: welford
    // merges their moments (mean and the sum of squared deviations),
    // logsumexp their maximum and exps (one exp an element, no selects).
    SmallVector<Value> xs;
    for (unsigned l = 0; l < lanes.size(); ++l)
      xs.push_back(valuesAt(l)[0]);
    auto merged = buildCombinerUpdateMany(b, loc, slot.kind, lanes[0].of(i), xs);
    out[0].values.append(merged.begin(), merged.end());
    for (size_t l = 1; l < lanes.size(); ++l) {
      ValueRange keep = lanes[l].of(i);
      out[l].values.append(keep.begin(), keep.end());
    }
  }
  return out;
}

/// Moves the loads of `body` (and the index arithmetic they need) ahead of
/// everything else, in order, unless they depend on the loop-carried
/// values. The unrolled steps' loads are then all issued before the first
/// step's arithmetic, whatever that arithmetic is: ptxas does not move a
/// load up across a branch, and an IEEE division (the welford merge) is one.
static void hoistLoads(Block &body) {
  if (llvm::any_of(body, [](Operation &op) { return hasEffect<MemoryEffects::Write>(&op); }))
    return; // loads may not pass a store
  llvm::SmallPtrSet<Operation *, 32> moved;
  Operation *cursor = nullptr; // the last op moved; null: none yet
  std::function<bool(Operation *)> hoistable = [&](Operation *op) {
    if (moved.contains(op))
      return true;
    if (op->getNumRegions() != 0 || !(isPure(op) || isa<vector::LoadOp, memref::LoadOp>(op)))
      return false;
    for (Value v : op->getOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        if (arg.getOwner() == &body && arg.getArgNumber() != 0) // a loop-carried value
          return false;
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (def->getBlock() == &body && !hoistable(def))
        return false;
    }
    return true;
  };
  std::function<void(Operation *)> place = [&](Operation *op) {
    if (moved.contains(op))
      return;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp(); def && def->getBlock() == &body)
        place(def);
    if (cursor)
      op->moveAfter(cursor);
    else
      op->moveBefore(&body.front());
    cursor = op;
    moved.insert(op);
  };
  SmallVector<Operation *> loads;
  for (Operation &op : body)
    if (isa<vector::LoadOp, memref::LoadOp>(op))
      loads.push_back(&op);
  for (Operation *load : loads)
    if (hoistable(load))
      place(load);
}

/// Replaces `tail`, a loop of fewer than `copies + 1` iterations without
/// writes, by `copies` copies of its body in straight-line code: copy u runs
/// at iteration u where there is one, else at the first (whose reads are
/// valid) with its results discarded; none runs where the loop has no
/// iteration. Returns the values of the loop's results.
static SmallVector<Value> maskTail(scf::ForOp tail, unsigned copies) {
  Block &body = *tail.getBody();
  if (llvm::any_of(body, [](Operation &op) { return hasEffect<MemoryEffects::Write>(&op); }))
    return SmallVector<Value>(tail.getResults());
  OpBuilder b(tail);
  Location loc = tail.getLoc();
  Value lb = tail.getLowerBound(), ub = tail.getUpperBound(), step = tail.getStep();
  const bool isUnsigned = tail.getUnsignedCmp();
  auto before = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt, x, y);
  };
  auto branch = scf::IfOp::create(b, loc, tail.getResultTypes(), before(lb, ub), /*withElseRegion=*/true);
  b.setInsertionPointToStart(branch.thenBlock());
  SmallVector<Value> current(tail.getInitArgs());
  auto yield = cast<scf::YieldOp>(body.getTerminator());
  Value iv = lb;
  for (unsigned u = 0; u < copies; ++u) {
    Value valid;
    Value at = lb;
    if (u) {
      iv = arith::AddIOp::create(b, loc, iv, step);
      valid = before(iv, ub);
      at = arith::SelectOp::create(b, loc, valid, iv, lb);
    }
    IRMapping map;
    map.map(tail.getInductionVar(), at);
    for (auto [arg, value] : llvm::zip(tail.getRegionIterArgs(), current))
      map.map(arg, value);
    for (Operation &op : body.without_terminator())
      b.clone(op, map);
    for (auto [i, next] : llvm::enumerate(yield.getOperands())) {
      Value v = map.lookupOrDefault(next);
      current[i] = valid ? arith::SelectOp::create(b, loc, valid, v, current[i]).getResult() : v;
    }
  }
  scf::YieldOp::create(b, loc, current);
  b.setInsertionPointToStart(branch.elseBlock());
  scf::YieldOp::create(b, loc, tail.getInitArgs());
  tail.replaceAllUsesWith(branch.getResults());
  tail.erase();
  return SmallVector<Value>(branch.getResults());
}

SmallVector<Value> unrollLoop(scf::ForOp loop, unsigned factor, bool maskedTail) {
  FailureOr<UnrolledLoopInfo> info = loopUnrollByFactor(loop, factor);
  if (succeeded(info) && info->mainLoopOp)
    hoistLoads(*info->mainLoopOp->getBody());
  if (succeeded(info) && info->epilogueLoopOp && maskedTail && factor > 1)
    return maskTail(*info->epilogueLoopOp, factor - 1);
  if (succeeded(info) && info->epilogueLoopOp)
    return SmallVector<Value>(info->epilogueLoopOp->getResults());
  if (succeeded(info) && info->mainLoopOp)
    return SmallVector<Value>(info->mainLoopOp->getResults());
  return SmallVector<Value>(loop.getResults());
}

scf::ForOp stridedLoop(OpBuilder &b, Location loc, Value start, Value end, Value step, ValueRange inits,
                       const std::function<SmallVector<Value>(Value, ValueRange)> &body) {
  Value zero = cidx(b, loc, 0);
  Value ahead = cmpIdx(b, loc, arith::CmpIPredicate::ugt, end, start);
  Value span = arith::SelectOp::create(b, loc, ahead, arith::SubIOp::create(b, loc, end, start), zero);
  Value trips = ceilDiv(b, loc, span, step);
  auto loop = scf::ForOp::create(b, loc, zero, trips, cidx(b, loc, 1), inits);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(loop.getBody());
  Value iv = arith::AddIOp::create(b, loc, start, arith::MulIOp::create(b, loc, loop.getInductionVar(), step));
  SmallVector<Value> next = body(iv, loop.getRegionIterArgs());
  if (!inits.empty()) // without results the loop has its (empty) yield already
    scf::YieldOp::create(b, loc, next);
  return loop;
}

void foldLevel(OpBuilder &b, Location loc, const ReductionProgram &p, unsigned level, Value count, PointEnv &env,
               const std::function<LevelStates(const LevelStates &)> &accumulate,
               const std::function<LevelStates(const LevelStates &, unsigned)> &reduce) {
  LevelStates one = reduce(accumulate(LevelStates::identity(b, loc, p, firstPassSlots(p, level))), 0);
  SmallVector<Value> means; // (welford: the mean; logsumexp: the max)
  SmallVector<Slot> second;
  for (auto [i, slot] : llvm::enumerate(one.slots)) {
    linalg::GenericOp op = p.stages[slot.stage].op;
    if (!twoPasses(p, slot.stage)) {
      for (auto [c, v] : llvm::enumerate(one.of(i)))
        env.kept[op.getResult(c)] = v;
      continue;
    }
    Type ft = slot.types[0];
    if (slot.kind == CombinerKind::Max) { // logsumexp: the sum of exp(v - max)
      Value top = one.of(i)[0];
      means.push_back(top);
      second.push_back(Slot{slot.stage, CombinerKind::Sum, {ft},
                            [top](OpBuilder &b, Location loc, ValueRange v) -> SmallVector<Value> {
                              return {math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, v[0], top))};
                            }});
      continue;
    }
    Value n = arith::UIToFPOp::create(b, loc, ft, arith::IndexCastUIOp::create(b, loc, b.getI64Type(), count));
    Value mean = arith::DivFOp::create(b, loc, one.of(i)[0], n);
    means.push_back(mean);
    second.push_back(Slot{slot.stage, CombinerKind::Sum, {ft},
                          [mean](OpBuilder &b, Location loc, ValueRange v) -> SmallVector<Value> {
                            Value d = arith::SubFOp::create(b, loc, v[0], mean);
                            return {arith::MulFOp::create(b, loc, d, d)};
                          }});
  }
  if (second.empty())
    return;
  LevelStates two = reduce(accumulate(LevelStates::identity(b, loc, p, second)), 1);
  for (auto [i, slot] : llvm::enumerate(two.slots)) {
    linalg::GenericOp op = p.stages[slot.stage].op;
    env.kept[op.getResult(0)] = means[i];
    env.kept[op.getResult(1)] = two.of(i)[0];
    if (CombineOp(p.stages[slot.stage].combine).getKind() == CombinerKind::Welford)
      env.kept[op.getResult(2)] = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), count);
  }
}

std::uint64_t inputsOf(const ReductionProgram &p, ArrayRef<unsigned> stages) {
  // (Slots of one stage read what the stage reads.)
  std::uint64_t m = 0;
  for (unsigned s : stages)
    m |= p.stages[s].fullInputs;
  return m;
}

SmallVector<unsigned> maskBits(std::uint64_t mask, unsigned n) {
  SmallVector<unsigned> out;
  for (unsigned i = 0; i < n; ++i)
    if (mask >> i & 1)
      out.push_back(i);
  return out;
}

Type memoryType(Type t) {
  if (t.isInteger(1))
    return IntegerType::get(t.getContext(), 8);
  return t;
}

Value toMemory(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(1))
    return arith::ExtUIOp::create(b, loc, b.getI8Type(), v);
  return v;
}

Value fromMemory(OpBuilder &b, Location loc, Value v, Type t) {
  if (t.isInteger(1))
    return arith::TruncIOp::create(b, loc, t, v);
  return v;
}

PointEnv laneEnv(const ReductionProgram &p, const PointEnv &kept, ArrayRef<unsigned> inputs,
                 ArrayRef<SmallVector<Value>> elems, unsigned lane, Value r) {
  PointEnv env = kept;
  for (auto [j, in] : llvm::enumerate(inputs))
    env.full[p.fullArg(in)] = elems[j][lane];
  env.reducedIndex = r;
  return env;
}

void bindResults(const LevelStates &states, PointEnv &env) {
  for (auto [i, slot] : llvm::enumerate(states.slots)) {
    linalg::GenericOp op = states.program->stages[slot.stage].op;
    for (auto [c, v] : llvm::enumerate(states.of(i)))
      env.kept[op.getResult(c)] = v;
  }
}

//===----------------------------------------------------------------------===//
// Workspace
//===----------------------------------------------------------------------===//

static unsigned byteSize(Type t) {
  if (auto c = dyn_cast<ComplexType>(t))
    return 2 * byteSize(c.getElementType());
  return std::max(1u, t.getIntOrFloatBitWidth() / 8);
}

Workspace::Workspace(OpBuilder &b, Location loc, const ReductionProgram &p, Value ws, Value nk, Value split)
    : p_(p), ws_(ws) {
  partialLength_ = arith::MulIOp::create(b, loc, nk, split);
  resultLength_ = nk;
  Value offset = cidx(b, loc, 0);
  auto align16 = [&](Value v) -> Value {
    Value up = arith::AddIOp::create(b, loc, v, cidx(b, loc, 15));
    return arith::AndIOp::create(b, loc, up, cidx(b, loc, ~int64_t(15)));
  };
  for (const ReductionStage &s : p.stages) {
    offsets_.emplace_back();
    for (Type t : s.stateTypes) {
      Value bytes = cidx(b, loc, byteSize(memoryType(t)));
      Value partial = align16(offset);
      offset = arith::AddIOp::create(b, loc, partial, arith::MulIOp::create(b, loc, partialLength_, bytes));
      Value result = align16(offset);
      offset = arith::AddIOp::create(b, loc, result, arith::MulIOp::create(b, loc, resultLength_, bytes));
      offsets_.back().push_back({partial, result});
    }
  }
}

Value Workspace::view(OpBuilder &b, Location loc, unsigned stage, unsigned comp, bool result) const {
  Type t = memoryType(p_.stages[stage].stateTypes[comp]);
  auto type = MemRefType::get({ShapedType::kDynamic}, t);
  auto [partial, res] = offsets_[stage][comp];
  return memref::ViewOp::create(b, loc, type, ws_, result ? res : partial,
                                ValueRange{result ? resultLength_ : partialLength_});
}

Value Workspace::loadPartial(OpBuilder &b, Location loc, unsigned stage, unsigned comp, Value slot) const {
  Value v = memref::LoadOp::create(b, loc, view(b, loc, stage, comp, false), ValueRange{slot});
  return fromMemory(b, loc, v, p_.stages[stage].stateTypes[comp]);
}

void Workspace::storePartial(OpBuilder &b, Location loc, unsigned stage, unsigned comp, Value slot, Value v) const {
  memref::StoreOp::create(b, loc, toMemory(b, loc, v), view(b, loc, stage, comp, false), ValueRange{slot});
}

Value Workspace::loadResult(OpBuilder &b, Location loc, unsigned stage, unsigned comp, Value k) const {
  Value v = memref::LoadOp::create(b, loc, view(b, loc, stage, comp, true), ValueRange{k});
  return fromMemory(b, loc, v, p_.stages[stage].stateTypes[comp]);
}

void Workspace::storeResult(OpBuilder &b, Location loc, unsigned stage, unsigned comp, Value k, Value v) const {
  memref::StoreOp::create(b, loc, toMemory(b, loc, v), view(b, loc, stage, comp, true), ValueRange{k});
}

void Workspace::loadResults(OpBuilder &b, Location loc, unsigned level, Value k, PointEnv &env) const {
  for (auto [i, s] : llvm::enumerate(p_.stages)) {
    if (s.level >= level)
      continue;
    linalg::GenericOp op = s.op;
    for (unsigned c = 0; c < s.stateTypes.size(); ++c)
      env.kept[op.getResult(c)] = loadResult(b, loc, i, c, k);
  }
}

//===----------------------------------------------------------------------===//
// GPU: shuffles and trees
//===----------------------------------------------------------------------===//

static Value shuffle32(OpBuilder &b, Location loc, Value v, Value offset, gpu::ShuffleMode mode) {
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 32);
  return gpu::ShuffleOp::create(b, loc, v, offset, width, mode).getShuffleResult();
}

Value shuffle(OpBuilder &b, Location loc, Value v, Value offset, gpu::ShuffleMode mode) {
  Type t = v.getType();
  if (auto c = dyn_cast<ComplexType>(t)) {
    Value re = shuffle(b, loc, complex::ReOp::create(b, loc, v), offset, mode);
    Value im = shuffle(b, loc, complex::ImOp::create(b, loc, v), offset, mode);
    return complex::CreateOp::create(b, loc, c, re, im);
  }
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  if (t.isF32() || t.isInteger(32))
    return shuffle32(b, loc, v, offset, mode);
  if (t.isF64() || t.isInteger(64)) {
    Value bits = t.isF64() ? Value(arith::BitcastOp::create(b, loc, i64, v)) : v;
    Value lo = arith::TruncIOp::create(b, loc, i32, bits);
    Value hi = arith::TruncIOp::create(b, loc, i32, arith::ShRUIOp::create(b, loc, bits, arith::ConstantIntOp::create(b, loc, i64, 32)));
    lo = shuffle32(b, loc, lo, offset, mode);
    hi = shuffle32(b, loc, hi, offset, mode);
    Value joined = arith::OrIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64, lo),
        arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, hi), arith::ConstantIntOp::create(b, loc, i64, 32)));
    return t.isF64() ? Value(arith::BitcastOp::create(b, loc, t, joined)) : joined;
  }
  // i1, i8: widen.
  Value wide = arith::ExtUIOp::create(b, loc, i32, v);
  return arith::TruncIOp::create(b, loc, t, shuffle32(b, loc, wide, offset, mode));
}

LevelStates shuffleStates(OpBuilder &b, Location loc, const LevelStates &s, Value offset, gpu::ShuffleMode mode) {
  LevelStates out = s;
  for (Value &v : out.values)
    v = shuffle(b, loc, v, offset, mode);
  return out;
}

LevelStates warpReduce(OpBuilder &b, Location loc, const LevelStates &s, unsigned lanes) {
  LevelStates acc = s;
  for (unsigned off = lanes / 2; off >= 1; off /= 2) {
    Value o = arith::ConstantIntOp::create(b, loc, b.getI32Type(), off);
    acc = acc.merge(b, loc, shuffleStates(b, loc, acc, o, gpu::ShuffleMode::DOWN));
  }
  return acc;
}

LevelStates broadcastLane0(OpBuilder &b, Location loc, const LevelStates &s) {
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  return shuffleStates(b, loc, s, zero, gpu::ShuffleMode::IDX);
}

SmallVector<Type> blockReduceBufferTypes(MLIRContext *ctx, ArrayRef<Type> types) {
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  SmallVector<Type> out;
  for (Type t : types)
    out.push_back(MemRefType::get({32}, memoryType(t), MemRefLayoutAttrInterface{}, space));
  for (Type t : types)
    out.push_back(MemRefType::get({1}, memoryType(t), MemRefLayoutAttrInterface{}, space));
  return out;
}

BlockReduceBuffers takeBlockReduceBuffers(gpu::GPUFuncOp func, unsigned &next, unsigned n) {
  BlockReduceBuffers buf;
  for (unsigned i = 0; i < n; ++i)
    buf.partial.push_back(func.getWorkgroupAttributions()[next + i]);
  for (unsigned i = 0; i < n; ++i)
    buf.result.push_back(func.getWorkgroupAttributions()[next + n + i]);
  next += 2 * n;
  return buf;
}

void forEachVirtualUnit(OpBuilder &b, Location loc, const Params &params, Value id, Value stride,
                        const std::function<void(Value)> &body) {
  Value start = arith::AddIOp::create(b, loc, params.first, id);
  Value end = arith::AddIOp::create(b, loc, params.first, params.count);
  auto loop = scf::ForOp::create(b, loc, start, end, stride);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(loop.getBody());
  body(loop.getInductionVar());
}

void forEachVirtualBlock(OpBuilder &b, Location loc, const Params &params, const std::function<void(Value)> &body) {
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value gdim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  forEachVirtualUnit(b, loc, params, bid, gdim, body);
}

LevelStates blockReduce(OpBuilder &b, Location loc, const LevelStates &s, unsigned warps, const BlockReduceBuffers &buf,
                        Value lane, Value warp) {
  LevelStates acc = warpReduce(b, loc, s);
  Value zero = cidx(b, loc, 0);
  ifThen(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::eq, lane, zero), [&] {
    for (auto [i, v] : llvm::enumerate(acc.values))
      memref::StoreOp::create(b, loc, toMemory(b, loc, v), buf.partial[i], ValueRange{warp});
  });
  gpu::BarrierOp::create(b, loc);
  ifThen(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::eq, warp, zero), [&] {
    // Lanes past the last warp read a valid slot; only lanes < warps reach lane 0.
    Value slot = arith::AndIOp::create(b, loc, lane, cidx(b, loc, 31));
    LevelStates w = acc;
    for (auto [i, v] : llvm::enumerate(w.values))
      v = fromMemory(b, loc, memref::LoadOp::create(b, loc, buf.partial[i], ValueRange{slot}), v.getType());
    w = warpReduce(b, loc, w, warps);
    ifThen(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::eq, lane, zero), [&] {
      for (auto [i, v] : llvm::enumerate(w.values))
        memref::StoreOp::create(b, loc, toMemory(b, loc, v), buf.result[i], ValueRange{zero});
    });
  });
  gpu::BarrierOp::create(b, loc);
  LevelStates out = acc;
  for (auto [i, v] : llvm::enumerate(out.values))
    v = fromMemory(b, loc, memref::LoadOp::create(b, loc, buf.result[i], ValueRange{zero}), v.getType());
  return out;
}

} // namespace kiln::reduction
