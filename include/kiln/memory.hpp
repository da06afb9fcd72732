//===- kiln/memory.hpp - Memory pools ----------------------------*- C++ -*-===//
//
// A caching allocator per device, as CuPy's MemoryPool: size classes, reuse
// of freed blocks without a driver call, stream-aware reuse, a limit, and on
// out-of-memory one retry after freeing the cache. A pinned host pool serves
// page-locked staging memory. All pools are thread-safe.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/device.hpp"
#include "kiln/dtype.hpp"
#include "kiln/stream.hpp"

#include <cstddef>
#include <memory>
#include <span>

namespace kiln {

/// Memory from a pool; returns itself to the pool when the last reference
/// dies. Arrays hold their storage through this.
using allocation = std::shared_ptr<void>;

class memory_pool {
public:
  virtual ~memory_pool() = default;

  /// `nbytes` for use on `s`. Throws out_of_memory naming the device and the
  /// bytes asked for when even a retry after free_all_blocks() fails.
  virtual allocation allocate(std::size_t nbytes, const stream &s) = 0;
  allocation allocate(std::size_t nbytes) { return allocate(nbytes, stream::current(get_device())); }

  /// Bytes in blocks handed out and not yet freed.
  virtual std::size_t used_bytes() const = 0;
  /// Bytes held from the driver: used plus cached.
  virtual std::size_t total_bytes() const = 0;
  /// Returns all cached (free) blocks to the driver.
  virtual void free_all_blocks() = 0;
  /// Caps total_bytes(); 0 means no limit.
  virtual void set_limit(std::size_t bytes) = 0;
  virtual std::size_t get_limit() const = 0;
  virtual device get_device() const = 0;
};

/// The caching pool of `dev` (the current device by default).
memory_pool &get_default_memory_pool(device dev = current_device());

/// The pool of page-locked host memory used for asynchronous transfers. On a
/// machine without CUDA it hands out ordinary host memory.
memory_pool &get_default_pinned_memory_pool();

/// A page-locked host buffer of `n` elements of T from the pinned pool.
template <class T> class pinned_buffer {
public:
  explicit pinned_buffer(std::size_t n)
      : mem_(get_default_pinned_memory_pool().allocate(n * sizeof(T), stream::default_stream(device::host()))),
        n_(n) {}
  T *data() const noexcept { return static_cast<T *>(mem_.get()); }
  std::size_t size() const noexcept { return n_; }
  T &operator[](std::size_t i) const noexcept { return data()[i]; }
  T *begin() const noexcept { return data(); }
  T *end() const noexcept { return data() + n_; }
  std::span<T> span() const noexcept { return {data(), n_}; }
  operator std::span<const T>() const noexcept { return {data(), n_}; }

private:
  allocation mem_;
  std::size_t n_;
};

} // namespace kiln
