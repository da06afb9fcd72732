//===- Frontend/ElementwiseGen.cpp - Elementwise groups to MLIR -----------===//
//
// A group without reductions becomes a `kiln.kernel` func.func in the
// elementwise kernel form: rank-1 tensors for the array operands, scalars by
// value, one linalg.generic per operation whose region computes one element
// (ElementMath.h); MLIR's elementwise fusion then merges them
// (--emit=fused-mlir).
//
//===----------------------------------------------------------------------===//
#include "Frontend/ElementMath.h"
#include "Frontend/KernelGen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include "clang/Basic/SourceManager.h"

using namespace mlir;

namespace kiln::frontend {
namespace {

/// Emits the function for one group.
class ElementwiseEmitter {
public:
  ElementwiseEmitter(ModuleOp module, const FusedGroup &g, const clang::SourceManager &sm, const NodeErrorFn &onError)
      : module_(module), g_(g), sm_(sm), onError_(onError), b_(module.getContext()) {}

  bool emit(StringRef name) {
    MLIRContext *ctx = module_.getContext();
    SmallVector<Type> args;
    for (ElementType t : g_.inputTypes) args.push_back(RankedTensorType::get({ShapedType::kDynamic}, storageType(*ctx, t)));
    for (ElementType t : g_.scalarTypes) args.push_back(storageType(*ctx, t));
    Type result = RankedTensorType::get({ShapedType::kDynamic}, storageType(*ctx, g_.rootNode->type));
    Location loc = locOf(g_.root);
    b_.setInsertionPointToEnd(module_.getBody());
    auto fn = func::FuncOp::create(b_, loc, name, b_.getFunctionType(args, {result}));
    fn->setAttr("kiln.kernel", b_.getUnitAttr());
    Block *entry = fn.addEntryBlock();
    b_.setInsertionPointToStart(entry);
    entry_ = entry;
    Value c0 = arith::ConstantIndexOp::create(b_, loc, 0);
    n_ = tensor::DimOp::create(b_, loc, entry->getArgument(0), c0);
    Value r = tensorOf(*g_.rootNode);
    if (!r) {
      fn.erase();
      return false;
    }
    func::ReturnOp::create(b_, loc, r);
    return true;
  }

private:
  Location locOf(const clang::Expr *e) {
    clang::SourceLocation sl = sm_.getExpansionLoc(e->getBeginLoc());
    clang::PresumedLoc p = sm_.getPresumedLoc(sl);
    if (p.isInvalid()) return b_.getUnknownLoc();
    return FileLineColLoc::get(b_.getContext(), p.getFilename(), p.getLine(), p.getColumn());
  }

  /// The tensor holding node `n` (an array node).
  Value tensorOf(const Node &n) {
    if (auto it = tensors_.find(&n); it != tensors_.end()) return it->second;
    Value v;
    if (n.kind == Node::Kind::Input || g_.cuts.count(&n)) {
      v = entry_->getArgument(g_.inputIndex.lookup(&n));
    } else {
      v = emitOp(n);
    }
    if (v) tensors_[&n] = v;
    return v;
  }

  Value emitOp(const Node &n) {
    MLIRContext *ctx = module_.getContext();
    Location loc = locOf(n.expr);
    SmallVector<Value> ins;
    SmallVector<int> argOf(n.operands.size(), -1);
    for (auto [i, op] : llvm::enumerate(n.operands)) {
      if (!op->isArray()) continue;
      Value t = tensorOf(*op);
      if (!t) return {};
      argOf[i] = ins.size();
      ins.push_back(t);
    }
    Type outElem = storageType(*ctx, n.type);
    Value init = tensor::EmptyOp::create(b_, loc, ArrayRef<OpFoldResult>{OpFoldResult(n_)}, outElem);
    AffineMap id = b_.getDimIdentityMap();
    SmallVector<AffineMap> maps(ins.size() + 1, id);
    SmallVector<utils::IteratorType> iters{utils::IteratorType::parallel};
    bool ok = true;
    auto gen = linalg::GenericOp::create(
        b_, loc, TypeRange{init.getType()}, ins, ValueRange{init}, maps, iters,
        [&](OpBuilder &rb, Location rl, ValueRange blockArgs) {
          ScalarBuilder sb(rb, rl);
          SmallVector<Value> vals;
          for (auto [i, op] : llvm::enumerate(n.operands)) {
            Value v;
            if (argOf[i] >= 0) v = blockArgs[argOf[i]];
            else if (op->kind == Node::Kind::Constant) v = sb.constant(op->type, op->constant, op->intConstant);
            else v = entry_->getArgument(g_.inputs.size() + g_.scalarIndex.lookup(op));
            if (op->type == ElementType::Bool && argOf[i] < 0 && op->kind != Node::Kind::Constant)
              v = arith::TruncIOp::create(rb, rl, rb.getI1Type(), v); // bool scalars pass as a byte
            else if (op->type == ElementType::Bool && argOf[i] >= 0)
              v = arith::TruncIOp::create(rb, rl, rb.getI1Type(), v); // bool arrays hold bytes
            vals.push_back(v);
          }
          Value r = emitElementwise(sb, n, vals, onError_);
          if (!r) {
            ok = false;
            r = sb.zero(n.type);
          }
          if (n.type == ElementType::Bool) r = arith::ExtUIOp::create(rb, rl, rb.getI8Type(), r);
          linalg::YieldOp::create(rb, rl, r);
        });
    if (!ok) {
      gen.erase();
      return {};
    }
    return gen.getResult(0);
  }

private:
  ModuleOp module_;
  const FusedGroup &g_;
  const clang::SourceManager &sm_;
  const NodeErrorFn &onError_;
  OpBuilder b_;
  Block *entry_ = nullptr;
  Value n_;
  llvm::DenseMap<const Node *, Value> tensors_;
};

} // namespace

bool emitElementwiseKernel(ModuleOp module, StringRef name, const FusedGroup &group,
                           const clang::SourceManager &sm, const NodeErrorFn &onError) {
  ElementwiseEmitter e(module, group, sm, onError);
  return e.emit(name);
}

} // namespace kiln::frontend
