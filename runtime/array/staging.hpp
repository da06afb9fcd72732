//===- runtime/array/staging.hpp - Pageable transfers through pinned memory
//-===//
//
// A synchronous copy between pageable host memory and a GPU goes through two
// page-locked staging buffers of the pinned pool, one chunk at a time: the
// host threads copy one chunk (pageable <-> pinned) while the DMA engine
// moves the previous one over PCIe. This header holds the pure parts (the
// constants, the plan of a copy, the environment knobs) and the two pipelines
// as templates over an "engine", so the host tests can run them against a
// simulated stream; runtime/array/staging.cpp runs them on the driver.
// Internal to the runtime; docs/runtime-arrays.md, "Pageable transfers".
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>

namespace kiln::detail::staging {

inline constexpr std::size_t mib = std::size_t(1) << 20;

/// Copies of fewer bytes keep the driver's own path (cuMemcpyHtoDAsync /
/// cuMemcpyDtoHAsync on pageable memory, staged by the driver). Below a few
/// MiB a pipeline has too few chunks to overlap anything, and its fixed cost
/// (a pointer query, events, waking the copy threads) is a visible part of
/// the copy.
inline constexpr std::size_t threshold_bytes = 8 * mib;

/// The largest chunk. Large enough that the per-chunk cost (an event wait and
/// one wake-up of the copy threads, ~10-20 us) is under 5% of its time at
/// PCIe 5 speed (16 MiB / 50 GB/s = 335 us), small enough that the two
/// buffers (32 MiB of page-locked memory, cached by the pinned pool) are
/// cheap, and that the pipeline's fill and drain (one chunk's host copy plus
/// one chunk's DMA not overlapped) cost ~1 ms of the ~25 ms of 1 GiB.
inline constexpr std::size_t max_chunk_bytes = 16 * mib;
/// The smallest chunk: a host copy of 2 MiB still gives each copy thread a
/// few hundred KiB.
inline constexpr std::size_t min_chunk_bytes = 2 * mib;
/// A copy is cut into at least this many chunks (between the chunk bounds),
/// so mid-sized copies overlap too. Chunks are powers of two, so the pinned
/// pool caches a handful of block sizes, not one per copy size.
inline constexpr std::size_t target_chunks = 4;
/// Host threads (the calling one included, clamped to KILN_NUM_THREADS) that
/// copy a chunk between pageable and pinned memory: one thread's memcpy
/// (~10 GB/s) is far below PCIe 5 (~50 GB/s each way), a handful saturate it
/// without taking every core's memory bandwidth.
inline constexpr int default_threads = 8;
/// A thread copies at least this many bytes of a chunk.
inline constexpr std::size_t copy_grain_bytes = 256 * 1024;
/// Staging buffers: one filled by the host while the other is on the bus.
inline constexpr int max_buffers = 2;

struct config {
  std::size_t threshold = threshold_bytes; ///< smaller copies: driver path
  std::size_t max_chunk = max_chunk_bytes; ///< 0: staging off
  std::size_t min_chunk = min_chunk_bytes;
  int threads = default_threads;
};

/// How one copy of `nbytes` runs: staged or not, and its chunks.
struct plan {
  bool staged = false;
  std::size_t chunk = 0;  ///< bytes of every chunk but the last
  std::size_t chunks = 0; ///< ceil(nbytes / chunk)
  int buffers = 0;        ///< min(max_buffers, chunks)
};

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) {
  return a / b + (a % b != 0);
}

/// The plan of a copy of `nbytes` under `c`: not staged for 0 bytes, for
/// fewer than c.threshold, or with c.max_chunk == 0; else chunks of
/// bit_floor(ceil(nbytes / target_chunks)) (so at least target_chunks of
/// them, at most twice that) clamped to [min(c.min_chunk, c.max_chunk),
/// c.max_chunk].
constexpr plan make_plan(std::size_t nbytes, const config &c) {
  plan p;
  if (nbytes == 0 || c.max_chunk == 0 || nbytes < c.threshold)
    return p;
  const std::size_t lo =
      std::max<std::size_t>(1, std::min(c.min_chunk, c.max_chunk));
  const std::size_t want = std::bit_floor(ceil_div(nbytes, target_chunks));
  p.staged = true;
  p.chunk = std::clamp(want, lo, c.max_chunk);
  p.chunks = ceil_div(nbytes, p.chunk);
  p.buffers = static_cast<int>(std::min<std::size_t>(max_buffers, p.chunks));
  return p;
}

/// Byte range [offset, offset + size) of chunk `k` of a plan over `nbytes`.
struct range {
  std::size_t offset;
  std::size_t size;
};
constexpr range chunk_range(const plan &p, std::size_t nbytes, std::size_t k) {
  const std::size_t off = k * p.chunk;
  return {off, std::min(p.chunk, nbytes - off)};
}

/// The configuration for KILN_STAGING_CHUNK_MIB=`chunk_mib` and
/// KILN_STAGING_THREADS=`threads` (either may be null): a decimal integer in
/// [0, 1024] MiB (surrounding spaces allowed; 0 turns staging off; a chunk
/// under min_chunk_bytes also lowers the smallest chunk to it) and one in
/// [1, 4096]. Anything else is ignored: the default applies.
config parse_env(const char *chunk_mib, const char *threads) noexcept;

/// The configuration of this process: parse_env of the environment, read
/// once, unless set_config_for_testing replaced it.
config current_config() noexcept;
/// Replaces the configuration (tests: small chunks, threshold 0); returns the
/// previous one.
config set_config_for_testing(const config &c) noexcept;

/// A synchronous copy of `nbytes` from pageable host memory to device memory
/// (a CUdeviceptr) on `stream_handle` (a CUstream of the device whose context
/// is current), staged: ordered after the work queued on the stream before
/// it, complete (the stream synchronized) when it returns. Returns false,
/// having queued nothing, when the copy is not staged: no driver, a plan
/// that is not staged, host memory the driver knows (pinned, registered,
/// managed: cuPointerGetAttributes knows it), or no pinned buffers or events;
/// the caller then uses cuMemcpyHtoDAsync. Driver errors once the copy has
/// started are cuda_errors.
bool to_device(void *device_dst, const void *host, std::size_t nbytes,
               void *stream_handle);
/// The same from device to pageable host memory: when it returns true, the
/// data is in `host_dst` (and the work queued on the stream before the copy
/// has completed).
bool to_host(void *host_dst, const void *device_src, std::size_t nbytes,
             void *stream_handle);

/// Copies `n` bytes with up to `threads` host threads (parallel_for).
void parallel_copy(void *dst, const void *src, std::size_t n, int threads);

/// Host -> device. `e` provides, for staging buffer b (0 or 1):
///   fill(b, r)    copy bytes r of the pageable source into buffer b (host);
///   transfer(b, r) queue buffer b -> bytes r of the device destination;
///   record(b)     mark the stream after the transfer of b;
///   wait(b)       block until the stream has passed record(b);
///   finish()      block until the stream is done.
/// A buffer is filled again only after the DMA that read it has completed,
/// and fill(k + 1) runs while transfer(k) is on the bus.
template <class Engine>
void run_h2d(Engine &e, const plan &p, std::size_t nbytes) {
  for (std::size_t k = 0; k < p.chunks; ++k) {
    const int b = static_cast<int>(k % p.buffers);
    const range r = chunk_range(p, nbytes, k);
    if (k >= static_cast<std::size_t>(p.buffers))
      e.wait(b);
    e.fill(b, r);
    e.transfer(b, r);
    e.record(b);
  }
  e.finish();
}

/// Device -> host. `e` provides transfer(b, r) (queue bytes r of the device
/// source -> buffer b), record(b), wait(b), and drain(b, r) (copy buffer b to
/// bytes r of the pageable destination, on the host). Both buffers are on
/// the bus before the first drain; a buffer is refilled as soon as it has
/// been drained, so the DMA of chunk k + 1 runs while chunk k is drained.
/// When it returns, every queued transfer has completed.
template <class Engine>
void run_d2h(Engine &e, const plan &p, std::size_t nbytes) {
  const std::size_t nbuf = static_cast<std::size_t>(p.buffers);
  for (std::size_t k = 0; k < nbuf && k < p.chunks; ++k) {
    e.transfer(static_cast<int>(k), chunk_range(p, nbytes, k));
    e.record(static_cast<int>(k));
  }
  for (std::size_t k = 0; k < p.chunks; ++k) {
    const int b = static_cast<int>(k % nbuf);
    e.wait(b);
    e.drain(b, chunk_range(p, nbytes, k));
    if (k + nbuf < p.chunks) {
      e.transfer(b, chunk_range(p, nbytes, k + nbuf));
      e.record(b);
    }
  }
}

} // namespace kiln::detail::staging
