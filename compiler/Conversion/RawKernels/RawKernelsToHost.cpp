//===- Conversion/RawKernels/RawKernelsToHost.cpp - Raw kernels on a CPU --===//
//
// `kiln-raw-kernels-to-host`: a `kiln.raw_kernel` function becomes the host
// form of one thread, `@<kernel>_thread(params..., %ctx, %tx, %ty, %tz)`,
// where %ctx is the runtime's raw_thread_ctx (kiln/detail/raw_kernel.hpp)
// and the thread's index comes as values, so that a loop over a block's
// threads passes its induction variables and LLVM optimizes across them:
//
// * gpu.thread_id: %tx/%ty/%tz; gpu.block_id, block_dim, grid_dim: the
//   ctx's fields; gpu.lane_id: the linear thread index mod 32.
// * kiln.shared_memory {offset}: ctx->shared + offset.
// * gpu.barrier: kiln_raw_syncthreads(ctx); gpu.shuffle: kiln_raw_shfl(ctx,
//   bits, mode, offset, width) (CUDA's segment width; the runtime gives a
//   lane outside its segment its own value, so `valid` is true);
//   kiln.ballot: kiln_raw_ballot(ctx, predicate).
//
// A kernel that does not synchronize also gets `@<kernel>_block(params...,
// %ctx)`: every thread of the block in order, x fastest. Target/Host
// exports both through `(void **args, raw_thread_ctx *ctx)` wrappers.
//
//===----------------------------------------------------------------------===//
#include "Conversion/RawKernels/RawKernels.h"
#include "Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace kiln {
namespace {

constexpr llvm::StringLiteral kSyncthreads = "kiln_raw_syncthreads";
constexpr llvm::StringLiteral kShuffle = "kiln_raw_shfl";
constexpr llvm::StringLiteral kBallot = "kiln_raw_ballot";

/// The runtime's entry points, declared once.
void declareRuntime(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  auto voidType = LLVM::LLVMVoidType::get(ctx);
  if (!module.lookupSymbol(kSyncthreads))
    LLVM::LLVMFuncOp::create(b, module.getLoc(), kSyncthreads, LLVM::LLVMFunctionType::get(voidType, {ptr}));
  if (!module.lookupSymbol(kBallot))
    LLVM::LLVMFuncOp::create(b, module.getLoc(), kBallot, LLVM::LLVMFunctionType::get(i32, {ptr, i32}));
  if (!module.lookupSymbol(kShuffle))
    LLVM::LLVMFuncOp::create(b, module.getLoc(), kShuffle,
                             LLVM::LLVMFunctionType::get(i64, {ptr, i64, i32, i32, i32}));
}

/// Reads the value of type `type` at byte `offset` of the ctx.
Value ctxField(OpBuilder &b, Location loc, Value ctx, int offset, Type type) {
  Value at = LLVM::GEPOp::create(b, loc, ctx.getType(), b.getI8Type(), ctx, ArrayRef<LLVM::GEPArg>{offset});
  return LLVM::LoadOp::create(b, loc, type, at);
}

/// Field `base` (threadIdx, blockDim, ...) along `d` as an index.
Value dimension(OpBuilder &b, Location loc, Value ctx, int base, gpu::Dimension d) {
  Value v = ctxField(b, loc, ctx, base + 4 * static_cast<int>(d), b.getI32Type());
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
}

class ThreadForm {
public:
  ThreadForm(func::FuncOp f) : f_(f), b_(f.getContext()) {}

  /// Rewrites the kernel into `<kernel>_thread` in place.
  void build() {
    unsigned numParams = f_.getNumArguments();
    Block &entry = f_.getBody().front();
    Location loc = f_.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(f_.getContext());
    Type i32 = b_.getI32Type();
    ctx_ = entry.addArgument(ptr, loc);
    for (int d = 0; d < 3; ++d)
      tid_[d] = entry.addArgument(i32, loc);
    f_.setFunctionType(FunctionType::get(f_.getContext(), entry.getArgumentTypes(), {}));
    f_->setAttr(kRawParamsAttr, b_.getI64IntegerAttr(numParams));

    SmallVector<Operation *> builtins;
    f_.walk([&](Operation *op) {
      if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp, gpu::LaneIdOp, gpu::BarrierOp,
              gpu::ShuffleOp, SharedMemoryOp, BallotOp>(op))
        builtins.push_back(op);
    });
    for (Operation *op : builtins) {
      b_.setInsertionPoint(op);
      lower(op);
    }
  }

private:
  void lower(Operation *op) {
    Location loc = op->getLoc();
    if (auto t = dyn_cast<gpu::ThreadIdOp>(op))
      return replace(op, arith::IndexCastUIOp::create(b_, loc, b_.getIndexType(),
                                                      tid_[static_cast<int>(t.getDimension())]));
    if (auto t = dyn_cast<gpu::BlockIdOp>(op))
      return replace(op, dimension(b_, loc, ctx_, rawctx::blockIdx, t.getDimension()));
    if (auto t = dyn_cast<gpu::BlockDimOp>(op))
      return replace(op, dimension(b_, loc, ctx_, rawctx::blockDim, t.getDimension()));
    if (auto t = dyn_cast<gpu::GridDimOp>(op))
      return replace(op, dimension(b_, loc, ctx_, rawctx::gridDim, t.getDimension()));
    if (isa<gpu::LaneIdOp>(op))
      return replace(op, laneId(loc));
    if (isa<gpu::BarrierOp>(op)) {
      LLVM::CallOp::create(b_, loc, TypeRange{}, kSyncthreads, ValueRange{ctx_});
      return op->erase();
    }
    if (auto s = dyn_cast<gpu::ShuffleOp>(op))
      return shuffle(s);
    if (auto ballot = dyn_cast<BallotOp>(op)) {
      Value p = arith::ExtUIOp::create(b_, loc, b_.getI32Type(), ballot.getPredicate());
      return replace(op, LLVM::CallOp::create(b_, loc, TypeRange{b_.getI32Type()}, kBallot, ValueRange{ctx_, p})
                             .getResult());
    }
    auto shared = cast<SharedMemoryOp>(op);
    Value base = ctxField(b_, loc, ctx_, rawctx::shared, shared.getType());
    replace(op, LLVM::GEPOp::create(b_, loc, shared.getType(), b_.getI8Type(), base,
                                    ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(shared.getOffset())}));
  }

  void replace(Operation *op, Value v) {
    op->getResult(0).replaceAllUsesWith(v);
    op->erase();
  }

  /// ((tz * by + ty) * bx + tx) mod 32, as an index.
  Value laneId(Location loc) {
    Type i32 = b_.getI32Type();
    Value bx = ctxField(b_, loc, ctx_, rawctx::blockDim, i32), by = ctxField(b_, loc, ctx_, rawctx::blockDim + 4, i32);
    Value linear = arith::MulIOp::create(b_, loc, tid_[2], by);
    linear = arith::AddIOp::create(b_, loc, linear, tid_[1]);
    linear = arith::MulIOp::create(b_, loc, linear, bx);
    linear = arith::AddIOp::create(b_, loc, linear, tid_[0]);
    Value lane = arith::AndIOp::create(b_, loc, linear, arith::ConstantOp::create(b_, loc, b_.getI32IntegerAttr(31)));
    return arith::IndexCastUIOp::create(b_, loc, b_.getIndexType(), lane);
  }

  void shuffle(gpu::ShuffleOp s) {
    Location loc = s.getLoc();
    Type i32 = b_.getI32Type(), i64 = b_.getI64Type(), t = s.getValue().getType();
    Value bits = t == i32 ? s.getValue() : arith::BitcastOp::create(b_, loc, i32, s.getValue()).getResult();
    int mode = 0; // the runtime's numbering: idx, up, down, xor
    switch (s.getMode()) {
    case gpu::ShuffleMode::IDX: mode = 0; break;
    case gpu::ShuffleMode::UP: mode = 1; break;
    case gpu::ShuffleMode::DOWN: mode = 2; break;
    case gpu::ShuffleMode::XOR: mode = 3; break;
    }
    Value wide = arith::ExtUIOp::create(b_, loc, i64, bits);
    Value modeValue = arith::ConstantOp::create(b_, loc, b_.getI32IntegerAttr(mode));
    auto call = LLVM::CallOp::create(b_, loc, TypeRange{i64}, kShuffle,
                                     ValueRange{ctx_, wide, modeValue, s.getOffset(), s.getWidth()});
    Value narrow = arith::TruncIOp::create(b_, loc, i32, call.getResult());
    Value result = t == i32 ? narrow : arith::BitcastOp::create(b_, loc, t, narrow).getResult();
    s.getShuffleResult().replaceAllUsesWith(result);
    s.getValid().replaceAllUsesWith(arith::ConstantOp::create(b_, loc, b_.getBoolAttr(true)).getResult());
    s.erase();
  }

  func::FuncOp f_;
  OpBuilder b_;
  Value ctx_, tid_[3];
};

/// `<kernel>_block(params..., ctx)`: calls `thread` for every thread of the
/// block, x fastest.
void addBlockForm(func::FuncOp thread, StringRef kernel, unsigned numParams) {
  OpBuilder b(thread);
  b.setInsertionPointAfter(thread);
  Location loc = thread.getLoc();
  SmallVector<Type> types(thread.getArgumentTypes().take_front(numParams + 1));
  auto block = func::FuncOp::create(b, loc, (kernel + "_block").str(), b.getFunctionType(types, {}));
  block->setAttr(kRawHostAttr, b.getStringAttr((kernel + "_host_block").str()));
  block->setAttr(kRawParamsAttr, b.getI64IntegerAttr(numParams));
  Block *entry = block.addEntryBlock();
  b.setInsertionPointToStart(entry);
  Value ctx = entry->getArgument(numParams);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0), one = arith::ConstantIndexOp::create(b, loc, 1);
  Value extent[3];
  for (int d = 0; d < 3; ++d)
    extent[d] = dimension(b, loc, ctx, rawctx::blockDim, static_cast<gpu::Dimension>(d));
  SmallVector<Value> args(entry->getArguments());
  auto z = scf::ForOp::create(b, loc, zero, extent[2], one);
  b.setInsertionPointToStart(z.getBody());
  auto y = scf::ForOp::create(b, loc, zero, extent[1], one);
  b.setInsertionPointToStart(y.getBody());
  auto x = scf::ForOp::create(b, loc, zero, extent[0], one);
  b.setInsertionPointToStart(x.getBody());
  for (scf::ForOp loop : {x, y, z})
    args.push_back(arith::IndexCastUIOp::create(b, loc, b.getI32Type(), loop.getInductionVar()));
  func::CallOp::create(b, loc, thread, args);
  b.setInsertionPointToEnd(entry);
  func::ReturnOp::create(b, loc);
}

struct RawKernelsToHostPass : PassWrapper<RawKernelsToHostPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RawKernelsToHostPass)
  StringRef getArgument() const final { return "kiln-raw-kernels-to-host"; }
  StringRef getDescription() const final {
    return "Turn every kiln.raw_kernel function into its host forms (one thread; one block)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect, arith::ArithDialect, scf::SCFDialect, func::FuncDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> raw;
    for (auto f : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (f->hasAttr(kRawGpuOnlyAttr))
        f.erase(); // its GPU form, if any, is kiln-raw-kernels-to-gpu's copy
      else if (f->hasAttr(kRawKernelAttr))
        raw.push_back(f);
    if (raw.empty())
      return;
    declareRuntime(module);
    SymbolTable symbols(module);
    for (func::FuncOp f : raw) {
      std::string kernel = f.getSymName().str();
      unsigned numParams = f.getNumArguments();
      bool synchronizes = f->hasAttr(kRawSynchronizesAttr);
      ThreadForm(f).build();
      if (failed(symbols.rename(f, kernel + "_thread"))) {
        f.emitError() << "kiln.raw_kernel @" << kernel << ": cannot name its host form";
        return signalPassFailure();
      }
      f->setAttr(kRawHostAttr, StringAttr::get(&getContext(), kernel + "_host"));
      f->removeAttr(kRawKernelAttr);
      if (!synchronizes)
        addBlockForm(f, kernel, numParams);
    }
  }
};

} // namespace

std::unique_ptr<Pass> createRawKernelsToHostPass() { return std::make_unique<RawKernelsToHostPass>(); }

} // namespace kiln
