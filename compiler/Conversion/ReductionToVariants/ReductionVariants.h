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
inline constexpr int64_t reduction_row_cache = 1, reduction_vectors = 2, reduction_output_once = 4;
/// Bits 8-10 of the flags: 5 - log2(lanes per kept element) of `_rrowsw`.
inline constexpr int64_t reduction_lanes_shift = 8;

void buildGpuRows(mlir::OpBuilder &b, mlir::gpu::GPUModuleOp module, const ReductionProgram &p,
                  llvm::StringRef name, bool warp);
void buildGpuCols(mlir::OpBuilder &b, mlir::gpu::GPUModuleOp module, const ReductionProgram &p,
                  llvm::StringRef name);
void buildGpuGeneral(mlir::OpBuilder &b, mlir::gpu::GPUModuleOp module, const ReductionProgram &p,
                     llvm::StringRef name);
/// `_rrowsc` (sm_90 thread-block clusters): long rows read more than once,
/// cached in the cluster's shared memory; only when wantsClusterRows(p).
void buildGpuClusterRows(mlir::OpBuilder &b, mlir::gpu::GPUModuleOp module, const ReductionProgram &p,
                         llvm::StringRef name);
/// Whether `p` gets a `_rrowsc` variant: its rows are read more than once.
bool wantsClusterRows(const ReductionProgram &p);
/// Full inputs `_rrowsc` keeps in shared memory (a mask over p's full
/// inputs): those read by the first level and again later.
std::uint64_t clusterCachedInputs(const ReductionProgram &p);
void buildHost(mlir::OpBuilder &b, mlir::ModuleOp module, const ReductionProgram &p, Layout layout,
               llvm::StringRef name);

/// Every variant of `p` (named after its function): GPU kernels into
/// `gpuModule`, sm_90 ones into `sm90Module()` (created on first use), host
/// functions into `module`.
void generateReductionVariants(mlir::OpBuilder &b, mlir::ModuleOp module, mlir::gpu::GPUModuleOp gpuModule,
                               llvm::function_ref<mlir::gpu::GPUModuleOp()> sm90Module, const ReductionProgram &p);

} // namespace kiln::reduction
