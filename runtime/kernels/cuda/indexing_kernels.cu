//===- runtime/kernels/cuda/indexing_kernels.cu - Gathers and scatters ----===//
//
// The CUDA kernels of boolean masks and integer indices (runtime/kernels/
// indexing.cpp drives them): the compaction of a mask (per-tile counts, one
// block's scan of them, then each tile writes its selected rows at their
// positions), the integer gather (take) and the scatter whose duplicates
// keep the last occurrence (a pass that records, per destination, the last
// position writing it, then the writes). Rows are moved as `units` of
// `unit_bytes` bytes; no dtype is involved. Out-of-range indices are
// recorded (the smallest position, atomicMin) and never dereferenced.
//
//===----------------------------------------------------------------------===//
#include "runtime/kernels/params.hpp"

using namespace kiln::detail::kernels;

namespace indexing_kernels {

__device__ __forceinline__ std::int64_t first() { return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ std::int64_t step() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

struct u128 {
  unsigned long long a, b;
};

/// Copies one row of `units` units from `from` to `to`.
__device__ __forceinline__ void copy_row(char *to, const char *from, std::int64_t units, int unit_bytes) {
  switch (unit_bytes) {
  case 16:
    for (std::int64_t u = 0; u < units; ++u) reinterpret_cast<u128 *>(to)[u] = reinterpret_cast<const u128 *>(from)[u];
    break;
  case 8:
    for (std::int64_t u = 0; u < units; ++u)
      reinterpret_cast<unsigned long long *>(to)[u] = reinterpret_cast<const unsigned long long *>(from)[u];
    break;
  case 4:
    for (std::int64_t u = 0; u < units; ++u) reinterpret_cast<unsigned *>(to)[u] = reinterpret_cast<const unsigned *>(from)[u];
    break;
  case 2:
    for (std::int64_t u = 0; u < units; ++u)
      reinterpret_cast<unsigned short *>(to)[u] = reinterpret_cast<const unsigned short *>(from)[u];
    break;
  default:
    for (std::int64_t u = 0; u < units; ++u) to[u] = from[u];
  }
}

/// Selected elements among the `mask_per_thread` this thread owns in its tile.
__device__ __forceinline__ int count_owned(const mask_params &p, std::int64_t begin) {
  int c = 0;
  for (int k = 0; k < mask_per_thread; ++k) {
    std::int64_t i = begin + k;
    c += i < p.n && p.mask[i] != 0;
  }
  return c;
}

/// The sum of `v` over the block (every thread gets it); `scratch` holds
/// one int per warp.
__device__ __forceinline__ int block_exclusive_scan(int v, int *scratch, int &total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  int inclusive = v;
  for (int d = 1; d < 32; d <<= 1) {
    int o = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += o;
  }
  if (lane == 31) scratch[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    int s = lane < warps ? scratch[lane] : 0;
    for (int d = 1; d < 32; d <<= 1) {
      int o = __shfl_up_sync(0xffffffffu, s, d);
      if (lane >= d) s += o;
    }
    if (lane < warps) scratch[lane] = s; // inclusive over warps
  }
  __syncthreads();
  int before = (warp ? scratch[warp - 1] : 0) + inclusive - v;
  total = scratch[warps - 1];
  __syncthreads();
  return before;
}

} // namespace indexing_kernels

using namespace indexing_kernels;

/// tile_counts[t] = selected elements of tile t (one block a tile).
extern "C" __global__ void kiln_mask_count(mask_params p) {
  __shared__ int scratch[32];
  const std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * mask_tile + threadIdx.x * mask_per_thread;
  int total = 0;
  block_exclusive_scan(count_owned(p, begin), scratch, total);
  if (threadIdx.x == 0) p.tile_counts[blockIdx.x] = total;
}

/// One block: tile_counts becomes the exclusive scan of itself, and
/// tile_counts[tiles] the total.
extern "C" __global__ void kiln_mask_scan(mask_params p) {
  __shared__ int scratch[32];
  __shared__ long long carry;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (std::int64_t base = 0; base < p.tiles; base += blockDim.x) {
    std::int64_t i = base + threadIdx.x;
    long long v = i < p.tiles ? p.tile_counts[i] : 0;
    // Tile counts fit an int (at most mask_tile each).
    int total = 0;
    int before = block_exclusive_scan(static_cast<int>(v), scratch, total);
    if (i < p.tiles) p.tile_counts[i] = carry + before;
    __syncthreads();
    if (threadIdx.x == 0) carry += total;
    __syncthreads();
  }
  if (threadIdx.x == 0) p.tile_counts[p.tiles] = carry;
}

/// Gather (scatter = 0): dst row pos = src row i for the pos-th selected i.
/// Scatter (scatter = 1): dst row i = src row pos (src row 0 when
/// src_broadcast).
extern "C" __global__ void kiln_mask_write(mask_params p) {
  __shared__ int scratch[32];
  const std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * mask_tile + threadIdx.x * mask_per_thread;
  int total = 0;
  std::int64_t pos = p.tile_counts[blockIdx.x] + block_exclusive_scan(count_owned(p, begin), scratch, total);
  const std::int64_t row = p.units * p.unit_bytes;
  for (int k = 0; k < mask_per_thread; ++k) {
    std::int64_t i = begin + k;
    if (i >= p.n || !p.mask[i]) continue;
    if (p.scatter)
      copy_row(p.dst + i * row, p.src + (p.src_broadcast ? 0 : pos * row), p.units, p.unit_bytes);
    else
      copy_row(p.dst + pos * row, p.src + i * row, p.units, p.unit_bytes);
    ++pos;
  }
}

/// The 1-d gather of T-sized elements (out[j] = src[idx[j]]): no
/// divisions, and each thread keeps four independent random loads in flight
/// (a block covers four block-widths, so every warp access stays coalesced).
template <class T> __device__ __forceinline__ void take_flat(const take_params &p) {
  const T *src = reinterpret_cast<const T *>(p.src);
  T *dst = reinterpret_cast<T *>(p.dst);
  constexpr int per = 4;
  const std::int64_t chunk = static_cast<std::int64_t>(blockDim.x) * per;
  for (std::int64_t base = blockIdx.x * chunk; base < p.n; base += gridDim.x * chunk) {
    std::int64_t k[per];
#pragma unroll
    for (int u = 0; u < per; ++u) {
      const std::int64_t j = base + u * blockDim.x + threadIdx.x;
      k[u] = j < p.n ? p.idx[j] : 0;
      if (k[u] < 0) k[u] += p.axis_len;
    }
    T v[per];
#pragma unroll
    for (int u = 0; u < per; ++u) {
      const std::int64_t j = base + u * blockDim.x + threadIdx.x;
      const bool in = k[u] >= 0 && k[u] < p.axis_len;
      if (!in && j < p.n) atomicMin(p.bad, static_cast<unsigned long long>(j));
      v[u] = in ? src[k[u]] : T();
    }
#pragma unroll
    for (int u = 0; u < per; ++u) {
      const std::int64_t j = base + u * blockDim.x + threadIdx.x;
      if (j < p.n) dst[j] = v[u];
    }
  }
}

/// out[a, j, b] = src[a, idx[j], b] (negative indices from the end).
extern "C" __global__ void kiln_take(take_params p) {
  if (p.n == p.nidx && p.inner_units == 1) { // one axis, one unit per index
    switch (p.unit_bytes) {
    case 4: return take_flat<unsigned>(p);
    case 8: return take_flat<unsigned long long>(p);
    case 2: return take_flat<unsigned short>(p);
    case 1: return take_flat<unsigned char>(p);
    default: break;
    }
  }
  for (std::int64_t o = first(); o < p.n; o += step()) {
    std::int64_t r = o / p.inner_units, b = o - r * p.inner_units;
    std::int64_t a = r / p.nidx, j = r - a * p.nidx;
    std::int64_t k = p.idx[j];
    if (k < 0) k += p.axis_len;
    if (k < 0 || k >= p.axis_len) {
      atomicMin(p.bad, static_cast<unsigned long long>(j));
      continue;
    }
    const char *from = p.src + ((a * p.axis_len + k) * p.inner_units + b) * p.unit_bytes;
    copy_row(p.dst + o * p.unit_bytes, from, 1, p.unit_bytes);
  }
}

/// winner[k] = 1 + the last position j whose index is k.
extern "C" __global__ void kiln_scatter_winners(take_params p) {
  for (std::int64_t j = first(); j < p.nidx; j += step()) {
    std::int64_t k = p.idx[j];
    if (k < 0) k += p.axis_len;
    if (k < 0 || k >= p.axis_len) {
      atomicMin(p.bad, static_cast<unsigned long long>(j));
      continue;
    }
    atomicMax(p.winner + k, static_cast<unsigned long long>(j + 1));
  }
}

/// dst[idx[j], b] = src[j, b] where j is idx[j]'s winner (src row 0 when
/// src_broadcast).
extern "C" __global__ void kiln_scatter_write(take_params p) {
  for (std::int64_t o = first(); o < p.n; o += step()) {
    std::int64_t j = o / p.inner_units, b = o - j * p.inner_units;
    std::int64_t k = p.idx[j];
    if (k < 0) k += p.axis_len;
    if (k < 0 || k >= p.axis_len || p.winner[k] != static_cast<unsigned long long>(j + 1)) continue;
    const char *from = p.src + ((p.src_broadcast ? 0 : j * p.inner_units) + b) * p.unit_bytes;
    copy_row(p.dst + (k * p.inner_units + b) * p.unit_bytes, from, 1, p.unit_bytes);
  }
}
