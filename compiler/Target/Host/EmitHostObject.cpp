//===- Target/Host/EmitHostObject.cpp - host variants to an object --------===//
//
// Lowers the host variants to the LLVM dialect, adds the exported
// `<variant>_host(void **args)` wrappers (cuLaunchKernel's kernelParams
// packing) and the raw kernels' `(void **args, raw_thread_ctx *ctx)` ones,
// makes everything else internal, optimizes for a baseline CPU of
// the host's architecture (no -march=native) and emits an object file.
// float32 transcendental functions become MLIR's polynomial approximations
// (arithmetic LLVM vectorizes) instead of scalar libm calls.
//
//===----------------------------------------------------------------------===//
#include "Target/Host/EmitHostObject.h"
#include "Target/Host/CpuVariants.h"
#include "Conversion/RawKernels/RawKernels.h"
#include "Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace mlir;

namespace kiln::host {
namespace {

/// Adds `<name>_host(ptr args)`: loads parameter i through args[i] and calls
/// the variant `callee`.
void addWrapper(OpBuilder &b, LLVM::LLVMFuncOp callee) {
  Location loc = callee.getLoc();
  MLIRContext *ctx = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr});
  auto wrapper = LLVM::LLVMFuncOp::create(
      b, loc, (callee.getName() + "_host").str(), type);
  Block *entry = wrapper.addEntryBlock(b);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  Value args = entry->getArgument(0);
  SmallVector<Value> params;
  for (auto [i, paramType] :
       llvm::enumerate(callee.getFunctionType().getParams())) {
    Value slot =
        LLVM::GEPOp::create(b, loc, ptr, ptr, args,
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    Value address = LLVM::LoadOp::create(b, loc, ptr, slot);
    params.push_back(LLVM::LoadOp::create(b, loc, paramType, address));
  }
  LLVM::CallOp::create(b, loc, callee, params);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

/// A raw kernel's host form (Conversion/RawKernels) and its export.
struct RawHostForm {
  std::string name, exported;
  unsigned numParams;
  bool thread; ///< one thread: the wrapper passes ctx->thread_idx too
};

/// Adds `<exported>(ptr args, ptr ctx)`: loads the kernel's parameters
/// through args[i], then calls the form with ctx (and, for the one-thread
/// form, ctx->thread_idx[0..2]).
void addRawWrapper(OpBuilder &b, LLVM::LLVMFuncOp callee, const RawHostForm &form) {
  Location loc = callee.getLoc();
  MLIRContext *ctx = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr, ptr});
  auto wrapper = LLVM::LLVMFuncOp::create(b, loc, form.exported, type);
  Block *entry = wrapper.addEntryBlock(b);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  Value args = entry->getArgument(0), threadCtx = entry->getArgument(1);
  ArrayRef<Type> paramTypes = callee.getFunctionType().getParams();
  SmallVector<Value> params;
  for (unsigned i = 0; i < form.numParams; ++i) {
    Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, args, ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    Value address = LLVM::LoadOp::create(b, loc, ptr, slot);
    params.push_back(LLVM::LoadOp::create(b, loc, paramTypes[i], address));
  }
  params.push_back(threadCtx);
  if (form.thread)
    for (int32_t d = 0; d < 3; ++d) {
      Value at = LLVM::GEPOp::create(b, loc, ptr, b.getI8Type(), threadCtx, ArrayRef<LLVM::GEPArg>{4 * d});
      params.push_back(LLVM::LoadOp::create(b, loc, b.getI32Type(), at));
    }
  LLVM::CallOp::create(b, loc, callee, params);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

/// Makes the float32 math operation `op` compute its result for arguments
/// below `threshold` as after(op(before(x))): the argument is selected before
/// the one evaluation and the result after it. `before` and `after` build
/// from a value and a constant maker (scalar or splat of op's type).
void rescaleBelow(Operation *op, float threshold,
                  function_ref<Value(OpBuilder &, Location, Value, function_ref<Value(float)>)> before,
                  function_ref<Value(OpBuilder &, Location, Value, function_ref<Value(float)>)> after) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Type type = op->getResultTypes()[0];
  auto constant = [&](float v) -> Value {
    TypedAttr attr = b.getF32FloatAttr(v);
    if (auto vec = dyn_cast<VectorType>(type))
      attr = DenseElementsAttr::get(vec, attr);
    return arith::ConstantOp::create(b, loc, type, attr);
  };
  Value x = op->getOperand(0);
  Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, constant(threshold));
  op->setOperand(0, arith::SelectOp::create(b, loc, below, before(b, loc, x, constant), x));
  b.setInsertionPointAfter(op);
  Value result = op->getResult(0);
  SmallVector<OpOperand *> uses = llvm::map_to_vector(result.getUses(), [](OpOperand &use) { return &use; });
  Value chosen = arith::SelectOp::create(b, loc, below, after(b, loc, result, constant), result);
  for (OpOperand *use : uses)
    use->set(chosen);
}

/// Float32 log, log2 and exp where MLIR's polynomial approximations fail
/// near or in the subnormal range:
/// - log and log2 read the exponent field, so a subnormal argument (below
///   2^-126) comes out millions of ulps off: such arguments are scaled by
///   2^24 first and 24 ln 2 (or 24) subtracted after. Zero, negative, NaN and
///   infinite arguments keep their results (-inf, NaN, NaN, inf).
/// - exp returns 0 where the result is subnormal (arguments below ln 2^-126,
///   about -87.34), where NumPy and the C library give the subnormal.
///   Arguments below -87 are raised by 24 ln 2 = c_hi + c_lo (c_hi a
///   multiple of 2^-17, so x + c_hi is exact for x in [-128, -64]) and the
///   result is scaled by (1 + c_lo) 2^-24: one rounding into the subnormal
///   range. Below about -103.97 the result rounds to 0 either way.
void rescaleSubnormalMath(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<math::LogOp, math::Log2Op, math::ExpOp>(op) && getElementTypeOrSelf(op->getResultTypes()[0]).isF32())
      ops.push_back(op);
  });
  using Constant = function_ref<Value(float)>;
  for (Operation *op : ops) {
    if (isa<math::ExpOp>(op)) {
      constexpr float cHi = 2180452.0f / 131072; // 24 ln 2 to a multiple of 2^-17
      constexpr float cLo = 3.768985561e-6f;     // 24 ln 2 - cHi
      rescaleBelow(
          op, -87.0f, // above ln 2^-126 = -87.34
          [&](OpBuilder &b, Location loc, Value x, Constant c) -> Value {
            return arith::AddFOp::create(b, loc, x, c(cHi));
          },
          [&](OpBuilder &b, Location loc, Value r, Constant c) -> Value {
            return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, r, c(1.0f + cLo)), c(0x1p-24f));
          });
      continue;
    }
    const float shift = isa<math::LogOp>(op) ? 16.635532333438687f : 24.0f; // 24 ln 2, 24
    rescaleBelow(
        op, 0x1p-126f,
        [&](OpBuilder &b, Location loc, Value x, Constant c) -> Value {
          return arith::MulFOp::create(b, loc, x, c(0x1p24f));
        },
        [&](OpBuilder &b, Location loc, Value r, Constant c) -> Value {
          return arith::SubFOp::create(b, loc, r, c(shift));
        });
  }
}

/// float32 log1p and expm1 as calls of libm's log1pf and expm1f where those
/// go to libmvec (CpuVariants.h: 1.9 and 1.6 ulps, and faster than MLIR's
/// approximations, an exp and a log for expm1): convert-math-to-llvm would
/// write them as log(1 + x) and exp(x) - 1, which lose every digit near 0.
/// Scalar operations only (the element code); vector ones stay approximated.
void callLibmForVectorMath(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<math::Log1pOp, math::ExpM1Op>(op) &&
        op->getResult(0).getType().isF32() &&
        hasVectorMath(isa<math::Log1pOp>(op) ? "log1pf" : "expm1f"))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    StringRef name = isa<math::Log1pOp>(op) ? "log1pf" : "expm1f";
    auto fn = module.lookupSymbol<func::FuncOp>(name);
    if (!fn) {
      OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
      Type f32 = mb.getF32Type();
      fn = func::FuncOp::create(mb, module.getLoc(), name,
                                mb.getFunctionType({f32}, {f32}));
      fn.setPrivate();
    }
    OpBuilder b(op);
    auto call = func::CallOp::create(b, op->getLoc(), fn, op->getOperands());
    op->getResult(0).replaceAllUsesWith(call.getResult(0));
    op->erase();
  }
}

/// Rewrites the selected float32 math operations of `module` into their
/// polynomial approximations.
LogicalResult approximateMath(ModuleOp module) {
  rescaleSubnormalMath(module);
  auto selected = [](llvm::StringRef name) {
    name.consume_front("math.");
    return llvm::is_contained(kApproximatedF32, name);
  };
  SmallVector<Operation *> ops;
  llvm::SmallPtrSet<Operation *, 8> userFma; // the program's own fused multiply-adds stay
  module.walk([&](Operation *op) {
    if (isa<math::FmaOp>(op))
      userFma.insert(op);
    else if (isa<math::MathDialect>(op->getDialect()) && selected(op->getName().getStringRef()))
      ops.push_back(op);
  });
  if (ops.empty())
    return success();
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  config.enableFolding(false);
  RewritePatternSet patterns(module.getContext());
  populateMathPolynomialApproximationPatterns(patterns, selected);
  // (Not converging within the driver's limits leaves valid IR: some
  // operations stay libm calls.)
  (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
  // The approximations evaluate their polynomials with math.fma, which the
  // baseline CPU lacks (a libm call per lane): llvm.fmuladd instead, a
  // multiply and an add in the baseline copy of a kernel, one fused
  // multiply-add in its x86-64-v3 copy (CpuVariants.h).
  SmallVector<Operation *> fmas;
  module.walk([&](math::FmaOp op) {
    if (!userFma.contains(op))
      fmas.push_back(op);
  });
  for (Operation *op : fmas) {
    OpBuilder b(op);
    auto fma = cast<math::FmaOp>(op);
    Value fused = LLVM::FMulAddOp::create(b, fma.getLoc(), fma.getA(), fma.getB(), fma.getC());
    fma.getResult().replaceAllUsesWith(fused);
    fma.erase();
  }
  return success();
}

/// A target machine for a baseline CPU of the host architecture: x86-64-v2
/// on x86 (SSE4.2 and POPCNT, every x86-64 CPU since 2009: SSE4.1's rounding
/// instructions keep the approximations' floor/round in vector registers).
FailureOr<std::unique_ptr<llvm::TargetMachine>>
hostTargetMachine(Location loc, int optLevel) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser(); // CpuVariants' cpuid (inline asm)
  });
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(loc) << "kiln: no LLVM target for " << triple.str() << ": "
                          << error;
  llvm::StringRef cpu =
      triple.getArch() == llvm::Triple::x86_64 ? "x86-64-v2" : "generic";
  llvm::TargetOptions targetOptions;
  auto level = optLevel <= 0   ? llvm::CodeGenOptLevel::None
               : optLevel == 1 ? llvm::CodeGenOptLevel::Less
               : optLevel == 2 ? llvm::CodeGenOptLevel::Default
                               : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, "", targetOptions, llvm::Reloc::PIC_, std::nullopt, level));
  if (!machine)
    return emitError(loc) << "kiln: cannot create a target machine for "
                          << triple.str();
  return machine;
}

void optimize(llvm::Module &module, llvm::TargetMachine &machine,
              int optLevel) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = optLevel >= 2;
  tuning.SLPVectorization = optLevel >= 2;
  llvm::PassBuilder pb(&machine, tuning);
  // float32 sin/cos: libmvec's vector functions (CpuVariants.h).
  llvm::TargetLibraryInfoImpl tlii(machine.getTargetTriple());
  mapVectorMath(tlii);
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optLevel <= 0   ? llvm::OptimizationLevel::O0
                                  : optLevel == 1 ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = level == llvm::OptimizationLevel::O0
                                    ? pb.buildO0DefaultPipeline(level)
                                    : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
}

} // namespace

FailureOr<std::string> emitHostObject(ModuleOp module, int optLevel,
                                      HostOutput output) {
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  OwningOpRef<ModuleOp> hostOnly = cast<ModuleOp>(module->clone());
  (*hostOnly)->removeAttr("gpu.container_module");
  SmallVector<std::string> variants;
  SmallVector<RawHostForm> rawForms;
  for (Operation &op :
       llvm::make_early_inc_range(hostOnly->getBody()->getOperations())) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (func && func->hasAttr(kHostVariantAttr)) {
      variants.push_back(func.getSymName().str());
      continue;
    }
    if (auto exported = func ? func->getAttrOfType<StringAttr>(kRawHostAttr) : StringAttr()) {
      auto numParams = func->getAttrOfType<IntegerAttr>(kRawParamsAttr);
      unsigned n = numParams ? numParams.getInt() : 0;
      rawForms.push_back({func.getSymName().str(), exported.str(), n, func.getNumArguments() == n + 4});
      continue;
    }
    // The element functions of kiln::elementwise lambdas the variants call
    // (internal already: the frontend gives them llvm.linkage).
    if (func && func->hasAttr(kElementFunctionAttr))
      continue;
    // The runtime functions raw kernels call.
    if (auto decl = dyn_cast<LLVM::LLVMFuncOp>(op); decl && decl.isExternal())
      continue;
    op.erase();
  }
  if (variants.empty() && rawForms.empty())
    return emitError(loc)
           << "kiln: no host variants to compile (run kiln-generate-variants)";

  // math.trunc (std::trunc in a lambda, kiln::trunc) has no pattern in
  // convert-math-to-llvm: LLVM's trunc intrinsic (roundps/roundpd).
  hostOnly->walk([](math::TruncOp op) {
    OpBuilder b(op);
    Value t = LLVM::FTruncOp::create(b, op.getLoc(), op.getOperand());
    op.replaceAllUsesWith(t);
    op.erase();
  });
  callLibmForVectorMath(*hostOnly);
  if (failed(approximateMath(*hostOnly)))
    return emitError(loc) << "kiln: approximating the host's math functions failed";
  PassManager pm(ctx);
  const char *pipeline =
      "func.func(convert-complex-to-standard),convert-vector-to-scf,"
      "convert-scf-to-cf,expand-strided-metadata,"
      "convert-vector-to-llvm,finalize-memref-to-llvm,convert-math-to-llvm,"
      // libm calls of vector operands (acosh, cbrt, ... of a reduction's
      // vector) come unrolled through vector.extract/insert, lowered after.
      "convert-math-to-libm,convert-vector-to-llvm,"
      "convert-complex-to-llvm,convert-arith-to-llvm,convert-ub-to-llvm,convert-cf-to-llvm,"
      "convert-func-to-llvm,"
      "convert-index-to-llvm,reconcile-unrealized-casts";
  if (failed(parsePassPipeline(pipeline, pm)))
    return emitError(loc) << "kiln: invalid host pass pipeline";
  if (failed(pm.run(*hostOnly)))
    return emitError(loc) << "kiln: lowering the host variants to LLVM failed";

  OpBuilder b(ctx);
  b.setInsertionPointToEnd(hostOnly->getBody());
  for (const std::string &name : variants) {
    auto callee = hostOnly->lookupSymbol<LLVM::LLVMFuncOp>(name);
    if (!callee)
      return emitError(loc)
             << "kiln: host variant @" << name << " vanished while lowering";
    callee.setLinkage(LLVM::Linkage::Internal);
    addWrapper(b, callee);
  }
  for (const RawHostForm &form : rawForms) {
    auto callee = hostOnly->lookupSymbol<LLVM::LLVMFuncOp>(form.name);
    if (!callee)
      return emitError(loc) << "kiln: raw kernel host form @" << form.name << " vanished while lowering";
    callee.setLinkage(LLVM::Linkage::Internal);
    addRawWrapper(b, callee, form);
  }

  llvm::LLVMContext llvmContext;
  // A loop hint of Kiln's own (RawKernelGen's unroll by 4) that the
  // optimizer cannot honour is not the user's concern, and LLVM's report of
  // it names no source line: dropped, with remarks. Other warnings and
  // errors are printed as LLVM prints them.
  llvmContext.setDiagnosticHandlerCallBack([](const llvm::DiagnosticInfo *di, void *) {
    if (di->getKind() == llvm::DK_OptimizationFailure || di->getSeverity() == llvm::DS_Remark)
      return;
    llvm::errs() << llvm::LLVMContext::getDiagnosticMessagePrefix(di->getSeverity()) << ": ";
    llvm::DiagnosticPrinterRawOStream printer(llvm::errs());
    di->print(printer);
    llvm::errs() << "\n";
  });
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*hostOnly, llvmContext);
  if (!llvmModule)
    return emitError(loc)
           << "kiln: translating the host variants to LLVM IR failed";
  auto machine = hostTargetMachine(loc, optLevel);
  if (failed(machine))
    return failure();
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  llvmModule->setDataLayout((*machine)->createDataLayout());
  // x86-64-v3 copies of every variant and raw kernel form, chosen at run
  // time by the CPU; float32 sin/cos through libmvec (CpuVariants.h).
  SmallVector<std::string> dispatched(variants.begin(), variants.end());
  for (const RawHostForm &form : rawForms)
    dispatched.push_back(form.name);
  addCpuVariants(*llvmModule, dispatched);
  useVectorMath(*llvmModule);
  optimize(*llvmModule, **machine, optLevel);
  lowerScalarVectorMath(*llvmModule);

  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  if (output == HostOutput::LLVMIR) {
    llvmModule->print(os, nullptr);
    return bytes;
  }
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream objectStream(buffer);
  llvm::legacy::PassManager codegen;
  if ((*machine)->addPassesToEmitFile(codegen, objectStream, nullptr,
                                      llvm::CodeGenFileType::ObjectFile))
    return emitError(loc) << "kiln: the host target cannot emit object files";
  codegen.run(*llvmModule);
  return std::string(buffer.begin(), buffer.end());
}

} // namespace kiln::host
