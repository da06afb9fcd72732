//===- Transforms/Passes.h - Kiln's MLIR passes -----------------*- C++ -*-===//
//
// Declares Kiln's passes over kiln.kernel functions (fusion, its check, and
// variant generation) and registers them for kiln-opt and pass pipelines.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Pass/Pass.h"

#include <memory>

namespace kiln {

/// Integer attribute: linalg.generic ops in the kernel before fusion.
inline constexpr llvm::StringLiteral kOpsBeforeFusionAttr =
    "kiln.ops_before_fusion";
/// String attribute on generated host variants: "contig", "strided1", ...
inline constexpr llvm::StringLiteral kHostVariantAttr = "kiln.host_variant";
/// Name of the gpu.module holding the GPU variants.
inline constexpr llvm::StringLiteral kGpuModuleName = "kiln_kernels";
/// Name of the gpu.module holding variants that need sm_90 (thread-block
/// clusters), compiled to a PTX module of their own.
inline constexpr llvm::StringLiteral kGpuModuleSm90Name = "kiln_kernels_sm90";

/// Unit attribute on GPU kernels that may overlap the kernel before them on
/// their stream (programmatic dependent launch, sm_90+): the elementwise
/// variants. kiln-programmatic-launch gives them their griddepcontrol.
inline constexpr llvm::StringLiteral kProgrammaticLaunchAttr = "kiln.programmatic_launch";

/// `kiln-fuse-kernels`: records the number of linalg.generic ops of each
/// kiln.kernel function, then fuses them with MLIR's elementwise fusion
/// (producers with several uses included) and canonicalizes.
std::unique_ptr<mlir::Pass> createFuseKernelsPass();

/// `kiln-online-logsumexp`: in each kiln.reduction_kernel function, fuses a
/// max stage and the sum of exp(v - max) that reads it (softmax, log-softmax,
/// logsumexp) into one stage of the online `logsumexp` combiner: one pass
/// over the data instead of two.
std::unique_ptr<mlir::Pass> createOnlineLogSumExpPass();

/// `kiln-verify-fused-kernels`: checks that every kiln.kernel function is in
/// the fused form (exactly one rank-1 elementwise linalg.generic reading
/// function arguments); reports an error otherwise.
std::unique_ptr<mlir::Pass> createVerifyFusedKernelsPass();

/// `kiln-generate-variants`: adds, for every fused kiln.kernel function, the
/// GPU variants (`gpu.module @kiln_kernels`) and host variants (func.func)
/// `<name>_contig` and `<name>_strided1..4` of docs/kernel-abi.md.
std::unique_ptr<mlir::Pass> createGenerateVariantsPass();

/// `kiln-expand-combine`: replaces kiln.combine ops by the arith/complex ops
/// of their sequential update.
std::unique_ptr<mlir::Pass> createExpandCombinePass();

/// `kiln-programmatic-launch` (on a gpu.module, for sm_90 and later): starts
/// every gpu.func marked kiln.programmatic_launch with
/// griddepcontrol.launch_dependents then griddepcontrol.wait.
std::unique_ptr<mlir::Pass> createProgrammaticLaunchPass();

/// Registers the passes above with MLIR's pass registry.
void registerKilnPasses();

} // namespace kiln
