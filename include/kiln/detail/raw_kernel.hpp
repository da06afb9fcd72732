//===- kiln/detail/raw_kernel.hpp - ABI of KILN_RAWKERNEL kernels -*- C++ -*-===//
//
// What kilnc emits for a KILN_RAWKERNEL function and how the runtime runs it
// (docs/kernel-abi.md, "Raw kernels"). In short:
//
// * One PTX `.entry <symbol>` and one host function `<symbol>_host`; a
//   kernel that does not synchronize also gets `<symbol>_host_block`, which
//   runs every thread of one block in a loop (the fast path on the host).
// * Parameters, in the C++ function's order: a pointer as a 64-bit address,
//   a `kiln::span<T>` as two parameters (T *data, int64 size), a scalar by
//   value in its own type (bool as one byte). `args` holds one pointer per
//   parameter value, exactly as cuLaunchKernel's kernelParams.
// * The host function runs ONE thread of one block: the runtime calls it for
//   every thread, with `ctx` describing that thread. When the kernel
//   synchronizes (syncthreads, warp shuffles, ballot), the threads of a
//   block run as fibers and those calls switch between them.
// * Shared memory is one buffer per block, on both devices: the kernel's
//   static shared arrays at offsets kilnc chose (static_shared_bytes in
//   all), then the launch's dynamic shared memory at the next multiple of 16
//   bytes. On a GPU it is the PTX's one `.extern .shared` array, so a launch
//   asks cuLaunchKernel for align16(static_shared_bytes) + dynamic bytes; on
//   the host `ctx->shared` points to it (16-byte aligned).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/device.hpp"

#include <cstddef>
#include <cstdint>

namespace kiln {
class stream;
}

namespace kiln::detail {

/// One thread of a raw kernel's host form. kilnc's host code reads the
/// index fields directly: their layout is part of the ABI.
struct raw_thread_ctx {
  std::uint32_t thread_idx[3];
  std::uint32_t block_idx[3];
  std::uint32_t block_dim[3];
  std::uint32_t grid_dim[3];
  unsigned char *shared; ///< the block's shared memory (static, then dynamic)
  void *scheduler;       ///< the runtime's, for the functions below
};
static_assert(offsetof(raw_thread_ctx, shared) == 48, "kilnc's host code reads shared at byte 48");

/// A raw kernel's host form: runs the thread `ctx` describes.
using raw_host_fn = void (*)(void **args, raw_thread_ctx *ctx);
/// The host form of a kernel that does not synchronize, one block at a
/// time: runs every thread of block ctx->block_idx in order (x fastest),
/// writing ctx->thread_idx itself.
using raw_host_block_fn = void (*)(void **args, raw_thread_ctx *ctx);

/// One raw kernel, as kilnc emits it into the rewritten C++ (static data).
struct raw_kernel {
  const char *name;             ///< the C++ function, for messages ("saxpy<float>")
  const char *symbol;           ///< the PTX entry; the host form is `<symbol>_host`
  const char *ptx;              ///< PTX module with the entry, or nullptr
  const unsigned char *fatbin;  ///< cubins for --cuda-arch targets, or nullptr
  std::size_t fatbin_size;
  raw_host_fn host;             ///< the host form, one thread per call
  raw_host_block_fn host_block; ///< one block per call; nullptr when the kernel synchronizes
  std::uint8_t num_params;      ///< parameters as passed (a span counts two)
  const std::uint8_t *param_bytes; ///< bytes of each parameter value
  std::uint32_t static_shared_bytes; ///< the kernel's shared_array<T, N>s, 16-byte aligned
  bool synchronizes;            ///< calls syncthreads or a warp function
};

/// A launch's shape, CUDA's dim3.
struct raw_dims {
  std::uint32_t x = 1, y = 1, z = 1;
};

/// Runs `k` over `grid` blocks of `block` threads on `dev` (on `s`'s
/// stream when `s` is not null, else the current stream of `dev`), with
/// `dynamic_shared` bytes of dynamic shared memory per block. `args` points
/// to k.num_params parameter values. Throws value_error for an empty or
/// oversized grid or block (naming the limit), device_error when the kernel
/// has no code for `dev`, cuda_error naming the kernel when CUDA fails.
void launch_raw(const raw_kernel &k, device dev, raw_dims grid, raw_dims block, std::size_t dynamic_shared,
                const stream *s, void **args);

} // namespace kiln::detail

/// Called by the host form of a raw kernel (C linkage: kilnc's host code
/// declares them). Warp lanes are the block's threads in groups of 32 by
/// linear index (x fastest), as on a GPU.
extern "C" {
/// __syncthreads(): every thread of the block reaches it before any goes on.
void kiln_raw_syncthreads(kiln::detail::raw_thread_ctx *ctx);
/// __shfl_sync family on a full warp: mode 0 = idx (arg = source lane),
/// 1 = up (arg = delta), 2 = down (arg = delta), 3 = xor (arg = lane mask);
/// `width` a power of two <= 32 splits the warp into segments as CUDA does
/// (a source outside the segment gives the caller's own value). `value`
/// holds the operand's bits (up to 8 bytes).
std::uint64_t kiln_raw_shfl(kiln::detail::raw_thread_ctx *ctx, std::uint64_t value, std::int32_t mode,
                            std::int32_t arg, std::int32_t width);
/// __ballot_sync on a full warp: bit i is lane i's predicate.
std::uint32_t kiln_raw_ballot(kiln::detail::raw_thread_ctx *ctx, std::int32_t predicate);
}
