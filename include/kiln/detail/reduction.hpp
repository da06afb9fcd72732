//===- kiln/detail/reduction.hpp - ABI of kilnc's reduction kernels -*- C++ -*-===//
//
// What kilnc emits for a fused group with reductions and how the runtime
// calls it (docs/kernel-abi.md, "Reduction kernels"). In short:
//
// * A call runs over a full space S (the broadcast of the full inputs) whose
//   reduced axes the runtime folds into a reduced extent R and whose other
//   axes into a kept extent K; the result is full-space (shape S) or
//   kept-space (S without the reduced axes, or with them as 1: keepdims).
// * The kernel is a sequence of stages (reductions) run in levels (passes
//   over the data: softmax's sum reads its max, level 1), then an output map.
// * Variants, each a PTX entry and a host function with the same
//   parameters: `_rrows` (every full operand contiguous along the reduced
//   axis; a block or warp per kept element), `_rcols` (contiguous along the
//   kept axis: threads across kept elements), `_rgeneral` (any strides).
// * Parameters: full inputs, kept inputs, the output, each as an expanded
//   memref descriptor of the variant's rank; the scalars; then the control
//   block: workspace (a memref<?xi8>), phase, level, split, flags (i32),
//   first block, number of blocks (i64).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/axes.hpp"
#include "kiln/detail/fused.hpp"

#include <cstdint>
#include <initializer_list>
#include <span>
#include <type_traits>
#include <utility>

namespace kiln::detail {

/// The host variants of a reduction kernel, in fused order.
enum class reduction_variant : std::uint8_t { rows, cols, general };
inline constexpr int num_reduction_variants = 3;

/// What one launch of a variant does (the `phase` parameter).
enum class reduction_phase : std::int32_t {
  whole = 0,   ///< every level and the output, a block owning whole kept elements
  partial = 1, ///< level `level` over one of `split` chunks of the reduced extent: partial states
  combine = 2, ///< level `level`: merges the partial states of each kept element (and writes a kept output)
  output = 3,  ///< the full-space output, chunk by chunk, from the combined states
};

/// Bits of the `flags` parameter.
enum reduction_flags : std::int32_t {
  reduction_row_cache = 1, ///< `_rrows` on a GPU: cache the row in dynamic shared memory
  reduction_vectors = 2,   ///< every full operand's rows (or columns) are aligned for vector accesses
  /// Rows and general layouts: the full-space output and the output map's
  /// inputs are broadcast along every reduced dimension (a kept-shaped
  /// result kilnc could not prove kept: an operand of unknown rank), so
  /// only reduced index 0 is written.
  reduction_output_once = 4,
  /// `_rrowsw`: bits 8-10 hold 5 - log2 of the lanes that take one kept
  /// element (0: a warp; 5: a thread), so that short rows fill the warp.
  reduction_lanes_shift = 8,
};

/// One reduction of a kernel (a reduction linalg.generic after fusion).
struct reduction_stage {
  std::uint64_t full_inputs;           ///< bit i: the stage reads full input i
  std::uint8_t level;                  ///< the pass it runs in (0: reads no other stage)
  std::uint8_t num_components;         ///< components of its state
  const std::uint8_t *component_bytes; ///< bytes of each component
  /// Bit i: NumPy's operand of the reduction is computed from full input i
  /// (a superset of full_inputs: the compiler may have folded reads away).
  /// Their broadcast is the operand's shape, which numbers the axes.
  std::uint64_t shape_inputs;
};

/// One fused reduction kernel, as kilnc emits it into the rewritten C++.
struct reduction_kernel {
  const char *name;            ///< stem of the variants' symbols
  const char *ptx;             ///< PTX module with every variant, or nullptr
  const unsigned char *fatbin; ///< cubins for --cuda-arch targets, or nullptr
  std::size_t fatbin_size;
  host_kernel_fn host[num_reduction_variants]; ///< `_rrows`, `_rcols`, `_rgeneral` on the host
  std::uint8_t num_inputs;      ///< full-space inputs
  std::uint8_t num_kept_inputs; ///< kept-space inputs
  std::uint8_t num_scalars;
  const kiln::dtype *operand_dtypes; ///< full inputs, kept inputs, the output
  bool kept_output;                  ///< the output is kept-space (else full-space)
  std::uint8_t num_stages;
  const reduction_stage *stages;
  std::uint8_t num_levels;
  std::uint64_t map_inputs;  ///< bit i: full input i is read by the output map
  const char *empty_error;   ///< NumPy's error for an empty reduced extent, or nullptr (an identity exists)
  std::uint8_t vector_width; ///< elements per vector access of full operands
  bool single_axis;          ///< argmax/argmin: NumPy takes one axis or all, never a list
  /// PTX for sm_90 with `<name>_rrowsc` (rows across a thread-block cluster),
  /// or nullptr.
  const char *ptx_sm90 = nullptr;
  /// Bit i: full input i shapes the output map's operands (NumPy's result
  /// shape) though the compiler may have folded its reads away:
  /// `(imag(i % i) != 7) * prod(x)` is shaped like i.
  std::uint64_t map_shape_inputs = 0;
};

/// Runs `k` (reductions over `ax`, `keepdims`) on `inputs` (full space) and
/// `kept` (kept space); `out` receives the result. Returns false, having run
/// nothing, when the call's shapes do not fit the kernel's iteration space
/// (the caller then evaluates the expression eagerly); throws the errors
/// NumPy raises (axes, broadcasting, empty reductions) otherwise.
bool launch_reduction(const reduction_kernel &k, std::span<const array_base *const> inputs,
                      std::span<const array_base *const> kept, std::span<const void *const> scalars,
                      const axes &ax, bool keepdims, array_base &out);

/// The form kilnc's rewritten code calls. `fallback()` computes the same
/// expression eagerly from the same operands.
template <element Out, class Fallback>
array<Out> call_reduction(const reduction_kernel &k, std::initializer_list<const array_base *> inputs,
                          std::initializer_list<const array_base *> kept, std::initializer_list<fused_scalar> scalars,
                          const axes &ax, bool keepdims, Fallback &&fallback) {
  const void *scalarPtrs[16];
  std::size_t ns = 0;
  for (const fused_scalar &s : scalars) {
    if (ns == 16)
      throw value_error("kiln: a fused kernel takes at most 16 scalar operands");
    scalarPtrs[ns++] = s.bytes;
  }
  array_base out;
  if (!launch_reduction(k, std::span<const array_base *const>(inputs.begin(), inputs.size()),
                        std::span<const array_base *const>(kept.begin(), kept.size()),
                        std::span<const void *const>(scalarPtrs, ns), ax, keepdims, out))
    return std::forward<Fallback>(fallback)();
  return array<Out>(std::move(out));
}

} // namespace kiln::detail
