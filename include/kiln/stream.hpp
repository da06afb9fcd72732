//===- kiln/stream.hpp - Streams and events ----------------------*- C++ -*-===//
//
// kiln::stream orders work on one device (a CUDA stream; on the host, work
// runs at once in the calling thread). Each thread has a current stream per
// device: the device's default stream unless a stream_scope says otherwise.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/device.hpp"

#include <memory>

namespace kiln {

class stream {
public:
  /// A new non-blocking stream on `dev` (the current device by default).
  explicit stream(device dev = current_device());
  /// The default (legacy null) stream of `dev`.
  static stream default_stream(device dev = current_device());
  /// The calling thread's current stream on `dev`.
  static stream current(device dev = current_device());

  device get_device() const noexcept { return device_; }
  /// The CUstream handle (nullptr for a default stream or the host).
  void *native_handle() const noexcept;
  /// Waits until all work queued on the stream is done.
  void synchronize() const;
  /// True when all queued work has finished.
  bool query() const;

  friend bool operator==(const stream &a, const stream &b) noexcept {
    return a.device_ == b.device_ && a.native_handle() == b.native_handle();
  }

  struct impl;

private:
  stream(device dev, std::shared_ptr<impl> p) : device_(dev), impl_(std::move(p)) {}
  device device_;
  std::shared_ptr<impl> impl_; // null: the default stream
};

/// Makes a stream current on its device for the calling thread until the
/// scope ends.
class stream_scope {
public:
  explicit stream_scope(const stream &s);
  ~stream_scope();
  stream_scope(const stream_scope &) = delete;
  stream_scope &operator=(const stream_scope &) = delete;

private:
  stream previous_;
};

class event {
public:
  explicit event(device dev = current_device());
  /// Records the event on `s` (the current stream by default).
  void record();
  void record(const stream &s);
  /// Waits until the recorded work is done.
  void synchronize() const;
  bool query() const;
  /// Makes `s` wait for this event before later work.
  void wait(const stream &s) const;
  device get_device() const noexcept { return device_; }

  struct impl;
  const impl *get_impl() const noexcept { return impl_.get(); }

private:
  device device_;
  std::shared_ptr<impl> impl_;
};

/// Milliseconds between two recorded events of one device.
float elapsed_ms(const event &start, const event &end);

/// Waits for all work on the current device (all devices when none is given).
void synchronize();
void synchronize(device dev);

} // namespace kiln
