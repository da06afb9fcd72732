// KILN_DEVICE set for one test (the runtime reads it again), then restored:
// the device selection tests (device_test, fault_test) share it.
#pragma once

#include "runtime/device/device_state.hpp"

#include <cstdlib>
#include <string>

/// Sets KILN_DEVICE (nullptr: unsets it) for one test, then restores it.
class env_device {
public:
  explicit env_device(const char *value) {
    if (const char *old = std::getenv("KILN_DEVICE"))
      old_ = old, had_ = true;
    if (value)
      setenv("KILN_DEVICE", value, 1);
    else
      unsetenv("KILN_DEVICE");
    kiln::detail::reset_device_state_for_testing();
  }
  ~env_device() {
    if (had_)
      setenv("KILN_DEVICE", old_.c_str(), 1);
    else
      unsetenv("KILN_DEVICE");
    kiln::detail::reset_device_state_for_testing();
  }
  env_device(const env_device &) = delete;
  env_device &operator=(const env_device &) = delete;

private:
  std::string old_;
  bool had_ = false;
};
