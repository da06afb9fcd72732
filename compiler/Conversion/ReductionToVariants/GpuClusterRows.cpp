//===- GpuClusterRows.cpp - GPU variant: a cluster of blocks per row ------===//
//
// `_rrowsc` (sm_90): rows too long for one block's shared memory, read more
// than once (softmax: max, sum, output). A thread-block cluster of C blocks
// takes a row, each block a chunk of it: the first pass reads the chunk from
// memory into dynamic shared memory (every full input read again later),
// later passes and the output read it there, so memory sees the row once.
// After each level every block publishes its merged state in shared memory;
// after a cluster barrier every block reads all C states through
// distributed shared memory (mapa) and merges them in rank order, so all
// blocks hold the same bits. Parameters as `_rrows`; the runtime launches
// clusters of C blocks with C · chunk bytes of dynamic shared memory in all.
//
//===----------------------------------------------------------------------===//
#include "Conversion/ReductionToVariants/ReductionVariants.h"
#include "Conversion/ReductionToVariants/VariantCommon.h"

#include "Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln::reduction {
namespace {

constexpr int64_t kBlock = 256;

unsigned bytesOf(Type t) { return std::max(1u, t.getIntOrFloatBitWidth() / 8); }

class ClusterRowsBuilder {
public:
  explicit ClusterRowsBuilder(const ReductionProgram &p) : p_(p), width_(p.vectorWidth()) {
    std::uint64_t mask = clusterCachedInputs(p);
    cached_ = maskBits(mask, p.numFull());
  }

  void build(OpBuilder &b, gpu::GPUModuleOp module, StringRef name) {
    MLIRContext *ctx = module.getContext();
    b.setInsertionPointToEnd(module.getBody());
    Location loc = mlir::func::FuncOp(p_.func).getLoc();
    auto shared = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    SmallVector<Type> workgroup;
    SmallVector<unsigned> setSizes;
    for (unsigned l = 0; l < p_.numLevels; ++l) {
      SmallVector<Type> types = stageStateTypes(p_, l);
      auto t = blockReduceBufferTypes(ctx, types);
      workgroup.append(t.begin(), t.end());
      setSizes.push_back(types.size());
      for (Type s : types) // this block's state of the level, read by the cluster
        workgroup.push_back(MemRefType::get({1}, memoryType(s), MemRefLayoutAttrInterface{}, shared));
    }
    FunctionType type = variantSignature(p_, Layout::Rows);
    auto func = gpu::GPUFuncOp::create(b, loc, name, type, workgroup);
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func->setAttr(func.getKnownBlockSizeAttrName(), b.getDenseI32ArrayAttr({int32_t(kBlock), 1, 1}));
    Block &entry = func.getBody().front();
    b.setInsertionPointToStart(&entry);
    params_ = bindParams(b, loc, p_, entry.getArguments().take_front(type.getNumInputs()));
    unsigned w = 0;
    for (unsigned n : setSizes) {
      buffers_.push_back(takeBlockReduceBuffers(func, w, n));
      SmallVector<Value> slots;
      for (unsigned i = 0; i < n; ++i)
        slots.push_back(func.getWorkgroupAttributions()[w++]);
      exchange_.push_back(slots);
    }
    space_.emplace(b, loc, Layout::Rows, params_);
    eval_.emplace(p_, params_.scalars, space_->keptExtent(), space_->reducedExtent());
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    lane_ = arith::AndIOp::create(b, loc, tid, cidx(b, loc, 31));
    warp_ = arith::ShRUIOp::create(b, loc, tid, cidx(b, loc, 5));
    thread_ = tid;
    leader_ = cmpIdx(b, loc, arith::CmpIPredicate::eq, tid, cidx(b, loc, 0));
    rank_ = gpu::ClusterBlockIdOp::create(b, loc, gpu::Dimension::x);
    Value blocks = gpu::ClusterDimBlocksOp::create(b, loc, gpu::Dimension::x);
    clusterSize_ = blocks;

    // This block's chunk of every row, and its cache.
    Value nr = space_->reducedExtent();
    Value v = cidx(b, loc, width_);
    Value size = arith::MulIOp::create(b, loc, ceilDiv(b, loc, ceilDiv(b, loc, nr, blocks), v), v);
    cbeg_ = minIdx(b, loc, arith::MulIOp::create(b, loc, rank_, size), nr);
    cend_ = minIdx(b, loc, arith::AddIOp::create(b, loc, cbeg_, size), nr);
    auto dynType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), MemRefLayoutAttrInterface{}, shared);
    Value dyn = gpu::DynamicSharedMemoryOp::create(b, loc, dynType);
    Value offset = cidx(b, loc, 0);
    for (unsigned in : cached_) {
      Type t = p_.fullTypes[in];
      auto view = MemRefType::get({ShapedType::kDynamic}, t, MemRefLayoutAttrInterface{}, shared);
      cache_[in] = memref::ViewOp::create(b, loc, view, dyn, offset, ValueRange{size});
      Value bytes = arith::MulIOp::create(b, loc, size, cidx(b, loc, bytesOf(t)));
      Value end = arith::AddIOp::create(b, loc, offset, bytes);
      offset = arith::AndIOp::create(b, loc, arith::AddIOp::create(b, loc, end, cidx(b, loc, 15)),
                                     cidx(b, loc, ~int64_t(15)));
    }

    // Rows: cluster c takes rows first + c, stepping by the number of clusters.
    Value cid = gpu::ClusterIdOp::create(b, loc, gpu::Dimension::x);
    Value ncl = gpu::ClusterDimOp::create(b, loc, gpu::Dimension::x);
    forEachVirtualUnit(b, loc, params_, cid, ncl, [&](Value k) { row(b, loc, k); });
    gpu::ReturnOp::create(b, loc);
  }

private:
  void clusterBarrier(OpBuilder &b, Location loc) {
    NVVM::ClusterArriveOp::create(b, loc, /*aligned=*/nullptr);
    NVVM::ClusterWaitOp::create(b, loc, /*aligned=*/nullptr);
  }

  /// Element `slot[0]` of block `rank` of this cluster (distributed shared
  /// memory).
  Value loadFromBlock(OpBuilder &b, Location loc, Value slot, Value rank, Type t) {
    MLIRContext *ctx = b.getContext();
    Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, slot);
    Value i64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
    Value local = LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, 3), i64);
    Value r32 = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), rank);
    Value remote = NVVM::MapaOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, 7), local, r32);
    Value v = LLVM::LoadOp::create(b, loc, memoryType(t), remote);
    return fromMemory(b, loc, v, t);
  }

  SmallVector<Value> loadVector(OpBuilder &b, Location loc, Value memref, ValueRange idx, Type t) {
    auto vt = VectorType::get({int64_t(width_)}, t);
    Value vec = vector::LoadOp::create(b, loc, vt, memref, idx, false, llvm::Align(width_ * bytesOf(t)));
    SmallVector<Value> lanes;
    for (unsigned lane = 0; lane < width_; ++lane)
      lanes.push_back(vector::ExtractOp::create(b, loc, vec, int64_t(lane)));
    return lanes;
  }

  /// The elements (lanes) of full input `in` at (k, r0...): from the cache
  /// when it holds them (levels after the first, the output), else from
  /// memory (kept in the cache on the first level).
  SmallVector<Value> elements(OpBuilder &b, Location loc, unsigned in, Value k, Value r0, bool vector,
                              bool fromCache, bool fill) {
    Type t = p_.fullTypes[in];
    Value local = arith::SubIOp::create(b, loc, r0, cbeg_);
    bool isCached = cache_.count(in);
    if (fromCache && isCached)
      return vector ? loadVector(b, loc, cache_[in], ValueRange{local}, t)
                    : SmallVector<Value>{memref::LoadOp::create(b, loc, cache_[in], ValueRange{local})};
    SmallVector<Value> lanes = vector ? loadVector(b, loc, params_.full[in], ValueRange{k, r0}, t)
                                      : SmallVector<Value>{memref::LoadOp::create(b, loc, params_.full[in],
                                                                                  ValueRange{k, r0})};
    if (fill && isCached) {
      if (vector)
        vector::StoreOp::create(b, loc, vector::FromElementsOp::create(b, loc, VectorType::get({int64_t(width_)}, t), lanes),
                                cache_[in], ValueRange{local}, false, llvm::Align(width_ * bytesOf(t)));
      else
        memref::StoreOp::create(b, loc, lanes[0], cache_[in], ValueRange{local});
    }
    return lanes;
  }

  /// Runs `step(r0, vector)` over this block's chunk: whole vectors (when
  /// the runtime says rows are aligned) by thread, then the tail.
  SmallVector<Value> overChunk(OpBuilder &b, Location loc, ValueRange inits,
                               const std::function<SmallVector<Value>(Value, bool, ValueRange)> &step) {
    Value g = cidx(b, loc, kBlock);
    Value v = cidx(b, loc, width_);
    Value tailStart = cbeg_;
    SmallVector<Value> acc(inits);
    if (width_ > 1) {
      Value vecOk = flagSet(b, loc, params_.flags, reduction_vectors);
      Value all = arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, cend_, cbeg_), v);
      Value nv = arith::SelectOp::create(b, loc, vecOk, all, cidx(b, loc, 0));
      auto loop = stridedLoop(b, loc, thread_, nv, g, acc, [&](Value c, ValueRange args) {
        return step(arith::AddIOp::create(b, loc, cbeg_, arith::MulIOp::create(b, loc, c, v)), true, args);
      });
      if (!acc.empty())
        acc = unrollLoop(loop, 4);
      tailStart = arith::AddIOp::create(b, loc, cbeg_, arith::MulIOp::create(b, loc, nv, v));
    }
    auto tail = scf::ForOp::create(b, loc, arith::AddIOp::create(b, loc, tailStart, thread_), cend_, g, acc);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(tail.getBody());
      SmallVector<Value> next = step(tail.getInductionVar(), false, tail.getRegionIterArgs());
      if (!acc.empty())
        scf::YieldOp::create(b, loc, next);
    }
    return SmallVector<Value>(tail.getResults());
  }

  void row(OpBuilder &b, Location loc, Value k) {
    PointEnv env;
    env.keptIndex = k;
    for (unsigned j = 0; j < p_.numKept(); ++j)
      env.kept[p_.keptArg(j)] = memref::LoadOp::create(b, loc, params_.kept[j], ValueRange{k});
    for (unsigned l = 0; l < p_.numLevels; ++l) {
      LevelStates init = LevelStates::identity(b, loc, p_, p_.stagesAt(l));
      SmallVector<unsigned> inputs = maskBits(inputsOf(p_, init.stages()), p_.numFull());
      unsigned n = init.values.size();
      SmallVector<Value> laneInits;
      for (unsigned lane = 0; lane < width_; ++lane)
        laneInits.append(init.values.begin(), init.values.end());
      SmallVector<Value> folded = overChunk(b, loc, laneInits, [&](Value r0, bool vector, ValueRange args) {
        unsigned lanesHere = vector ? width_ : 1;
        SmallVector<SmallVector<Value>> elems;
        for (unsigned in : inputs)
          elems.push_back(elements(b, loc, in, k, r0, vector, /*fromCache=*/l > 0, /*fill=*/l == 0));
        SmallVector<PointEnv> envs;
        SmallVector<LevelStates> mine;
        for (unsigned lane = 0; lane < lanesHere; ++lane) {
          PointEnv e = laneEnv(p_, env, inputs, elems, lane, arith::AddIOp::create(b, loc, r0, cidx(b, loc, lane)));
          envs.push_back(e);
          mine.push_back(init.with(args.slice(lane * n, n)));
        }
        SmallVector<Value> next;
        for (const LevelStates &s : LevelStates::updateVector(b, loc, *eval_, envs, mine))
          next.append(s.values.begin(), s.values.end());
        for (unsigned lane = lanesHere; lane < width_; ++lane) // the tail folds into lane 0 only
          next.append(args.slice(lane * n, n).begin(), args.slice(lane * n, n).end());
        return next;
      });
      SmallVector<LevelStates> lanes;
      for (unsigned lane = 0; lane < width_; ++lane)
        lanes.push_back(init.with(ValueRange(folded).slice(lane * n, n)));
      LevelStates mine = blockReduce(b, loc, LevelStates::mergeTree(b, loc, lanes), kBlock / 32, buffers_[l], lane_,
                                     warp_);
      // Publish, then merge every block's state in rank order.
      ifThen(b, loc, leader_, [&] {
        for (auto [c, value] : llvm::enumerate(mine.values))
          memref::StoreOp::create(b, loc, toMemory(b, loc, value), exchange_[l][c], ValueRange{cidx(b, loc, 0)});
      });
      clusterBarrier(b, loc);
      auto merge = scf::ForOp::create(b, loc, cidx(b, loc, 0), clusterSize_, cidx(b, loc, 1), init.values);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(merge.getBody());
        LevelStates theirs = init;
        for (auto [c, value] : llvm::enumerate(theirs.values))
          value = loadFromBlock(b, loc, exchange_[l][c], merge.getInductionVar(), value.getType());
        scf::YieldOp::create(b, loc, init.with(merge.getRegionIterArgs()).merge(b, loc, theirs).values);
      }
      bindResults(init.with(merge.getResults()), env);
    }
    if (p_.keptOutput) {
      Value first = cmpIdx(b, loc, arith::CmpIPredicate::eq, rank_, cidx(b, loc, 0));
      ifThen(b, loc, arith::AndIOp::create(b, loc, first, leader_), [&] {
        memref::StoreOp::create(b, loc, eval_->valueAt(b, p_.result, env), params_.out, ValueRange{k});
      });
    } else {
      SmallVector<unsigned> inputs = maskBits(p_.mapInputs, p_.numFull());
      overChunk(b, loc, {}, [&](Value r0, bool vector, ValueRange) {
        unsigned lanesHere = vector ? width_ : 1;
        SmallVector<SmallVector<Value>> elems;
        for (unsigned in : inputs)
          elems.push_back(elements(b, loc, in, k, r0, vector, /*fromCache=*/true, /*fill=*/false));
        SmallVector<Value> results;
        for (unsigned lane = 0; lane < lanesHere; ++lane) {
          PointEnv e = laneEnv(p_, env, inputs, elems, lane, arith::AddIOp::create(b, loc, r0, cidx(b, loc, lane)));
          results.push_back(eval_->valueAt(b, p_.result, e));
        }
        if (vector)
          vector::StoreOp::create(b, loc,
                                  vector::FromElementsOp::create(b, loc, VectorType::get({int64_t(width_)}, p_.outputType),
                                                                 results),
                                  params_.out, ValueRange{k, r0}, false, llvm::Align(width_ * bytesOf(p_.outputType)));
        else
          memref::StoreOp::create(b, loc, results[0], params_.out, ValueRange{k, r0});
        return SmallVector<Value>{};
      });
    }
    // Every block is done reading the others' states (and may reuse them).
    clusterBarrier(b, loc);
  }

  const ReductionProgram &p_;
  unsigned width_;
  SmallVector<unsigned> cached_;
  DenseMap<unsigned, Value> cache_;
  Params params_;
  std::optional<Space> space_;
  std::optional<ProgramEvaluator> eval_;
  SmallVector<BlockReduceBuffers> buffers_;
  SmallVector<SmallVector<Value>> exchange_;
  Value lane_, warp_, thread_, leader_, rank_, clusterSize_, cbeg_, cend_;
};

} // namespace

std::uint64_t clusterCachedInputs(const ReductionProgram &p) {
  std::uint64_t first = 0, later = p.keptOutput ? 0 : p.mapInputs;
  for (const ReductionStage &s : p.stages)
    (s.level == 0 ? first : later) |= s.fullInputs;
  return first & later;
}

bool wantsClusterRows(const ReductionProgram &p) {
  // Worth it when the row is read more than once; kept simple for complex
  // states (no cross-block loads of complex values).
  if (p.numLevels < 2 && p.keptOutput)
    return false;
  for (const ReductionStage &s : p.stages)
    for (Type t : s.stateTypes)
      if (isa<ComplexType>(t))
        return false;
  for (Type t : p.fullTypes)
    if (isa<ComplexType>(t))
      return false;
  return !isa<ComplexType>(p.outputType);
}

void buildGpuClusterRows(OpBuilder &b, gpu::GPUModuleOp module, const ReductionProgram &p, StringRef name) {
  ClusterRowsBuilder(p).build(b, module, name);
}

} // namespace kiln::reduction
