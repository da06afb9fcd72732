//===- kiln/device.hpp - Devices: the host and CUDA GPUs ---------*- C++ -*-===//
//
// A kiln::device is the host or one CUDA GPU. CUDA is loaded at run time, so
// a program starts on a machine with no GPU and no driver and runs on the
// host. The current device is per thread; KILN_DEVICE=host|cuda|cuda:N
// overrides the default (cuda(0) when a GPU is present, else host).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln {

class device {
public:
  enum class kind : std::uint8_t { host, cuda };

  constexpr device() noexcept = default; // the host
  static constexpr device host() noexcept { return device(); }
  /// CUDA GPU `index`; an absent GPU is reported (device_error) when used.
  static constexpr device cuda(int index = 0) noexcept {
    return device(kind::cuda, index);
  }

  constexpr kind type() const noexcept { return kind_; }
  constexpr int index() const noexcept { return index_; }
  constexpr bool is_host() const noexcept { return kind_ == kind::host; }
  constexpr bool is_cuda() const noexcept { return kind_ == kind::cuda; }
  /// "host" or "cuda:N".
  std::string str() const;

  friend constexpr bool operator==(device a, device b) noexcept {
    return a.kind_ == b.kind_ && a.index_ == b.index_;
  }

private:
  constexpr device(kind k, int i) noexcept : kind_(k), index_(i) {}
  kind kind_ = kind::host;
  int index_ = 0;
};

/// Number of usable CUDA GPUs: 0 where there is no driver or no GPU.
int cuda_device_count() noexcept;

/// True when the CUDA driver could be loaded and at least one GPU is present.
bool cuda_available() noexcept;

/// The calling thread's current device.
device current_device();

/// Makes `dev` current for the calling thread. Throws device_error when the
/// device is absent.
void set_current_device(device dev);

/// Makes a device current until the scope ends (like `with cupy.cuda.Device(1):`).
class device_scope {
public:
  explicit device_scope(device dev);
  ~device_scope();
  device_scope(const device_scope &) = delete;
  device_scope &operator=(const device_scope &) = delete;

private:
  device previous_;
};

struct device_properties {
  std::string name;
  int multiprocessors = 0;
  std::size_t total_memory = 0; // bytes
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int max_threads_per_block = 0;
  std::size_t l2_cache_bytes = 0;
};

/// Properties of a device; for the host, its CPU count and physical memory.
device_properties properties(device dev);

/// Throws device_error unless `dev` exists.
void check_device(device dev);

} // namespace kiln
