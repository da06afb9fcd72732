//===- runtime/stream/capture.hpp - The calling thread's graph capture ----===//
//
// While the lambda of kiln::capture runs on a GPU, the calling thread has an
// active_capture: the device pool consults it to give the blocks the graph
// may use to the graph (a capture_sink, runtime/memory/caching_pool.hpp), and
// the runtime's synchronizing operations refuse to run. Internal.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/device.hpp"

#include <memory>

namespace kiln::detail {

class caching_pool;
class capture_sink;

struct active_capture {
  device dev;                         // the capturing GPU
  void *stream = nullptr;             // the capturing CUstream
  caching_pool *pool = nullptr;       // dev's default memory pool
  std::shared_ptr<capture_sink> sink; // where that pool's blocks go
};

/// The calling thread's capture in progress, or nullptr (a thread-local read).
const active_capture *thread_capture() noexcept;

/// Makes `c` the calling thread's capture until the scope ends (kiln::capture;
/// tests). Captures do not nest.
class capture_scope {
public:
  explicit capture_scope(const active_capture *c) noexcept;
  ~capture_scope();
  capture_scope(const capture_scope &) = delete;
  capture_scope &operator=(const capture_scope &) = delete;
};

/// Throws cuda_error (code CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, 900)
/// "<what> is not allowed inside kiln::capture: ..." when the calling thread
/// is capturing; nothing otherwise.
void check_not_capturing(const char *what);

} // namespace kiln::detail
