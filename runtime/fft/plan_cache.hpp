//===- runtime/fft/plan_cache.hpp - cuFFT plans, cached per device --------===//
//
// A cuFFT plan of the basic (contiguous) layout for one transform shape,
// made without a work area of its own (cufftSetAutoAllocation 0): each
// execution takes one from Kiln's stream-ordered pool on the stream it runs
// on, so one plan serves every stream. Plans are cached per device, least
// recently used first out, within a count and a work-area byte budget
// (kiln::fft::plan_cache). Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/device.hpp"

#include <cufft.h>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>

namespace kiln::detail::fft_plans {

/// What a plan computes: the transform type, its 1 to 3 lengths (the real
/// lengths for R2C and C2R) and the batch.
struct key {
  int device = 0;
  cufftType type = CUFFT_C2C;
  int rank = 1;
  std::array<long long, 3> n{};
  long long batch = 1;
  bool operator==(const key &) const = default;
};

struct plan {
  int device = 0;
  cufftHandle handle = 0;
  std::size_t work_bytes = 0;
  std::mutex use; ///< held while the plan is bound to a stream and executed
  ~plan();
};

/// The plan for `k` (its device's context current), from the cache or made
/// now; on an out-of-memory the device's cache is emptied and the making
/// retried once.
std::shared_ptr<plan> acquire(const key &k);

} // namespace kiln::detail::fft_plans
