//===- Frontend/StencilGen.cpp - Stencil groups to raw kernels ------------===//
//
// A group around one convolution (kiln::signal::convolve2d/correlate2d with
// mode::same) becomes kernels of the raw-kernel form (`kiln.raw_kernel`,
// Conversion/RawKernels), which the pipeline lowers to PTX and to host code
// like a KILN_RAWKERNEL function. One thread computes one output column of
// `rows` consecutive output rows: it evaluates the producer (the image's
// elementwise operations) at each input it reads, accumulates every output
// that input reaches with the filter's taps held in registers, and applies
// the consumers (the operations on the convolution's result) before it
// stores. There is a kernel for each of the filters 3x3, 5x5 and 7x7, fully
// unrolled, 8 rows a thread (each input read and produced once for up to 8
// outputs); a call with another filter runs the group's unfused form
// (docs/compiler-pipeline.md, "Stencil kernels"). Beside the 5x5 and 7x7
// kernels, a GPU-only tiled kernel (emitTiled: persistent blocks over
// shared-memory windows filled with cp.async) of the same parameters, which the
// runtime prefers on a GPU where the inputs' rows are aligned.
//
// Parameters, in order (docs/kernel-abi.md, "Stencil kernels"): the output
// (C-contiguous, the image's shape), its rows and columns; for each input
// of the group its data and element strides of rows and columns; the
// filter's data (C-contiguous; each kernel knows its size); the scalars, a
// complex one as its two parts.
//
//===----------------------------------------------------------------------===//
#include "Dialect/Kiln/IR/KilnDialect.h"
#include "Frontend/ElementMath.h"
#include "Frontend/KernelGen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include "clang/Basic/SourceManager.h"

using namespace mlir;

namespace kiln::frontend {
namespace {

class StencilEmitter {
public:
  StencilEmitter(ModuleOp module, const FusedGroup &g,
                 const clang::SourceManager &sm, const NodeErrorFn &onError)
      : module_(module), g_(g), st_(*g.stencil), onError_(onError),
        b_(module.getContext()), loc_(locOf(module.getContext(), sm, g.root)),
        t_(st_.type) {}

  /// Adds `@name` for filters of fixedKh x fixedKw with `rows` outputs a
  /// thread.
  bool emit(StringRef name, unsigned fixedKh, unsigned fixedKw, unsigned rows,
            std::vector<unsigned> &paramBytes) {
    func::FuncOp fn = begin(name, paramBytes);
    ScalarBuilder sb(b_, loc_);
    sb_ = &sb;
    if (!prepare()) {
      fn.erase();
      return false;
    }

    // The thread's column j and first row; rows advance by the grid's height.
    Value j =
        add(mul(index(gpu::BlockIdOp::create(b_, loc_, gpu::Dimension::x)),
                index(gpu::BlockDimOp::create(b_, loc_, gpu::Dimension::x))),
            index(gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::x)));
    Value rowsC = constant(rows);
    Value first = mul(
        add(mul(index(gpu::BlockIdOp::create(b_, loc_, gpu::Dimension::y)),
                index(gpu::BlockDimOp::create(b_, loc_, gpu::Dimension::y))),
            index(gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::y))),
        rowsC);
    Value step =
        mul(mul(index(gpu::GridDimOp::create(b_, loc_, gpu::Dimension::y)),
                index(gpu::BlockDimOp::create(b_, loc_, gpu::Dimension::y))),
            rowsC);
    Value inside =
        arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, j, w_);
    auto guard = scf::IfOp::create(b_, loc_, inside, /*withElseRegion=*/false);
    b_.setInsertionPointToStart(guard.thenBlock());
    bool ok = fixedKernel(j, first, step, fixedKh, fixedKw, rows);
    if (!ok || failed_) {
      fn.erase();
      return false;
    }
    b_.setInsertionPointToEnd(&fn.getBody().front());
    func::ReturnOp::create(b_, loc_);
    return true;
  }

  /// The shared memory of a tiled kernel: two staging buffers of each
  /// input's window (as stored), then the produced window (the
  /// convolution's type); byte offsets, each 16-byte aligned.
  struct TiledLayout {
    std::vector<unsigned> stage; ///< each input's first buffer
    std::vector<unsigned> stageBytes;
    unsigned window = 0, bytes = 0;
  };

  /// The layout for a k x k filter, or nullopt where the tiled form does
  /// not apply (complex operands, more than kMaxTiledShared bytes).
  std::optional<TiledLayout> tiledLayout(unsigned k) const {
    if (kindOf(t_) == TypeKind::Complex)
      return std::nullopt;
    auto aligned = [](unsigned n) { return (n + 15) / 16 * 16; };
    const unsigned elements = kWindowCols * (kTileRows + k - 1);
    TiledLayout l;
    for (const Node *in : g_.inputs) {
      if (kindOf(in->type) == TypeKind::Complex)
        return std::nullopt;
      l.stage.push_back(l.bytes);
      l.stageBytes.push_back(aligned(elements * byteSize(in->type)));
      l.bytes += 2 * l.stageBytes.back();
    }
    l.window = l.bytes;
    l.bytes += aligned(elements * byteSize(t_));
    if (l.bytes > kMaxTiledShared)
      return std::nullopt;
    return l;
  }

public:
  /// Adds `@name`, the GPU-only tiled kernel for a k x k filter, when the
  /// group has one (tiledLayout); its shared memory in `sharedBytes`.
  /// Persistent blocks of kThreads threads take tiles of kTileRows x
  /// kTileCols outputs in turn. Each block copies the next tile's input
  /// window (its halo included) into shared memory with cp.async while it
  /// computes the current one: 4-element pieces when the window lies inside
  /// the image (the runtime checks alignment), element by element through
  /// the boundary otherwise. The producer then runs once per window element
  /// into a window of the convolution's type (the fill value outside the
  /// image), and each thread computes kRowsPerThread rows of 4 adjacent
  /// outputs from it with vector loads, the taps in registers, and applies
  /// the consumer per output, storing 4 outputs at once where it can.
  bool emitTiled(StringRef name, unsigned k, std::vector<unsigned> &paramBytes,
                 unsigned &sharedBytes) {
    std::optional<TiledLayout> layout = tiledLayout(k);
    if (!layout)
      return false;
    func::FuncOp fn = begin(name, paramBytes);
    fn->setAttr("kiln.static_shared", b_.getI64IntegerAttr(layout->bytes));
    fn->setAttr("kiln.synchronizes", b_.getUnitAttr());
    fn->setAttr("kiln.gpu_only", b_.getUnitAttr());
    ScalarBuilder sb(b_, loc_);
    sb_ = &sb;
    if (!prepare() || !tiledBody(k, *layout)) {
      fn.erase();
      failed_ = false;
      return false;
    }
    func::ReturnOp::create(b_, loc_);
    sharedBytes = layout->bytes;
    return true;
  }

private:
  static constexpr unsigned kThreads = 128, kRowsPerThread = 8,
                            kTileRows = kRowsPerThread * kThreads / 32,
                            kTileCols = 4 * 32, kWindowCols = kTileCols + 8,
                            kMaxTiledShared = 96 * 1024;

  /// The function `@name` with the stencil ABI's parameters, the builder at
  /// its entry, the parameters in the emitter's fields.
  func::FuncOp begin(StringRef name, std::vector<unsigned> &paramBytes) {
    MLIRContext *ctx = module_.getContext();
    Type ptr = LLVM::LLVMPointerType::get(ctx), i64 = b_.getI64Type();
    SmallVector<Type> params{ptr, i64, i64};
    paramBytes = {8, 8, 8};
    for (size_t i = 0; i < g_.inputs.size(); ++i) {
      params.append({ptr, i64, i64});
      paramBytes.insert(paramBytes.end(), {8, 8, 8});
    }
    params.push_back(ptr);
    paramBytes.push_back(8);
    for (ElementType s : g_.scalarTypes) {
      Type stored = storageType(*ctx, s);
      unsigned parts = 1;
      if (auto c = dyn_cast<ComplexType>(stored)) {
        stored = c.getElementType();
        parts = 2;
      }
      for (unsigned p = 0; p < parts; ++p) {
        params.push_back(stored);
        paramBytes.push_back(std::max(1u, stored.getIntOrFloatBitWidth() / 8));
      }
    }
    b_.setInsertionPointToEnd(module_.getBody());
    auto fn =
        func::FuncOp::create(b_, loc_, name, b_.getFunctionType(params, {}));
    fn->setAttr("kiln.raw_kernel", b_.getUnitAttr());
    fn->setAttr("kiln.static_shared", b_.getI64IntegerAttr(0));
    Block *entry = fn.addEntryBlock();
    b_.setInsertionPointToStart(entry);

    unsigned a = 0;
    out_ = entry->getArgument(a++);
    h_ = entry->getArgument(a++);
    w_ = entry->getArgument(a++);
    inputs_.clear();
    for (size_t i = 0; i < g_.inputs.size(); ++i, a += 3)
      inputs_.push_back({entry->getArgument(a), entry->getArgument(a + 1),
                         entry->getArgument(a + 2)});
    taps_ = entry->getArgument(a++);
    scalars_.clear();
    for (ElementType s : g_.scalarTypes) {
      Value v = entry->getArgument(a++);
      if (kindOf(s) == TypeKind::Complex)
        v = complex::CreateOp::create(b_, loc_, valueType(*ctx, s), v,
                                      entry->getArgument(a++));
      scalars_.push_back(v);
    }
    return fn;
  }

  /// The fill value, once sb_ is set; false when the group cannot be
  /// emitted.
  bool prepare() {
    Cache none;
    fill_ = sb_->cast(valueOf(*st_.operands[2], Position{}, none),
                      st_.operands[2]->type, t_);
    return !failed_;
  }

  Value shared(unsigned offset) {
    return SharedMemoryOp::create(
        b_, loc_, LLVM::LLVMPointerType::get(module_.getContext()),
        b_.getI64IntegerAttr(offset), UnitAttr());
  }
  /// `p` advanced by `bytes` (an i64 value).
  Value byteOffset(Value p, Value bytes) {
    return LLVM::GEPOp::create(b_, loc_, p.getType(), b_.getI8Type(), p,
                               ValueRange{bytes});
  }
  Value i32(int v) {
    return arith::ConstantIntOp::create(b_, loc_, b_.getI32Type(), v);
  }
  Value divU(Value x, unsigned d) {
    return arith::DivUIOp::create(b_, loc_, x, constant(d));
  }
  Value remU(Value x, unsigned d) {
    return arith::RemUIOp::create(b_, loc_, x, constant(d));
  }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b_, loc_, x, y); }
  /// `x` in [0, n): a window element the outputs never read may lie beyond
  /// the one fold of mapIndex.
  Value clampIndex(Value x, Value n) {
    return arith::MinSIOp::create(
        b_, loc_, arith::MaxSIOp::create(b_, loc_, x, constant(0)),
        sub(n, constant(1)));
  }
  /// A loop over the elements of a window of `rows` x `cols`, from the
  /// thread's index by the block's threads, in 32-bit arithmetic (the
  /// divisions by constants stay cheap); `body` gets the element, its row
  /// and its column as i64.
  template <class Body>
  void forEachOfWindow(unsigned rows, unsigned cols, Body body) {
    Type i32t = b_.getI32Type();
    Value tid = arith::IndexCastUIOp::create(
        b_, loc_, i32t, gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::x));
    auto loop =
        scf::ForOp::create(b_, loc_, tid, i32(rows * cols), i32(kThreads));
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(loop.getBody());
    Value e = loop.getInductionVar();
    auto wide = [&](Value v) -> Value {
      return arith::ExtUIOp::create(b_, loc_, b_.getI64Type(), v);
    };
    body(wide(e), wide(arith::DivUIOp::create(b_, loc_, e, i32(cols))),
         wide(arith::RemUIOp::create(b_, loc_, e, i32(cols))));
  }
  Type vectorOf(Type t) { return VectorType::get({4}, t); }
  Value extract(Value v, int i) {
    return LLVM::ExtractElementOp::create(b_, loc_, v, i32(i));
  }

  /// The tiled kernel's body (emitTiled).
  bool tiledBody(unsigned k, const TiledLayout &layout) {
    MLIRContext *ctx = module_.getContext();
    const unsigned rowsIn = kTileRows + k - 1, vectorsIn = kWindowCols / 4;
    const long long o = origin(k); // both axes: k is odd
    Value tid = index(gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::x));
    Value bid = index(gpu::BlockIdOp::create(b_, loc_, gpu::Dimension::x));
    Value blocks = index(gpu::GridDimOp::create(b_, loc_, gpu::Dimension::x));
    Value tilesX = divU(add(w_, constant(kTileCols - 1)), kTileCols);
    Value tiles =
        mul(tilesX, divU(add(h_, constant(kTileRows - 1)), kTileRows));
    std::vector<std::vector<Value>> taps = allTaps(k, k);
    std::vector<Value> stage;
    for (unsigned off : layout.stage)
      stage.push_back(shared(off));
    Value window = shared(layout.window);
    // A tile's window starts 4 columns (one piece) left of its outputs and
    // -o rows above them.
    auto windowOrigin = [&](Value tile, Value &y0, Value &x0) {
      Value ty = arith::DivUIOp::create(b_, loc_, tile, tilesX);
      Value tx = arith::RemUIOp::create(b_, loc_, tile, tilesX);
      y0 = add(mul(ty, constant(kTileRows)), constant(o));
      x0 = sub(mul(tx, constant(kTileCols)), constant(4));
    };
    auto stageAt = [&](size_t i, Value parity, Value element) {
      unsigned bytes = byteSize(g_.inputs[i]->type);
      return byteOffset(stage[i],
                        add(mul(parity, constant(layout.stageBytes[i])),
                            mul(element, constant(bytes))));
    };

    // Starts the copy of tile `tile`'s window into buffer `parity`.
    auto fetch = [&](Value tile, Value parity) {
      Value y0, x0;
      windowOrigin(tile, y0, x0);
      Value interior = andI(
          andI(cmp(arith::CmpIPredicate::sge, x0, constant(0)),
               cmp(arith::CmpIPredicate::sge, y0, constant(0))),
          andI(cmp(arith::CmpIPredicate::sle, add(x0, constant(kWindowCols)),
                   w_),
               cmp(arith::CmpIPredicate::sle, add(y0, constant(rowsIn)), h_)));
      auto branch = scf::IfOp::create(b_, loc_, interior, true);
      b_.setInsertionPointToStart(branch.thenBlock());
      Type global = LLVM::LLVMPointerType::get(ctx, 1),
           sharedPtr = LLVM::LLVMPointerType::get(ctx, 3);
      forEachOfWindow(rowsIn, vectorsIn, [&](Value e, Value y, Value x) {
        for (size_t i = 0; i < inputs_.size(); ++i) {
          const unsigned bytes = 4 * byteSize(g_.inputs[i]->type),
                         piece = std::min(bytes, 16u);
          Value src = LLVM::AddrSpaceCastOp::create(
              b_, loc_, global,
              elementAddress(inputs_[i].data,
                             add(mul(add(y0, y), inputs_[i].rowStride),
                                 add(x0, mul(x, constant(4)))),
                             g_.inputs[i]->type));
          Value dst = LLVM::AddrSpaceCastOp::create(
              b_, loc_, sharedPtr, stageAt(i, parity, mul(e, constant(4))));
          for (unsigned c = 0; c < bytes; c += piece) {
            auto at = [&](Value p, Type t) -> Value {
              return c ? LLVM::GEPOp::create(b_, loc_, t, b_.getI8Type(), p,
                                             ArrayRef<LLVM::GEPArg>{int32_t(c)})
                       : p;
            };
            NVVM::CpAsyncOp::create(
                b_, loc_, at(dst, sharedPtr), at(src, global),
                b_.getI32IntegerAttr(piece),
                NVVM::LoadCacheModifierKindAttr::get(
                    ctx, piece == 16 ? NVVM::LoadCacheModifierKind::CG
                                     : NVVM::LoadCacheModifierKind::CA),
                Value());
          }
        }
      });
      b_.setInsertionPointToStart(branch.elseBlock());
      // Through the boundary: each element's own copy (cp.async for 4 and 8
      // bytes; a load and a store for smaller ones, which cp.async cannot
      // copy).
      forEachOfWindow(rowsIn, kWindowCols, [&](Value e, Value y, Value x) {
        Value unusedIn;
        Value gy = clampIndex(mapIndex(add(y0, y), h_, unusedIn), h_);
        Value gx = clampIndex(mapIndex(add(x0, x), w_, unusedIn), w_);
        for (size_t i = 0; i < inputs_.size(); ++i) {
          ElementType t = g_.inputs[i]->type;
          Value src = elementAddress(
              inputs_[i].data,
              add(mul(gy, inputs_[i].rowStride), mul(gx, inputs_[i].colStride)),
              t);
          Value dst = stageAt(i, parity, e);
          if (byteSize(t) >= 4) {
            NVVM::CpAsyncOp::create(
                b_, loc_,
                LLVM::AddrSpaceCastOp::create(b_, loc_, sharedPtr, dst),
                LLVM::AddrSpaceCastOp::create(b_, loc_, global, src),
                b_.getI32IntegerAttr(byteSize(t)),
                NVVM::LoadCacheModifierKindAttr::get(
                    ctx, NVVM::LoadCacheModifierKind::CA),
                Value());
            continue;
          }
          LLVM::StoreOp::create(
              b_, loc_,
              LLVM::LoadOp::create(b_, loc_, storageType(*ctx, t), src), dst);
        }
      });
      b_.setInsertionPointAfter(branch);
    };

    auto first = scf::IfOp::create(
        b_, loc_, cmp(arith::CmpIPredicate::slt, bid, tiles), false);
    b_.setInsertionPointToStart(first.thenBlock());
    fetch(bid, constant(0));
    b_.setInsertionPointAfter(first);
    NVVM::CpAsyncCommitGroupOp::create(b_, loc_);

    auto tileLoop = scf::ForOp::create(b_, loc_, bid, tiles, blocks,
                                       ValueRange{constant(0)});
    b_.setInsertionPointToStart(tileLoop.getBody());
    Value tile = tileLoop.getInductionVar(),
          parity = tileLoop.getRegionIterArg(0);
    Value next = add(tile, blocks);
    Value other = sub(constant(1), parity);
    auto more = scf::IfOp::create(
        b_, loc_, cmp(arith::CmpIPredicate::slt, next, tiles), false);
    b_.setInsertionPointToStart(more.thenBlock());
    fetch(next, other);
    b_.setInsertionPointAfter(more);
    NVVM::CpAsyncCommitGroupOp::create(b_, loc_);
    NVVM::CpAsyncWaitGroupOp::create(b_, loc_, 1);
    gpu::BarrierOp::create(b_, loc_);

    // The producer, once per window element, into the window.
    Value y0, x0;
    windowOrigin(tile, y0, x0);
    Type tv = storageType(*ctx, t_);
    const unsigned tBytes = byteSize(t_);
    forEachOfWindow(rowsIn, vectorsIn, [&](Value e, Value y, Value x) {
      Value row = add(y0, y), col = add(x0, mul(x, constant(4)));
      std::vector<Value> pieces;
      for (size_t i = 0; i < inputs_.size(); ++i) {
        Type stored = storageType(*ctx, g_.inputs[i]->type);
        pieces.push_back(LLVM::LoadOp::create(
            b_, loc_, vectorOf(stored), stageAt(i, parity, mul(e, constant(4))),
            std::min(16u, 4 * byteSize(g_.inputs[i]->type))));
      }
      Value rowIn;
      if (st_.boundary == StencilBoundary::Fill)
        rowIn = andI(cmp(arith::CmpIPredicate::sge, row, constant(0)),
                     cmp(arith::CmpIPredicate::slt, row, h_));
      Value produced = LLVM::UndefOp::create(b_, loc_, vectorOf(tv));
      for (int c = 0; c < 4; ++c) {
        std::vector<Value> values;
        for (size_t i = 0; i < inputs_.size(); ++i) {
          Value v = extract(pieces[i], c);
          if (g_.inputs[i]->type == ElementType::Bool)
            v = arith::TruncIOp::create(b_, loc_, b_.getI1Type(), v);
          values.push_back(v);
        }
        Value inside;
        if (rowIn) {
          Value cc = add(col, constant(c));
          inside =
              andI(rowIn, andI(cmp(arith::CmpIPredicate::sge, cc, constant(0)),
                               cmp(arith::CmpIPredicate::slt, cc, w_)));
        }
        Position at;
        at.values = &values;
        Value v = produce(at, inside);
        if (!v)
          return;
        produced = LLVM::InsertElementOp::create(b_, loc_, produced, v, i32(c));
      }
      LLVM::StoreOp::create(b_, loc_, produced,
                            byteOffset(window, mul(e, constant(4 * tBytes))),
                            std::min(16u, 4 * tBytes));
    });
    if (failed_)
      return false;
    gpu::BarrierOp::create(b_, loc_);

    // kRowsPerThread x 4 outputs a thread: output column c + q of the
    // thread's first reads window column 4 * lane + shift + c + q.
    Value lane = remU(tid, 32), warp = divU(tid, 32);
    const int shift = 4 + o;
    const unsigned loads = (shift + 4 + k - 1 + 3) / 4;
    std::vector<std::vector<Value>> acc(kRowsPerThread,
                                        std::vector<Value>(4, sb_->zero(t_)));
    Value firstRow = mul(warp, constant(kRowsPerThread));
    for (unsigned y = 0; y < kRowsPerThread + k - 1; ++y) {
      Value at = add(mul(add(firstRow, constant(y)), constant(kWindowCols)),
                     mul(lane, constant(4)));
      std::vector<Value> in;
      for (unsigned l = 0; l < loads; ++l) {
        Value piece = LLVM::LoadOp::create(
            b_, loc_, vectorOf(tv),
            byteOffset(window, mul(add(at, constant(4 * l)), constant(tBytes))),
            std::min(16u, 4 * tBytes));
        for (int c = 0; c < 4; ++c)
          in.push_back(extract(piece, c));
      }
      for (unsigned p = 0; p < k; ++p) {
        if (y < p || y - p >= kRowsPerThread)
          continue;
        for (unsigned q = 0; q < k; ++q)
          for (unsigned c = 0; c < 4; ++c)
            acc[y - p][c] =
                multiplyAdd(acc[y - p][c], in[shift + c + q], taps[p][q]);
      }
    }
    Value outRow0 = add(sub(y0, constant(o)), firstRow);
    Value outCol = add(add(x0, constant(4)), mul(lane, constant(4)));
    Value vectorStores =
        andI(cmp(arith::CmpIPredicate::eq, remU(w_, 4), constant(0)),
             cmp(arith::CmpIPredicate::sle, add(outCol, constant(4)), w_));
    // Every row in range and 4-element aligned: 4 outputs a store, no
    // branch between the arithmetic and the stores (a branch a row would
    // let LLVM sink each row's sums into it, keeping every window value
    // live); else each output on its own.
    Value whole =
        andI(vectorStores, cmp(arith::CmpIPredicate::sle,
                               add(outRow0, constant(kRowsPerThread)), h_));
    ElementType rt = g_.rootNode->type;
    Type rv = storageType(*ctx, rt);
    auto stores = scf::IfOp::create(b_, loc_, whole, true);
    b_.setInsertionPointToStart(stores.thenBlock());
    for (unsigned r = 0; r < kRowsPerThread; ++r) {
      Value row = add(outRow0, constant(r));
      Value outs = LLVM::UndefOp::create(b_, loc_, vectorOf(rv));
      for (int c = 0; c < 4; ++c) {
        Cache cache;
        Value v = valueOf(*g_.rootNode, Position{row, add(outCol, constant(c))},
                          cache, acc[r][c]);
        if (!v)
          return false;
        if (rt == ElementType::Bool)
          v = arith::ExtUIOp::create(b_, loc_, b_.getI8Type(), v);
        outs = LLVM::InsertElementOp::create(b_, loc_, outs, v, i32(c));
      }
      LLVM::StoreOp::create(b_, loc_, outs,
                            elementAddress(out_, add(mul(row, w_), outCol), rt),
                            std::min(16u, 4 * byteSize(rt)));
    }
    b_.setInsertionPointToStart(stores.elseBlock());
    for (unsigned r = 0; r < kRowsPerThread; ++r) {
      Value row = add(outRow0, constant(r));
      for (int c = 0; c < 4; ++c) {
        Value col = add(outCol, constant(c));
        auto inside =
            scf::IfOp::create(b_, loc_,
                              andI(cmp(arith::CmpIPredicate::slt, row, h_),
                                   cmp(arith::CmpIPredicate::slt, col, w_)),
                              false);
        b_.setInsertionPointToStart(inside.thenBlock());
        finish(row, col, acc[r][c]);
        b_.setInsertionPointAfter(inside);
      }
    }
    b_.setInsertionPointAfter(stores);
    // Every thread is done with the window before the next tile's producer
    // writes it.
    gpu::BarrierOp::create(b_, loc_);
    scf::YieldOp::create(b_, loc_, ValueRange{other});
    b_.setInsertionPointAfter(tileLoop);
    return !failed_;
  }

private:
  struct InputParam {
    Value data, rowStride, colStride;
  };

  static Location locOf(MLIRContext *ctx, const clang::SourceManager &sm,
                        const clang::Expr *e) {
    clang::PresumedLoc p =
        sm.getPresumedLoc(sm.getExpansionLoc(e->getBeginLoc()));
    if (p.isInvalid())
      return UnknownLoc::get(ctx);
    return FileLineColLoc::get(ctx, p.getFilename(), p.getLine(),
                               p.getColumn());
  }

  Value index(Value v) {
    return arith::IndexCastOp::create(b_, loc_, b_.getI64Type(), v);
  }
  Value constant(long long v) {
    return arith::ConstantIntOp::create(b_, loc_, b_.getI64Type(), v);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b_, loc_, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b_, loc_, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b_, loc_, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b_, loc_, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b_, loc_, c, x, y);
  }

  /// Index `x` of an axis of `n` elements under the boundary; `inside` (fill
  /// only) says whether it was in range (the index is then clamped, so that
  /// the load stays in bounds and its value is replaced). Wrap and symm fold
  /// once, with compares and selects and no branch (so that the loads of
  /// every row can issue together): the runtime runs these kernels only on
  /// images at least as large as the filter, where -n <= x < 2n.
  Value mapIndex(Value x, Value n, Value &inside) {
    Value zero = constant(0), one = constant(1);
    Value below = cmp(arith::CmpIPredicate::slt, x, zero),
          above = cmp(arith::CmpIPredicate::sge, x, n);
    if (st_.boundary == StencilBoundary::Fill) {
      inside = arith::AndIOp::create(
          b_, loc_, arith::XOrIOp::create(b_, loc_, below, constant1(true)),
          arith::XOrIOp::create(b_, loc_, above, constant1(true)));
      return arith::MinSIOp::create(
          b_, loc_, arith::MaxSIOp::create(b_, loc_, x, zero), sub(n, one));
    }
    // wrap: x + n below, x - n above; symm: -1 - x below, 2n - 1 - x above.
    bool wrap = st_.boundary == StencilBoundary::Wrap;
    Value low = wrap ? add(x, n) : sub(sub(zero, one), x);
    Value high = wrap ? sub(x, n) : sub(sub(add(n, n), one), x);
    return select(below, low, select(above, high, x));
  }

  Value constant1(bool v) {
    return arith::ConstantIntOp::create(b_, loc_, b_.getI1Type(), v);
  }

  /// The value of element `offset` of `data`, stored as `t`.
  Value load(Value data, Value offset, ElementType t) {
    return loadAt(elementAddress(data, offset, t), 0, t);
  }

  /// Stores `v` (of type `t`) as element `offset` of `data`.
  void store(Value v, Value data, Value offset, ElementType t) {
    MLIRContext *ctx = module_.getContext();
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    Value at = elementAddress(data, offset, t);
    if (kindOf(t) == TypeKind::Complex) {
      Type part = cast<ComplexType>(storageType(*ctx, t)).getElementType();
      LLVM::StoreOp::create(b_, loc_, complex::ReOp::create(b_, loc_, v), at);
      Value imAt = LLVM::GEPOp::create(b_, loc_, ptr, part, at,
                                       ArrayRef<LLVM::GEPArg>{1});
      LLVM::StoreOp::create(b_, loc_, complex::ImOp::create(b_, loc_, v), imAt);
      return;
    }
    if (t == ElementType::Bool)
      v = arith::ExtUIOp::create(b_, loc_, b_.getI8Type(), v);
    LLVM::StoreOp::create(b_, loc_, v, at);
  }

  using Cache = llvm::DenseMap<const Node *, Value>;

  /// Where valueOf reads the inputs: element (row, col) of each, or, on the
  /// fast path (unit column strides, every column of the window inside),
  /// element `q` after each input's row base (an immediate offset).
  struct Position {
    Value row, col;
    const std::vector<Value> *rowBases = nullptr;
    unsigned q = 0;
    /// Or each input's value, already loaded (the tiled kernel's window).
    const std::vector<Value> *values = nullptr;
  };

  /// The address of element `offset` of `data` (element type `t`).
  Value elementAddress(Value data, Value offset, ElementType t) {
    MLIRContext *ctx = module_.getContext();
    Type stored = storageType(*ctx, t);
    if (auto c = dyn_cast<ComplexType>(stored))
      return LLVM::GEPOp::create(b_, loc_, LLVM::LLVMPointerType::get(ctx),
                                 c.getElementType(), data,
                                 ValueRange{add(offset, offset)});
    return LLVM::GEPOp::create(b_, loc_, LLVM::LLVMPointerType::get(ctx),
                               stored, data, ValueRange{offset});
  }

  /// The value at `address` (elementAddress), `at` elements further on.
  Value loadAt(Value address, unsigned at, ElementType t) {
    MLIRContext *ctx = module_.getContext();
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    Type stored = storageType(*ctx, t);
    if (auto c = dyn_cast<ComplexType>(stored)) {
      Type part = c.getElementType();
      Value reAt = LLVM::GEPOp::create(b_, loc_, ptr, part, address,
                                       ArrayRef<LLVM::GEPArg>{int32_t(2 * at)});
      Value imAt =
          LLVM::GEPOp::create(b_, loc_, ptr, part, address,
                              ArrayRef<LLVM::GEPArg>{int32_t(2 * at + 1)});
      return complex::CreateOp::create(
          b_, loc_, c, LLVM::LoadOp::create(b_, loc_, part, reAt),
          LLVM::LoadOp::create(b_, loc_, part, imAt));
    }
    Value a = at ? LLVM::GEPOp::create(b_, loc_, ptr, stored, address,
                                       ArrayRef<LLVM::GEPArg>{int32_t(at)})
                       .getResult()
                 : address;
    Value v = LLVM::LoadOp::create(b_, loc_, stored, a);
    if (t == ElementType::Bool)
      v = arith::TruncIOp::create(b_, loc_, b_.getI1Type(), v);
    return v;
  }

  /// Node `n` at element (row, col) of the group's space; the convolution
  /// itself is `result` (null while evaluating its producer).
  Value valueOf(const Node &n, const Position &at, Cache &cache,
                Value result = {}) {
    if (Value v = cache.lookup(&n))
      return v;
    Value v;
    if (&n == &st_ && result) {
      v = result;
    } else if (n.kind == Node::Kind::Input ||
               (g_.cuts.count(&n) && &n != g_.rootNode)) {
      unsigned k = g_.inputIndex.lookup(&n);
      const InputParam &in = inputs_[k];
      v = at.values ? (*at.values)[k]
          : at.rowBases
              ? loadAt((*at.rowBases)[k], at.q, n.type)
              : load(in.data,
                     add(mul(at.row, in.rowStride), mul(at.col, in.colStride)),
                     n.type);
    } else if (n.kind == Node::Kind::Scalar) {
      v = scalars_[g_.scalarIndex.lookup(&n)];
      if (n.type == ElementType::Bool)
        v = arith::TruncIOp::create(b_, loc_, b_.getI1Type(),
                                    v); // bool scalars pass as a byte
    } else if (n.kind == Node::Kind::Constant) {
      v = sb_->constant(n.type, n.constant, n.intConstant);
    } else if (n.kind == Node::Kind::Op) {
      SmallVector<Value> operands;
      for (const Node *o : n.operands) {
        Value x = valueOf(*o, at, cache, result);
        if (!x)
          return {};
        operands.push_back(x);
      }
      v = emitElementwise(*sb_, n, operands, onError_);
      if (!v)
        failed_ = true;
    } else {
      onError_(n,
               "kilnc cannot fuse this operation into a convolution's kernel");
      failed_ = true;
    }
    if (v)
      cache[&n] = v;
    return v;
  }

  /// The producer's value at input element (row, col), the fill value where
  /// `inside` (fill boundary) is false.
  Value produce(const Position &at, Value inside) {
    Cache cache;
    Value v = valueOf(*st_.operands[0], at, cache);
    if (!v)
      return {};
    v = sb_->cast(v, st_.operands[0]->type, t_);
    return inside ? select(inside, v, fill_) : v;
  }

  /// Tap (p, q) of the filter in correlation order: reversed for a
  /// convolution, conjugated for a correlation; in the result's type.
  Value tap(unsigned p, unsigned q, unsigned kh, unsigned kw) {
    if (!st_.correlate) {
      p = kh - 1 - p;
      q = kw - 1 - q;
    }
    ElementType ft = st_.operands[1]->type;
    Value v = load(taps_, constant(p * kw + q),
                   ft); // C-contiguous: an immediate offset
    v = sb_->cast(v, ft, t_);
    if (st_.correlate && kindOf(t_) == TypeKind::Complex)
      v = complex::ConjOp::create(b_, loc_, v);
    return v;
  }

  /// Every tap of a kh x kw filter, [p][q] as tap() gives it.
  std::vector<std::vector<Value>> allTaps(unsigned kh, unsigned kw) {
    std::vector<std::vector<Value>> taps(kh, std::vector<Value>(kw));
    for (unsigned p = 0; p < kh; ++p)
      for (unsigned q = 0; q < kw; ++q)
        taps[p][q] = tap(p, q, kh, kw);
    return taps;
  }

  /// The output at (row, j) from the convolution's value `acc`, stored.
  void finish(Value row, Value j, Value acc) {
    Cache cache;
    Value v = valueOf(*g_.rootNode, Position{row, j}, cache, acc);
    if (!v)
      return;
    store(v, out_, add(mul(row, w_), j), g_.rootNode->type);
  }

  /// The origin of each axis: output i reads inputs i + origin + p (SciPy's
  /// mode same centres at (k - 1) / 2 for convolve2d, k / 2 for correlate2d).
  long long origin(unsigned k) const {
    long long n = k;
    return (st_.correlate ? n : n - 1) / 2 - (n - 1);
  }

  /// A kh x kw filter known here: `rows` outputs a thread, fully unrolled,
  /// each input produced once and multiplied into every output it reaches.
  bool fixedKernel(Value j, Value first, Value step, unsigned kh, unsigned kw,
                   unsigned rows) {
    Value oy = constant(origin(kh)), ox = constant(origin(kw));
    std::vector<std::vector<Value>> taps = allTaps(kh, kw);
    // The fast path: every column of the window inside and every input's
    // rows contiguous, so that each load is an immediate offset from its
    // row's base (most threads; the others map each column).
    Value left = add(j, ox);
    Value fast = arith::AndIOp::create(
        b_, loc_, cmp(arith::CmpIPredicate::sge, left, constant(0)),
        cmp(arith::CmpIPredicate::slt, add(left, constant(kw - 1)), w_));
    for (const InputParam &in : inputs_)
      fast = arith::AndIOp::create(
          b_, loc_, fast,
          cmp(arith::CmpIPredicate::eq, in.colStride, constant(1)));
    auto branch = scf::IfOp::create(b_, loc_, fast, /*withElseRegion=*/true);
    b_.setInsertionPointToStart(branch.thenBlock());
    if (!fixedRows(j, first, step, kh, kw, rows, oy, left, taps, true))
      return false;
    b_.setInsertionPointToStart(branch.elseBlock());
    if (!fixedRows(j, first, step, kh, kw, rows, oy, left, taps, false))
      return false;
    b_.setInsertionPointAfter(branch);
    return !failed_;
  }

  /// acc + v * tap, contracted to a fused multiply-add for floats.
  Value multiplyAdd(Value acc, Value v, Value tap) {
    if (kindOf(t_) == TypeKind::Float) {
      auto contract = arith::FastMathFlagsAttr::get(
          b_.getContext(), arith::FastMathFlags::contract);
      Value m = arith::MulFOp::create(b_, loc_, v, tap, contract);
      return arith::AddFOp::create(b_, loc_, acc, m, contract);
    }
    return sb_->arithmetic(OpKind::Add, acc,
                           sb_->arithmetic(OpKind::Mul, v, tap, t_), t_);
  }

  /// The row loop of fixedKernel, on the fast path or mapping each column.
  bool fixedRows(Value j, Value first, Value step, unsigned kh, unsigned kw,
                 unsigned rows, Value oy, Value left,
                 const std::vector<std::vector<Value>> &taps, bool fast) {
    std::vector<Value> cols(kw), colIn(kw);
    if (!fast)
      for (unsigned q = 0; q < kw; ++q)
        cols[q] = mapIndex(add(left, constant(q)), w_, colIn[q]);
    auto rowsLoop = scf::ForOp::create(b_, loc_, first, h_, step);
    b_.setInsertionPointToStart(rowsLoop.getBody());
    Value base = rowsLoop.getInductionVar();
    std::vector<Value> acc(rows, sb_->zero(t_));
    std::vector<Value> rowBases(inputs_.size());
    for (unsigned r = 0; r + 1 < rows + kh; ++r) {
      Value rowIn;
      Value y = mapIndex(add(base, add(oy, constant(r))), h_, rowIn);
      if (fast)
        for (size_t k = 0; k < inputs_.size(); ++k)
          rowBases[k] = elementAddress(inputs_[k].data,
                                       add(mul(y, inputs_[k].rowStride), left),
                                       g_.inputs[k]->type);
      for (unsigned q = 0; q < kw; ++q) {
        Value in =
            !rowIn || fast
                ? rowIn
                : arith::AndIOp::create(b_, loc_, rowIn, colIn[q]).getResult();
        Value v = produce(
            fast ? Position{y, {}, &rowBases, q} : Position{y, cols[q]}, in);
        if (!v)
          return false;
        // Input row r reaches output rows o with tap row p = r - o.
        for (unsigned o = r + 1 > kh ? r + 1 - kh : 0; o < rows && o <= r; ++o)
          acc[o] = multiplyAdd(acc[o], v, taps[r - o][q]);
      }
    }
    for (unsigned o = 0; o < rows; ++o) {
      Value i = add(base, constant(o));
      auto inRange = scf::IfOp::create(
          b_, loc_, cmp(arith::CmpIPredicate::slt, i, h_), false);
      b_.setInsertionPointToStart(inRange.thenBlock());
      finish(i, j, acc[o]);
      b_.setInsertionPointAfter(inRange);
    }
    return !failed_;
  }

  ModuleOp module_;
  const FusedGroup &g_;
  const Node &st_;
  const NodeErrorFn &onError_;
  OpBuilder b_;
  Location loc_;
  ElementType t_;
  ScalarBuilder *sb_ = nullptr;
  Value out_, h_, w_, fill_;
  std::vector<InputParam> inputs_;
  Value taps_;
  std::vector<Value> scalars_;
  bool failed_ = false;
};

} // namespace

bool emitStencilKernels(ModuleOp module, StringRef name,
                        const FusedGroup &group, const clang::SourceManager &sm,
                        const NodeErrorFn &onError,
                        std::vector<StencilVariant> &variants) {
  variants.clear();
  for (unsigned k : {3u, 5u, 7u}) {
    StencilVariant v;
    v.symbol = (name + "_" + std::to_string(k) + "x" + std::to_string(k)).str();
    v.kh = v.kw = k;
    v.rows = 8;
    StencilEmitter e(module, group, sm, onError);
    if (!e.emit(v.symbol, k, k, v.rows, v.paramBytes))
      return false;
    // 3x3: the column kernel is the faster one (0.75 of the copy against
    // 0.73 on an H200, docs/compiler-pipeline.md).
    std::vector<unsigned> tiledBytes;
    StencilEmitter tiled(module, group, sm, onError);
    if (k > 3 &&
        tiled.emitTiled(v.symbol + "_tiled", k, tiledBytes, v.tiledShared))
      v.tiledSymbol = v.symbol + "_tiled";
    variants.push_back(std::move(v));
  }
  return true;
}

} // namespace kiln::frontend
