//===- runtime/device/peer.hpp - Peer access between GPUs
//------------------===//
//
// Lets one GPU read and write another's memory (for device-to-device copies
// between GPUs) where the hardware allows it. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace kiln::detail {

/// Enables access from the context of GPU `from` to the memory of GPU `to`,
/// once per pair; true when `from` can now access `to` (always for from == to),
/// false when the hardware cannot (copies then go through the driver's
/// staged path). Throws device_error for an absent GPU.
bool enable_peer_access(int from, int to);

} // namespace kiln::detail
