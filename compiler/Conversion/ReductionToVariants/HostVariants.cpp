//===- HostVariants.cpp - Host variants of reduction kernels --------------===//
//
// The host forms of `_rrows`, `_rcols` and `_rgeneral`: the same parameters
// and phases as the GPU variants, a virtual block at a time (the runtime
// spreads [first, first + count) over its thread pool). Rows fold 2V lanes
// at a time (16-byte vector loads, lanes LLVM turns into SIMD), chunk by
// chunk, and merge the chunks' states pairwise through a binary counter (a
// stack of partial states, as NumPy's pairwise sum): float sums stay
// accurate over any length, and the order depends only on the length.
// Columns keep one state per column of a tile and walk rows outside, so the
// inner loop runs along the contiguous columns; chunks of 128 rows merge
// pairwise through a binary counter as well. The combine phase merges a
// kept element's chunk states as a pairwise tree.
//
//===----------------------------------------------------------------------===//
#include "Conversion/ReductionToVariants/ReductionVariants.h"
#include "Conversion/ReductionToVariants/VariantCommon.h"
#include "Dialect/Kiln/IR/Combiner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln::reduction {
namespace {

/// Columns of a host `_rcols` tile: a row of a tile is 16 KiB of float32
/// read in one sweep, so the hardware prefetcher streams whole pages.
/// mean(x, 0) of 4k x 4k float32 on 2 cores, against NumPy's time: 64
/// columns 1.93, 512 columns 1.0-2.0 (noisy), 1024 1.2, 2048 1.1, 4096
/// 0.8-0.95.
constexpr int64_t kHostTile = 4096;
/// Larger scratch arrays go on the heap (entryAlloca).
constexpr int64_t kStackScratchBytes = 16384;
/// Vectors per chunk of a host row (the pairwise tree's leaves).
constexpr int64_t kChunkVectors = 16;
/// Elements per chunk of the general layout's pairwise tree (NumPy's
/// block of 128).
constexpr int64_t kGeneralChunk = 128;
/// Rows per chunk of a host column tile (the pairwise tree's leaves), and
/// the levels of its binary counter (columns of up to 128 · 2^32 rows).
constexpr int64_t kColumnChunk = 128, kColumnStackLevels = 32;

class HostBuilder {
public:
  HostBuilder(const ReductionProgram &p, Layout layout)
      : p_(p), layout_(layout), lanes_(layout == Layout::Rows ? 2 * p.vectorWidth() : 1) {}
  // (2 vectors a step: at most 8 lanes, see ReductionProgram::vectorWidth.)

  void build(OpBuilder &b, ModuleOp module, StringRef name) {
    b.setInsertionPointToEnd(module.getBody());
    Location loc = mlir::func::FuncOp(p_.func).getLoc();
    auto func = mlir::func::FuncOp::create(b, loc, name, variantSignature(p_, layout_));
    func->setAttr(kHostVariantAttrName, b.getStringAttr(name));
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToStart(entry);
    entry_ = entry;
    params_ = bindParams(b, loc, p_, entry->getArguments());
    space_.emplace(b, loc, layout_, params_);
    eval_.emplace(p_, params_.scalars, space_->keptExtent(), space_->reducedExtent());
    Value end = arith::AddIOp::create(b, loc, params_.first, params_.count);
    auto loop = scf::ForOp::create(b, loc, params_.first, end, cidx(b, loc, 1));
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      Value vb = loop.getInductionVar();
      auto phaseIs = [&](reduction_phase ph) {
        return cmpIdx(b, loc, arith::CmpIPredicate::eq, params_.phase, cidx(b, loc, int64_t(ph)));
      };
      auto perLevel = [&](const std::function<void(unsigned)> &body) {
        for (unsigned l = 0; l < p_.numLevels; ++l)
          ifThen(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::eq, params_.level, cidx(b, loc, l)), [&] { body(l); });
      };
      ifThen(b, loc, phaseIs(reduction_phase::whole), [&] { unit(b, loc, vb, -1); });
      // A split reduced extent, every layout (the general one for a few
      // kept elements of strided inputs: `sum(x[:, ::2])`).
      ifThen(b, loc, phaseIs(reduction_phase::partial), [&] { perLevel([&](unsigned l) { unit(b, loc, vb, l); }); });
      ifThen(b, loc, phaseIs(reduction_phase::combine), [&] { perLevel([&](unsigned l) { combine(b, loc, vb, l); }); });
      if (!p_.keptOutput)
        ifThen(b, loc, phaseIs(reduction_phase::output), [&] { unit(b, loc, vb, -2); });
    }
    for (Value heap : heap_)
      memref::DeallocOp::create(b, loc, heap);
    func::ReturnOp::create(b, loc);
  }

private:
  PointEnv keptEnv(OpBuilder &b, Location loc, Value k, SmallVector<Value> &coords) {
    PointEnv env;
    env.keptIndex = k;
    coords = space_->keptCoords(b, loc, k);
    for (unsigned j = 0; j < p_.numKept(); ++j)
      env.kept[p_.keptArg(j)] = memref::LoadOp::create(b, loc, params_.kept[j], coords);
    return env;
  }

  SmallVector<Value> fullIndices(OpBuilder &b, Location loc, ArrayRef<Value> kept, Value r) {
    SmallVector<Value> idx(kept.begin(), kept.end());
    if (layout_ == Layout::General) {
      auto rc = space_->reducedCoords(b, loc, r);
      idx.append(rc.begin(), rc.end());
    } else {
      idx.push_back(r);
    }
    return idx;
  }

  /// Folds one element r of the kept element at `coords` into `acc`.
  LevelStates foldElement(OpBuilder &b, Location loc, const LevelStates &acc, const PointEnv &kenv,
                          ArrayRef<Value> coords, ArrayRef<unsigned> inputs, Value r) {
    PointEnv env = kenv;
    SmallVector<Value> idx = fullIndices(b, loc, coords, r);
    for (unsigned in : inputs)
      env.full[p_.fullArg(in)] = memref::LoadOp::create(b, loc, params_.full[in], idx);
    env.reducedIndex = r;
    return acc.update(b, loc, *eval_, env);
  }

  /// The elements [r0, r0 + lanes_) of each input (16-byte vector loads;
  /// complex values one by one): result[j][lane] for input j.
  SmallVector<SmallVector<Value>> loadLanes(OpBuilder &b, Location loc, ArrayRef<unsigned> inputs,
                                            ArrayRef<Value> coords, Value r0, SmallVector<Value> *vectors = nullptr) {
    SmallVector<SmallVector<Value>> elems;
    for (unsigned in : inputs) {
      Type t = p_.fullTypes[in];
      SmallVector<Value> es;
      if (isa<ComplexType>(t)) {
        for (int64_t lane = 0; lane < lanes_; ++lane) {
          SmallVector<Value> li(coords.begin(), coords.end());
          li.push_back(arith::AddIOp::create(b, loc, r0, cidx(b, loc, lane)));
          es.push_back(memref::LoadOp::create(b, loc, params_.full[in], li));
        }
      } else {
        SmallVector<Value> idx(coords.begin(), coords.end());
        idx.push_back(r0);
        auto vt = VectorType::get({lanes_}, t);
        unsigned bytes = std::max(1u, t.getIntOrFloatBitWidth() / 8);
        Value vec = vector::LoadOp::create(b, loc, vt, params_.full[in], idx, false, llvm::Align(bytes));
        if (vectors)
          vectors->push_back(vec);
        for (int64_t lane = 0; lane < lanes_; ++lane)
          es.push_back(vector::ExtractOp::create(b, loc, vec, lane));
      }
      elems.push_back(es);
    }
    return elems;
  }

  /// Whether the values `init`'s slots fold can be computed on vectors:
  /// real inputs, element math only (ProgramEvaluator::vectorizable).
  bool vectorMaps(const LevelStates &init, ArrayRef<unsigned> inputs) const {
    if (lanes_ < 2 || llvm::any_of(inputs, [&](unsigned in) { return isa<ComplexType>(p_.fullTypes[in]); }))
      return false;
    return llvm::all_of(init.slots, [&](const Slot &s) { return eval_->vectorizable(p_.stages[s.stage]); });
  }

  /// Whether every slot of `init` is an argmax/argmin of real values.
  static bool onlyArgSlots(const LevelStates &init) {
    return llvm::all_of(init.slots, [](const Slot &s) {
      return (s.kind == CombinerKind::ArgMax || s.kind == CombinerKind::ArgMin) && !s.map &&
             !isa<ComplexType>(s.types[0]);
    });
  }

  /// Rows of argmax/argmin slots only: per chunk, the lanes keep just the
  /// extreme value (max/min with NaN propagation, SIMD without 64-bit index
  /// lanes); only a chunk that beats the running state is scanned again for
  /// the first index of its extreme. The answer is exact, so chunks fold in
  /// order with no pairwise tree.
  LevelStates accumulateArgRow(OpBuilder &b, Location loc, Value rbeg, Value rend, const LevelStates &init,
                               const PointEnv &kenv, ArrayRef<Value> coords) {
    SmallVector<unsigned> inputs = maskBits(inputsOf(p_, init.stages()), p_.numFull());
    unsigned slots = init.slots.size();
    auto extremeKind = [&](unsigned i) {
      return init.slots[i].kind == CombinerKind::ArgMax ? CombinerKind::Max : CombinerKind::Min;
    };
    auto valueAt = [&](unsigned i, const PointEnv &env) {
      return eval_->stageValues(b, p_.stages[init.slots[i].stage], env);
    };
    int64_t chunkLen = lanes_ * kChunkVectors;
    Value chunk = cidx(b, loc, chunkLen);
    Value length = arith::SubIOp::create(b, loc, rend, rbeg);
    Value chunks = arith::DivUIOp::create(b, loc, length, chunk);
    auto chunkLoop = scf::ForOp::create(b, loc, cidx(b, loc, 0), chunks, cidx(b, loc, 1), init.values);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(chunkLoop.getBody());
      LevelStates run = init.with(chunkLoop.getRegionIterArgs());
      Value base = arith::AddIOp::create(b, loc, rbeg, arith::MulIOp::create(b, loc, chunkLoop.getInductionVar(), chunk));
      // The chunk's extreme of each slot, lane by lane, and (floats) whether
      // a lane saw a NaN: a compare and a select a lane, cheaper in SSE2
      // than max with NaN propagation (which also orders -0 below +0).
      SmallVector<Value> inits;
      Value noNaN = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
      for (unsigned i = 0; i < slots; ++i)
        for (int64_t lane = 0; lane < lanes_; ++lane) {
          inits.push_back(buildCombinerIdentity(b, loc, extremeKind(i), init.slots[i].types[0]).front());
          inits.push_back(noNaN);
        }
      auto inner = scf::ForOp::create(b, loc, cidx(b, loc, 0), chunk, cidx(b, loc, lanes_), inits);
      {
        OpBuilder::InsertionGuard gi(b);
        b.setInsertionPointToStart(inner.getBody());
        Value r0 = arith::AddIOp::create(b, loc, base, inner.getInductionVar());
        SmallVector<SmallVector<Value>> elems = loadLanes(b, loc, inputs, coords, r0);
        SmallVector<PointEnv> envs;
        for (int64_t lane = 0; lane < lanes_; ++lane)
          envs.push_back(laneEnv(p_, kenv, inputs, elems, lane, arith::AddIOp::create(b, loc, r0, cidx(b, loc, lane))));
        SmallVector<Value> next;
        for (unsigned i = 0; i < slots; ++i)
          for (int64_t lane = 0; lane < lanes_; ++lane) {
            const PointEnv &env = envs[lane];
            Value acc = inner.getRegionIterArgs()[2 * (i * lanes_ + lane)];
            Value sawNaN = inner.getRegionIterArgs()[2 * (i * lanes_ + lane) + 1];
            Value x = valueAt(i, env)[0];
            bool max = init.slots[i].kind == CombinerKind::ArgMax;
            if (isa<FloatType>(x.getType())) {
              Value better =
                  arith::CmpFOp::create(b, loc, max ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, x, acc);
              next.push_back(arith::SelectOp::create(b, loc, better, x, acc));
              next.push_back(arith::OrIOp::create(
                  b, loc, sawNaN, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x)));
            } else {
              next.push_back(buildCombinerMerge(b, loc, extremeKind(i), acc, x).front());
              next.push_back(sawNaN);
            }
          }
        scf::YieldOp::create(b, loc, next);
      }
      SmallVector<Value> nextRun;
      for (unsigned i = 0; i < slots; ++i) {
        // The lanes' extremes merged as a tree; NaN if a lane saw one.
        SmallVector<Value> level;
        Value anyNaN = noNaN;
        for (int64_t lane = 0; lane < lanes_; ++lane) {
          level.push_back(inner.getResult(2 * (i * lanes_ + lane)));
          anyNaN = arith::OrIOp::create(b, loc, anyNaN, inner.getResult(2 * (i * lanes_ + lane) + 1));
        }
        while (level.size() > 1) {
          SmallVector<Value> up;
          for (size_t l = 0; l + 1 < level.size(); l += 2)
            up.push_back(buildCombinerMerge(b, loc, extremeKind(i), level[l], level[l + 1]).front());
          if (level.size() % 2)
            up.push_back(level.back());
          level = up;
        }
        Value m = level.front();
        if (auto ft = dyn_cast<FloatType>(m.getType())) {
          Value nan = arith::ConstantOp::create(b, loc, ft, b.getFloatAttr(ft, APFloat::getNaN(ft.getFloatSemantics())));
          m = arith::SelectOp::create(b, loc, anyNaN, nan, m);
        }
        Value rv = run.of(i)[0], ri = run.of(i)[1];
        // The chunk wins over an empty state, or with a strictly better
        // value (a NaN beats a number): its indices all come later.
        Value empty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ri, init.of(i)[1]);
        bool max = init.slots[i].kind == CombinerKind::ArgMax;
        Value wins;
        if (isa<FloatType>(m.getType())) {
          Value nanM = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, m, m);
          Value numR = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, rv, rv);
          Value better = arith::CmpFOp::create(b, loc, max ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, m, rv);
          wins = arith::AndIOp::create(b, loc, numR, arith::OrIOp::create(b, loc, nanM, better));
        } else if (m.getType().isInteger(1)) {
          wins = arith::CmpIOp::create(b, loc, max ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::ult, m, rv);
        } else {
          wins = arith::CmpIOp::create(b, loc, max ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt, m, rv);
        }
        wins = arith::OrIOp::create(b, loc, empty, wins);
        auto pick = scf::IfOp::create(b, loc, TypeRange{rv.getType(), ri.getType()}, wins, true);
        {
          OpBuilder::InsertionGuard gp(b);
          b.setInsertionPointToStart(pick.thenBlock());
          // The first element of the chunk equal to m (NaN: the first NaN).
          Value no = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
          auto scan = scf::ForOp::create(b, loc, base, arith::AddIOp::create(b, loc, base, chunk), cidx(b, loc, 1),
                                         ValueRange{no, ri});
          {
            OpBuilder::InsertionGuard gs(b);
            b.setInsertionPointToStart(scan.getBody());
            Value r = scan.getInductionVar();
            PointEnv env = kenv;
            SmallVector<Value> idx = fullIndices(b, loc, coords, r);
            for (unsigned in : inputs)
              env.full[p_.fullArg(in)] = memref::LoadOp::create(b, loc, params_.full[in], idx);
            env.reducedIndex = r;
            SmallVector<Value> vi = valueAt(i, env);
            Value match;
            if (isa<FloatType>(m.getType())) {
              Value same = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UEQ, vi[0], m);
              Value nanV = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, vi[0], vi[0]);
              Value nanM = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, m, m);
              // UEQ is also true for a NaN against a number: require both or neither.
              Value sameNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, nanV, nanM);
              match = arith::AndIOp::create(b, loc, same, sameNaN);
            } else {
              match = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, vi[0], m);
            }
            Value found = scan.getRegionIterArgs()[0];
            Value take = arith::AndIOp::create(
                b, loc, match, arith::XOrIOp::create(b, loc, found, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1)));
            scf::YieldOp::create(b, loc,
                                 ValueRange{arith::OrIOp::create(b, loc, found, match),
                                            arith::SelectOp::create(b, loc, take, vi[1], scan.getRegionIterArgs()[1])});
          }
          scf::YieldOp::create(b, loc, ValueRange{m, scan.getResult(1)});
          b.setInsertionPointToStart(pick.elseBlock());
          scf::YieldOp::create(b, loc, ValueRange{rv, ri});
        }
        nextRun.append(pick.getResults().begin(), pick.getResults().end());
      }
      scf::YieldOp::create(b, loc, nextRun);
    }
    Value tailStart = arith::AddIOp::create(b, loc, rbeg, arith::MulIOp::create(b, loc, chunks, chunk));
    return accumulateLinear(b, loc, tailStart, rend, init.with(chunkLoop.getResults()), kenv, coords);
  }

  /// Rows: folds [rbeg, rend) of one kept element, pairwise over chunks of
  /// kChunkVectors vectors, 2V lanes a step.
  LevelStates accumulateRow(OpBuilder &b, Location loc, Value rbeg, Value rend, const LevelStates &init,
                            const PointEnv &kenv, ArrayRef<Value> coords) {
    if (onlyArgSlots(init))
      return accumulateArgRow(b, loc, rbeg, rend, init, kenv, coords);
    SmallVector<unsigned> inputs = maskBits(inputsOf(p_, init.stages()), p_.numFull());
    unsigned n = init.values.size();
    int64_t chunkLen = lanes_ * kChunkVectors;
    Value chunk = cidx(b, loc, chunkLen);
    auto foldChunk = [&](Value base) {
      SmallVector<Value> inits;
      for (int64_t lane = 0; lane < lanes_; ++lane)
        inits.append(init.values.begin(), init.values.end());
      auto inner = scf::ForOp::create(b, loc, cidx(b, loc, 0), chunk, cidx(b, loc, lanes_), inits);
      {
        OpBuilder::InsertionGuard gi(b);
        b.setInsertionPointToStart(inner.getBody());
        Value r0 = arith::AddIOp::create(b, loc, base, inner.getInductionVar());
        SmallVector<Value> vectors;
        SmallVector<SmallVector<Value>> elems = loadLanes(b, loc, inputs, coords, r0, &vectors);
        SmallVector<Value> next;
        if (vectorMaps(init, inputs)) {
          // The stages' values on the loaded vectors, then each lane folds
          // its element: SIMD math, scalar states.
          PointEnv venv = kenv;
          for (auto [j, in] : llvm::enumerate(inputs))
            venv.full[p_.fullArg(in)] = vectors[j];
          venv.reducedIndex = r0;
          SmallVector<SmallVector<Value>> stageVals;
          for (const Slot &slot : init.slots)
            stageVals.push_back(eval_->stageValuesVector(b, p_.stages[slot.stage], venv, lanes_));
          for (int64_t lane = 0; lane < lanes_; ++lane) {
            LevelStates mine = init.with(inner.getRegionIterArgs().slice(lane * n, n));
            for (auto [i, slot] : llvm::enumerate(mine.slots)) {
              SmallVector<Value> vals;
              for (Value v : stageVals[i])
                vals.push_back(vector::ExtractOp::create(b, loc, v, lane));
              if (slot.map)
                vals = slot.map(b, loc, vals);
              auto upd = buildCombinerUpdate(b, loc, slot.kind, mine.of(i), vals);
              next.append(upd.begin(), upd.end());
            }
          }
        } else {
          for (int64_t lane = 0; lane < lanes_; ++lane) {
            PointEnv env = laneEnv(p_, kenv, inputs, elems, lane, arith::AddIOp::create(b, loc, r0, cidx(b, loc, lane)));
            LevelStates mine = init.with(inner.getRegionIterArgs().slice(lane * n, n));
            auto upd = mine.update(b, loc, *eval_, env);
            next.append(upd.values.begin(), upd.values.end());
          }
        }
        scf::YieldOp::create(b, loc, next);
      }
      SmallVector<LevelStates> laneStates;
      for (int64_t lane = 0; lane < lanes_; ++lane)
        laneStates.push_back(init.with(inner.getResults().slice(lane * n, n)));
      return LevelStates::mergeTree(b, loc, laneStates);
    };
    return pairwise(b, loc, rbeg, rend, chunkLen, init, kenv, coords, foldChunk);
  }

  /// Folds [rbeg, rend) as NumPy's pairwise sum: chunks of `chunkLen`
  /// elements, each folded by `foldChunk(base)` from the identity `init`,
  /// merge through a binary counter (a stack whose level i holds 2^i
  /// chunks), so float sums stay accurate over any length and the order
  /// depends only on the length; then the tail, element by element.
  LevelStates pairwise(OpBuilder &b, Location loc, Value rbeg, Value rend, int64_t chunkLen, const LevelStates &init,
                       const PointEnv &kenv, ArrayRef<Value> coords,
                       llvm::function_ref<LevelStates(Value base)> foldChunk) {
    Value chunk = cidx(b, loc, chunkLen);
    Value length = arith::SubIOp::create(b, loc, rend, rbeg);
    Value chunks = arith::DivUIOp::create(b, loc, length, chunk);
    // The stack of the binary counter: level i holds 2^i chunks.
    SmallVector<Value> stack;
    for (Value v : init.values)
      stack.push_back(entryAlloca(b, loc, MemRefType::get({64}, memoryType(v.getType()))));
    auto chunkLoop = scf::ForOp::create(b, loc, cidx(b, loc, 0), chunks, cidx(b, loc, 1));
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(chunkLoop.getBody());
      Value c = chunkLoop.getInductionVar();
      Value base = arith::AddIOp::create(b, loc, rbeg, arith::MulIOp::create(b, loc, c, chunk));
      LevelStates part = foldChunk(base);
      // Carry: while bit `level` of c is set, merge with stack[level].
      SmallVector<Type> whileTypes{b.getIndexType()};
      SmallVector<Value> whileInits{cidx(b, loc, 0)};
      for (Value v : part.values) {
        whileTypes.push_back(v.getType());
        whileInits.push_back(v);
      }
      auto carry = scf::WhileOp::create(b, loc, whileTypes, whileInits);
      {
        OpBuilder::InsertionGuard gw(b);
        Block *before = b.createBlock(&carry.getBefore(), {}, whileTypes,
                                      SmallVector<Location>(whileTypes.size(), loc));
        Value level = before->getArgument(0);
        Value bit = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, c, level), cidx(b, loc, 1));
        scf::ConditionOp::create(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::ne, bit, cidx(b, loc, 0)),
                                 before->getArguments());
        Block *after = b.createBlock(&carry.getAfter(), {}, whileTypes,
                                     SmallVector<Location>(whileTypes.size(), loc));
        Value lvl = after->getArgument(0);
        LevelStates cur = part.with(after->getArguments().drop_front());
        LevelStates below = part;
        for (auto [i, v] : llvm::enumerate(below.values))
          v = fromMemory(b, loc, memref::LoadOp::create(b, loc, stack[i], ValueRange{lvl}), v.getType());
        LevelStates merged = below.merge(b, loc, cur);
        SmallVector<Value> yields{arith::AddIOp::create(b, loc, lvl, cidx(b, loc, 1))};
        yields.append(merged.values.begin(), merged.values.end());
        scf::YieldOp::create(b, loc, yields);
      }
      Value top = carry.getResult(0);
      for (auto [i, v] : llvm::enumerate(carry.getResults().drop_front()))
        memref::StoreOp::create(b, loc, toMemory(b, loc, v), stack[i], ValueRange{top});
    }
    // Fold the stack, earliest (highest level) first, then the tail.
    auto fold = scf::ForOp::create(b, loc, cidx(b, loc, 0), cidx(b, loc, 64), cidx(b, loc, 1), init.values);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(fold.getBody());
      Value level = arith::SubIOp::create(b, loc, cidx(b, loc, 63), fold.getInductionVar());
      Value bit = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, chunks, level), cidx(b, loc, 1));
      Value set = cmpIdx(b, loc, arith::CmpIPredicate::ne, bit, cidx(b, loc, 0));
      LevelStates acc = init.with(fold.getRegionIterArgs());
      auto pick = scf::IfOp::create(b, loc, acc.types(), set, true);
      {
        OpBuilder::InsertionGuard gi(b);
        b.setInsertionPointToStart(pick.thenBlock());
        LevelStates entry = acc;
        for (auto [i, v] : llvm::enumerate(entry.values))
          v = fromMemory(b, loc, memref::LoadOp::create(b, loc, stack[i], ValueRange{level}), v.getType());
        scf::YieldOp::create(b, loc, acc.merge(b, loc, entry).values);
        b.setInsertionPointToStart(pick.elseBlock());
        scf::YieldOp::create(b, loc, acc.values);
      }
      scf::YieldOp::create(b, loc, pick.getResults());
    }
    Value tailStart = arith::AddIOp::create(b, loc, rbeg, arith::MulIOp::create(b, loc, chunks, chunk));
    return accumulateLinear(b, loc, tailStart, rend, init.with(fold.getResults()), kenv, coords);
  }

  /// The general layout: element by element through the reduced
  /// coordinates, pairwise over chunks of kGeneralChunk (argmax/argmin, which
  /// are exact, in one pass).
  LevelStates accumulateGeneral(OpBuilder &b, Location loc, Value rbeg, Value rend, const LevelStates &init,
                                const PointEnv &kenv, ArrayRef<Value> coords) {
    if (onlyArgSlots(init))
      return accumulateLinear(b, loc, rbeg, rend, init, kenv, coords);
    return pairwise(b, loc, rbeg, rend, kGeneralChunk, init, kenv, coords, [&](Value base) {
      return accumulateLinear(b, loc, base, arith::AddIOp::create(b, loc, base, cidx(b, loc, kGeneralChunk)), init,
                              kenv, coords);
    });
  }

  /// Folds [rbeg, rend) element by element into `init`: chunks of the
  /// general layout, and the tails of rows.
  LevelStates accumulateLinear(OpBuilder &b, Location loc, Value rbeg, Value rend, const LevelStates &init,
                               const PointEnv &kenv, ArrayRef<Value> coords) {
    SmallVector<unsigned> inputs = maskBits(inputsOf(p_, init.stages()), p_.numFull());
    if (layout_ != Layout::General) {
      auto loop = scf::ForOp::create(b, loc, rbeg, rend, cidx(b, loc, 1), init.values);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      LevelStates acc = init.with(loop.getRegionIterArgs());
      scf::YieldOp::create(b, loc, foldElement(b, loc, acc, kenv, coords, inputs, loop.getInductionVar()).values);
      return init.with(loop.getResults());
    }
    // General: the reduced coordinates step as an odometer, carried by the
    // loop: a division per dimension an element cost twice the time on
    // `sum(x[:, ::2])` (58 -> 30 ms for 4k x 8k float32 on 2 cores; 8
    // states side by side measured slower still, 38 ms: the address
    // arithmetic, not the adds' latency, is the cost).
    SmallVector<Value> start = space_->startReducedCoords(b, loc, rbeg);
    unsigned n = init.values.size();
    SmallVector<Value> inits(init.values.begin(), init.values.end());
    inits.append(start.begin(), start.end());
    auto loop = scf::ForOp::create(b, loc, rbeg, rend, cidx(b, loc, 1), inits);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    LevelStates acc = init.with(loop.getRegionIterArgs().take_front(n));
    ArrayRef<Value> rc(loop.getRegionIterArgs().begin() + n, loop.getRegionIterArgs().end());
    PointEnv env = kenv;
    SmallVector<Value> idx(coords.begin(), coords.end());
    idx.append(rc.begin(), rc.end());
    for (unsigned in : inputs)
      env.full[p_.fullArg(in)] = memref::LoadOp::create(b, loc, params_.full[in], idx);
    env.reducedIndex = loop.getInductionVar();
    SmallVector<Value> yields = acc.update(b, loc, *eval_, env).values;
    SmallVector<Value> next = space_->nextReducedCoords(b, loc, rc);
    yields.append(next.begin(), next.end());
    scf::YieldOp::create(b, loc, yields);
    return init.with(loop.getResults().take_front(n));
  }

  void writeRange(OpBuilder &b, Location loc, Value rbeg, Value rend, const PointEnv &kenv, ArrayRef<Value> coords) {
    rend = fullOutputEnd(b, loc, params_.flags, rbeg, rend);
    SmallVector<unsigned> inputs = maskBits(p_.mapInputs, p_.numFull());
    auto loop = scf::ForOp::create(b, loc, rbeg, rend, cidx(b, loc, 1));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value r = loop.getInductionVar();
    PointEnv env = kenv;
    SmallVector<Value> idx = fullIndices(b, loc, coords, r);
    for (unsigned in : inputs)
      env.full[p_.fullArg(in)] = memref::LoadOp::create(b, loc, params_.full[in], idx);
    env.reducedIndex = r;
    memref::StoreOp::create(b, loc, eval_->valueAt(b, p_.result, env), params_.out, idx);
  }

  /// The reduced range of chunk s of `split`.
  std::pair<Value, Value> chunkRange(OpBuilder &b, Location loc, Value s) {
    Value nr = space_->reducedExtent();
    Value v = cidx(b, loc, std::max<int64_t>(1, p_.vectorWidth()));
    Value size = arith::MulIOp::create(b, loc, ceilDiv(b, loc, ceilDiv(b, loc, nr, params_.split), v), v);
    Value begin = minIdx(b, loc, arith::MulIOp::create(b, loc, s, size), nr);
    return {begin, minIdx(b, loc, arith::AddIOp::create(b, loc, begin, size), nr)};
  }

  /// One virtual block: whole (level -1), a level's partial states (level
  /// >= 0) or the output from the workspace (-2).
  void unit(OpBuilder &b, Location loc, Value vb, int level) {
    if (layout_ == Layout::Cols)
      return columns(b, loc, vb, level);
    bool whole = level == -1;
    Value k = whole ? vb : arith::DivUIOp::create(b, loc, vb, params_.split);
    Value s = whole ? Value() : arith::RemUIOp::create(b, loc, vb, params_.split);
    SmallVector<Value> coords;
    PointEnv env = keptEnv(b, loc, k, coords);
    Value rbeg = cidx(b, loc, 0), rend = space_->reducedExtent();
    std::optional<Workspace> ws;
    if (!whole) {
      std::tie(rbeg, rend) = chunkRange(b, loc, s);
      ws.emplace(b, loc, p_, params_.workspace, space_->keptExtent(), params_.split);
      ws->loadResults(b, loc, level >= 0 ? unsigned(level) : p_.numLevels, k, env);
    }
    if (level == -2)
      return writeRange(b, loc, rbeg, rend, env, coords);
    auto accumulate = [&](const LevelStates &init) {
      return layout_ == Layout::Rows ? accumulateRow(b, loc, rbeg, rend, init, env, coords)
                                     : accumulateGeneral(b, loc, rbeg, rend, init, env, coords);
    };
    if (!whole) { // one level's partial states of this chunk
      LevelStates st = accumulate(LevelStates::identity(b, loc, p_, p_.stagesAt(level)));
      for (auto [i, si] : llvm::enumerate(st.stages()))
        for (auto [c, v] : llvm::enumerate(st.of(i)))
          ws->storePartial(b, loc, si, c, vb, v);
      return;
    }
    for (unsigned l = 0; l < p_.numLevels; ++l)
      foldLevel(b, loc, p_, l, space_->reducedExtent(), env, accumulate,
                [](const LevelStates &s, unsigned) { return s; });
    if (p_.keptOutput)
      memref::StoreOp::create(b, loc, eval_->valueAt(b, p_.result, env), params_.out, coords);
    else
      writeRange(b, loc, rbeg, rend, env, coords);
  }

  /// Columns: a tile of kHostTile columns, every row of the range.
  void columns(OpBuilder &b, Location loc, Value vb, int level) {
    bool whole = level == -1;
    Value tileUnit = whole ? vb : arith::DivUIOp::create(b, loc, vb, params_.split);
    Value s = whole ? Value() : arith::RemUIOp::create(b, loc, vb, params_.split);
    Value inner = space_->inner();
    Value tiles = ceilDiv(b, loc, inner, cidx(b, loc, kHostTile));
    Value o = arith::DivUIOp::create(b, loc, tileUnit, tiles);
    Value i0 = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, tileUnit, tiles), cidx(b, loc, kHostTile));
    Value width = minIdx(b, loc, cidx(b, loc, kHostTile), arith::SubIOp::create(b, loc, inner, i0));
    Value nr = space_->reducedExtent();
    Value rbeg = cidx(b, loc, 0), rend = nr;
    std::optional<Workspace> ws;
    if (!whole) {
      Value size = ceilDiv(b, loc, nr, params_.split);
      rbeg = minIdx(b, loc, arith::MulIOp::create(b, loc, s, size), nr);
      rend = minIdx(b, loc, arith::AddIOp::create(b, loc, rbeg, size), nr);
      ws.emplace(b, loc, p_, params_.workspace, space_->keptExtent(), params_.split);
    }
    // Per column of the tile: the kept values (inputs and stage results),
    // kept in small arrays so the row loop reads them by column.
    auto column = [&](Value i) { return arith::AddIOp::create(b, loc, i0, i); };
    auto keptIndex = [&](Value i) -> Value {
      return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, o, inner), column(i));
    };
    unsigned upTo = whole ? 0 : (level >= 0 ? unsigned(level) : p_.numLevels);
    // Results of stages of earlier levels, per column.
    DenseMap<Value, Value> resultArrays;
    auto resultArray = [&](Value tensor, Type t) {
      Value a = entryAlloca(b, loc, MemRefType::get({kHostTile}, memoryType(t)));
      resultArrays[tensor] = a;
      return a;
    };
    if (!whole)
      for (auto [si, st] : llvm::enumerate(p_.stages))
        if (st.level < upTo)
          for (auto [c, t] : llvm::enumerate(st.stateTypes)) {
            Value a = resultArray(linalg::GenericOp(st.op).getResult(c), t);
            auto loop = scf::ForOp::create(b, loc, cidx(b, loc, 0), width, cidx(b, loc, 1));
            OpBuilder::InsertionGuard g(b);
            b.setInsertionPointToStart(loop.getBody());
            Value v = ws->loadResult(b, loc, si, c, keptIndex(loop.getInductionVar()));
            memref::StoreOp::create(b, loc, toMemory(b, loc, v), a, ValueRange{loop.getInductionVar()});
          }
    // The kept environment of column i (inside a loop over i).
    auto envOf = [&](Value i) {
      PointEnv env;
      env.keptIndex = keptIndex(i);
      Value col = column(i);
      for (unsigned j = 0; j < p_.numKept(); ++j)
        env.kept[p_.keptArg(j)] = memref::LoadOp::create(b, loc, params_.kept[j], ValueRange{o, col});
      for (auto [tensor, array] : resultArrays) {
        Type t = cast<RankedTensorType>(tensor.getType()).getElementType();
        env.kept[tensor] = fromMemory(b, loc, memref::LoadOp::create(b, loc, array, ValueRange{i}), t);
      }
      return env;
    };
    auto forColumns = [&](const std::function<void(Value)> &body) {
      auto loop = scf::ForOp::create(b, loc, cidx(b, loc, 0), width, cidx(b, loc, 1));
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      body(loop.getInductionVar());
    };
    auto forRows = [&](Value lo, Value hi, const std::function<void(Value)> &body) {
      auto loop = scf::ForOp::create(b, loc, lo, hi, cidx(b, loc, 1));
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      body(loop.getInductionVar());
    };
    auto writeRows = [&] {
      SmallVector<unsigned> inputs = maskBits(p_.mapInputs, p_.numFull());
      forRows(rbeg, rend, [&](Value r) {
        forColumns([&](Value i) {
          PointEnv env = envOf(i);
          SmallVector<Value> idx{o, r, column(i)};
          for (unsigned in : inputs)
            env.full[p_.fullArg(in)] = memref::LoadOp::create(b, loc, params_.full[in], idx);
          env.reducedIndex = r;
          memref::StoreOp::create(b, loc, eval_->valueAt(b, p_.result, env), params_.out, idx);
        });
      });
    };
    if (level == -2)
      return writeRows();
    unsigned from = whole ? 0 : level, to = whole ? p_.numLevels : level + 1;
    for (unsigned l = from; l < to; ++l) {
      LevelStates init = LevelStates::identity(b, loc, p_, p_.stagesAt(l));
      SmallVector<unsigned> inputs = maskBits(inputsOf(p_, init.stages()), p_.numFull());
      // Per-column states in small arrays: `states` (the result), `block`
      // (one chunk of rows) and `stack` (the binary counter's levels).
      auto arrays = [&](int64_t n) {
        SmallVector<Value> a;
        for (Value v : init.values)
          a.push_back(entryAlloca(b, loc, MemRefType::get({n}, memoryType(v.getType()))));
        return a;
      };
      SmallVector<Value> states = arrays(kHostTile), block = arrays(kHostTile),
                         stack = arrays(kColumnStackLevels * kHostTile);
      auto load = [&](ArrayRef<Value> a, Value at) {
        LevelStates s = init;
        for (auto [j, v] : llvm::enumerate(s.values))
          v = fromMemory(b, loc, memref::LoadOp::create(b, loc, a[j], ValueRange{at}), v.getType());
        return s;
      };
      auto store = [&](ArrayRef<Value> a, Value at, const LevelStates &s) {
        for (auto [j, v] : llvm::enumerate(s.values))
          memref::StoreOp::create(b, loc, toMemory(b, loc, v), a[j], ValueRange{at});
      };
      auto stackSlot = [&](Value level, Value i) {
        return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, level, cidx(b, loc, kHostTile)), i);
      };
      auto reset = [&](ArrayRef<Value> a) { forColumns([&](Value i) { store(a, i, init); }); };
      // Rows [lo, hi) folded into `a`, row by row, each row along the columns.
      auto foldRows = [&](Value lo, Value hi, ArrayRef<Value> a) {
        forRows(lo, hi, [&](Value r) {
          forColumns([&](Value i) {
            PointEnv env = envOf(i);
            SmallVector<Value> idx{o, r, column(i)};
            for (unsigned in : inputs)
              env.full[p_.fullArg(in)] = memref::LoadOp::create(b, loc, params_.full[in], idx);
            env.reducedIndex = r;
            store(a, i, load(a, i).update(b, loc, *eval_, env));
          });
        });
      };
      // Chunks of kColumnChunk rows merge pairwise through a binary counter,
      // as rows do: float sums down a column stay accurate over any length.
      Value chunk = cidx(b, loc, kColumnChunk);
      Value chunks = arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, rend, rbeg), chunk);
      auto chunkLoop = scf::ForOp::create(b, loc, cidx(b, loc, 0), chunks, cidx(b, loc, 1));
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(chunkLoop.getBody());
        Value c = chunkLoop.getInductionVar();
        Value lo = arith::AddIOp::create(b, loc, rbeg, arith::MulIOp::create(b, loc, c, chunk));
        reset(block);
        foldRows(lo, arith::AddIOp::create(b, loc, lo, chunk), block);
        // Carry: while bit `level` of c is set, block = stack[level] + block.
        auto carry = scf::WhileOp::create(b, loc, TypeRange{b.getIndexType()}, ValueRange{cidx(b, loc, 0)});
        {
          OpBuilder::InsertionGuard gw(b);
          Block *before = b.createBlock(&carry.getBefore(), {}, {b.getIndexType()}, {loc});
          Value level = before->getArgument(0);
          Value bit = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, c, level), cidx(b, loc, 1));
          scf::ConditionOp::create(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::ne, bit, cidx(b, loc, 0)),
                                   before->getArguments());
          Block *after = b.createBlock(&carry.getAfter(), {}, {b.getIndexType()}, {loc});
          Value lvl = after->getArgument(0);
          forColumns([&](Value i) { store(block, i, load(stack, stackSlot(lvl, i)).merge(b, loc, load(block, i))); });
          scf::YieldOp::create(b, loc, ValueRange{arith::AddIOp::create(b, loc, lvl, cidx(b, loc, 1))});
        }
        Value top = carry.getResult(0);
        forColumns([&](Value i) { store(stack, stackSlot(top, i), load(block, i)); });
      }
      // Fold the stack, earliest (highest level) first, then the rows left.
      reset(states);
      auto fold = scf::ForOp::create(b, loc, cidx(b, loc, 0), cidx(b, loc, kColumnStackLevels), cidx(b, loc, 1));
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(fold.getBody());
        Value level = arith::SubIOp::create(b, loc, cidx(b, loc, kColumnStackLevels - 1), fold.getInductionVar());
        Value bit = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, chunks, level), cidx(b, loc, 1));
        ifThen(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::ne, bit, cidx(b, loc, 0)), [&] {
          forColumns([&](Value i) { store(states, i, load(states, i).merge(b, loc, load(stack, stackSlot(level, i)))); });
        });
      }
      foldRows(arith::AddIOp::create(b, loc, rbeg, arith::MulIOp::create(b, loc, chunks, chunk)), rend, states);
      // The level's results become kept values of the columns.
      unsigned j = 0;
      for (auto [n, si] : llvm::enumerate(init.stages()))
        for (auto [c, t] : llvm::enumerate(p_.stages[si].stateTypes)) {
          Value a = states[j++];
          if (!whole) {
            forColumns([&](Value i) {
              Value v = fromMemory(b, loc, memref::LoadOp::create(b, loc, a, ValueRange{i}), t);
              Value slot = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, keptIndex(i), params_.split), s);
              ws->storePartial(b, loc, si, c, slot, v);
            });
          } else {
            resultArrays[linalg::GenericOp(p_.stages[si].op).getResult(c)] = a;
          }
        }
      if (!whole)
        return;
    }
    if (!p_.keptOutput)
      return writeRows();
    forColumns([&](Value i) {
      PointEnv env = envOf(i);
      memref::StoreOp::create(b, loc, eval_->valueAt(b, p_.result, env), params_.out, ValueRange{o, column(i)});
    });
  }

  /// A kept element's chunk states, merged as a pairwise tree in place.
  void combine(OpBuilder &b, Location loc, Value k, unsigned level) {
    Workspace ws(b, loc, p_, params_.workspace, space_->keptExtent(), params_.split);
    LevelStates init = LevelStates::identity(b, loc, p_, p_.stagesAt(level));
    Value base = arith::MulIOp::create(b, loc, k, params_.split);
    auto load = [&](Value slot) {
      LevelStates s = init;
      s.values.clear();
      for (unsigned si : init.stages())
        for (unsigned c = 0; c < p_.stages[si].stateTypes.size(); ++c)
          s.values.push_back(ws.loadPartial(b, loc, si, c, slot));
      return s;
    };
    auto store = [&](Value slot, const LevelStates &s) {
      for (auto [i, si] : llvm::enumerate(s.stages()))
        for (auto [c, v] : llvm::enumerate(s.of(i)))
          ws.storePartial(b, loc, si, c, slot, v);
    };
    // for (stride = 1; stride < split; stride *= 2)
    //   for (i = 0; i + stride < split; i += 2 * stride) p[i] = merge(p[i], p[i + stride])
    auto outer = scf::WhileOp::create(b, loc, TypeRange{b.getIndexType()}, ValueRange{cidx(b, loc, 1)});
    {
      OpBuilder::InsertionGuard g(b);
      Block *before = b.createBlock(&outer.getBefore(), {}, {b.getIndexType()}, {loc});
      scf::ConditionOp::create(b, loc,
                               cmpIdx(b, loc, arith::CmpIPredicate::ult, before->getArgument(0), params_.split),
                               before->getArguments());
      Block *after = b.createBlock(&outer.getAfter(), {}, {b.getIndexType()}, {loc});
      Value stride = after->getArgument(0);
      Value twice = arith::MulIOp::create(b, loc, stride, cidx(b, loc, 2));
      Value limit = arith::SubIOp::create(b, loc, params_.split, stride);
      auto loop = scf::ForOp::create(b, loc, cidx(b, loc, 0), limit, twice);
      {
        OpBuilder::InsertionGuard gi(b);
        b.setInsertionPointToStart(loop.getBody());
        Value i = arith::AddIOp::create(b, loc, base, loop.getInductionVar());
        Value j = arith::AddIOp::create(b, loc, i, stride);
        store(i, load(i).merge(b, loc, load(j)));
      }
      scf::YieldOp::create(b, loc, ValueRange{twice});
    }
    LevelStates st = load(base);
    for (auto [i, si] : llvm::enumerate(st.stages()))
      for (auto [c, v] : llvm::enumerate(st.of(i)))
        ws.storeResult(b, loc, si, c, k, v);
    if (p_.keptOutput && level + 1 == p_.numLevels) {
      SmallVector<Value> coords;
      PointEnv env = keptEnv(b, loc, k, coords);
      ws.loadResults(b, loc, level, k, env);
      bindResults(st, env);
      memref::StoreOp::create(b, loc, eval_->valueAt(b, p_.result, env), params_.out, coords);
    }
  }

  /// A stack array of the function (allocated in the entry block, so that
  /// loops don't grow the stack).
  /// A scratch array for the whole call, made at the entry: on the stack
  /// up to 16 KiB, else on the heap (freed at the return: the column
  /// tiles' binary counters take 512 KiB of float32 states).
  Value entryAlloca(OpBuilder &b, Location loc, MemRefType type) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(entry_);
    Type e = type.getElementType();
    int64_t bits = isa<ComplexType>(e) ? 2 * cast<ComplexType>(e).getElementType().getIntOrFloatBitWidth()
                                       : e.getIntOrFloatBitWidth();
    int64_t bytes = type.getNumElements() * std::max<int64_t>(1, bits / 8);
    if (bytes <= kStackScratchBytes)
      return memref::AllocaOp::create(b, loc, type);
    Value heap = memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(64));
    heap_.push_back(heap);
    return heap;
  }

  const ReductionProgram &p_;
  Layout layout_;
  int64_t lanes_;
  Block *entry_ = nullptr;
  SmallVector<Value> heap_; ///< entryAlloca's heap arrays
  Params params_;
  std::optional<Space> space_;
  std::optional<ProgramEvaluator> eval_;
};

} // namespace

void buildHost(OpBuilder &b, ModuleOp module, const ReductionProgram &p, Layout layout, StringRef name) {
  HostBuilder(p, layout).build(b, module, name);
}

} // namespace kiln::reduction
