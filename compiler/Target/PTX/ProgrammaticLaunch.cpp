//===- Target/PTX/ProgrammaticLaunch.cpp - Overlap dependent kernels ------===//
//
// The `kiln-programmatic-launch` pass (sm_90 and later): every gpu.func
// marked `kiln.programmatic_launch` (the elementwise variants) starts with
//
//   nvvm.griddepcontrol launch_dependents   // the next kernel may launch
//   nvvm.griddepcontrol wait                // the previous one has finished
//
// so that, launched with CUDA's programmatic stream serialization (the
// runtime does so for these kernels, docs/runtime-launch.md), a kernel's
// launch and block scheduling overlap the end of the kernel before it on the
// stream, while every one of its memory accesses still comes after that
// kernel has finished and its writes are visible. Without the launch
// attribute both instructions return at once.
//
//===----------------------------------------------------------------------===//
#include "Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace kiln {
namespace {

struct ProgrammaticLaunchPass : PassWrapper<ProgrammaticLaunchPass, OperationPass<gpu::GPUModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ProgrammaticLaunchPass)

  StringRef getArgument() const final { return "kiln-programmatic-launch"; }
  StringRef getDescription() const final {
    return "Start kernels marked kiln.programmatic_launch with griddepcontrol.launch_dependents and "
           "griddepcontrol.wait (sm_90+)";
  }
  void getDependentDialects(DialectRegistry &registry) const override { registry.insert<NVVM::NVVMDialect>(); }

  void runOnOperation() override {
    for (auto func : getOperation().getOps<gpu::GPUFuncOp>()) {
      if (!func->hasAttr(kProgrammaticLaunchAttr) || func.getBody().empty())
        continue;
      OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
      NVVM::GriddepcontrolOp::create(b, func.getLoc(), NVVM::GridDepActionKind::launch_dependents);
      NVVM::GriddepcontrolOp::create(b, func.getLoc(), NVVM::GridDepActionKind::wait);
    }
  }
};

} // namespace

std::unique_ptr<Pass> createProgrammaticLaunchPass() { return std::make_unique<ProgrammaticLaunchPass>(); }

} // namespace kiln
