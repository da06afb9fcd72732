//===- runtime/device/peer.cpp - Peer access between GPUs
//------------------===//
//
// cuDeviceCanAccessPeer + cuCtxEnablePeerAccess, cached per pair of GPUs.
//
//===----------------------------------------------------------------------===//
#include "runtime/device/peer.hpp"

#include "runtime/cuda/driver.hpp"
#include "runtime/cuda/driver_status.hpp"

#include <map>
#include <mutex>
#include <utility>

namespace kiln::detail {

bool enable_peer_access(int from, int to) {
  const auto &api = cuda::require_driver();
  CUcontext to_ctx = cuda::primary_context(to);
  cuda::primary_context(from); // validates `from`
  if (from == to)
    return true;
  static std::mutex mutex;
  static auto *known =
      new std::map<std::pair<int, int>, bool>(); // leaked: used at exit
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known->find({from, to});
  if (it != known->end())
    return it->second;
  CUdevice dev_from{}, dev_to{};
  KILN_CU(api, cuDeviceGet, &dev_from, from);
  KILN_CU(api, cuDeviceGet, &dev_to, to);
  int can = 0;
  KILN_CU(api, cuDeviceCanAccessPeer, &can, dev_from, dev_to);
  bool enabled = false;
  if (can) {
    cuda::make_current(from);
    CUresult r = api.cuCtxEnablePeerAccess(to_ctx, 0);
    if (r == CUDA_SUCCESS || r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
      enabled = true;
    else if (r != CUDA_ERROR_TOO_MANY_PEERS)
      cuda::check(r, "cuCtxEnablePeerAccess");
  }
  (*known)[{from, to}] = enabled;
  return enabled;
}

} // namespace kiln::detail
