//===- runtime/fft/transform.hpp - One FFT, ready to run ------------------===//
//
// What fft.cpp (numpy.fft's rules) hands a backend: an input already in the
// transform's element type and sizes (padded or cut), the axes, the lengths
// of the transform along them, the direction and the scale. The host runs
// it in pocketfft (host_fft.cpp), a GPU in cuFFT (gpu_fft.cpp). Internal.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/fft.hpp"

#include <cstdint>
#include <vector>

namespace kiln::detail::fft_run {

using fft::detail::kind;

struct transform {
  kind k = kind::c2c;
  bool forward = true;
  /// complex (c2c, c2r) or real (r2c), in the transform's precision; for
  /// c2r its last transformed axis holds n.back() / 2 + 1 values.
  array_base in;
  /// Distinct axes of `in`; the real axis of r2c and c2r is the last.
  std::vector<std::int64_t> axes;
  /// The transform's length along each axis (c2r: the real output's).
  std::vector<std::int64_t> n;
  double scale = 1.0;

  /// The result's shape: `in`'s, with the real axis n.back() (c2r) or
  /// n.back() / 2 + 1 (r2c) long.
  shape out_shape() const;
};

/// The result of `t` (complex for c2c and r2c, real for c2r) on the input's
/// device; it may be a strided view.
array_base run_host(const transform &t);
array_base run_gpu(const transform &t);

/// x[i] = (conj ? conj(x[i]) : x[i]) * factor for a C-contiguous float or
/// complex array, on its device.
void scale_in_place(const array_base &x, double factor, bool conj);

} // namespace kiln::detail::fft_run
