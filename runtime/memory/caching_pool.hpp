//===- runtime/memory/caching_pool.hpp - The caching allocator
//-------------===//
//
// caching_pool implements kiln::memory_pool for one device (GPU memory, host
// memory) or for page-locked host memory: 512-byte size classes, per-stream
// free lists, a limit, and one retry after freeing the cache on OOM.
// Internal to the runtime; users see kiln::memory_pool.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/memory.hpp"

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::detail {

class caching_pool final : public memory_pool {
public:
  enum class backend { device, host, pinned };

  /// Every block is a multiple of this many bytes (and at least this big).
  static constexpr std::size_t size_class = 512;
  /// Alignment of host blocks (device blocks come 256-aligned or better from
  /// cuMemAlloc).
  static constexpr std::size_t host_alignment = 256;

  caching_pool(device dev, backend kind);

  allocation allocate(std::size_t nbytes, const stream &s) override;
  using memory_pool::allocate;
  std::size_t used_bytes() const override;
  std::size_t total_bytes() const override;
  void free_all_blocks() override;
  void set_limit(std::size_t bytes) override;
  std::size_t get_limit() const override;
  device get_device() const override { return device_; }

  /// Identifies the stream a block was last used on: its device (-1 the
  /// host) and CUstream. Streams synchronize when destroyed, so a handle the
  /// driver hands out again is safe to share free lists with its old owner.
  struct stream_key {
    int dev;
    void *handle;
    friend bool operator==(stream_key a, stream_key b) {
      return a.dev == b.dev && a.handle == b.handle;
    }
  };

  /// Puts a block back in the cache of `key` (the deleter of an allocation).
  void release(void *p, std::size_t size, stream_key key) noexcept;

  /// Number of driver (or operator new) allocations so far: for tests.
  std::size_t backend_allocations() const;

  /// Cached (free) bytes: for tests.
  std::size_t cached_bytes() const;

private:
  struct free_list {
    stream_key key;
    std::map<std::size_t, std::vector<void *>> bins; // block size -> blocks
    /// The bin of the size last freed or taken (a map node: stable until
    /// that bin is erased), so that a program allocating and freeing one
    /// size over and over (a loop of small calls) skips the map walk.
    std::size_t hot_size = 0;
    std::vector<void *> *hot = nullptr;
    std::vector<void *> &bin(std::size_t size) {
      if (hot && hot_size == size)
        return *hot;
      hot = &bins[size];
      hot_size = size;
      return *hot;
    }
  };

  void *take_cached(std::size_t rounded, stream_key key,
                    std::size_t &size); // under mutex_
  void *allocate_new(std::size_t rounded, std::size_t nbytes);
  void *backend_allocate(std::size_t size); // nullptr on OOM
  void backend_free(void *p, std::size_t size);
  void backend_synchronize();
  [[noreturn]] void throw_oom(std::size_t nbytes);
  std::string name() const;

  const device device_;
  const backend kind_;
  mutable std::mutex mutex_;
  std::vector<free_list> lists_;
  std::size_t used_ = 0;
  std::size_t total_ = 0;
  std::size_t limit_ = 0;
  std::size_t backend_allocations_ = 0;
};

/// The blocks a CUDA graph may read or write when it is launched
/// (docs/runtime-graphs.md). While a thread captures on a GPU
/// (runtime/stream/capture.hpp), that GPU's pool tags each block it hands
/// out with the capture's sink, and a block that the capturing thread frees
/// goes to the sink instead of the free lists; a tagged block freed later
/// (after the capture, while the graph lives) goes there too. The sink keeps
/// the blocks (still counted in used_bytes()) until close(): the graph's
/// destructor, or the end of a failed capture. So no later allocation can be
/// given memory that a replay of the graph writes or reads.
class capture_sink {
public:
  capture_sink() = default;
  capture_sink(const capture_sink &) = delete;
  capture_sink &operator=(const capture_sink &) = delete;
  ~capture_sink() { close(); }

  /// Keeps the block (true), or returns false when closed: the caller then
  /// gives it back to its pool.
  bool hold(caching_pool *pool, void *p, std::size_t size,
            caching_pool::stream_key key) noexcept;
  /// Gives every block held back to its pool; later blocks are not held.
  void close() noexcept;
  /// Bytes held now.
  std::size_t held_bytes() const;

private:
  struct held {
    caching_pool *pool;
    void *p;
    std::size_t size;
    caching_pool::stream_key key;
  };
  mutable std::mutex mutex_;
  std::vector<held> blocks_;
  std::size_t bytes_ = 0;
  bool closed_ = false;
};

/// The pinned pool as a caching_pool (for tests and the transfer helpers).
caching_pool &pinned_pool();

} // namespace kiln::detail
