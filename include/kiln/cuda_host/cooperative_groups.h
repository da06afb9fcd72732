//===- kiln/cuda_host/cooperative_groups.h - Cooperative groups on the host -*- C++ -*-===//
//
// CUDA's <cooperative_groups.h> for CUDA source compiled for the host
// (kiln/cuda_host.hpp): include/kiln/cuda_host is first on the include path
// then. The groups of one block: thread_block (this_thread_block()),
// thread_block_tile<N> for N = 1, 2, 4, ..., 32 (tiled_partition<N>),
// coalesced_group (coalesced_threads()), the dynamic thread_group, and
// grid_group (this_grid()), whose sync() needs a GPU. cooperative_groups::
// reduce and its function objects are in <cooperative_groups/reduce.h>.
//
// Tiles of up to 32 threads lie within one warp, so their collectives are
// warp exchanges: like the *_sync functions, they assume converged warps
// (every tile of a warp reaches the same collective), and a tile's sync()
// is a rendezvous of the whole warp. coalesced_threads() is a ballot of the
// warp's live lanes: the lanes that are not in the branch must have
// returned (else the block cannot finish and the launch throws kiln::error).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/cuda_host.hpp"

namespace cooperative_groups {

namespace details {
enum group_type : unsigned int { coalesced_group_id = 1, thread_block_id = 3, grid_group_id = 4 };

inline unsigned int block_size() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned int block_rank() { return ::kiln::cuda_host::detail::linear_thread(); }
inline unsigned long long grid_block_rank() {
  return blockIdx.x + static_cast<unsigned long long>(gridDim.x) *
                          (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
}
inline unsigned long long grid_blocks() { return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z; }
/// The lanes of the running thread's aligned segment of `size` lanes.
inline unsigned int segment_lanes(unsigned int size) {
  const unsigned int lane = ::kiln::cuda_host::detail::lane_id();
  return size >= 32 ? 0xffffffffu : ((1u << size) - 1) << (lane & ~(size - 1));
}
/// The existing lanes of the running thread's segment of `size` lanes.
inline unsigned int warp_tile_lanes(unsigned int size) {
  return ::kiln::cuda_host::detail::warp_lanes() & segment_lanes(size);
}
/// Packs the bits of `lanes` that are in `mask` by rank in `mask`.
inline unsigned int pack_lanes(unsigned int lanes, unsigned int mask) {
  unsigned int packed = 0, rank = 0;
  for (unsigned int lane = 0; lane < 32; ++lane)
    if (mask >> lane & 1) {
      packed |= (lanes >> lane & 1) << rank;
      ++rank;
    }
  return packed;
}
[[noreturn]] inline void bad_tile_size(unsigned int size) {
  throw ::kiln::error("cooperative_groups::tiled_partition: a tile of " + std::to_string(size) +
                      " threads (a tile has 1, 2, 4, 8, 16 or 32 threads)");
}
} // namespace details

/// Any group, as CUDA's type-erased thread_group: a block, a tile of one,
/// or a coalesced group (a grid too, whose sync() needs a GPU).
class thread_group {
public:
  unsigned long long size() const { return num_threads(); }
  unsigned long long num_threads() const {
    switch (type_) {
    case details::thread_block_id:
      return details::block_size();
    case details::grid_group_id:
      return details::grid_blocks() * details::block_size();
    default:
      return tile_ ? tile_ : static_cast<unsigned int>(std::popcount(mask_));
    }
  }
  unsigned long long thread_rank() const {
    switch (type_) {
    case details::thread_block_id:
      return details::block_rank();
    case details::grid_group_id:
      return details::grid_block_rank() * details::block_size() + details::block_rank();
    default:
      return tile_ ? details::block_rank() & (tile_ - 1)
                   : static_cast<unsigned int>(std::popcount(mask_ & ::kiln::cuda_host::detail::lanes_below()));
    }
  }
  KILN_CUDA_SYNC void sync() const {
    if (type_ == details::thread_block_id)
      __syncthreads();
    else if (type_ == details::grid_group_id)
      ::kiln::cuda_host::gpu_only("cooperative_groups grid sync");
    else
      __syncwarp();
  }
  unsigned int get_type() const { return type_; }

protected:
  explicit thread_group(unsigned int type, unsigned int tile = 0, unsigned int mask = 0)
      : type_(type), tile_(tile), mask_(mask) {}

  unsigned int type_;
  unsigned int tile_; ///< a tile's size (a coalesced group of consecutive lanes), else 0
  unsigned int mask_; ///< a coalesced group's lanes

  friend thread_group tiled_partition(const thread_group &parent, unsigned int tilesz);
};

/// The running thread's block.
class thread_block : public thread_group {
  friend thread_block this_thread_block();
  thread_block() : thread_group(details::thread_block_id) {}

public:
  static constexpr unsigned int _group_id = details::thread_block_id;

  KILN_CUDA_SYNC static void sync() { __syncthreads(); }
  static unsigned int size() { return details::block_size(); }
  static unsigned int num_threads() { return details::block_size(); }
  static unsigned int thread_rank() { return details::block_rank(); }
  static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static dim3 group_dim() { return blockDim; }
  static dim3 dim_threads() { return blockDim; }

  /// Split barrier: on the host the wait is the whole barrier.
  struct arrival_token {};
  arrival_token barrier_arrive() const { return {}; }
  KILN_CUDA_SYNC void barrier_wait(arrival_token &&) const { __syncthreads(); }
};

inline thread_block this_thread_block() { return thread_block(); }

/// A tile of Size consecutive threads of the block (by rank), Size a power
/// of two up to 32: a segment of one warp. ParentT is the group it was cut
/// from (void: unknown).
template <unsigned int Size, class ParentT = void> class thread_block_tile : public thread_group {
  static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                "thread_block_tile: Size must be 1, 2, 4, 8, 16 or 32 (larger tiles are not supported on the host)");
  template <unsigned int, class> friend class thread_block_tile;
  static constexpr unsigned int tile_mask = Size == 32 ? 0xffffffffu : (1u << Size) - 1;
  static unsigned int base_lane() { return ::kiln::cuda_host::detail::lane_id() & ~(Size - 1); }

public:
  static constexpr unsigned int _group_id = details::coalesced_group_id;

  thread_block_tile(unsigned int meta_rank, unsigned int meta_size)
      : thread_group(details::coalesced_group_id, Size), meta_rank_(meta_rank), meta_size_(meta_size) {}
  /// A tile of a known parent converts to thread_block_tile<Size>.
  template <class P>
  thread_block_tile(const thread_block_tile<Size, P> &other) // NOLINT(google-explicit-constructor)
      : thread_group(details::coalesced_group_id, Size), meta_rank_(other.meta_rank_), meta_size_(other.meta_size_) {}

  static constexpr unsigned int size() { return Size; }
  static constexpr unsigned int num_threads() { return Size; }
  static unsigned int thread_rank() { return details::block_rank() & (Size - 1); }
  /// The tile's index among its parent's tiles, and their number.
  unsigned int meta_group_rank() const { return meta_rank_; }
  unsigned int meta_group_size() const { return meta_size_; }

  KILN_CUDA_SYNC static void sync() { __syncwarp(); }

  template <class T> KILN_CUDA_SYNC T shfl(T var, int srcRank) const {
    return __shfl_sync(0xffffffffu, var, srcRank, static_cast<int>(Size));
  }
  template <class T> KILN_CUDA_SYNC T shfl_down(T var, unsigned int delta) const {
    return __shfl_down_sync(0xffffffffu, var, delta, static_cast<int>(Size));
  }
  template <class T> KILN_CUDA_SYNC T shfl_up(T var, unsigned int delta) const {
    return __shfl_up_sync(0xffffffffu, var, delta, static_cast<int>(Size));
  }
  template <class T> KILN_CUDA_SYNC T shfl_xor(T var, unsigned int laneMask) const {
    return __shfl_xor_sync(0xffffffffu, var, static_cast<int>(laneMask), static_cast<int>(Size));
  }
  /// Bit i: the predicate of the tile's thread of rank i is non-zero.
  KILN_CUDA_SYNC unsigned int ballot(int predicate) const {
    return __ballot_sync(0xffffffffu, predicate) >> base_lane() & tile_mask;
  }
  KILN_CUDA_SYNC int any(int predicate) const { return ballot(predicate) != 0; }
  KILN_CUDA_SYNC int all(int predicate) const { return ballot(!predicate) == 0; }
  template <class T> KILN_CUDA_SYNC unsigned int match_any(T value) const {
    return __match_any_sync(0xffffffffu, value) >> base_lane() & tile_mask;
  }
  template <class T> KILN_CUDA_SYNC unsigned int match_all(T value, int &pred) const {
    // Equal within the tile: the tile's lanes that match the tile's first.
    const T first = shfl(value, 0);
    const unsigned int differ =
        ballot(::kiln::cuda_host::detail::match_bits(value) != ::kiln::cuda_host::detail::match_bits(first));
    pred = differ == 0;
    return pred ? (details::warp_tile_lanes(Size) >> base_lane() & tile_mask) : 0u;
  }

private:
  unsigned int meta_rank_;
  unsigned int meta_size_;
};

/// The block cut into tiles of Size threads by rank.
template <unsigned int Size> thread_block_tile<Size, thread_block> tiled_partition(const thread_block &) {
  return thread_block_tile<Size, thread_block>(details::block_rank() / Size, (details::block_size() + Size - 1) / Size);
}
/// A tile cut into smaller tiles.
template <unsigned int Size, unsigned int ParentSize, class P>
thread_block_tile<Size, thread_block_tile<ParentSize, P>> tiled_partition(const thread_block_tile<ParentSize, P> &) {
  static_assert(Size <= ParentSize, "tiled_partition: a tile larger than its parent");
  return thread_block_tile<Size, thread_block_tile<ParentSize, P>>(
      thread_block_tile<ParentSize, P>::thread_rank() / Size, ParentSize / Size);
}

/// The lanes of a warp that are in the same branch (see the file header).
class coalesced_group : public thread_group {
  friend coalesced_group coalesced_threads();
  friend thread_group tiled_partition(const thread_group &parent, unsigned int tilesz);

  unsigned int lane_of(unsigned int rank) const { return ::kiln::cuda_host::detail::nth_lane(mask_, rank); }

public:
  static constexpr unsigned int _group_id = details::coalesced_group_id;

  explicit coalesced_group(unsigned int mask, unsigned int meta_rank = 0, unsigned int meta_size = 1)
      : thread_group(details::coalesced_group_id, 0, mask), meta_rank_(meta_rank), meta_size_(meta_size) {}

  unsigned int size() const { return static_cast<unsigned int>(std::popcount(mask_)); }
  unsigned int num_threads() const { return size(); }
  unsigned int thread_rank() const {
    return static_cast<unsigned int>(std::popcount(mask_ & ::kiln::cuda_host::detail::lanes_below()));
  }
  unsigned int meta_group_rank() const { return meta_rank_; }
  unsigned int meta_group_size() const { return meta_size_; }
  /// The group's lanes of the warp (Kiln's; for cooperative_groups::reduce).
  unsigned int kiln_lanes() const { return mask_; }

  KILN_CUDA_SYNC void sync() const { __syncwarp(mask_); }

  template <class T> KILN_CUDA_SYNC T shfl(T var, int srcRank) const {
    const unsigned int lane = lane_of(static_cast<unsigned int>(srcRank));
    return __shfl_sync(mask_, var,
                       lane < 32 ? static_cast<int>(lane) : static_cast<int>(::kiln::cuda_host::detail::lane_id()));
  }
  template <class T> KILN_CUDA_SYNC T shfl_down(T var, unsigned int delta) const {
    const unsigned int lane = lane_of(thread_rank() + delta);
    return __shfl_sync(mask_, var,
                       lane < 32 ? static_cast<int>(lane) : static_cast<int>(::kiln::cuda_host::detail::lane_id()));
  }
  template <class T> KILN_CUDA_SYNC T shfl_up(T var, unsigned int delta) const {
    const unsigned int rank = thread_rank();
    const unsigned int lane = rank >= delta ? lane_of(rank - delta) : 32u;
    return __shfl_sync(mask_, var,
                       lane < 32 ? static_cast<int>(lane) : static_cast<int>(::kiln::cuda_host::detail::lane_id()));
  }
  /// Bit i: the predicate of the group's thread of rank i is non-zero.
  KILN_CUDA_SYNC unsigned int ballot(int predicate) const {
    return details::pack_lanes(__ballot_sync(mask_, predicate), mask_);
  }
  KILN_CUDA_SYNC int any(int predicate) const { return __ballot_sync(mask_, predicate) != 0; }
  KILN_CUDA_SYNC int all(int predicate) const { return __ballot_sync(mask_, !predicate) == 0; }
  template <class T> KILN_CUDA_SYNC unsigned int match_any(T value) const {
    return details::pack_lanes(__match_any_sync(mask_, value), mask_);
  }
  template <class T> KILN_CUDA_SYNC unsigned int match_all(T value, int &pred) const {
    const T first = shfl(value, 0);
    pred = __ballot_sync(mask_, ::kiln::cuda_host::detail::match_bits(value) !=
                                    ::kiln::cuda_host::detail::match_bits(first)) == 0;
    return pred ? details::pack_lanes(mask_, mask_) : 0u;
  }

private:
  unsigned int meta_rank_;
  unsigned int meta_size_;
};

/// The live lanes of the running warp that call it together.
KILN_CUDA_SYNC inline coalesced_group coalesced_threads() {
  return coalesced_group(::kiln::cuda_host::detail::ballot(1));
}

/// A group cut into tiles of `tilesz` threads (1, 2, 4, ..., 32): a tile of
/// a block or tile, a coalesced group of a coalesced group.
inline thread_group tiled_partition(const thread_group &parent, unsigned int tilesz) {
  if (tilesz == 0 || tilesz > 32 || (tilesz & (tilesz - 1)) != 0)
    details::bad_tile_size(tilesz);
  if (parent.type_ == details::coalesced_group_id && parent.tile_ == 0) {
    const coalesced_group &group = static_cast<const coalesced_group &>(parent);
    const unsigned int first = group.thread_rank() / tilesz * tilesz;
    unsigned int mask = 0;
    for (unsigned int rank = first; rank < first + tilesz && rank < group.size(); ++rank)
      mask |= 1u << ::kiln::cuda_host::detail::nth_lane(parent.mask_, rank);
    return coalesced_group(mask, group.thread_rank() / tilesz, (group.size() + tilesz - 1) / tilesz);
  }
  return thread_group(details::coalesced_group_id, tilesz);
}
inline thread_group tiled_partition(const thread_block &parent, unsigned int tilesz) {
  return tiled_partition(static_cast<const thread_group &>(parent), tilesz);
}

/// Every thread of the launch. Its sync() needs a cooperative launch on a
/// GPU: on the host it throws kiln::device_error.
class grid_group : public thread_group {
  friend grid_group this_grid();
  grid_group() : thread_group(details::grid_group_id) {}

public:
  static constexpr unsigned int _group_id = details::grid_group_id;

  bool is_valid() const { return true; }
  KILN_CUDA_GPU_ONLY("cooperative_groups grid sync") void sync() const {
    ::kiln::cuda_host::gpu_only("cooperative_groups grid sync");
  }
  static unsigned long long size() { return details::grid_blocks() * details::block_size(); }
  static unsigned long long num_threads() { return size(); }
  static unsigned long long thread_rank() {
    return details::grid_block_rank() * details::block_size() + details::block_rank();
  }
  static dim3 group_dim() { return gridDim; }
  static dim3 dim_blocks() { return gridDim; }
  static dim3 dim_threads() { return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z); }
  static dim3 thread_index() {
    return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                blockIdx.z * blockDim.z + threadIdx.z);
  }
  static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static unsigned long long block_rank() { return details::grid_block_rank(); }
  static unsigned long long num_blocks() { return details::grid_blocks(); }
};

inline grid_group this_grid() { return grid_group(); }

/// The free forms of the members.
template <class GroupT> KILN_CUDA_SYNC void sync(const GroupT &g) { g.sync(); }
template <class GroupT> auto thread_rank(const GroupT &g) -> decltype(g.thread_rank()) { return g.thread_rank(); }
template <class GroupT> auto group_size(const GroupT &g) -> decltype(g.num_threads()) { return g.num_threads(); }

} // namespace cooperative_groups
