//===- runtime/device/device_state.hpp - Per-thread device state
//-----------===//
//
// Internal hooks of the device layer: tests reset the cached KILN_DEVICE
// reading so that they can try other values in one process.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace kiln::detail {

/// Forgets the parsed KILN_DEVICE and every thread's current device; the next
/// current_device() reads the environment again.
void reset_device_state_for_testing();

} // namespace kiln::detail
