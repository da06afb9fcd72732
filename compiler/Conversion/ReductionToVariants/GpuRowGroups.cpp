//===- GpuRowGroups.cpp - GPU variants: a thread group per kept element ---===//
//
// `_rrows` (a 256-thread block per kept element), `_rrowsw` (a warp per kept
// element, 8 a block) and `_rgeneral` (a warp per kept element or per
// chunk of one, any strides). The group's threads stride over the reduced extent, each folding
// its elements into private states (V lanes of 16-byte vector loads when the
// runtime says rows are aligned, `reduction_vectors`), then the group merges
// them in a fixed tree (warp shuffles, shared memory across warps): the same
// input gives the same bits on every run. Levels run one after the other,
// every thread holding the previous levels' results; the output map then
// runs over the same elements.
//
// Phases (docs/kernel-abi.md): `whole` does everything for whole kept
// elements; `partial`, `combine` and `output` split the reduced extent of
// few, long kept elements across blocks through the workspace.
//
//===----------------------------------------------------------------------===//
#include "Conversion/ReductionToVariants/ReductionVariants.h"
#include "Conversion/ReductionToVariants/VariantCommon.h"

#include "Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>
#include <tuple>

using namespace mlir;

namespace kiln::reduction {
namespace {

constexpr int64_t kBlock = 256;
/// The longest row whose moments a block takes in two passes (see whole()).
constexpr int64_t kTwoPassRow = 8192;
/// Vectors of a row each thread of a block keeps in registers (see
/// whole()): rows of up to 256 · V · kCachedVectors elements are read from
/// memory once, however many levels read them.
constexpr int64_t kCachedVectors = 4;

/// An i32 (a shuffle's offset or lane) from an index value or a constant.
Value i32(OpBuilder &b, Location loc, Value index) { return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index); }
Value i32(OpBuilder &b, Location loc, int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); }

class RowGroupBuilder {
public:
  RowGroupBuilder(const ReductionProgram &p, Layout layout, unsigned group)
      : p_(p), layout_(layout), group_(group), width_(layout == Layout::Rows ? p.vectorWidth() : 1) {}

  void build(OpBuilder &b, gpu::GPUModuleOp module, StringRef name) {
    MLIRContext *ctx = module.getContext();
    b.setInsertionPointToEnd(module.getBody());
    Location loc = mlir::func::FuncOp(p_.func).getLoc();
    // Shared memory: block-reduce buffer sets, per level: the stages'
    // states (split phases), then each pass of foldLevel (whole elements).
    SmallVector<Type> workgroup;
    SmallVector<unsigned> setSizes;
    auto addSet = [&](ArrayRef<Type> types) {
      auto t = blockReduceBufferTypes(ctx, types);
      workgroup.append(t.begin(), t.end());
      setSizes.push_back(types.size());
    };
    if (group_ == kBlock)
      for (unsigned l = 0; l < p_.numLevels; ++l) {
        addSet(stageStateTypes(p_, l));
        for (const auto &pass : foldPassTypes(p_, l))
          addSet(pass);
      }
    FunctionType type = variantSignature(p_, layout_);
    auto func = gpu::GPUFuncOp::create(b, loc, name, type, workgroup);
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func->setAttr(func.getKnownBlockSizeAttrName(), b.getDenseI32ArrayAttr({int32_t(kBlock), 1, 1}));
    // (No register limit here: 4 blocks a multiprocessor (64 registers)
    // measured slower on an H100 for layer norm of 64k x 4k float32, 0.845
    // against 0.793 ms, and var of 16k x 16k, 0.443 against 0.426 ms.)
    Block &entry = func.getBody().front();
    b.setInsertionPointToStart(&entry);
    params_ = bindParams(b, loc, p_, entry.getArguments().take_front(type.getNumInputs()));
    unsigned w = 0;
    for (unsigned n : setSizes) {
      buffers_.push_back(takeBlockReduceBuffers(func, w, n));
    }
    // The first set of each level.
    for (unsigned l = 0, at = 0; group_ == kBlock && l < p_.numLevels; ++l) {
      levelSet_.push_back(at);
      at += 1 + foldPassTypes(p_, l).size();
    }
    space_.emplace(b, loc, layout_, params_);
    reducedFits32_ = cmpIdx(b, loc, arith::CmpIPredicate::ule, space_->reducedExtent(),
                            cidx(b, loc, std::numeric_limits<int32_t>::max()));
    keptFits32_ = cmpIdx(b, loc, arith::CmpIPredicate::ule, space_->keptExtent(),
                         cidx(b, loc, std::numeric_limits<int32_t>::max()));
    eval_.emplace(p_, params_.scalars, space_->keptExtent(), space_->reducedExtent());
    tid_ = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    lane_ = arith::AndIOp::create(b, loc, tid_, cidx(b, loc, 31));
    warp_ = arith::ShRUIOp::create(b, loc, tid_, cidx(b, loc, 5));
    setLanes(b, loc, /*dynamic=*/false);

    Value nk = space_->keptExtent();
    Value units = arith::MulIOp::create(b, loc, nk, params_.split);
    auto phaseIs = [&](reduction_phase ph) {
      return cmpIdx(b, loc, arith::CmpIPredicate::eq, params_.phase, cidx(b, loc, int64_t(ph)));
    };
    auto wholePhase = [&] { forEachUnit(b, loc, nk, [&](Value k) { whole(b, loc, k); }); };
    ifThen(b, loc, phaseIs(reduction_phase::whole), [&] {
      if (!narrows())
        return wholePhase();
      // A warp a kept element as ever (constant lanes: what the loops and
      // shuffles were tuned as), or the runtime's narrower groups.
      Value narrowing = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, params_.flags, cidx(b, loc, reduction_lanes_shift)), cidx(b, loc, 7));
      auto branch = scf::IfOp::create(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::eq, narrowing, cidx(b, loc, 0)),
                                      /*withElseRegion=*/true);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(branch.thenBlock());
      wholePhase();
      b.setInsertionPointToStart(branch.elseBlock());
      const auto fixed = std::make_tuple(thread_, lanes_, groupInBlock_, leader_);
      setLanes(b, loc, /*dynamic=*/true);
      wholePhase();
      std::tie(thread_, lanes_, groupInBlock_, leader_) = fixed; // the values of the other phases
      dynamic_ = false;
    });
    // Split phases: the block variant of rows, and general (a warp per
    // chunk: few kept elements of views whose reduced dimensions do not
    // merge, `sum(x[::2, ::2])`); the warp variant of rows takes whole short
    // rows only.
    if (group_ == kBlock || layout_ == Layout::General) {
      ifThen(b, loc, phaseIs(reduction_phase::partial), [&] {
        forEachLevel(b, loc, [&](unsigned l) { forEachUnit(b, loc, units, [&](Value u) { partial(b, loc, u, l); }); });
      });
      ifThen(b, loc, phaseIs(reduction_phase::combine), [&] {
        forEachLevel(b, loc, [&](unsigned l) { forEachUnit(b, loc, nk, [&](Value k) { combine(b, loc, k, l); }); });
      });
      if (!p_.keptOutput)
        ifThen(b, loc, phaseIs(reduction_phase::output),
               [&] { forEachUnit(b, loc, units, [&](Value u) { output(b, loc, u); }); });
    }
    gpu::ReturnOp::create(b, loc);
  }

private:
  unsigned groupsPerBlock() const { return kBlock / group_; }

  /// This thread's place: its lane within its kept element's group of
  /// group_ lanes (`dynamic`: the runtime's 32 >> narrowing lanes).
  void setLanes(OpBuilder &b, Location loc, bool dynamic) {
    dynamic_ = dynamic;
    thread_ = group_ == kBlock ? tid_ : lane_;
    lanes_ = cidx(b, loc, group_);
    groupInBlock_ = warp_;
    if (dynamic) {
      Value narrowing = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, params_.flags, cidx(b, loc, reduction_lanes_shift)), cidx(b, loc, 7));
      Value shift = arith::SubIOp::create(b, loc, cidx(b, loc, 5), narrowing);
      lanes_ = arith::ShLIOp::create(b, loc, cidx(b, loc, 1), shift);
      thread_ = arith::AndIOp::create(b, loc, lane_, arith::SubIOp::create(b, loc, lanes_, cidx(b, loc, 1)));
      groupInBlock_ = arith::ShRUIOp::create(b, loc, tid_, shift);
      groupsPerBlock_ = arith::ShRUIOp::create(b, loc, cidx(b, loc, kBlock), shift);
    }
    leader_ = cmpIdx(b, loc, arith::CmpIPredicate::eq, thread_, cidx(b, loc, 0));
  }

  /// Whether the groups are narrower than a warp when the runtime says so:
  /// the warp variants (rows, general), whose rows may be a few elements
  /// long (var of 17M rows of 3: a warp a row left 29 of its lanes idle,
  /// 0.01 of the roofline), or whose kept elements lie closer together in
  /// memory than their reduced ones (a column of a stepped view: a thread
  /// each, so that a warp reads neighbouring columns). Lanes per kept
  /// element: 32 >> (flags >> 8 & 7).
  bool narrows() const { return group_ == 32; }

  /// Runs `body(unit)` for each unit of work of this block: virtual blocks
  /// first + blockIdx, stepping by gridDim; each holds groupsPerBlock units.
  void forEachUnit(OpBuilder &b, Location loc, Value total, const std::function<void(Value)> &body) {
    forEachVirtualBlock(b, loc, params_, [&](Value vb) {
      if (group_ == kBlock) {
        body(vb); // the runtime launches exactly `total` virtual blocks
        return;
      }
      if (dynamic_) {
        // Every lane of a warp must take part in its groups' shuffles: a
        // group past the end takes the last unit again (the same values to
        // the same places).
        Value unit = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, vb, groupsPerBlock_), groupInBlock_);
        body(minIdx(b, loc, unit, arith::SubIOp::create(b, loc, total, cidx(b, loc, 1))));
        return;
      }
      Value unit =
          arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, vb, cidx(b, loc, groupsPerBlock())), warp_);
      ifThen(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::ult, unit, total), [&] { body(unit); });
    });
  }

  void forEachLevel(OpBuilder &b, Location loc, const std::function<void(unsigned)> &body) {
    for (unsigned l = 0; l < p_.numLevels; ++l)
      ifThen(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::eq, params_.level, cidx(b, loc, l)), [&] { body(l); });
  }

  /// The kept values of element k: index and kept inputs.
  PointEnv keptEnv(OpBuilder &b, Location loc, Value k) {
    PointEnv env;
    env.keptIndex = k;
    keptCoords_ = layout_ == Layout::General ? space_->keptCoordsNarrow(b, loc, k, keptFits32_)
                                             : space_->keptCoords(b, loc, k);
    for (unsigned j = 0; j < p_.numKept(); ++j)
      env.kept[p_.keptArg(j)] = memref::LoadOp::create(b, loc, params_.kept[j], keptCoords_);
    return env;
  }

  /// Indices of full operand element (kept coords, r).
  SmallVector<Value> fullIndices(OpBuilder &b, Location loc, Value r) {
    SmallVector<Value> idx(keptCoords_);
    if (layout_ == Layout::General) {
      auto rc = space_->reducedCoordsNarrow(b, loc, r, reducedFits32_);
      idx.append(rc.begin(), rc.end());
    } else {
      idx.push_back(r);
    }
    return idx;
  }

  /// The reduced range of `split` chunk `s`: whole vectors per chunk.
  std::pair<Value, Value> chunk(OpBuilder &b, Location loc, Value s) {
    Value nr = space_->reducedExtent();
    Value v = cidx(b, loc, width_);
    Value size = arith::MulIOp::create(b, loc, ceilDiv(b, loc, ceilDiv(b, loc, nr, params_.split), v), v);
    Value begin = minIdx(b, loc, arith::MulIOp::create(b, loc, s, size), nr);
    Value end = minIdx(b, loc, arith::AddIOp::create(b, loc, begin, size), nr);
    return {begin, end};
  }

  /// Folds elements [rbeg, rend) of the current kept element into `init`
  /// (this thread's share: every group_-th element or vector).
  LevelStates accumulate(OpBuilder &b, Location loc, Value rbeg, Value rend, const LevelStates &init, const PointEnv &kenv) {
    SmallVector<unsigned> inputs = maskBits(inputsOf(p_, init.stages()), p_.numFull());
    Value g = lanes_;
    LevelStates acc = init;
    Value tailStart = rbeg;
    if (cache_) {
      // The thread's vectors from registers, in the order the loop below
      // takes them (the same bits).
      unsigned n = init.values.size();
      SmallVector<LevelStates> lanes(width_, init);
      for (int64_t u = 0; u < kCachedVectors; ++u) {
        SmallVector<Value> cur;
        for (const LevelStates &l : lanes)
          cur.append(l.values.begin(), l.values.end());
        SmallVector<Type> types;
        for (Value v : cur)
          types.push_back(v.getType());
        auto branch = scf::IfOp::create(b, loc, types, cache_->valid[u], /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(branch.thenBlock());
          SmallVector<SmallVector<Value>> elems;
          for (unsigned in : inputs)
            elems.push_back(cachedOrLoaded(b, loc, in, u));
          SmallVector<PointEnv> envs;
          for (unsigned lane = 0; lane < width_; ++lane)
            envs.push_back(laneEnv(p_, kenv, inputs, elems, lane,
                                   arith::AddIOp::create(b, loc, cache_->r0[u], cidx(b, loc, lane))));
          SmallVector<Value> next;
          for (const LevelStates &upd : LevelStates::updateVector(b, loc, *eval_, envs, lanes))
            next.append(upd.values.begin(), upd.values.end());
          scf::YieldOp::create(b, loc, next);
          b.setInsertionPointToStart(branch.elseBlock());
          scf::YieldOp::create(b, loc, cur);
        }
        for (unsigned lane = 0; lane < width_; ++lane)
          lanes[lane] = init.with(branch.getResults().slice(lane * n, n));
      }
      acc = LevelStates::mergeTree(b, loc, lanes);
      tailStart = cache_->tailStart;
    } else if (layout_ == Layout::Rows && width_ > 1) {
      Value v = cidx(b, loc, width_);
      Value vecOk = flagSet(b, loc, params_.flags, reduction_vectors);
      Value all = arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, rend, rbeg), v);
      Value nv = arith::SelectOp::create(b, loc, vecOk, all, cidx(b, loc, 0));
      SmallVector<Value> inits;
      for (unsigned lane = 0; lane < width_; ++lane)
        inits.append(init.values.begin(), init.values.end());
      unsigned n = init.values.size();
      auto loop = stridedLoop(b, loc, thread_, nv, g, inits, [&](Value c, ValueRange args) {
        Value r0 = arith::AddIOp::create(b, loc, rbeg, arith::MulIOp::create(b, loc, c, v));
        SmallVector<SmallVector<Value>> elems = loadVectors(b, loc, inputs, r0);
        SmallVector<PointEnv> envs;
        SmallVector<LevelStates> mine;
        for (unsigned lane = 0; lane < width_; ++lane) {
          PointEnv env = laneEnv(p_, kenv, inputs, elems, lane, arith::AddIOp::create(b, loc, r0, cidx(b, loc, lane)));
          envs.push_back(env);
          mine.push_back(init.with(args.slice(lane * n, n)));
        }
        SmallVector<Value> next;
        for (const LevelStates &upd : LevelStates::updateVector(b, loc, *eval_, envs, mine))
          next.append(upd.values.begin(), upd.values.end());
        return next;
      });
      // Four vectors a thread in flight: the loads of the next steps do not
      // wait for this step's arithmetic.
      SmallVector<Value> results = unrollLoop(loop, 4);
      SmallVector<LevelStates> lanes;
      for (unsigned lane = 0; lane < width_; ++lane)
        lanes.push_back(init.with(ValueRange(results).slice(lane * n, n)));
      acc = LevelStates::mergeTree(b, loc, lanes);
      tailStart = arith::AddIOp::create(b, loc, rbeg, arith::MulIOp::create(b, loc, nv, v));
    }
    Value first = arith::AddIOp::create(b, loc, tailStart, thread_);
    auto tailLoop = [&]() -> SmallVector<Value> {
      auto tail = scf::ForOp::create(b, loc, first, rend, g, acc.values);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(tail.getBody());
        Value r = tail.getInductionVar();
        PointEnv env = kenv;
        SmallVector<Value> idx = fullIndices(b, loc, r);
        for (unsigned in : inputs)
          env.full[p_.fullArg(in)] = memref::LoadOp::create(b, loc, params_.full[in], idx);
        env.reducedIndex = r;
        LevelStates upd = acc.with(tail.getRegionIterArgs()).update(b, loc, *eval_, env);
        scf::YieldOp::create(b, loc, upd.values);
      }
      if (layout_ == Layout::General && !cache_) // every element comes here: four loads a thread in flight
        return unrollLoop(tail, 4, /*maskedTail=*/true);
      return SmallVector<Value>(tail.getResults());
    };
    if (!(layout_ == Layout::General && dynamic_))
      return acc.with(tailLoop());
    // A thread a kept element (general columns): its reduced coordinates
    // step as an odometer, no division an element.
    SmallVector<Type> types;
    for (Value v : acc.values)
      types.push_back(v.getType());
    auto branch = scf::IfOp::create(b, loc, types, cmpIdx(b, loc, arith::CmpIPredicate::eq, lanes_, cidx(b, loc, 1)),
                                    /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      SmallVector<Value> inits(acc.values);
      SmallVector<Value> start = space_->startReducedCoords(b, loc, first);
      inits.append(start.begin(), start.end());
      const unsigned n = acc.values.size();
      auto loop = scf::ForOp::create(b, loc, first, rend, cidx(b, loc, 1), inits);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(loop.getBody());
        ValueRange args = loop.getRegionIterArgs();
        SmallVector<Value> coords(args.drop_front(n));
        PointEnv env = kenv;
        SmallVector<Value> idx(keptCoords_);
        idx.append(coords.begin(), coords.end());
        for (unsigned in : inputs)
          env.full[p_.fullArg(in)] = memref::LoadOp::create(b, loc, params_.full[in], idx);
        env.reducedIndex = loop.getInductionVar();
        SmallVector<Value> next = acc.with(args.take_front(n)).update(b, loc, *eval_, env).values;
        SmallVector<Value> step = space_->nextReducedCoords(b, loc, coords);
        next.append(step.begin(), step.end());
        scf::YieldOp::create(b, loc, next);
      }
      // Short columns (a few rows each) come here: their elements read at once.
      SmallVector<Value> results = unrollLoop(loop, 4, /*maskedTail=*/true);
      scf::YieldOp::create(b, loc, ValueRange(results).take_front(n));
      b.setInsertionPointToStart(branch.elseBlock());
      scf::YieldOp::create(b, loc, tailLoop());
    }
    return acc.with(branch.getResults());
  }

  /// Vector loads of `width_` elements at (kept, r0) of each input; the
  /// elements of input j are result[j][lane].
  SmallVector<SmallVector<Value>> loadVectors(OpBuilder &b, Location loc, ArrayRef<unsigned> inputs, Value r0) {
    SmallVector<SmallVector<Value>> out;
    for (unsigned in : inputs) {
      Type t = p_.fullTypes[in];
      auto vt = VectorType::get({int64_t(width_)}, t);
      SmallVector<Value> idx(keptCoords_);
      idx.push_back(r0);
      unsigned bytes = std::max(1u, t.getIntOrFloatBitWidth() / 8);
      Value vec = vector::LoadOp::create(b, loc, vt, params_.full[in], idx, /*nontemporal=*/false,
                                         llvm::Align(width_ * bytes));
      SmallVector<Value> lanes;
      for (unsigned lane = 0; lane < width_; ++lane)
        lanes.push_back(vector::ExtractOp::create(b, loc, vec, int64_t(lane)));
      out.push_back(lanes);
    }
    return out;
  }

  /// Merges the group's states; every thread of the group gets the result.
  /// `pass` 0 is the stages' own states, 1 and 2 foldLevel's passes.
  LevelStates groupReduce(OpBuilder &b, Location loc, const LevelStates &s, unsigned level, unsigned pass = 0) {
    if (group_ == kBlock)
      return blockReduce(b, loc, s, kBlock / 32, buffers_[levelSet_[level] + pass], lane_, warp_);
    if (!dynamic_)
      return broadcastLane0(b, loc, warpReduce(b, loc, s));
    // Groups of lanes_ aligned lanes: shuffles down by less than lanes_ (the
    // branch is uniform, so every lane shuffles), then each group's first
    // lane to the others.
    LevelStates acc = s;
    for (int64_t off = 16; off >= 1; off /= 2) {
      SmallVector<Type> types;
      for (Value v : acc.values)
        types.push_back(v.getType());
      auto branch = scf::IfOp::create(b, loc, types, cmpIdx(b, loc, arith::CmpIPredicate::ult, cidx(b, loc, off), lanes_),
                                      /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      scf::YieldOp::create(b, loc, acc.merge(b, loc, shuffleStates(b, loc, acc, i32(b, loc, off), gpu::ShuffleMode::DOWN)).values);
      b.setInsertionPointToStart(branch.elseBlock());
      scf::YieldOp::create(b, loc, acc.values);
      acc = acc.with(branch.getResults());
    }
    Value first = arith::SubIOp::create(b, loc, lane_, thread_);
    return shuffleStates(b, loc, acc, i32(b, loc, first), gpu::ShuffleMode::IDX);
  }

  /// The full-space output over [rbeg, rend) of the current kept element.
  void writeRange(OpBuilder &b, Location loc, Value rbeg, Value rend, const PointEnv &kenv) {
    rend = fullOutputEnd(b, loc, params_.flags, rbeg, rend);
    SmallVector<unsigned> inputs = maskBits(p_.mapInputs, p_.numFull());
    Value g = lanes_;
    Value tailStart = rbeg;
    if (layout_ == Layout::Rows && width_ > 1) {
      Value v = cidx(b, loc, width_);
      Value vecOk = flagSet(b, loc, params_.flags, reduction_vectors);
      Value all = arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, rend, rbeg), v);
      Value nv = arith::SelectOp::create(b, loc, vecOk, all, cidx(b, loc, 0));
      auto loop = scf::ForOp::create(b, loc, thread_, nv, g);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        Value r0 = arith::AddIOp::create(b, loc, rbeg, arith::MulIOp::create(b, loc, loop.getInductionVar(), v));
        SmallVector<SmallVector<Value>> elems = loadVectors(b, loc, inputs, r0);
        SmallVector<Value> results;
        for (unsigned lane = 0; lane < width_; ++lane) {
          PointEnv env = laneEnv(p_, kenv, inputs, elems, lane, arith::AddIOp::create(b, loc, r0, cidx(b, loc, lane)));
          results.push_back(eval_->valueAt(b, p_.result, env));
        }
        auto vt = VectorType::get({int64_t(width_)}, p_.outputType);
        Value vec = vector::FromElementsOp::create(b, loc, vt, results);
        SmallVector<Value> idx(keptCoords_);
        idx.push_back(r0);
        unsigned bytes = std::max(1u, p_.outputType.getIntOrFloatBitWidth() / 8);
        vector::StoreOp::create(b, loc, vec, params_.out, idx, /*nontemporal=*/false, llvm::Align(width_ * bytes));
      }
      tailStart = arith::AddIOp::create(b, loc, rbeg, arith::MulIOp::create(b, loc, nv, v));
    }
    Value first = arith::AddIOp::create(b, loc, tailStart, thread_);
    auto writeAt = [&](Value r, ArrayRef<Value> idx) {
      PointEnv env = kenv;
      for (unsigned in : inputs)
        env.full[p_.fullArg(in)] = memref::LoadOp::create(b, loc, params_.full[in], idx);
      env.reducedIndex = r;
      memref::StoreOp::create(b, loc, eval_->valueAt(b, p_.result, env), params_.out, idx);
    };
    auto tailLoop = [&] {
      auto tail = scf::ForOp::create(b, loc, first, rend, g);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(tail.getBody());
      Value r = tail.getInductionVar();
      writeAt(r, fullIndices(b, loc, r));
    };
    if (!(layout_ == Layout::General && dynamic_))
      return tailLoop();
    // A thread a kept element: reduced coordinates as an odometer (see accumulate).
    auto branch = scf::IfOp::create(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::eq, lanes_, cidx(b, loc, 1)),
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    auto loop = scf::ForOp::create(b, loc, first, rend, cidx(b, loc, 1), space_->startReducedCoords(b, loc, first));
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> coords(loop.getRegionIterArgs());
      SmallVector<Value> idx(keptCoords_);
      idx.append(coords.begin(), coords.end());
      writeAt(loop.getInductionVar(), idx);
      scf::YieldOp::create(b, loc, space_->nextReducedCoords(b, loc, coords));
    }
    b.setInsertionPointToStart(branch.elseBlock());
    tailLoop();
  }

  /// The row's vectors this thread takes (vector thread + 256 u for u <
  /// kCachedVectors): those of the inputs read again loaded once into
  /// registers; a vector past the row is loaded from the row's first
  /// (always in range) and never used.
  struct RowCache {
    SmallVector<Value> valid, r0; ///< per u
    llvm::DenseMap<unsigned, SmallVector<SmallVector<Value>>> elems; ///< input -> u -> lane
    Value tailStart;              ///< the first element past the whole vectors
  };

  void loadRowCache(OpBuilder &b, Location loc, Value nr) {
    RowCache c;
    Value v = cidx(b, loc, width_);
    Value nv = arith::DivUIOp::create(b, loc, nr, v);
    for (int64_t u = 0; u < kCachedVectors; ++u) {
      Value vi = arith::AddIOp::create(b, loc, thread_, cidx(b, loc, u * kBlock));
      Value valid = cmpIdx(b, loc, arith::CmpIPredicate::ult, vi, nv);
      c.valid.push_back(valid);
      c.r0.push_back(arith::MulIOp::create(b, loc, vi, v));
      Value safe = arith::MulIOp::create(b, loc, arith::SelectOp::create(b, loc, valid, vi, cidx(b, loc, 0)), v);
      for (unsigned in : maskBits(rereadInputs(), p_.numFull()))
        c.elems[in].push_back(loadVectors(b, loc, {in}, safe)[0]);
    }
    c.tailStart = arith::MulIOp::create(b, loc, nv, v);
    cache_ = std::move(c);
  }

  /// The full inputs read more than once: by several levels, or by a
  /// logsumexp stage (foldLevel's two passes). A cached row keeps them in
  /// registers (an input read once is loaded where it is read).
  std::uint64_t rereadInputs() const {
    std::uint64_t seen = 0, again = 0;
    for (unsigned l = 0; l < p_.numLevels; ++l) {
      std::uint64_t m = 0;
      for (unsigned st : p_.stagesAt(l)) {
        m |= p_.stages[st].fullInputs;
        if (CombineOp(p_.stages[st].combine).getKind() == CombinerKind::LogSumExp)
          again |= p_.stages[st].fullInputs;
      }
      again |= seen & m;
      seen |= m;
    }
    return again;
  }

  /// Input `in`'s elements of vector u of a cached row: from registers, or
  /// loaded.
  SmallVector<Value> cachedOrLoaded(OpBuilder &b, Location loc, unsigned in, int64_t u) {
    auto it = cache_->elems.find(in);
    if (it != cache_->elems.end())
      return it->second[u];
    return loadVectors(b, loc, {in}, cache_->r0[u])[0];
  }

  /// Whether whole kept elements keep their rows in registers where they
  /// fit: several levels reading the same real inputs, a kept output, no
  /// moments. On an H200, logsumexp of 64k x 4k float32 0.328 -> 0.308 ms
  /// (the second level read each row through L2) at the same 58 registers;
  /// where the output is a full-space array (softmax) or a level holds
  /// moments (layer norm) the registers grew to 80 and 128 and the kernels
  /// slowed, 0.643 -> 0.688 and 0.681 -> 0.897 ms: not cached.
  bool cachesRows() const {
    if (group_ != kBlock || layout_ != Layout::Rows || width_ < 2 || !p_.keptOutput)
      return false;
    if (llvm::any_of(p_.fullTypes, [](Type t) { return isa<ComplexType>(t); }))
      return false;
    for (const ReductionStage &st : p_.stages)
      if (CombineOp(st.combine).getKind() == CombinerKind::Welford)
        return false;
    return rereadInputs() != 0;
  }

  void storeKeptOutput(OpBuilder &b, Location loc, const PointEnv &env) {
    ifThen(b, loc, leader_, [&] {
      memref::StoreOp::create(b, loc, eval_->valueAt(b, p_.result, env), params_.out, keptCoords_);
    });
  }

  /// A whole kept element: from registers where its row of aligned
  /// vectors fits them (cachesRows), else from memory.
  void whole(OpBuilder &b, Location loc, Value k) {
    if (!cachesRows()) {
      wholeFrom(b, loc, k);
      return;
    }
    Value nr = space_->reducedExtent();
    Value fits = arith::AndIOp::create(
        b, loc, flagSet(b, loc, params_.flags, reduction_vectors),
        cmpIdx(b, loc, arith::CmpIPredicate::ule, nr, cidx(b, loc, kBlock * width_ * kCachedVectors)));
    auto branch = scf::IfOp::create(b, loc, TypeRange{}, fits, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(branch.thenBlock());
    PointEnv env = keptEnv(b, loc, k);
    loadRowCache(b, loc, nr);
    wholeFrom(b, loc, k, &env);
    cache_.reset();
    b.setInsertionPointToStart(branch.elseBlock());
    wholeFrom(b, loc, k);
  }

  void wholeFrom(OpBuilder &b, Location loc, Value k, const PointEnv *given = nullptr) {
    PointEnv env = given ? *given : keptEnv(b, loc, k);
    Value zero = cidx(b, loc, 0), nr = space_->reducedExtent();
    for (unsigned l = 0; l < p_.numLevels; ++l) {
      auto accumulateRow = [&](const LevelStates &init) { return accumulate(b, loc, zero, nr, init, env); };
      auto has = [&](CombinerKind kind) {
        return llvm::any_of(p_.stagesAt(l), [&](unsigned s) { return CombineOp(p_.stages[s].combine).getKind() == kind; });
      };
      // A logsumexp stage (softmax's max and sum) takes foldLevel's two
      // passes below, the max then exp(v - max), as the two-level program
      // did: the online update costs more arithmetic an element, and a
      // short-row branch to it more registers (softmax of 64k x 4k float32
      // on an H200: 0.711 ms with the branch, two passes as before 0.64).
      bool moments = has(CombinerKind::Welford), online = has(CombinerKind::LogSumExp);
      auto onePass = [&](PointEnv &e) {
        LevelStates st = accumulateRow(LevelStates::identity(b, loc, p_, p_.stagesAt(l)));
        bindResults(groupReduce(b, loc, st, l), e);
      };
      if (group_ == kBlock && !moments && !online) {
        onePass(env);
        continue;
      }
      if (group_ == kBlock && moments) {
        // Moments of a block's row: two exact passes while the row stays in
        // L1 (up to kTwoPassRow elements: layer norm of 4096 columns ran at
        // 0.97 of the device copy, against 0.64 in one pass), one pass with
        // Welford over vectors beyond (var of 16384 columns: 0.92, against
        // 0.64 in two passes, the second from L2).
        SmallVector<Value> results;
        SmallVector<Type> types;
        for (unsigned s : p_.stagesAt(l))
          for (auto [c, t] : llvm::enumerate(p_.stages[s].stateTypes)) {
            results.push_back(linalg::GenericOp(p_.stages[s].op).getResult(c));
            types.push_back(t);
          }
        Value shortRow = cmpIdx(b, loc, arith::CmpIPredicate::ule, nr, cidx(b, loc, kTwoPassRow));
        auto branch = scf::IfOp::create(b, loc, types, shortRow, /*withElseRegion=*/true);
        for (bool two : {true, false}) {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(two ? branch.thenBlock() : branch.elseBlock());
          PointEnv e = env;
          if (two)
            foldLevel(b, loc, p_, l, nr, e, accumulateRow,
                      [&](const LevelStates &s, unsigned pass) { return groupReduce(b, loc, s, l, 1 + pass); });
          else
            onePass(e);
          SmallVector<Value> yields;
          for (Value r : results)
            yields.push_back(e.kept.lookup(r));
          scf::YieldOp::create(b, loc, yields);
        }
        for (auto [r, v] : llvm::zip(results, branch.getResults()))
          env.kept[r] = v;
        continue;
      }
      // A warp's rows are short, and a block's logsumexp stages take two
      // passes: the second from L1 (or L2 for long rows).
      foldLevel(b, loc, p_, l, nr, env, accumulateRow,
                [&](const LevelStates &s, unsigned pass) { return groupReduce(b, loc, s, l, 1 + pass); });
    }
    if (p_.keptOutput)
      storeKeptOutput(b, loc, env);
    else
      writeRange(b, loc, zero, nr, env);
  }

  void partial(OpBuilder &b, Location loc, Value unit, unsigned level) {
    Value k = arith::DivUIOp::create(b, loc, unit, params_.split);
    Value s = arith::RemUIOp::create(b, loc, unit, params_.split);
    PointEnv env = keptEnv(b, loc, k);
    Workspace ws(b, loc, p_, params_.workspace, space_->keptExtent(), params_.split);
    ws.loadResults(b, loc, level, k, env);
    auto [rbeg, rend] = chunk(b, loc, s);
    LevelStates init = LevelStates::identity(b, loc, p_, p_.stagesAt(level));
    LevelStates st = groupReduce(b, loc, accumulate(b, loc, rbeg, rend, init, env), level);
    ifThen(b, loc, leader_, [&] {
      for (auto [i, si] : llvm::enumerate(st.stages()))
        for (auto [c, v] : llvm::enumerate(st.of(i)))
          ws.storePartial(b, loc, si, c, unit, v);
    });
  }

  void combine(OpBuilder &b, Location loc, Value k, unsigned level) {
    Workspace ws(b, loc, p_, params_.workspace, space_->keptExtent(), params_.split);
    LevelStates init = LevelStates::identity(b, loc, p_, p_.stagesAt(level));
    Value base = arith::MulIOp::create(b, loc, k, params_.split);
    auto loop = scf::ForOp::create(b, loc, thread_, params_.split, lanes_, init.values);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value slot = arith::AddIOp::create(b, loc, base, loop.getInductionVar());
      LevelStates part = init;
      part.values.clear();
      for (auto [i, si] : llvm::enumerate(init.stages()))
        for (unsigned c = 0; c < p_.stages[si].stateTypes.size(); ++c)
          part.values.push_back(ws.loadPartial(b, loc, si, c, slot));
      scf::YieldOp::create(b, loc, init.with(loop.getRegionIterArgs()).merge(b, loc, part).values);
    }
    LevelStates st = groupReduce(b, loc, init.with(loop.getResults()), level);
    ifThen(b, loc, leader_, [&] {
      for (auto [i, si] : llvm::enumerate(st.stages()))
        for (auto [c, v] : llvm::enumerate(st.of(i)))
          ws.storeResult(b, loc, si, c, k, v);
    });
    if (p_.keptOutput && level + 1 == p_.numLevels) {
      PointEnv env = keptEnv(b, loc, k);
      ws.loadResults(b, loc, level, k, env);
      bindResults(st, env);
      storeKeptOutput(b, loc, env);
    }
  }

  void output(OpBuilder &b, Location loc, Value unit) {
    Value k = arith::DivUIOp::create(b, loc, unit, params_.split);
    Value s = arith::RemUIOp::create(b, loc, unit, params_.split);
    PointEnv env = keptEnv(b, loc, k);
    Workspace ws(b, loc, p_, params_.workspace, space_->keptExtent(), params_.split);
    ws.loadResults(b, loc, p_.numLevels, k, env);
    auto [rbeg, rend] = chunk(b, loc, s);
    writeRange(b, loc, rbeg, rend, env);
  }

  const ReductionProgram &p_;
  Layout layout_;
  unsigned group_, width_;
  Params params_;
  std::optional<Space> space_;
  std::optional<ProgramEvaluator> eval_;
  SmallVector<BlockReduceBuffers> buffers_;
  SmallVector<unsigned> levelSet_;
  Value lane_, warp_, thread_, leader_;
  Value reducedFits32_;  ///< the reduced extent is below 2^31 (32-bit coordinates)
  Value keptFits32_;     ///< the kept extent is below 2^31
  Value lanes_;          ///< lanes per kept element (index): group_, or the runtime's
  Value groupInBlock_;   ///< this thread's group in its block
  Value groupsPerBlock_; ///< (dynamic_ only)
  Value tid_;
  bool dynamic_ = false; ///< the lanes per kept element are the runtime's
  SmallVector<Value> keptCoords_;
  std::optional<RowCache> cache_; ///< set while a cached row is built
};

} // namespace

void buildGpuRows(OpBuilder &b, gpu::GPUModuleOp module, const ReductionProgram &p, StringRef name, bool warp) {
  RowGroupBuilder(p, Layout::Rows, warp ? 32 : kBlock).build(b, module, name);
}

void buildGpuGeneral(OpBuilder &b, gpu::GPUModuleOp module, const ReductionProgram &p, StringRef name) {
  RowGroupBuilder(p, Layout::General, 32).build(b, module, name);
}

} // namespace kiln::reduction
