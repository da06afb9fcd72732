//===- GpuColumns.cpp - GPU variant: threads across kept columns ----------===//
//
// `_rcols` for operands laid out [outer, reduced, inner] with the inner
// (kept) dimension contiguous, e.g. mean(x, 0) of a C-order matrix. A
// 256-thread block is L x (256 / L) threads over a tile of L * V columns
// (L = 32, or fewer where the runtime says the rows are narrower): each
// thread takes V adjacent columns (one 16-byte vector a row when the runtime
// says columns are aligned) and every (256 / L)th row, so a warp reads 512
// contiguous bytes a row; the thread rows then merge per column through
// shared memory, in row order. Few columns? The runtime splits the reduced
// extent over blocks (`partial`, one thread per kept element merges the
// chunks in order in `combine`).
//
//===----------------------------------------------------------------------===//
#include "Conversion/ReductionToVariants/ReductionVariants.h"
#include "Conversion/ReductionToVariants/VariantCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln::reduction {
namespace {

constexpr int64_t kBlock = 256, kRowsPerBlock = 8, kLanesX = 32, kMinBlocksPerSM = 4;
/// Rows of a column whose welford moments merge at once (see accumulate).
constexpr int64_t kWelfordRows = 4;
/// Blocks a multiprocessor asked for where a column's state is larger
/// (moments, argmax): at most 80 registers a thread, which std(x, 0) and
/// argmax(x, 0) fit without spilling (unbounded, 98).
constexpr int64_t kMinBlocksPerSMLargeStates = 3;

class ColumnBuilder {
public:
  explicit ColumnBuilder(const ReductionProgram &p) : p_(p), width_(p.vectorWidth()) {}

  void build(OpBuilder &b, gpu::GPUModuleOp module, StringRef name) {
    MLIRContext *ctx = module.getContext();
    b.setInsertionPointToEnd(module.getBody());
    Location loc = mlir::func::FuncOp(p_.func).getLoc();
    auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    int64_t tile = kLanesX * width_; // the widest tile
    SmallVector<Type> workgroup;
    for (unsigned l = 0; l < p_.numLevels; ++l)
      for (unsigned s : p_.stagesAt(l))
        for (Type t : p_.stages[s].stateTypes) {
          workgroup.push_back(MemRefType::get({kRowsPerBlock * tile}, memoryType(t), MemRefLayoutAttrInterface{}, shared));
          workgroup.push_back(MemRefType::get({tile}, memoryType(t), MemRefLayoutAttrInterface{}, shared));
        }
    FunctionType type = variantSignature(p_, Layout::Cols);
    auto func = gpu::GPUFuncOp::create(b, loc, name, type, workgroup);
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func->setAttr(func.getKnownBlockSizeAttrName(), b.getDenseI32ArrayAttr({int32_t(kBlock), 1, 1}));
    // Columns stream with few loads a thread in flight, so residency keeps
    // memory busy: ask for 4 blocks a multiprocessor (at most 64 registers a
    // thread) where the states are one scalar a column (sum, max, ...), 3
    // where they are larger (argmax, moments: 4 would spill).
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(scalarStates() ? kMinBlocksPerSM : kMinBlocksPerSMLargeStates));
    Block &entry = func.getBody().front();
    b.setInsertionPointToStart(&entry);
    params_ = bindParams(b, loc, p_, entry.getArguments().take_front(type.getNumInputs()));
    unsigned w = 0;
    for (unsigned l = 0; l < p_.numLevels; ++l) {
      buffers_.emplace_back();
      for (unsigned s : p_.stagesAt(l))
        for (unsigned c = 0; c < p_.stages[s].stateTypes.size(); ++c) {
          buffers_.back().first.push_back(func.getWorkgroupAttributions()[w++]);
          buffers_.back().second.push_back(func.getWorkgroupAttributions()[w++]);
        }
    }
    space_.emplace(b, loc, Layout::Cols, params_);
    eval_.emplace(p_, params_.scalars, space_->keptExtent(), space_->reducedExtent());
    tid_ = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    // Threads across the columns: 32, or 32 >> the flags' narrowing (inner
    // dimensions of a few elements: rms_norm over the middle axis of a
    // (27338, 256, 7) array ran 2 lanes of 32 at 0.06 of the roofline). The
    // kernel branches once: tiles of 32 threads keep the constant code they
    // were tuned with (runtime lanes there cost the campaign's std over
    // axis 0, program 34, 0.92 -> 0.87 of the roofline on an H200).
    Value narrowing = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, params_.flags, cidx(b, loc, reduction_lanes_shift)), cidx(b, loc, 7));
    auto branch = scf::IfOp::create(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::eq, narrowing, cidx(b, loc, 0)),
                                    /*withElseRegion=*/true);
    for (bool dynamic : {false, true}) {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(dynamic ? branch.elseBlock() : branch.thenBlock());
      Value shift = dynamic ? arith::SubIOp::create(b, loc, cidx(b, loc, 5), narrowing) : cidx(b, loc, 5);
      lanesX_ = arith::ShLIOp::create(b, loc, cidx(b, loc, 1), shift);
      threadRows_ = arith::ShRUIOp::create(b, loc, cidx(b, loc, kBlock), shift);
      tile_ = arith::MulIOp::create(b, loc, lanesX_, cidx(b, loc, width_));
      tx_ = arith::AndIOp::create(b, loc, tid_, arith::SubIOp::create(b, loc, lanesX_, cidx(b, loc, 1)));
      ty_ = arith::ShRUIOp::create(b, loc, tid_, shift);
      tiles_ = ceilDiv(b, loc, space_->inner(), tile_);
      phases(b, loc);
    }
    gpu::ReturnOp::create(b, loc);
  }

  /// Every phase's code, with the lanes set (tx_, ty_, tile_, ...).
  void phases(OpBuilder &b, Location loc) {
    auto phaseIs = [&](reduction_phase ph) {
      return cmpIdx(b, loc, arith::CmpIPredicate::eq, params_.phase, cidx(b, loc, int64_t(ph)));
    };
    ifThen(b, loc, phaseIs(reduction_phase::whole),
           [&] { forEachVirtualBlock(b, loc, params_, [&](Value u) { columns(b, loc, u, cidx(b, loc, 1), cidx(b, loc, 0), -1); }); });
    ifThen(b, loc, phaseIs(reduction_phase::partial), [&] {
      for (unsigned l = 0; l < p_.numLevels; ++l)
        ifThen(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::eq, params_.level, cidx(b, loc, l)), [&] {
          forEachVirtualBlock(b, loc, params_, [&](Value u) {
            columns(b, loc, arith::DivUIOp::create(b, loc, u, params_.split), params_.split,
                    arith::RemUIOp::create(b, loc, u, params_.split), l);
          });
        });
    });
    ifThen(b, loc, phaseIs(reduction_phase::combine), [&] {
      for (unsigned l = 0; l < p_.numLevels; ++l)
        ifThen(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::eq, params_.level, cidx(b, loc, l)),
               [&] { forEachVirtualBlock(b, loc, params_, [&](Value u) { combine(b, loc, u, l); }); });
    });
    if (!p_.keptOutput)
      ifThen(b, loc, phaseIs(reduction_phase::output), [&] {
        forEachVirtualBlock(b, loc, params_, [&](Value u) {
          columns(b, loc, arith::DivUIOp::create(b, loc, u, params_.split), params_.split,
                  arith::RemUIOp::create(b, loc, u, params_.split), -2);
        });
      });
  }

private:
  /// Every level's state is one scalar a column (sum, max, ...: not argmax
  /// or moments).
  bool scalarStates() const {
    for (unsigned l = 0; l < p_.numLevels; ++l)
      if (stageStateTypes(p_, l).size() > 1)
        return false;
    return true;
  }

  struct Lanes {
    Value o, i0;                      ///< outer index, first column of the thread
    SmallVector<Value> valid, column; ///< per lane: in range, its (clamped) column
    SmallVector<PointEnv> env;        ///< per lane: kept values
    Value allValid;                   ///< every lane in range
  };

  Lanes lanesOf(OpBuilder &b, Location loc, Value tileUnit) {
    Lanes ln;
    ln.o = arith::DivUIOp::create(b, loc, tileUnit, tiles_);
    Value t = arith::RemUIOp::create(b, loc, tileUnit, tiles_);
    Value v = cidx(b, loc, width_);
    ln.i0 = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, t, tile_),
                                  arith::MulIOp::create(b, loc, tx_, v));
    Value inner = space_->inner();
    Value last = arith::SubIOp::create(b, loc, inner, cidx(b, loc, 1));
    for (unsigned lane = 0; lane < width_; ++lane) {
      Value i = arith::AddIOp::create(b, loc, ln.i0, cidx(b, loc, lane));
      ln.valid.push_back(cmpIdx(b, loc, arith::CmpIPredicate::ult, i, inner));
      Value col = minIdx(b, loc, i, last);
      ln.column.push_back(col);
      PointEnv env;
      env.keptIndex = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, ln.o, inner), col);
      for (unsigned j = 0; j < p_.numKept(); ++j)
        env.kept[p_.keptArg(j)] = memref::LoadOp::create(b, loc, params_.kept[j], ValueRange{ln.o, col});
      ln.env.push_back(env);
    }
    ln.allValid = cmpIdx(b, loc, arith::CmpIPredicate::ule, arith::AddIOp::create(b, loc, ln.i0, v), inner);
    return ln;
  }

  /// Row r of every lane's column: the elements of `inputs`, per lane.
  SmallVector<SmallVector<Value>> loadRow(OpBuilder &b, Location loc, const Lanes &ln, ArrayRef<unsigned> inputs,
                                          Value r, bool vector) {
    SmallVector<SmallVector<Value>> out;
    for (unsigned in : inputs) {
      SmallVector<Value> lanes;
      if (vector) {
        Type t = p_.fullTypes[in];
        auto vt = VectorType::get({int64_t(width_)}, t);
        unsigned bytes = std::max(1u, t.getIntOrFloatBitWidth() / 8);
        Value vec = vector::LoadOp::create(b, loc, vt, params_.full[in], ValueRange{ln.o, r, ln.i0},
                                           /*nontemporal=*/false, llvm::Align(width_ * bytes));
        for (unsigned lane = 0; lane < width_; ++lane)
          lanes.push_back(vector::ExtractOp::create(b, loc, vec, int64_t(lane)));
      } else {
        for (unsigned lane = 0; lane < width_; ++lane)
          lanes.push_back(memref::LoadOp::create(b, loc, params_.full[in], ValueRange{ln.o, r, ln.column[lane]}));
      }
      out.push_back(lanes);
    }
    return out;
  }

  /// Folds rows [rbeg, rend) (every threadRows_-th, from ty) into per-lane states.
  SmallVector<LevelStates> accumulate(OpBuilder &b, Location loc, const Lanes &ln, Value rbeg, Value rend,
                                      const LevelStates &init) {
    SmallVector<unsigned> inputs = maskBits(inputsOf(p_, init.stages()), p_.numFull());
    unsigned n = init.values.size();
    SmallVector<Value> inits;
    for (unsigned lane = 0; lane < width_; ++lane)
      inits.append(init.values.begin(), init.values.end());
    Value vecOk = arith::AndIOp::create(b, loc, flagSet(b, loc, params_.flags, reduction_vectors), ln.allValid);
    Value first = arith::AddIOp::create(b, loc, rbeg, ty_);
    SmallVector<Type> types;
    for (Value v : inits)
      types.push_back(v.getType());
    // The vector test is the same for every row: two loops, not a branch in
    // one (a branch a row keeps the next row's load from being issued early).
    auto rowsLoop = [&](bool vector, Value from, ValueRange start) {
      return stridedLoop(b, loc, from, rend, threadRows_, start, [&](Value r, ValueRange args) {
        SmallVector<SmallVector<Value>> elems = loadRow(b, loc, ln, inputs, r, vector);
        SmallVector<Value> next;
        for (unsigned lane = 0; lane < width_; ++lane) {
          PointEnv env = laneEnv(p_, ln.env[lane], inputs, elems, lane, r);
          LevelStates mine = init.with(args.slice(lane * n, n));
          LevelStates upd = mine.update(b, loc, *eval_, env);
          if (!vector)
            upd = upd.select(b, loc, ln.valid[lane], mine);
          next.append(upd.values.begin(), upd.values.end());
        }
        return next;
      });
    };
    // Welford moments (and logsumexp): kWelfordRows rows a step, folded at
    // once (buildCombinerUpdateMany: one division, no chain of dependent
    // updates; per row, the chain of divisions kept std(x, 0) of 16k x 16k
    // float32 at 0.25 of the device copy on an H200), then the remaining
    // rows one by one.
    auto batchedRows = [&](ValueRange start) -> std::pair<Value, SmallVector<Value>> {
      Value step = arith::MulIOp::create(b, loc, threadRows_, cidx(b, loc, kWelfordRows));
      Value ahead = cmpIdx(b, loc, arith::CmpIPredicate::ugt, rend, first);
      Value span = arith::SelectOp::create(b, loc, ahead, arith::SubIOp::create(b, loc, rend, first), cidx(b, loc, 0));
      // Whole batches: rows first, first + T, ... first + T (k - 1) all below
      // rend (T thread rows).
      Value batches = arith::DivUIOp::create(b, loc, ceilDiv(b, loc, span, threadRows_), cidx(b, loc, kWelfordRows));
      Value end = arith::AddIOp::create(b, loc, first, arith::MulIOp::create(b, loc, batches, step));
      scf::ForOp loop = stridedLoop(b, loc, first, end, step, start, [&](Value r, ValueRange args) {
        SmallVector<SmallVector<SmallVector<Value>>> rows;
        for (int64_t k = 0; k < kWelfordRows; ++k)
          rows.push_back(loadRow(b, loc, ln, inputs,
                                 arith::AddIOp::create(b, loc, r, arith::MulIOp::create(b, loc, threadRows_, cidx(b, loc, k))),
                                 /*vector=*/true));
        SmallVector<Value> next;
        for (unsigned lane = 0; lane < width_; ++lane) {
          SmallVector<PointEnv> envs;
          for (int64_t k = 0; k < kWelfordRows; ++k)
            envs.push_back(laneEnv(
                p_, ln.env[lane], inputs, rows[k], lane,
                arith::AddIOp::create(b, loc, r, arith::MulIOp::create(b, loc, threadRows_, cidx(b, loc, k)))));
          LevelStates upd = init.with(args.slice(lane * n, n)).updateSeveral(b, loc, *eval_, envs);
          next.append(upd.values.begin(), upd.values.end());
        }
        return next;
      });
      return {end, SmallVector<Value>(loop.getResults())};
    };
    bool batched = llvm::any_of(init.slots, [](const Slot &s) { return combinerFoldsBatches(s.kind); });
    SmallVector<Value> results;
    if (width_ == 1) { // one-lane tiles (complex operands) have no vector path
      results = SmallVector<Value>(rowsLoop(false, first, inits).getResults());
    } else {
      auto branch = scf::IfOp::create(b, loc, types, vecOk, /*withElseRegion=*/true);
      for (bool vector : {true, false}) {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(vector ? branch.thenBlock() : branch.elseBlock());
        if (vector && batched) {
          auto [rest, states] = batchedRows(inits);
          scf::YieldOp::create(b, loc, SmallVector<Value>(rowsLoop(true, rest, states).getResults()));
          continue;
        }
        scf::ForOp loop = rowsLoop(vector, first, inits);
        // Two rows' vectors a thread in flight where the states are scalar
        // (they fit the 64 registers of 4 blocks a multiprocessor).
        SmallVector<Value> done =
            vector && scalarStates() ? unrollLoop(loop, 2) : SmallVector<Value>(loop.getResults());
        scf::YieldOp::create(b, loc, done);
      }
      results = SmallVector<Value>(branch.getResults());
    }
    // (Unrolling the loop that tested for vectors every row did not pay on an
    // H100 for mean(x, 0) of 16k x 16k float32: by 4 at 70 registers, 0.459
    // ms against 0.375 ms; by 2 under the 64-register limit, 0.388-0.394 ms
    // against 0.393 ms: the test kept the second row's load behind the first.)
    SmallVector<LevelStates> lanes;
    for (unsigned lane = 0; lane < width_; ++lane)
      lanes.push_back(init.with(ValueRange(results).slice(lane * n, n)));
    return lanes;
  }

  /// Merges the thread rows' states per column (in row order); every
  /// thread gets its columns' results. The buffers hold 8 x 32 V states:
  /// T thread rows of L V columns are as many.
  SmallVector<LevelStates> mergeRows(OpBuilder &b, Location loc, ArrayRef<LevelStates> lanes, unsigned level) {
    auto &buf = buffers_[level];
    Value tile = tile_;
    Value v = cidx(b, loc, width_);
    Value colBase = arith::MulIOp::create(b, loc, tx_, v);
    for (unsigned lane = 0; lane < width_; ++lane) {
      Value slot = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, ty_, tile),
                                         arith::AddIOp::create(b, loc, colBase, cidx(b, loc, lane)));
      for (auto [c, value] : llvm::enumerate(lanes[lane].values))
        memref::StoreOp::create(b, loc, toMemory(b, loc, value), buf.first[c], ValueRange{slot});
    }
    gpu::BarrierOp::create(b, loc);
    // Thread t < tile merges column t of the tile: one column's 8 states a
    // thread (when the 32 threads of row 0 merged all 8 rows of their V
    // columns each, var's moments took 152 registers, one block a
    // multiprocessor, 0.25 of the device copy for std(x, 0) on an H200).
    ifThen(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::ult, tid_, tile), [&] {
      LevelStates acc = lanes[0];
      auto load = [&](Value row) {
        LevelStates s = acc;
        Value slot = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, row, tile), tid_);
        for (auto [c, value] : llvm::enumerate(s.values))
          value = fromMemory(b, loc, memref::LoadOp::create(b, loc, buf.first[c], ValueRange{slot}), value.getType());
        return s;
      };
      // The usual 8 thread rows as a tree; more (narrow tiles) 8 at a time,
      // each eight's tree merged in row order.
      auto eight = [&](Value first) {
        SmallVector<LevelStates> rows;
        for (int64_t row = 0; row < kRowsPerBlock; ++row)
          rows.push_back(load(arith::AddIOp::create(b, loc, first, cidx(b, loc, row))));
        return LevelStates::mergeTree(b, loc, rows);
      };
      acc = eight(cidx(b, loc, 0));
      auto more = scf::ForOp::create(b, loc, cidx(b, loc, kRowsPerBlock), threadRows_, cidx(b, loc, kRowsPerBlock),
                                     acc.values);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(more.getBody());
        scf::YieldOp::create(
            b, loc, acc.with(more.getRegionIterArgs()).merge(b, loc, eight(more.getInductionVar())).values);
      }
      acc = acc.with(more.getResults());
      for (auto [c, value] : llvm::enumerate(acc.values))
        memref::StoreOp::create(b, loc, toMemory(b, loc, value), buf.second[c], ValueRange{tid_});
    });
    gpu::BarrierOp::create(b, loc);
    SmallVector<LevelStates> out;
    for (unsigned lane = 0; lane < width_; ++lane) {
      Value col = arith::AddIOp::create(b, loc, colBase, cidx(b, loc, lane));
      LevelStates s = lanes[lane];
      for (auto [c, value] : llvm::enumerate(s.values))
        value = fromMemory(b, loc, memref::LoadOp::create(b, loc, buf.second[c], ValueRange{col}), value.getType());
      out.push_back(s);
    }
    // The buffers are reused by the next tile only after every thread read them.
    gpu::BarrierOp::create(b, loc);
    return out;
  }

  /// The full-space output of rows [rbeg, rend) of every lane's column.
  void writeRows(OpBuilder &b, Location loc, const Lanes &ln, Value rbeg, Value rend) {
    SmallVector<unsigned> inputs = maskBits(p_.mapInputs, p_.numFull());
    Value vecOk = arith::AndIOp::create(b, loc, flagSet(b, loc, params_.flags, reduction_vectors), ln.allValid);
    Value first = arith::AddIOp::create(b, loc, rbeg, ty_);
    auto loop = scf::ForOp::create(b, loc, first, rend, threadRows_);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value r = loop.getInductionVar();
    auto branch = scf::IfOp::create(b, loc, vecOk, /*withElseRegion=*/true);
    for (bool vector : {true, false}) {
      if (vector && width_ == 1)
        continue; // one-lane tiles (complex operands): scalar stores only
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(vector ? branch.thenBlock() : branch.elseBlock());
      SmallVector<SmallVector<Value>> elems = loadRow(b, loc, ln, inputs, r, vector);
      SmallVector<Value> results;
      for (unsigned lane = 0; lane < width_; ++lane) {
        PointEnv env = laneEnv(p_, ln.env[lane], inputs, elems, lane, r);
        Value value = eval_->valueAt(b, p_.result, env);
        if (vector)
          results.push_back(value);
        else
          ifThen(b, loc, ln.valid[lane], [&] {
            memref::StoreOp::create(b, loc, value, params_.out, ValueRange{ln.o, r, ln.column[lane]});
          });
      }
      if (vector) {
        auto vt = VectorType::get({int64_t(width_)}, p_.outputType);
        unsigned bytes = std::max(1u, p_.outputType.getIntOrFloatBitWidth() / 8);
        vector::StoreOp::create(b, loc, vector::FromElementsOp::create(b, loc, vt, results), params_.out,
                                ValueRange{ln.o, r, ln.i0}, /*nontemporal=*/false, llvm::Align(width_ * bytes));
      }
    }
  }

  /// One tile of columns, chunk `s` of `split` of the reduced extent: every
  /// level (whole, level -1), one level's partial states (level >= 0), or the
  /// output from the workspace (level -2).
  void columns(OpBuilder &b, Location loc, Value tileUnit, Value split, Value s, int level) {
    Lanes ln = lanesOf(b, loc, tileUnit);
    Value nr = space_->reducedExtent();
    Value rbeg = cidx(b, loc, 0), rend = nr;
    std::optional<Workspace> ws;
    if (level != -1) {
      Value size = ceilDiv(b, loc, nr, split);
      rbeg = minIdx(b, loc, arith::MulIOp::create(b, loc, s, size), nr);
      rend = minIdx(b, loc, arith::AddIOp::create(b, loc, rbeg, size), nr);
      ws.emplace(b, loc, p_, params_.workspace, space_->keptExtent(), split);
      unsigned upTo = level >= 0 ? unsigned(level) : p_.numLevels;
      for (unsigned lane = 0; lane < width_; ++lane)
        ws->loadResults(b, loc, upTo, ln.env[lane].keptIndex, ln.env[lane]);
    }
    if (level == -2)
      return writeRows(b, loc, ln, rbeg, rend);
    unsigned from = level >= 0 ? level : 0, to = level >= 0 ? level + 1 : p_.numLevels;
    for (unsigned l = from; l < to; ++l) {
      LevelStates init = LevelStates::identity(b, loc, p_, p_.stagesAt(l));
      SmallVector<LevelStates> merged = mergeRows(b, loc, accumulate(b, loc, ln, rbeg, rend, init), l);
      if (level >= 0) { // partial states of this chunk
        ifThen(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::eq, ty_, cidx(b, loc, 0)), [&] {
          for (unsigned lane = 0; lane < width_; ++lane)
            ifThen(b, loc, ln.valid[lane], [&] {
              Value slot = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, ln.env[lane].keptIndex, split), s);
              for (auto [i, si] : llvm::enumerate(merged[lane].stages()))
                for (auto [c, v] : llvm::enumerate(merged[lane].of(i)))
                  ws->storePartial(b, loc, si, c, slot, v);
            });
        });
        return;
      }
      for (unsigned lane = 0; lane < width_; ++lane)
        bindResults(merged[lane], ln.env[lane]);
    }
    if (!p_.keptOutput)
      return writeRows(b, loc, ln, rbeg, rend);
    ifThen(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::eq, ty_, cidx(b, loc, 0)), [&] {
      for (unsigned lane = 0; lane < width_; ++lane)
        ifThen(b, loc, ln.valid[lane], [&] {
          memref::StoreOp::create(b, loc, eval_->valueAt(b, p_.result, ln.env[lane]), params_.out,
                                  ValueRange{ln.o, ln.column[lane]});
        });
    });
  }

  /// One thread per kept element merges its chunks' states in order.
  void combine(OpBuilder &b, Location loc, Value block, unsigned level) {
    Value k = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, block, cidx(b, loc, kBlock)), tid_);
    ifThen(b, loc, cmpIdx(b, loc, arith::CmpIPredicate::ult, k, space_->keptExtent()), [&] {
      Workspace ws(b, loc, p_, params_.workspace, space_->keptExtent(), params_.split);
      LevelStates init = LevelStates::identity(b, loc, p_, p_.stagesAt(level));
      Value base = arith::MulIOp::create(b, loc, k, params_.split);
      auto loop = scf::ForOp::create(b, loc, cidx(b, loc, 0), params_.split, cidx(b, loc, 1), init.values);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        Value slot = arith::AddIOp::create(b, loc, base, loop.getInductionVar());
        LevelStates part = init;
        part.values.clear();
        for (unsigned si : init.stages())
          for (unsigned c = 0; c < p_.stages[si].stateTypes.size(); ++c)
            part.values.push_back(ws.loadPartial(b, loc, si, c, slot));
        scf::YieldOp::create(b, loc, init.with(loop.getRegionIterArgs()).merge(b, loc, part).values);
      }
      LevelStates st = init.with(loop.getResults());
      for (auto [i, si] : llvm::enumerate(st.stages()))
        for (auto [c, v] : llvm::enumerate(st.of(i)))
          ws.storeResult(b, loc, si, c, k, v);
      if (p_.keptOutput && level + 1 == p_.numLevels) {
        SmallVector<Value> coords = space_->keptCoords(b, loc, k);
        PointEnv env;
        env.keptIndex = k;
        for (unsigned j = 0; j < p_.numKept(); ++j)
          env.kept[p_.keptArg(j)] = memref::LoadOp::create(b, loc, params_.kept[j], coords);
        ws.loadResults(b, loc, level, k, env);
        bindResults(st, env);
        memref::StoreOp::create(b, loc, eval_->valueAt(b, p_.result, env), params_.out, coords);
      }
    });
  }

  const ReductionProgram &p_;
  unsigned width_;
  Params params_;
  std::optional<Space> space_;
  std::optional<ProgramEvaluator> eval_;
  SmallVector<std::pair<SmallVector<Value>, SmallVector<Value>>> buffers_;
  Value tid_, tx_, ty_, tiles_;
  Value lanesX_;     ///< threads across the columns (L)
  Value threadRows_; ///< thread rows (256 / L), the row step
  Value tile_;       ///< columns a tile (L V)
};

} // namespace

void buildGpuCols(OpBuilder &b, gpu::GPUModuleOp module, const ReductionProgram &p, StringRef name) {
  ColumnBuilder(p).build(b, module, name);
}

} // namespace kiln::reduction
