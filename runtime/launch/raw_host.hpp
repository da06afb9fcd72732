//===- runtime/launch/raw_host.hpp - Raw kernels on the host --------------===//
//
// Runs a raw kernel's host form over a whole grid: blocks in parallel on the
// host thread pool, each block's threads either through the kernel's
// one-block form (kernels that do not synchronize) or as fibers that switch
// at syncthreads, shuffles and ballots. Internal to the runtime; the design
// is described in raw_host.cpp and docs/kernel-abi.md ("Raw kernels").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/detail/raw_kernel.hpp"

#include <cstddef>

namespace kiln::detail::raw {

/// Runs every block of `grid` (blocks of `block` threads, each with
/// `shared_bytes` of shared memory) of `k` on the host and returns when all
/// are done. The shape is valid (launch_raw checked it). Rethrows the first
/// exception a thread of the kernel threw; throws kiln::error when the
/// threads of a block wait at barriers that can never complete.
void run_on_host(const raw_kernel &k, raw_dims grid, raw_dims block, std::size_t shared_bytes, void **args);

} // namespace kiln::detail::raw
