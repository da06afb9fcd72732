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

/// True if kernel `@name` keeps no reduction once folded: its result does
/// not depend on what the reductions compute (`isinf(all(x))`, `imag` of a
/// real sum, a `where` whose condition folds). Such a group cannot be a
/// reduction kernel; the frontend then gives its reductions groups of
/// their own and computes the rest elementwise.
bool reductionFoldsAway(mlir::ModuleOp module, llvm::StringRef name);

} // namespace kiln::frontend

#endif
