//===- VariantCommon.cpp - Shared pieces of reduction variants ------------===//
#include "Conversion/ReductionToVariants/VariantCommon.h"

#include "Dialect/Kiln/IR/Combiner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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

//===----------------------------------------------------------------------===//
// States
//===----------------------------------------------------------------------===//

LevelStates LevelStates::identity(OpBuilder &b, Location loc, const ReductionProgram &p, ArrayRef<unsigned> stages) {
  LevelStates s;
  s.program = &p;
  s.stages.assign(stages.begin(), stages.end());
  for (unsigned i : stages) {
    const ReductionStage &st = p.stages[i];
    CombineOp combine = st.combine;
    auto id = buildCombinerIdentity(b, loc, combine.getKind(), st.stateTypes);
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
    offset += program->stages[stages[j]].stateTypes.size();
  return ValueRange(values).slice(offset, program->stages[stages[i]].stateTypes.size());
}

SmallVector<Type> LevelStates::types() const {
  SmallVector<Type> t;
  for (Value v : values)
    t.push_back(v.getType());
  return t;
}

LevelStates LevelStates::update(OpBuilder &b, Location loc, ProgramEvaluator &eval, const PointEnv &env) const {
  LevelStates out = *this;
  out.values.clear();
  for (auto [i, si] : llvm::enumerate(stages)) {
    const ReductionStage &st = program->stages[si];
    CombineOp combine = st.combine;
    SmallVector<Value> vals = eval.stageValues(b, st, env);
    auto next = buildCombinerUpdate(b, loc, combine.getKind(), of(i), vals);
    out.values.append(next.begin(), next.end());
  }
  return out;
}

LevelStates LevelStates::merge(OpBuilder &b, Location loc, const LevelStates &other) const {
  LevelStates out = *this;
  out.values.clear();
  for (auto [i, si] : llvm::enumerate(stages)) {
    CombineOp combine = program->stages[si].combine;
    auto next = buildCombinerMerge(b, loc, combine.getKind(), of(i), other.of(i));
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

std::uint64_t inputsOf(const ReductionProgram &p, ArrayRef<unsigned> stages) {
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

void bindResults(const LevelStates &states, PointEnv &env) {
  for (auto [i, si] : llvm::enumerate(states.stages)) {
    linalg::GenericOp op = states.program->stages[si].op;
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

static LevelStates shuffled(OpBuilder &b, Location loc, const LevelStates &s, Value offset, gpu::ShuffleMode mode) {
  LevelStates out = s;
  for (Value &v : out.values)
    v = shuffle(b, loc, v, offset, mode);
  return out;
}

LevelStates warpReduce(OpBuilder &b, Location loc, const LevelStates &s, unsigned lanes) {
  LevelStates acc = s;
  for (unsigned off = lanes / 2; off >= 1; off /= 2) {
    Value o = arith::ConstantIntOp::create(b, loc, b.getI32Type(), off);
    acc = acc.merge(b, loc, shuffled(b, loc, acc, o, gpu::ShuffleMode::DOWN));
  }
  return acc;
}

LevelStates broadcastLane0(OpBuilder &b, Location loc, const LevelStates &s) {
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  return shuffled(b, loc, s, zero, gpu::ShuffleMode::IDX);
}

SmallVector<Type> blockReduceBufferTypes(MLIRContext *ctx, const ReductionProgram &p, ArrayRef<unsigned> stages) {
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  SmallVector<Type> types;
  for (unsigned s : stages)
    for (Type t : p.stages[s].stateTypes)
      types.push_back(MemRefType::get({32}, memoryType(t), MemRefLayoutAttrInterface{}, space));
  for (unsigned s : stages)
    for (Type t : p.stages[s].stateTypes)
      types.push_back(MemRefType::get({1}, memoryType(t), MemRefLayoutAttrInterface{}, space));
  return types;
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
