//===- Conversion/RawKernels/RawKernelsToGPU.cpp - Raw kernels as gpu.func ===//
//
// `kiln-raw-kernels-to-gpu`: every `kiln.raw_kernel` function gets a
// `gpu.func` kernel of the same name and body in `gpu.module @kiln_kernels`,
// which convert-gpu-to-nvvm then lowers with the fused kernels. What only a
// GPU gives the built-ins is decided here:
//
// * kiln.shared_memory {offset} is the generic address of byte `offset` of
//   `@kiln_raw_shared`, an `addrspace(3)` array of unknown size (PTX
//   `.extern .shared`): the runtime asks each launch for the kernel's static
//   bytes plus its dynamic bytes, one buffer as on the host.
// * gpu.shuffle becomes nvvm.shfl.sync over the full warp with CUDA's
//   segment width in the clamp operand ((32 - width) << 8 | clamp), as
//   __shfl_*_sync does; a source outside the segment gives the lane its own
//   value, so the op's `valid` result is true.
// * kiln.ballot becomes vote.sync.ballot over the full warp.
//
//===----------------------------------------------------------------------===//
#include "Conversion/RawKernels/RawKernels.h"
#include "Dialect/Kiln/IR/KilnDialect.h"
#include "Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace kiln {
namespace {

gpu::GPUModuleOp kernelModule(ModuleOp module) {
  for (auto existing : module.getOps<gpu::GPUModuleOp>())
    if (existing.getName() == kGpuModuleName)
      return existing;
  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  return gpu::GPUModuleOp::create(b, module.getLoc(), kGpuModuleName);
}

/// `@kiln_raw_shared`: `.extern .shared .align 16 .b8 kiln_raw_shared[]`.
void declareSharedArray(gpu::GPUModuleOp gpuModule) {
  if (gpuModule.lookupSymbol(kRawSharedGlobal))
    return;
  OpBuilder b = OpBuilder::atBlockBegin(gpuModule.getBody());
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
  LLVM::GlobalOp::create(b, gpuModule.getLoc(), type, /*isConstant=*/false, LLVM::Linkage::External, kRawSharedGlobal,
                         Attribute(), /*alignment=*/16, /*addrSpace=*/3);
}

void lowerSharedMemory(SharedMemoryOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto shared = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value base = LLVM::AddressOfOp::create(b, loc, shared, kRawSharedGlobal);
  Value generic = LLVM::AddrSpaceCastOp::create(b, loc, op.getType(), base);
  Value at = LLVM::GEPOp::create(b, loc, op.getType(), b.getI8Type(), generic,
                                 ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(op.getOffset())});
  op.replaceAllUsesWith(at);
  op.erase();
}

void lowerShuffle(gpu::ShuffleOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto c = [&](int32_t v) { return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v)).getResult(); };
  NVVM::ShflKind kind;
  switch (op.getMode()) {
  case gpu::ShuffleMode::XOR: kind = NVVM::ShflKind::bfly; break;
  case gpu::ShuffleMode::UP: kind = NVVM::ShflKind::up; break;
  case gpu::ShuffleMode::DOWN: kind = NVVM::ShflKind::down; break;
  case gpu::ShuffleMode::IDX: kind = NVVM::ShflKind::idx; break;
  }
  // (32 - width) << 8 selects the segment; the clamp is the segment's last
  // lane, or its first for `up`.
  Value segment = arith::ShLIOp::create(b, loc, arith::SubIOp::create(b, loc, c(32), op.getWidth()), c(8));
  Value clamp = kind == NVVM::ShflKind::up ? segment : arith::OrIOp::create(b, loc, segment, c(31)).getResult();
  Value shuffled = NVVM::ShflOp::create(b, loc, op.getValue().getType(), c(-1), op.getValue(), op.getOffset(), clamp,
                                        NVVM::ShflKindAttr::get(b.getContext(), kind), UnitAttr());
  Value valid = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  op.getShuffleResult().replaceAllUsesWith(shuffled);
  op.getValid().replaceAllUsesWith(valid);
  op.erase();
}

void lowerBallot(BallotOp op) {
  OpBuilder b(op);
  Value all = arith::ConstantOp::create(b, op.getLoc(), b.getI32IntegerAttr(-1));
  Value mask = NVVM::VoteSyncOp::create(b, op.getLoc(), b.getI32Type(), all, op.getPredicate(),
                                        NVVM::VoteSyncKind::ballot);
  op.replaceAllUsesWith(mask);
  op.erase();
}

struct RawKernelsToGPUPass : PassWrapper<RawKernelsToGPUPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RawKernelsToGPUPass)
  StringRef getArgument() const final { return "kiln-raw-kernels-to-gpu"; }
  StringRef getDescription() const final {
    return "Give every kiln.raw_kernel function a gpu.func kernel in gpu.module @kiln_kernels";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect, LLVM::LLVMDialect, NVVM::NVVMDialect, arith::ArithDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> raw;
    for (auto f : module.getOps<func::FuncOp>())
      if (f->hasAttr(kRawKernelAttr))
        raw.push_back(f);
    if (raw.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
    gpu::GPUModuleOp gpuModule = kernelModule(module);
    declareSharedArray(gpuModule);
    OpBuilder b = OpBuilder::atBlockEnd(gpuModule.getBody());
    for (func::FuncOp f : raw) {
      if (gpuModule.lookupSymbol(f.getSymName())) {
        f.emitError() << "kiln.raw_kernel @" << f.getSymName() << ": gpu.module already has the symbol";
        return signalPassFailure();
      }
      auto kernel = gpu::GPUFuncOp::create(b, f.getLoc(), f.getSymName(), f.getFunctionType());
      kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
      // The body replaces the entry block gpu.func was built with.
      kernel.getBody().front().erase();
      IRMapping map;
      f.getBody().cloneInto(&kernel.getBody(), map);
      kernel.walk([&](func::ReturnOp ret) {
        OpBuilder rb(ret);
        gpu::ReturnOp::create(rb, ret.getLoc());
        ret.erase();
      });
      kernel.walk(lowerSharedMemory);
      kernel.walk(lowerShuffle);
      kernel.walk(lowerBallot);
    }
  }
};

} // namespace

std::unique_ptr<Pass> createRawKernelsToGPUPass() { return std::make_unique<RawKernelsToGPUPass>(); }

} // namespace kiln
