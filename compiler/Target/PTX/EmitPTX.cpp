//===- Target/PTX/EmitPTX.cpp - gpu.module to PTX text --------------------===//
//
// Clones `gpu.module @kiln_kernels` into a module of its own, lowers it to the
// NVVM dialect, serializes it with MLIR's NVVM target in `isa` format and
// returns the PTX text of the resulting gpu.binary.
//
//===----------------------------------------------------------------------===//
#include "Target/PTX/EmitPTX.h"
#include "Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

#ifndef KILN_DEFAULT_LIBDEVICE
#define KILN_DEFAULT_LIBDEVICE "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
#endif

namespace kiln::ptx {

FailureOr<std::string> emitPTX(ModuleOp module, const PTXOptions &options) {
  llvm::StringRef name = options.moduleName.empty() ? llvm::StringRef(kGpuModuleName)
                                                    : llvm::StringRef(options.moduleName);
  gpu::GPUModuleOp kernels;
  for (auto op : module.getOps<gpu::GPUModuleOp>())
    if (op.getName() == name)
      kernels = op;
  if (!kernels)
    return module.emitError()
           << "no gpu.module @" << name << " to compile to PTX";

  MLIRContext *ctx = module.getContext();
  OwningOpRef<ModuleOp> gpuOnly = ModuleOp::create(module.getLoc());
  (*gpuOnly)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      UnitAttr::get(ctx));
  gpuOnly->getBody()->push_back(kernels->clone());

  // sqrt of float32 is correctly rounded, as NumPy's and nvcc's default
  // (-prec-sqrt=true): libdevice's __nv_sqrtf, which convert-gpu-to-nvvm
  // would call, is sqrt.approx.f32 unless __CUDA_PREC_SQRT is reflected as
  // 1; llvm.nvvm.sqrt.rn.f is sqrt.rn.f32.
  gpuOnly->walk([](math::SqrtOp op) {
    if (!op.getType().isF32())
      return;
    OpBuilder b(op);
    auto rn = LLVM::CallIntrinsicOp::create(b, op.getLoc(), op.getType(), b.getStringAttr("llvm.nvvm.sqrt.rn.f"),
                                            ValueRange{op.getOperand()});
    op.replaceAllUsesWith(rn.getResult(0));
    op.erase();
  });

  // math.trunc has no pattern in convert-gpu-to-nvvm (nor a libdevice
  // call): LLVM's trunc intrinsic is cvt.rzi.
  gpuOnly->walk([](math::TruncOp op) {
    OpBuilder b(op);
    Value t = LLVM::FTruncOp::create(b, op.getLoc(), op.getOperand());
    op.replaceAllUsesWith(t);
    op.erase();
  });

  // math.ctpop (kiln::bitwise_count) has none either: LLVM's ctpop
  // intrinsic is popc.
  gpuOnly->walk([](math::CtPopOp op) {
    OpBuilder b(op);
    Value n = LLVM::CtPopOp::create(b, op.getLoc(), op.getOperand());
    op.replaceAllUsesWith(n);
    op.erase();
  });

  // libdevice is linked only if present: kernels without math functions do
  // not need it, and the NVVM target reports a missing one when needed.
  std::string libdevice = options.libdevicePath.empty() ? KILN_DEFAULT_LIBDEVICE
                                                        : options.libdevicePath;
  std::string link = llvm::sys::fs::exists(libdevice)
                         ? llvm::formatv(" l={0}", libdevice).str()
                         : "";
  std::string pipeline = llvm::formatv(
      "nvvm-attach-target{{chip={0} features={1} O={2}{3}},"
      "gpu.module({4}convert-complex-to-standard,convert-vector-to-scf,convert-"
      "scf-to-cf,"
      "convert-gpu-to-nvvm,canonicalize,cse,reconcile-unrealized-casts),"
      "gpu-module-to-binary{{format=isa}",
      options.chip, options.features, options.optLevel, link,
      options.programmaticLaunch ? "kiln-programmatic-launch," : "");

  PassManager pm(ctx);
  if (failed(parsePassPipeline(pipeline, pm)))
    return module.emitError()
           << "kiln: invalid PTX pass pipeline: " << pipeline;
  if (failed(pm.run(*gpuOnly)))
    return module.emitError() << "kiln: lowering the kernels to PTX failed";

  for (auto binary : gpuOnly->getOps<gpu::BinaryOp>())
    for (Attribute attr : binary.getObjects())
      if (auto object = dyn_cast<gpu::ObjectAttr>(attr))
        return object.getObject().getValue().str();
  return module.emitError() << "kiln: the NVVM target produced no PTX";
}

} // namespace kiln::ptx
