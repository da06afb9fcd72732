//===- runtime/cuda/driver_status.hpp - Why CUDA is unavailable
//------------===//
//
// Internal companion of driver.hpp: the reason driver() returned nullptr, the
// GPU count, and the primary contexts retained so far. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cuda.h>

#include <string>

namespace kiln::detail::cuda {

/// Why driver() is nullptr ("" when the driver is loaded), e.g. "no CUDA
/// driver (libcuda.so.1: cannot open shared object file ...)".
const std::string &unavailable_reason() noexcept;

/// Number of GPUs the loaded driver reports (0 without a driver).
int device_count() noexcept;

/// The retained primary context of GPU `ordinal`, or nullptr when it has not
/// been retained yet (no make_current() on that GPU so far).
CUcontext retained_context(int ordinal) noexcept;

/// The primary context of GPU `ordinal`, retaining it on first use.
CUcontext primary_context(int ordinal);

} // namespace kiln::detail::cuda
