//===- runtime/kernels/params.hpp - Parameters of the runtime's kernels ---===//
//
// The structs the runtime's CUDA kernels take by value (one struct a
// kernel), shared by the .cu sources and the host code that launches them.
// Strided kernels handle up to max_gpu_rank dimensions after coalescing;
// higher ranks are split by a host-side loop. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace kiln::detail::kernels {

/// Dimensions a strided kernel handles in one launch (after merging).
inline constexpr int max_gpu_rank = 8;

/// dst[i] = convert(src[i]) over `n` elements of `shape` (C order). Pointers
/// address element (0, ..., 0); strides count elements and may be 0 or
/// negative.
struct copy_params {
  char *dst;
  const char *src;
  std::int64_t n;
  std::int32_t rank;
  std::int64_t shape[max_gpu_rank];
  std::int64_t dst_strides[max_gpu_rank];
  std::int64_t src_strides[max_gpu_rank];
};

/// dst[i] = value (the first itemsize bytes of `value`).
struct fill_params {
  char *dst;
  std::int64_t n;
  std::int32_t rank;
  std::int64_t shape[max_gpu_rank];
  std::int64_t strides[max_gpu_rank];
  alignas(16) unsigned char value[16];
};

/// out[i] = draw(counter = offset + i, key = seed), out C-contiguous.
struct random_params {
  void *out;
  std::int64_t n;
  std::uint64_t seed;
  std::uint64_t offset;
  double mean;         // normal
  double std;          // normal
  std::int64_t low;    // integers
  std::uint64_t range; // integers: high - low
};

} // namespace kiln::detail::kernels
