//===- runtime/launch/gpu_launch.hpp - Launching fused kernels on a GPU ---===//
//
// Loads a fused kernel's module once per (kernel, GPU), resolves each variant
// lazily, and launches it with cuLaunchKernel. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/detail/fused.hpp"
#include "kiln/detail/raw_kernel.hpp"

#include <string>

#include <cstdint>

namespace kiln::detail::launch {

/// Variant 0 is `<name>_contig`; variant r (1..max_kernel_rank) is
/// `<name>_strided<r>`.
inline constexpr int contig_variant = 0;
/// `<name>_rows`: rank 2 with every operand's inner dimension contiguous.
inline constexpr int rows_variant = max_kernel_rank + 1;
/// `<name>_lines2` (GPU only): rank 2 with every operand along the rows
/// (inner strides of at most 2 elements, or 0), walked in memory order.
inline constexpr int lines_variant = max_kernel_rank + 2;
/// Elements a thread of `_lines2` takes a step.
inline constexpr int lines_run = 4;

/// The symbol suffix of a variant: "_contig", "_strided3", "_rows".
std::string variant_suffix(int variant);

/// The grid and block of a launch.
struct launch_dims {
  unsigned grid;
  unsigned block;
};

/// The grid and block of an elementwise launch of `variant` over `n` > 0
/// elements, for a function that allows `max_block` threads a block, on a
/// GPU of `multiprocessors` SMs: blocks of `max_block` threads, one vector
/// access a thread, `ceil(n / (block * width))` blocks; `_strided2` at most
/// 1024 threads a multiprocessor (docs/runtime-launch.md, "Running it").
/// Pure arithmetic.
launch_dims elementwise_dims(std::int64_t n, int variant, int vector_width, int max_block,
                             int multiprocessors) noexcept;

/// The most dynamic shared memory `_strided2`'s tiles take (kilnc's
/// kStagingBudget, compiler/Transforms/GenerateVariants.cpp).
inline constexpr std::int64_t staged_budget = 99 * 1024;

/// The shape of `_strided2`'s tiles over a `rows` x `cols` walk: 4096
/// elements, 64 x 64, or where there are fewer than 64 columns (else rows)
/// as many columns (rows) as the power of two from 8 to 64 that pads them
/// least, the larger on a tie (kilnc's buildGpuStaged2 decides the same).
/// Pure arithmetic.
struct staged_tile_shape {
  std::int64_t rows, cols;
};
staged_tile_shape staged_tile(std::int64_t rows, std::int64_t cols) noexcept;

/// Dynamic shared memory of a `_strided2` launch over a `rows` x `cols`
/// walk: the kernel stages, in input order while they fit staged_budget,
/// the tile (padded by an element a row) of each input read across the walk
/// -- outer stride `strides[j * pitch]` not 0 and smaller in magnitude than
/// the inner one `strides[j * pitch + 1]` -- of `item[j]` bytes an element.
/// The kernel decides by the same rule from the same strides. Pure
/// arithmetic.
unsigned staged_shared_bytes(std::int64_t rows, std::int64_t cols, int num_inputs, const std::int64_t *strides,
                             int pitch, const std::int64_t *item) noexcept;

/// Launches `variant` of `k` on GPU `ordinal` (whose context the caller made
/// current) over `n` > 0 elements on `stream` (a CUstream), with `args` as
/// cuLaunchKernel's kernelParams and `shared_bytes` of dynamic shared memory
/// (the function's limit raised as needed). Throws cuda_error (naming the
/// call and the kernel) when loading the module, finding the variant or
/// launching fails, and kiln::error when the kernel has no GPU code.
void launch_on_gpu(const fused_kernel &k, int ordinal, int variant, std::int64_t n, void **args, void *stream,
                   unsigned shared_bytes = 0);

/// What loading a kernel's GPU code needs: its name (the stem of its entry
/// points), PTX and fatbin. `key` identifies the kernel (its descriptor).
struct kernel_image {
  const void *key;
  const char *name;
  const char *ptx;
  const unsigned char *fatbin;
  std::size_t fatbin_size;
};

/// The most variants (entry points) one kernel image has.
inline constexpr int max_entries = 8;

/// Launches entry `<name><suffix>` (cached in slot `slot` < max_entries) of
/// `image` on GPU `ordinal` with the given grid, block and dynamic shared
/// memory. Errors as launch_on_gpu.
void launch_entry(const kernel_image &image, int ordinal, int slot, const char *suffix, unsigned grid,
                  unsigned block, unsigned shared_bytes, void **args, void *stream);

/// As launch_entry, for a kernel whose blocks run in thread-block clusters
/// of `cluster` blocks (grid a multiple of it) with `shared_bytes` of
/// dynamic shared memory (the function's limit is raised as needed).
void launch_cluster_entry(const kernel_image &image, int ordinal, int slot, const char *suffix, unsigned grid,
                          unsigned block, unsigned cluster, unsigned shared_bytes, void **args, void *stream);

/// As launch_entry, over a 3-D grid of 3-D blocks (a raw kernel's launch),
/// with `shared_bytes` of dynamic shared memory: the function's limit is
/// raised (never lowered, so concurrent launches of one function stay
/// valid) when it is above the default 48 KiB. The caller checked the shape
/// and that `shared_bytes` is within max_shared_per_block().
void launch_entry_3d(const kernel_image &image, int ordinal, int slot, const char *suffix, raw_dims grid,
                     raw_dims block, unsigned shared_bytes, void **args, void *stream);

/// Blocks of `block` threads (and `shared_bytes` of dynamic shared memory)
/// of entry `<name><suffix>` that fit on one multiprocessor at once.
int blocks_per_multiprocessor(const kernel_image &image, int ordinal, int slot, const char *suffix, unsigned block,
                              unsigned shared_bytes);

/// Multiprocessors of GPU `ordinal` (cached).
int multiprocessor_count(int ordinal);

/// The most shared memory one block of GPU `ordinal` may have, opting in
/// beyond the default 48 KiB (cached).
int max_shared_per_block(int ordinal);

/// The compute capability of GPU `ordinal` as 10 * major + minor (cached).
int compute_capability(int ordinal);

} // namespace kiln::detail::launch
