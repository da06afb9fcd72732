//===- kiln/detail/stencil.hpp - ABI of kilnc's stencil kernels -*- C++ -*-===//
//
// What kilnc emits for a fused group around one convolution
// (kiln::signal::convolve2d / correlate2d with mode::same, its elementwise
// producers and consumers) and how the runtime calls it
// (docs/kernel-abi.md, "Stencil kernels"). In short:
//
// * The group's arrays (`inputs`) all have the image's 2-d shape (h, w),
//   which is also the result's; the filter (`taps`) is read whole.
// * Each variant is a raw kernel (kiln/detail/raw_kernel.hpp) of one thread
//   per output column and `rows` output rows, over a 2-d grid, for one size
//   of filter (3x3, 5x5, 7x7), unrolled; on a GPU, a tiled kernel of the
//   same parameters takes its place where the inputs' rows are aligned.
// * Parameters: the output (C-contiguous), h, w; per input its data and
//   element strides of rows and columns; the filter's data (C-contiguous;
//   each variant knows its size); the scalars (a complex one as its two
//   parts).
// * Any call the kernels do not cover (an input of another shape, a rank
//   other than 2, empty arrays, an image smaller than the filter in either
//   dimension, a filter of another size, arrays on different devices) runs
//   the group's unfused form: the producer's elementwise kernel, the
//   runtime's convolve2d, the consumer's elementwise kernel, with NumPy's
//   broadcasting and SciPy's answers and errors.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/detail/fused.hpp"
#include "kiln/detail/raw_kernel.hpp"

#include <cstdint>
#include <initializer_list>
#include <span>

namespace kiln::detail {

/// One raw kernel of a stencil group: for filters of kh x kw.
struct stencil_variant {
  const raw_kernel *kernel;
  std::uint8_t kh, kw;
  std::uint8_t rows; ///< output rows a thread computes
  /// GPU only, the same parameters (nullptr: none): persistent blocks of 128
  /// threads over tiles of 32 x 128 outputs through shared memory, for
  /// inputs whose rows are contiguous and 4-element aligned.
  const raw_kernel *tiled;
};

inline constexpr int num_stencil_variants = 3;

/// One side of the unfused form: an elementwise kernel (null: none) and,
/// for each of its operands, the group's input or scalar it is (-1: the
/// convolution's result). Without a producer kernel, inputs[0] is the
/// group's input that is the image.
struct stencil_part {
  const fused_kernel *kernel;
  std::uint8_t num_inputs, num_scalars;
  const std::int8_t *inputs;
  const std::int8_t *scalars;
};

/// One stencil group, as kilnc emits it into the rewritten C++.
struct stencil_kernel {
  const char *name;
  stencil_variant variants[num_stencil_variants];
  std::uint8_t num_inputs;
  std::uint8_t num_scalars;
  /// The inputs' dtypes, the filter's, the result's, then the scalars'.
  const kiln::dtype *operand_dtypes;
  stencil_part producer, consumer;
  bool correlate;
  std::uint8_t boundary;   ///< kiln::signal::boundary
  std::int8_t fill_scalar; ///< the scalar that is the fill value, or -1
  double fill_re, fill_im; ///< else the constant fill value
};

/// Runs group `k` on its operands: the kernel of the filter's size when
/// every input has one 2-d shape at least as large as the filter and every
/// array is on one device, else the group's unfused form.
array_base run_stencil(const stencil_kernel &k,
                       std::span<const array_base *const> inputs,
                       const array_base &taps,
                       std::span<const void *const> scalars);

/// The form kilnc's rewritten code calls.
template <element Out>
array<Out> call_stencil(const stencil_kernel &k,
                        std::initializer_list<const array_base *> inputs,
                        const array_base &taps,
                        std::initializer_list<fused_scalar> scalars) {
  scalar_pointers sp(scalars);
  return array<Out>(run_stencil(
      k, std::span<const array_base *const>(inputs.begin(), inputs.size()),
      taps, sp.span()));
}

} // namespace kiln::detail
