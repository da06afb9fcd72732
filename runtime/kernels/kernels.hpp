//===- runtime/kernels/kernels.hpp - The runtime's own kernels ------------===//
//
// Strided copy with dtype conversion, fill and Philox random draws on the
// host (C++ loops) or a GPU (the embedded CUDA kernels), chosen by the
// arrays' device. Callers check shapes and devices first; these functions
// only run the work, queued on `s` (at once on the host). Internal.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"

#include <cstdint>

namespace kiln::detail::kernels {

/// dst = src element by element, converting src's dtype to dst's. Both have
/// dst's shape (a broadcast src has stride 0), are on one device and do not
/// overlap in memory.
void copy_cast(const array_base &dst, const array_base &src, const stream &s);

/// Every element of dst = *value (itemsize(dst.dtype()) bytes).
void fill(const array_base &dst, const void *value, const stream &s);

enum class distribution { uniform, normal, integers };

struct draw {
  distribution dist = distribution::uniform;
  std::uint64_t seed = 0;
  std::uint64_t offset = 0; ///< counter of element 0
  double mean = 0, std = 1; ///< normal
  std::int64_t low = 0;     ///< integers
  std::uint64_t range = 1;  ///< integers: high - low
};

/// Fills the C-contiguous `out` with `d`: element i from counter offset + i.
/// uniform/normal: float32 or float64; integers: int8, uint8, int32, int64.
void random(const array_base &out, const draw &d, const stream &s);

} // namespace kiln::detail::kernels
