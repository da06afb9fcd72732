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
// outputs); a call with another filter runs the group's eager form
// (docs/compiler-pipeline.md, "Stencil kernels").
//
// Parameters, in order (docs/kernel-abi.md, "Stencil kernels"): the output
// (C-contiguous, the image's shape), its rows and columns; for each input
// of the group its data and element strides of rows and columns; the
// filter's data (C-contiguous; each kernel knows its size); the scalars, a
// complex one as its two parts.
//
//===----------------------------------------------------------------------===//
#include "Frontend/ElementMath.h"
#include "Frontend/KernelGen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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
    ScalarBuilder sb(b_, loc_);
    sb_ = &sb;
    Cache none;
    fill_ = sb.cast(valueOf(*st_.operands[2], Position{}, none),
                    st_.operands[2]->type, t_);
    if (failed_) {
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
    b_.setInsertionPointToEnd(entry);
    func::ReturnOp::create(b_, loc_);
    return true;
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
      v = at.rowBases
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
    std::vector<std::vector<Value>> taps(kh, std::vector<Value>(kw));
    for (unsigned p = 0; p < kh; ++p)
      for (unsigned q = 0; q < kw; ++q)
        taps[p][q] = tap(p, q, kh, kw);
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
    variants.push_back(std::move(v));
  }
  return true;
}

} // namespace kiln::frontend
