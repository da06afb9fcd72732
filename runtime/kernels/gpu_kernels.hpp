//===- runtime/kernels/gpu_kernels.hpp - Launching the embedded kernels ---===//
//
// Loads the runtime's embedded CUDA module once per GPU, caches its
// functions by name, and launches the strided copy, fill and random kernels
// on a stream. The caller has made the GPU's context current. Internal.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/dtype.hpp"
#include "runtime/kernels/kernels.hpp"
#include "runtime/kernels/layout.hpp"
#include "runtime/kernels/params.hpp"

namespace kiln::detail::kernels::gpu {

void copy(int ordinal, const loop_layout &l, void *dst, dtype to,
          const void *src, dtype from, void *stream);
void fill(int ordinal, const loop_layout &l, void *dst, std::size_t itemsize,
          const void *value, void *stream);
void random(int ordinal, void *out, dtype t, std::int64_t n, const draw &d,
            void *stream);

/// Launches an indexing kernel (cuda/indexing_kernels.cu) with its
/// parameter struct: `grid` blocks of 256 threads, or (grid 0) enough
/// grid-stride blocks for `n` elements.
void launch_indexing(int ordinal, const char *name, std::int64_t n, void *params, void *stream,
                     unsigned grid = 0);

/// Launches kiln_matrix_map_<t> (cuda/library_kernels.cu) for a float or
/// complex dtype `t`.
void matrix_map(int ordinal, dtype t, const matrix_map_params &p, void *stream);
/// Launches kiln_scale_<t> for a float or complex dtype `t`.
void scale(int ordinal, dtype t, const scale_params &p, void *stream);
/// Launches kiln_cg_step_<t> (`step`) or kiln_cg_direction_<t>.
void cg_update(int ordinal, dtype t, bool step, const cg_params &p, void *stream);
/// Launches kiln_count_zeros_<t> for a float or complex dtype `t`.
void count_zeros(int ordinal, dtype t, const count_zeros_params &p,
                 void *stream);
/// Launches kiln_conv2d_<t>_<k> over p.tiles tiles: k = 0 (any size) a
/// block a tile; k = 3, 5, 7 as many persistent blocks as are resident.
void conv2d(int ordinal, dtype t, int k, const conv2d_params &p, void *stream);
/// Launches kiln_multiply_<t> (complex64 or complex128).
void multiply(int ordinal, dtype t, const multiply_params &p, void *stream);
/// Launches kiln_matrix_addresses.
void matrix_addresses(int ordinal, const matrix_addresses_params &p, void *stream);

} // namespace kiln::detail::kernels::gpu
