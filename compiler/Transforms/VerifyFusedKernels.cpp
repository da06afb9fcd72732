//===- Transforms/VerifyFusedKernels.cpp - Check the fused form -----------===//
//
// The `kiln-verify-fused-kernels` pass: every kiln.kernel function must hold
// exactly one rank-1 elementwise linalg.generic (see KernelSignature.h), and
// every kiln.reduction_kernel function must be in the reduction form
// (Analysis/ReductionProgram.h); anything else is reported as an error on
// the function.
//
//===----------------------------------------------------------------------===//
#include "Analysis/ReductionProgram.h"
#include "Transforms/KernelSignature.h"
#include "Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace kiln {
namespace {

struct VerifyFusedKernelsPass
    : PassWrapper<VerifyFusedKernelsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VerifyFusedKernelsPass)
  StringRef getArgument() const final { return "kiln-verify-fused-kernels"; }
  StringRef getDescription() const final {
    return "Check that each kiln.kernel function is one elementwise "
           "linalg.generic";
  }
  void runOnOperation() override {
    bool ok = true;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if ((func->hasAttr(kKernelAttr) && failed(analyzeFusedKernel(func))) ||
          (func->hasAttr(kReductionKernelAttr) && failed(analyzeReductionProgram(func))))
        ok = false;
    if (!ok)
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createVerifyFusedKernelsPass() {
  return std::make_unique<VerifyFusedKernelsPass>();
}

} // namespace kiln
