//===- ReductionVariants.h - Variants of reduction kernels -----*- C++ -*-===//
//
// Builds the variants of a fused reduction kernel (docs/kernel-abi.md,
// "Reduction kernels"): GPU kernels in the gpu.module, host functions in the
// module, one per operand layout, all with the same parameters.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Analysis/ReductionProgram.h"
#include "Conversion/ReductionToVariants/VariantCommon.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace kiln::reduction {

/// The string attribute marking host variants (Transforms/Passes.h).
inline constexpr llvm::StringLiteral kHostVariantAttrName = "kiln.host_variant";

/// Mirrors kiln::detail::reduction_phase and reduction_flags
/// (include/kiln/detail/reduction.hpp).
enum class reduction_phase : int64_t { whole = 0, partial = 1, combine = 2, output = 3 };
inline constexpr int64_t reduction_row_cache = 1, reduction_vectors = 2;

void buildGpuRows(mlir::OpBuilder &b, mlir::gpu::GPUModuleOp module, const ReductionProgram &p,
                  llvm::StringRef name, bool warp);
void buildGpuCols(mlir::OpBuilder &b, mlir::gpu::GPUModuleOp module, const ReductionProgram &p,
                  llvm::StringRef name);
void buildGpuGeneral(mlir::OpBuilder &b, mlir::gpu::GPUModuleOp module, const ReductionProgram &p,
                     llvm::StringRef name);
void buildHost(mlir::OpBuilder &b, mlir::ModuleOp module, const ReductionProgram &p, Layout layout,
               llvm::StringRef name);

/// Every variant of `p` (named after its function): GPU kernels into
/// `gpuModule`, host functions into `module`.
void generateReductionVariants(mlir::OpBuilder &b, mlir::ModuleOp module, mlir::gpu::GPUModuleOp gpuModule,
                               const ReductionProgram &p);

} // namespace kiln::reduction
