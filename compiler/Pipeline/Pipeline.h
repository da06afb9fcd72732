//===- Pipeline/Pipeline.h - Kiln's MLIR pipeline, as the driver sees it --===//
//
// The API kilnc's driver calls: register the dialects, fuse the frontend's
// module (the fused-mlir stage), and compile it to PTX, a fatbin and a host
// object (docs/compiler-pipeline.md). Errors go through MLIR diagnostics.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Frontend/Frontend.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace kiln::pipeline {

struct Options {
  /// Archs (e.g. "sm_90") to make cubins for with ptxas; empty: PTX only.
  std::vector<std::string> cudaArchs;
  int optLevel = 3;
  bool emitPtx = true;
  bool emitHost = true;
  /// Without cudaArchs: bundle the PTX for sm_80 and for sm_90 in a fatbin
  /// (CompiledKernels::ptx90); false: the sm_80 PTX alone (kilnc --emit=ptx).
  bool bundlePtx = true;
  /// Empty: the CMake-configured defaults (KILN_DEFAULT_PTXAS/FATBINARY).
  std::string ptxasPath, fatbinaryPath;
};

struct KernelStats {
  std::string name;
  unsigned opsBeforeFusion; ///< linalg.generic ops the frontend emitted
  unsigned
      kernelsAfterFusion; ///< linalg.generic ops after fusion (1 when fused)
  unsigned numInputs, numOutputs, numScalars;
  unsigned bytesPerElement; ///< bytes read + written per element
};

struct CompiledKernels {
  std::string ptx; ///< one PTX module with every variant of every kernel
  /// PTX for sm_90 of the variants that need it (`_rrowsc`); empty if none.
  std::string ptxSm90;
  /// The module's variants compiled for sm_90, with programmatic dependent
  /// launch, inside `fatbin`: the source of its cubins for a --cuda-arch of
  /// sm_90 or later, or, without --cuda-arch, the PTX the driver JIT-compiles
  /// on those GPUs. Empty when there is no fatbin or no arch reaches sm_90.
  std::string ptx90;
  /// Kernels with a `_rrowsc` entry in ptxSm90.
  std::vector<std::string> clusterKernels;
  /// Cubins for Options::cudaArchs + the PTX (without --cuda-arch: the PTX
  /// for sm_80 and for sm_90 only); empty without fatbinary.
  std::string fatbin;
  std::string hostObject; ///< ELF object with the `<variant>_host` wrappers
  std::vector<KernelStats> stats;
};

/// Registers every dialect, interface and translation the pipeline needs.
void registerDialects(mlir::DialectRegistry &registry);

/// Registers MLIR's and Kiln's passes (once; the pipelines are parsed from
/// text). fuse() and compile() call it; tools call it before parsing options.
void registerPasses();

/// The fused-mlir stage, in place: each kiln.kernel function becomes one
/// linalg.generic (kiln-fuse-kernels, kiln-verify-fused-kernels).
mlir::LogicalResult fuse(mlir::ModuleOp module);

/// Per kernel: generic ops before/after fusion, operand counts, bytes per
/// element (for --fusion-report). Works on a fused or unfused module.
std::vector<KernelStats> collectStats(mlir::ModuleOp module);

/// Generates the variants and compiles them to PTX, a fatbin and a host
/// object. `fusedModule` is not modified.
mlir::FailureOr<CompiledKernels> compile(mlir::ModuleOp fusedModule,
                                         const Options &options);

/// The vector width of each kernel's `_contig` variant
/// (fused_kernel::vector_width).
mlir::FailureOr<unsigned> contigVectorWidth(mlir::ModuleOp fusedModule,
                                            llvm::StringRef kernel);

/// The facts about fused reduction kernel `kernel` that its runtime
/// descriptor carries (stages, levels, inputs read, the empty-axis error).
mlir::FailureOr<frontend::ReductionDescriptor>
reductionDescriptor(mlir::ModuleOp fusedModule, llvm::StringRef kernel);

} // namespace kiln::pipeline
