//===- Frontend/KernelGen.h - Fused groups to MLIR kernels -----*- C++ -*-===//
//
// Translates a fused group into a kernel function of one of Kiln's two
// kernel forms (docs/compiler-pipeline.md): `kiln.kernel` (elementwise
// family: rank-1 tensors, ElementwiseGen.cpp) or `kiln.reduction_kernel`
// (reduction family: the (kept, reduced) iteration space, ReductionGen.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_KERNELGEN_H
#define KILN_FRONTEND_KERNELGEN_H

#include "Frontend/ElementMath.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace clang {
class SourceManager;
}

namespace kiln::frontend {

/// Adds `@name` for an elementwise `group` to `module`. Returns false (after
/// reporting through `onError`) for an operation Kiln cannot compile on
/// these types.
bool emitElementwiseKernel(mlir::ModuleOp module, llvm::StringRef name, const FusedGroup &group,
                           const clang::SourceManager &sm, const NodeErrorFn &onError);

/// Adds `@name` for a reduction `group` (one with reductions) to `module`.
bool emitReductionKernel(mlir::ModuleOp module, llvm::StringRef name, const FusedGroup &group,
                         const clang::SourceManager &sm, const NodeErrorFn &onError);

/// Adds the raw kernels of a stencil group (one with a `stencil`) to
/// `module`: `<name>_3x3`, `_5x5` and `_7x7`.
bool emitStencilKernels(mlir::ModuleOp module, llvm::StringRef name,
                        const FusedGroup &group, const clang::SourceManager &sm,
                        const NodeErrorFn &onError,
                        std::vector<StencilVariant> &variants);

/// True if reduction kernel `@name`, fused as the pipeline will fuse it
/// (kiln-fuse-kernels), is still a reduction program the variant generators
/// take (Analysis/ReductionProgram). False when folding removes every
/// reduction (`isinf(all(x))`, `imag` of a real sum, a `where` whose
/// condition folds) or leaves one over a folded constant with no input
/// (`sum(isinf(u8) / isinf(u8))`); the frontend then gives the group's
/// reductions groups of their own and computes the rest elementwise.
bool reductionSurvivesFusion(mlir::ModuleOp module, llvm::StringRef name);

} // namespace kiln::frontend

#endif
