//===- Driver/Stages.cpp - One source through kilnc's stages --------------===//
//
// frontend::translate -> pipeline::fuse -> pipeline::compile ->
// rewrite::emitKernelTable, each stage reported with -v. A source without
// Kiln code comes back unchanged (plus #line) and no kernels.
//
//===----------------------------------------------------------------------===//
#include "Driver/Stages.h"
#include "Driver/Command.h"
#include "Driver/HostCompiler.h"
#include "Driver/RawModuleImages.h"
#include "Driver/TempFiles.h"
#include "Pipeline/Pipeline.h"
#include "Rewrite/KernelTable.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln::driver {

namespace {

std::string printModule(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  os << "\n";
  return text;
}

} // namespace

int runStages(const SourceJob &job, const DriverOptions &opts,
              const Toolchain &tc, StopAfter stop, bool forPtx,
              StageOutputs &out) {
  mlir::DialectRegistry registry;
  pipeline::registerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  frontend::FrontendOptions fopts;
  fopts.file = job.source;
  fopts.contents = job.contents;
  fopts.compileArgs = job.frontendFlags;
  fopts.resourceDir = tc.resourceDir;
  fopts.kilnIncludeDir = tc.includeDir;
  fopts.rawModules.enabled = !opts.cudaHostOnly;
  fopts.rawModules.nvrtcLibrary = tc.nvrtc;
  fopts.rawModules.host = stop == StopAfter::Compile && !forPtx;
  fopts.rawModules.resourceDir = tc.resourceDir;
  fopts.rawModules.kilnIncludeDir = tc.includeDir;
  fopts.rawModules.hostSystemIncludes = tc.cudaHostIncludes;
  frontend::FrontendResult fres;
  reportStage(opts.verbose, "frontend: " + job.source);
  if (!frontend::translate(fopts, context, fres))
    return ExitCompileError;
  out.numKernels = fres.kernels.size() + fres.rawKernels.size();
  if (!fres.rawModules.empty())
    reportStage(opts.verbose, "frontend: " + std::to_string(fres.rawModules.size()) +
                                  " CUDA source literal(s) compiled by NVRTC");
  out.report = fres.report;
  out.rawKernels = fres.rawKernels;
  reportStage(opts.verbose,
              "frontend: " + std::to_string(out.numKernels) + " kernel(s)");
  if (stop == StopAfter::Frontend) {
    out.mlir = fres.module ? printModule(*fres.module) : "";
    return ExitSuccess;
  }
  bool hasFused = !fres.kernels.empty() && fres.module;
  bool hasKernels = (hasFused || !fres.rawKernels.empty()) && fres.module;
  if (hasFused) {
    reportStage(opts.verbose, "fuse");
    if (mlir::failed(pipeline::fuse(*fres.module)))
      return ExitCompileError;
  }
  if (hasKernels)
    for (frontend::KernelDecl &k : fres.kernels) {
      if (!k.reduction)
        continue;
      auto descriptor = pipeline::reductionDescriptor(*fres.module, k.name);
      if (mlir::failed(descriptor))
        return ExitCompileError;
      k.descriptor = std::move(*descriptor);
    }
  if (stop == StopAfter::Compile && !forPtx &&
      !bundleRawModules(fres.rawModules, opts, tc, context, /*quiet=*/hasKernels))
    return ExitCompileError;
  if (stop == StopAfter::Compile && !forPtx && opts.emit == EmitKind::None) {
    TempFiles temps(opts.saveTemps);
    for (frontend::RawModuleDecl &m : fres.rawModules) {
      if (m.host.translationUnit.empty())
        continue;
      reportStage(opts.verbose, "host compiler: the CUDA source at " + m.file + ":" + std::to_string(m.line));
      std::string object;
      if (compileRawModuleHost(m, job, opts, tc, temps, object))
        out.rawModuleObjects.push_back(std::move(object));
    }
  }
  if (stop == StopAfter::Fuse) {
    out.fusedMlir = fres.module ? printModule(*fres.module) : "";
    return ExitSuccess;
  }

  pipeline::CompiledKernels compiled;
  if (hasKernels) {
    pipeline::Options popts;
    popts.cudaArchs = opts.cudaArchs;
    if (!popts.cudaArchs.empty() && tc.ptxas.empty()) {
      reportWarning("ptxas not found (set KILN_PTXAS or put it on PATH); "
                    "--cuda-arch ignored, embedding PTX only");
      popts.cudaArchs.clear();
    }
    popts.optLevel = job.optLevel >= 0 ? job.optLevel : 3;
    popts.emitPtx = !opts.cudaHostOnly;
    popts.emitHost = !forPtx;
    popts.bundlePtx = !forPtx;
    popts.ptxasPath = tc.ptxas;
    popts.fatbinaryPath = tc.fatbinary;
    std::string archs;
    for (const std::string &a : popts.cudaArchs)
      archs += (archs.empty() ? "" : ",") + a;
    reportStage(opts.verbose,
                std::string(popts.emitPtx ? "compile: PTX" : "compile: no GPU code") +
                    (archs.empty() ? "" : " + cubins for " + archs) +
                    (popts.emitHost ? " + host object" : "") + ", -O" +
                    std::to_string(popts.optLevel));
    mlir::FailureOr<pipeline::CompiledKernels> result =
        pipeline::compile(*fres.module, popts);
    if (mlir::failed(result))
      return ExitCompileError;
    compiled = std::move(*result);
  }
  out.ptx = compiled.ptx;
  out.ptxSm90 = compiled.ptxSm90;
  out.hostObject = compiled.hostObject;
  if (forPtx)
    return ExitSuccess;

  out.cpp = fres.rewrittenSource;
  if (hasKernels || !fres.rawModules.empty()) {
    if (!out.cpp.empty() && out.cpp.back() != '\n')
      out.cpp += '\n';
    rewrite::KernelTableInput table;
    table.kernels = &fres.kernels;
    table.rawKernels = &fres.rawKernels;
    table.rawModules = &fres.rawModules;
    table.ptx = &compiled.ptx;
    table.ptxSm90 = &compiled.ptxSm90;
    table.clusterKernels = &compiled.clusterKernels;
    table.fatbin = &compiled.fatbin;
    table.withHost = !compiled.hostObject.empty();
    out.cpp += rewrite::emitKernelTable(table);
  }
  return ExitSuccess;
}

} // namespace kiln::driver
