//===- runtime/stream/stream_impl.hpp - The state behind stream and event
//--===//
//
// stream::impl owns a CUstream (null on the host); event::impl owns a CUevent
// or, on the host, the time it was recorded. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/stream.hpp"

#include <cuda.h>

#include <chrono>

namespace kiln {

struct stream::impl {
  device dev;
  CUstream handle = nullptr; // nullptr on the host
  explicit impl(device d) : dev(d) {}
  ~impl(); // synchronizes, then destroys the CUstream
  impl(const impl &) = delete;
  impl &operator=(const impl &) = delete;
};

struct event::impl {
  device dev;
  CUevent handle = nullptr; // nullptr on the host
  bool recorded = false;
  std::chrono::steady_clock::time_point host_time{}; // host events
  explicit impl(device d) : dev(d) {}
  ~impl();
  impl(const impl &) = delete;
  impl &operator=(const impl &) = delete;
};

} // namespace kiln
