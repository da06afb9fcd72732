//===- kiln-translate.cpp - Kiln's back ends on a .mlir file --------------===//
//
// Reads a module of kiln.kernel functions and runs the pipeline of
// Pipeline.h: --fused-mlir prints the fused module, --ptx the PTX (--ptx90
// the sm_90 PTX of programmatic launch, --ptx-sm90 the cluster module),
// --host-ir the optimized host LLVM IR, --host-object / --fatbin write
// binaries, --fusion-stats the fusion statistics. For lit tests and debugging.
//
//===----------------------------------------------------------------------===//
#include "Conversion/RawKernels/RawKernels.h"
#include "Pipeline/Pipeline.h"
#include "Target/Host/EmitHostObject.h"
#include "Transforms/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

enum class Action { Fuse, Ptx, PtxSm90, Ptx90, HostIR, HostObject, Fatbin, Stats };

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"),
                                      cl::init("-"));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::init("-"));
static cl::opt<Action> action(
    cl::desc("What to emit:"), cl::Required,
    cl::values(clEnumValN(Action::Fuse, "fused-mlir",
                          "the fused module (fused-mlir stage)"),
               clEnumValN(Action::Ptx, "ptx", "PTX of every variant"),
               clEnumValN(Action::PtxSm90, "ptx-sm90",
                          "PTX of the sm_90 variants (thread-block clusters)"),
               clEnumValN(Action::Ptx90, "ptx90",
                          "PTX of every variant for sm_90 (programmatic launch; "
                          "with a --cuda-arch of sm_90 or later)"),
               clEnumValN(Action::HostIR, "host-ir",
                          "optimized LLVM IR of the host variants"),
               clEnumValN(Action::HostObject, "host-object",
                          "host object file"),
               clEnumValN(Action::Fatbin, "fatbin", "fatbin for --cuda-arch"),
               clEnumValN(Action::Stats, "fusion-stats", "fusion statistics")));
static cl::list<std::string>
    cudaArchs("cuda-arch", cl::desc("sm_XX for cubins"), cl::CommaSeparated);
static cl::opt<int> optLevel("opt-level", cl::desc("Optimization level"),
                             cl::init(3), cl::Prefix);
static cl::opt<bool> noFuse("no-fuse", cl::desc("Input is already fused"),
                            cl::init(false));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "Kiln back ends\n");

  mlir::DialectRegistry registry;
  kiln::pipeline::registerDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::string error;
  auto input = mlir::openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  if (!noFuse && mlir::failed(kiln::pipeline::fuse(*module)))
    return 1;

  std::string text;
  if (action == Action::Fuse) {
    llvm::raw_string_ostream os(text);
    module->print(os);
  } else if (action == Action::Stats) {
    llvm::raw_string_ostream os(text);
    for (const auto &s : kiln::pipeline::collectStats(*module))
      os << s.name << ": ops_before=" << s.opsBeforeFusion
         << " kernels_after=" << s.kernelsAfterFusion
         << " inputs=" << s.numInputs << " outputs=" << s.numOutputs
         << " scalars=" << s.numScalars
         << " bytes_per_element=" << s.bytesPerElement << "\n";
  } else {
    kiln::pipeline::Options options;
    options.optLevel = optLevel;
    options.cudaArchs.assign(cudaArchs.begin(), cudaArchs.end());
    options.emitPtx = action == Action::Ptx || action == Action::PtxSm90 || action == Action::Ptx90 ||
                         action == Action::Fatbin;
    options.emitHost = action == Action::HostObject;
    if (action == Action::HostIR) {
      // The host back end alone, printing IR instead of an object.
      mlir::OwningOpRef<mlir::ModuleOp> copy =
          mlir::cast<mlir::ModuleOp>((*module)->clone());
      kiln::pipeline::registerPasses();
      mlir::PassManager pm(&context);
      pm.addPass(kiln::createGenerateVariantsPass());
      pm.addPass(kiln::createRawKernelsToHostPass());
      if (mlir::failed(pm.run(*copy)))
        return 1;
      auto ir = kiln::host::emitHostObject(*copy, optLevel,
                                           kiln::host::HostOutput::LLVMIR);
      if (mlir::failed(ir))
        return 1;
      text = std::move(*ir);
    } else {
      auto compiled = kiln::pipeline::compile(*module, options);
      if (mlir::failed(compiled))
        return 1;
      text = action == Action::Ptx          ? compiled->ptx
             : action == Action::PtxSm90    ? compiled->ptxSm90
             : action == Action::Ptx90      ? compiled->ptx90
             : action == Action::HostObject ? compiled->hostObject
                                            : compiled->fatbin;
    }
  }
  auto output = mlir::openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  output->os() << text;
  output->keep();
  return 0;
}
