//===- runtime/device/device.cpp - Devices and the current device
//----------===//
//
// device::str, the GPU count, check_device, and the per-thread current device
// with its default: KILN_DEVICE, else cuda(0) when a GPU is present, else host.
//
//===----------------------------------------------------------------------===//
#include "kiln/device.hpp"
#include "kiln/error.hpp"

#include "runtime/cuda/driver.hpp"
#include "runtime/cuda/driver_status.hpp"
#include "runtime/device/device_state.hpp"

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

namespace kiln {
namespace {

/// Bumped by reset_device_state_for_testing(); a thread whose cached state is
/// of an older generation forgets it.
std::atomic<unsigned> generation{1};

struct thread_device {
  unsigned generation = 0;
  bool set = false;
  device dev;
};
thread_local thread_device current;

/// The default device: parsed KILN_DEVICE or the automatic choice; an error
/// message when KILN_DEVICE is bad or names an absent device.
struct default_choice {
  unsigned generation = 0;
  device dev;
  std::string error;
};
std::mutex default_mutex;
default_choice cached_default;

/// Why `dev` is absent and what to do about it. `from_env`: the device came
/// from KILN_DEVICE (the fix is a different value), else from the program.
std::string absent_message(device dev, bool from_env) {
  int n = cuda_device_count();
  std::string msg = dev.str() + " is not available: ";
  if (n == 0) {
    msg += detail::cuda::unavailable_reason();
    msg += from_env ? "; install or update the NVIDIA driver and check that "
                      "the GPU is visible (nvidia-smi, CUDA_VISIBLE_DEVICES), "
                      "or set KILN_DEVICE=host (or unset it) to run on the CPU"
                    : "; install or update the NVIDIA driver and check that "
                      "the GPU is visible (nvidia-smi, CUDA_VISIBLE_DEVICES), "
                      "or use kiln::device::host()";
    return msg;
  }
  std::string range = n == 1 ? std::string("cuda:0")
                             : "cuda:0 to cuda:" + std::to_string(n - 1);
  msg += std::to_string(n) + " CUDA device(s) present (" + range + ")";
  msg += from_env ? "; set KILN_DEVICE to one of them, or to host to run on "
                    "the CPU"
                  : "; use one of them, or kiln::device::host()";
  return msg;
}

bool exists(device dev) {
  return dev.is_host() ||
         (dev.index() >= 0 && dev.index() < cuda_device_count());
}

/// Parses "host", "cuda" or "cuda:N" (surrounding spaces ignored).
std::optional<device> parse_device(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b])))
    ++b;
  s = s.substr(b);
  if (s == "host")
    return device::host();
  if (s == "cuda")
    return device::cuda(0);
  if (s.rfind("cuda:", 0) == 0 && s.size() > 5 && s.size() <= 5 + 6) {
    int n = 0;
    for (std::size_t i = 5; i < s.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i])))
        return std::nullopt;
      n = n * 10 + (s[i] - '0');
    }
    return device::cuda(n);
  }
  return std::nullopt;
}

default_choice compute_default() {
  default_choice c;
  const char *env = std::getenv("KILN_DEVICE");
  if (!env || !*env) {
    c.dev = cuda_available() ? device::cuda(0) : device::host();
    return c;
  }
  std::optional<device> d = parse_device(env);
  if (!d) {
    c.error = std::string("KILN_DEVICE='") + env +
              "' is not a device: expected 'host', 'cuda' or 'cuda:N'";
    return c;
  }
  if (!exists(*d)) {
    c.error =
        std::string("KILN_DEVICE='") + env + "': " + absent_message(*d, true);
    return c;
  }
  c.dev = *d;
  return c;
}

device default_device(unsigned gen) {
  std::lock_guard<std::mutex> lock(default_mutex);
  if (cached_default.generation != gen) {
    cached_default = compute_default();
    cached_default.generation = gen;
  }
  if (!cached_default.error.empty())
    throw device_error(cached_default.error);
  return cached_default.dev;
}

} // namespace

std::string device::str() const {
  if (is_host())
    return "host";
  return "cuda:" + std::to_string(index_);
}

int cuda_device_count() noexcept { return detail::cuda::device_count(); }

bool cuda_available() noexcept { return cuda_device_count() > 0; }

void check_device(device dev) {
  if (!exists(dev))
    throw device_error(absent_message(dev, false));
}

device current_device() {
  unsigned gen = generation.load(std::memory_order_acquire);
  if (current.generation == gen && current.set)
    return current.dev;
  device d = default_device(gen); // throws for a bad KILN_DEVICE
  current.generation = gen;
  current.set = true;
  current.dev = d;
  return d;
}

void set_current_device(device dev) {
  check_device(dev);
  if (dev.is_cuda())
    detail::cuda::make_current(
        dev.index()); // for user code calling CUDA directly
  current.generation = generation.load(std::memory_order_acquire);
  current.set = true;
  current.dev = dev;
}

device_scope::device_scope(device dev) {
  check_device(dev);
  previous_ = current_device();
  set_current_device(dev);
}

device_scope::~device_scope() {
  try {
    set_current_device(previous_);
  } catch (...) {
    // previous_ was valid when the scope began; nothing sensible to report.
  }
}

namespace detail {
void reset_device_state_for_testing() {
  std::lock_guard<std::mutex> lock(default_mutex);
  generation.fetch_add(1, std::memory_order_acq_rel);
  cached_default = default_choice();
}
} // namespace detail

} // namespace kiln
