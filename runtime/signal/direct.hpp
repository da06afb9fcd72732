//===- runtime/signal/direct.hpp - Direct correlation on either device ----===//
//
// The one primitive of kiln::signal's direct method: out[o] = sum over k of
// in_b[o + origin + k] * w[k] for every output index o (n-d), in_b being the
// input extended by a boundary condition. A convolution is this with the
// taps flipped (convolve.cpp). The host runs loops (rows spread over the
// host backend's threads, the inner loop over columns without boundary
// tests where none is needed); a GPU runs kiln_conv2d (1-d and 2-d).
// Internal.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/signal.hpp"

#include <complex>
#include <cstdint>
#include <vector>

namespace kiln::signal::detail {

struct direct {
  array_base in;   ///< C-contiguous, the result's dtype
  array_base taps; ///< C-contiguous, the result's dtype, same rank
  shape out_shape;
  std::vector<std::int64_t> origin;
  boundary b = boundary::fill;
  std::complex<double> fill{};
  /// The taps as given, to be reversed (a convolution) or conjugated (a
  /// correlation) first: the GPU kernel does it as it loads them, the host
  /// before its loops.
  bool flip = false, conj = false;
};

array_base run_direct_host(const direct &d);
/// On a GPU: rank 1 or 2, float and complex dtypes, taps that fit the
/// kernel's shared memory (fits_gpu).
bool fits_gpu(const direct &d);
array_base run_direct_gpu(const direct &d);

} // namespace kiln::signal::detail
