//===- Pipeline/Pipeline.cpp - Kiln's MLIR pipeline, as the driver sees it ===//
//
// Strings the passes and back ends together: fuse (fused-mlir stage), then
// generate the variants once for all kernels and emit PTX, the fatbin and the
// host object from that one module.
//
//===----------------------------------------------------------------------===//
#include "Pipeline/Pipeline.h"
#include "Target/Host/EmitHostObject.h"
#include "Target/PTX/BundleFatbin.h"
#include "Target/PTX/EmitPTX.h"
#include "Analysis/ReductionProgram.h"
#include "Conversion/RawKernels/RawKernels.h"
#include "Transforms/KernelSignature.h"
#include "Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/FileSystem.h"

#include <cstring>
#include <mutex>

using namespace mlir;

namespace kiln::pipeline {

/// The PTX every kernel is compiled to; the driver JITs it on newer GPUs.
static constexpr const char *kPtxChip = "sm_80";
static constexpr const char *kPtxFeatures = "+ptx80";

void registerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registry.insert<KilnDialect>();
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

void registerPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    registerKilnPasses();
  });
}

LogicalResult fuse(ModuleOp module) {
  registerPasses();
  PassManager pm(module.getContext());
  pm.addPass(createFuseKernelsPass());
  pm.addPass(createOnlineLogSumExpPass());
  pm.addPass(createVerifyFusedKernelsPass());
  return pm.run(module);
}

std::vector<KernelStats> collectStats(ModuleOp module) {
  std::vector<KernelStats> stats;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr(kKernelAttr) && !func->hasAttr(kReductionKernelAttr))
      continue;
    KernelStats s{func.getSymName().str(), 0, 0, 0, 0, 0, 0};
    func.walk([&](linalg::GenericOp) { ++s.kernelsAfterFusion; });
    s.opsBeforeFusion = s.kernelsAfterFusion;
    if (auto attr = func->getAttrOfType<IntegerAttr>(kOpsBeforeFusionAttr))
      s.opsBeforeFusion = attr.getInt();
    for (Type type : func.getArgumentTypes()) {
      if (auto tensor = dyn_cast<ShapedType>(type)) {
        ++s.numInputs;
        s.bytesPerElement += storageBytes(tensor.getElementType());
      } else {
        ++s.numScalars;
      }
    }
    for (Type type : func.getResultTypes()) {
      ++s.numOutputs;
      if (auto tensor = dyn_cast<ShapedType>(type))
        s.bytesPerElement += storageBytes(tensor.getElementType());
    }
    stats.push_back(std::move(s));
  }
  return stats;
}

FailureOr<unsigned> contigVectorWidth(ModuleOp fusedModule,
                                      llvm::StringRef kernel) {
  auto func = fusedModule.lookupSymbol<func::FuncOp>(kernel);
  if (!func)
    return fusedModule.emitError() << "kiln: no kernel @" << kernel;
  FailureOr<FusedKernel> analysed = analyzeFusedKernel(func);
  if (failed(analysed))
    return failure();
  return vectorWidth(*analysed);
}

FailureOr<frontend::ReductionDescriptor> reductionDescriptor(ModuleOp fusedModule, llvm::StringRef kernel) {
  auto func = fusedModule.lookupSymbol<func::FuncOp>(kernel);
  if (!func)
    return fusedModule.emitError() << "kiln: no kernel @" << kernel;
  FailureOr<ReductionProgram> program = analyzeReductionProgram(func);
  if (failed(program))
    return failure();
  frontend::ReductionDescriptor d;
  for (const ReductionStage &s : program->stages) {
    frontend::ReductionDescriptor::Stage st;
    st.fullInputs = s.fullInputs;
    st.shapeInputs = s.shapeInputs;
    st.level = s.level;
    for (Type t : s.stateTypes) {
      unsigned bits = isa<ComplexType>(t) ? 2 * cast<ComplexType>(t).getElementType().getIntOrFloatBitWidth()
                                          : t.getIntOrFloatBitWidth();
      st.componentBytes.push_back(std::max(1u, bits / 8));
    }
    d.stages.push_back(st);
    CombinerKind kind = CombineOp(s.combine).getKind();
    d.singleAxis |= kind == CombinerKind::ArgMax || kind == CombinerKind::ArgMin;
    if (!d.emptyError.empty())
      continue;
    switch (CombineOp(s.combine).getKind()) {
    case CombinerKind::Max:
    case CombinerKind::LogSumExp: // a max, and the sum that reads it
      d.emptyError = "zero-size array to reduction operation maximum which has no identity";
      break;
    case CombinerKind::Min:
      d.emptyError = "zero-size array to reduction operation minimum which has no identity";
      break;
    case CombinerKind::ArgMax:
      d.emptyError = "attempt to get argmax of an empty sequence";
      break;
    case CombinerKind::ArgMin:
      d.emptyError = "attempt to get argmin of an empty sequence";
      break;
    default:
      break;
    }
  }
  d.numLevels = program->numLevels;
  d.mapInputs = program->mapInputs;
  d.mapShapeInputs = program->mapShapeInputs;
  d.vectorWidth = program->vectorWidth();
  return d;
}

FailureOr<CompiledKernels> compile(ModuleOp fusedModule,
                                   const Options &options) {
  registerPasses();
  CompiledKernels result;
  result.stats = collectStats(fusedModule);
  bool rawKernels = llvm::any_of(fusedModule.getOps<func::FuncOp>(),
                                 [](func::FuncOp f) { return f->hasAttr(kRawKernelAttr); });
  if (result.stats.empty() && !rawKernels)
    return result;

  OwningOpRef<ModuleOp> module = cast<ModuleOp>(fusedModule->clone());
  PassManager pm(fusedModule.getContext());
  pm.addPass(createVerifyFusedKernelsPass());
  pm.addPass(createGenerateVariantsPass());
  // Raw kernels: the GPU form is a copy, the host form then replaces them.
  if (options.emitPtx)
    pm.addPass(createRawKernelsToGPUPass());
  pm.addPass(createRawKernelsToHostPass());
  if (failed(pm.run(*module)))
    return failure();

  if (options.emitPtx) {
    ptx::PTXOptions ptxOptions;
    ptxOptions.chip = kPtxChip;
    ptxOptions.features = kPtxFeatures;
    ptxOptions.optLevel = std::clamp(options.optLevel, 0, 3);
    FailureOr<std::string> ptx = ptx::emitPTX(*module, ptxOptions);
    if (failed(ptx))
      return failure();
    result.ptx = std::move(*ptx);
    for (auto m : module->getOps<gpu::GPUModuleOp>())
      if (m.getName() == kGpuModuleSm90Name)
        for (auto f : m.getOps<gpu::GPUFuncOp>())
          if (f.getName().ends_with("_rrowsc"))
            result.clusterKernels.push_back(f.getName().drop_back(strlen("_rrowsc")).str());
    if (!result.clusterKernels.empty()) {
      ptx::PTXOptions clusterOptions = ptxOptions;
      clusterOptions.chip = "sm_90";
      clusterOptions.moduleName = kGpuModuleSm90Name.str();
      FailureOr<std::string> clusterPtx = ptx::emitPTX(*module, clusterOptions);
      if (failed(clusterPtx))
        return failure();
      result.ptxSm90 = std::move(*clusterPtx);
    }
    // GPUs of sm_90 and later run the kernels compiled for sm_90, where the
    // elementwise ones overlap the kernel before them
    // (Target/PTX/ProgrammaticLaunch.cpp): as cubins for a --cuda-arch of
    // sm_90 or later; without --cuda-arch, as PTX beside the sm_80 one in a
    // fatbin of PTX only, from which the driver JIT-compiles the newest the
    // GPU takes (plain PTX when fatbinary is missing).
    std::string fatbinary =
        options.fatbinaryPath.empty() ? ptx::defaultFatbinaryPath().str() : options.fatbinaryPath;
    std::string ptxas = options.ptxasPath.empty() ? ptx::defaultPtxasPath().str() : options.ptxasPath;
    bool cubins = !options.cudaArchs.empty();
    if (cubins && !llvm::sys::fs::can_execute(ptxas)) {
      emitWarning(fusedModule.getLoc())
          << "kiln: ptxas not found at '" << ptxas << "'; emitting PTX only (no cubins for --cuda-arch)";
      cubins = false;
    }
    bool ptxOnly = options.cudaArchs.empty() && options.bundlePtx && llvm::sys::fs::can_execute(fatbinary);
    bool for90 = ptxOnly || (cubins && llvm::any_of(options.cudaArchs, [](const std::string &arch) {
                               return ptx::smNumber(arch) >= 90;
                             }));
    if (for90) {
      ptx::PTXOptions options90 = ptxOptions;
      options90.chip = "sm_90";
      options90.programmaticLaunch = true;
      FailureOr<std::string> text = ptx::emitPTX(*module, options90);
      if (failed(text))
        return failure();
      result.ptx90 = std::move(*text);
    }
    if (cubins || ptxOnly) {
      FailureOr<std::string> fatbin =
          ptx::bundleFatbin(fusedModule.getLoc(), result.ptx, kPtxChip, result.ptx90,
                            cubins ? ArrayRef<std::string>(options.cudaArchs) : ArrayRef<std::string>(), ptxas,
                            fatbinary, options.optLevel);
      if (failed(fatbin))
        return failure();
      result.fatbin = std::move(*fatbin);
    }
  }
  if (options.emitHost) {
    FailureOr<std::string> object =
        host::emitHostObject(*module, options.optLevel);
    if (failed(object))
      return failure();
    result.hostObject = std::move(*object);
  }
  return result;
}

} // namespace kiln::pipeline
