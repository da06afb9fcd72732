//===- Conversion/RawKernels/RawKernels.h - Raw kernels to each target -*- C++ -*-===//
//
// The raw-kernel family's lowerings (docs/compiler-pipeline.md, "Raw
// kernels"). A `kiln.raw_kernel` function (Frontend/RawKernelGen) is scalar
// code over `!llvm.ptr` with the thread built-ins as `gpu` ops and
// `kiln.shared_memory`; each target gives those their meaning:
//
// * kiln-raw-kernels-to-gpu: a `gpu.func` kernel of the same body in
//   `gpu.module @kiln_kernels`; shared memory is the module's one
//   `.extern .shared` array, warp shuffles are `nvvm.shfl.sync` with CUDA's
//   segment width.
// * kiln-raw-kernels-to-host: the function itself becomes the host form of
//   one thread, `<kernel>_thread(params..., ctx, tx, ty, tz)`, reading the
//   rest of its coordinates from the runtime's raw_thread_ctx
//   (include/kiln/detail/raw_kernel.hpp) and calling the runtime for
//   barriers and shuffles; a kernel that does not synchronize also gets
//   `<kernel>_block(params..., ctx)`, a loop over the block's threads.
//
// Convention of the raw-kernel form: `gpu.shuffle`'s width is CUDA's segment
// width (the warp splits into segments of `width` lanes that shuffle among
// themselves, every lane active), not MLIR's count of active lanes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace kiln {

/// Unit attribute of a function in the raw-kernel form.
inline constexpr llvm::StringLiteral kRawKernelAttr = "kiln.raw_kernel";
/// Bytes of static shared memory of a raw kernel (a multiple of 16).
inline constexpr llvm::StringLiteral kRawStaticSharedAttr = "kiln.static_shared";
/// Unit attribute: the raw kernel calls syncthreads or a warp function.
inline constexpr llvm::StringLiteral kRawSynchronizesAttr = "kiln.synchronizes";
/// Unit attribute: the raw kernel has no host form (it uses GPU-only
/// instructions such as cp.async; Frontend/StencilGen's tiled kernels);
/// kiln-raw-kernels-to-host drops it.
inline constexpr llvm::StringLiteral kRawGpuOnlyAttr = "kiln.gpu_only";
/// String attribute of a raw kernel's host form: the exported symbol of its
/// `(void **args, raw_thread_ctx *ctx)` wrapper ("<kernel>_host" or
/// "<kernel>_host_block"). Target/Host adds the wrappers.
inline constexpr llvm::StringLiteral kRawHostAttr = "kiln.raw_host";
/// Integer attribute of a host form: how many of its leading parameters are
/// the kernel's (the wrapper loads them from args).
inline constexpr llvm::StringLiteral kRawParamsAttr = "kiln.raw_params";
/// The gpu.module global that is every raw kernel's shared memory.
inline constexpr llvm::StringLiteral kRawSharedGlobal = "kiln_raw_shared";

/// Byte offsets of raw_thread_ctx's fields (kiln/detail/raw_kernel.hpp).
namespace rawctx {
inline constexpr int threadIdx = 0, blockIdx = 12, blockDim = 24, gridDim = 36, shared = 48;
} // namespace rawctx

std::unique_ptr<mlir::Pass> createRawKernelsToGPUPass();
std::unique_ptr<mlir::Pass> createRawKernelsToHostPass();

} // namespace kiln
