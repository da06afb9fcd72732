//===- runtime/kernels/params.hpp - Parameters of the runtime's kernels ---===//
//
// The structs the runtime's CUDA kernels take by value (one struct a
// kernel), shared by the .cu sources and the host code that launches them.
// Strided kernels handle up to max_gpu_rank dimensions after coalescing;
// higher ranks are split by a host-side loop. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace kiln::detail::kernels {

/// Dimensions a strided kernel handles in one launch (after merging).
inline constexpr int max_gpu_rank = 8;

/// dst[i] = convert(src[i]) over `n` elements of `shape` (C order). Pointers
/// address element (0, ..., 0); strides count elements and may be 0 or
/// negative.
struct copy_params {
  char *dst;
  const char *src;
  std::int64_t n;
  std::int32_t rank;
  std::int64_t shape[max_gpu_rank];
  std::int64_t dst_strides[max_gpu_rank];
  std::int64_t src_strides[max_gpu_rank];
};

/// dst[i] = value (the first itemsize bytes of `value`).
struct fill_params {
  char *dst;
  std::int64_t n;
  std::int32_t rank;
  std::int64_t shape[max_gpu_rank];
  std::int64_t strides[max_gpu_rank];
  alignas(16) unsigned char value[16];
};

/// out[i] = draw(counter = offset + i, key = seed), out C-contiguous.
struct random_params {
  void *out;
  std::int64_t n;
  std::uint64_t seed;
  std::uint64_t offset;
  double mean;         // normal
  double std;          // normal
  std::int64_t low;    // integers
  std::uint64_t range; // integers: high - low
};

/// Elements of a mask one block of the compaction kernels covers, and per
/// thread (256 threads).
inline constexpr int mask_per_thread = 16;
inline constexpr int mask_tile = 256 * mask_per_thread;

/// A boolean mask over rows (kiln_mask_count/scan/write): `mask` has `n`
/// bytes (C-contiguous), `tile_counts` `tiles` + 1 entries. A row is
/// `units` units of `unit_bytes` bytes; src and dst are C-contiguous rows.
struct mask_params {
  const unsigned char *mask;
  std::int64_t n;
  long long *tile_counts;
  std::int64_t tiles;
  const char *src;
  char *dst;
  std::int64_t units;
  std::int32_t unit_bytes;
  std::int32_t scatter;       ///< 0: gather selected rows; 1: write them
  std::int32_t src_broadcast; ///< scatter: one source row for all
};

/// An integer index along the middle axis of a C-contiguous (outer,
/// axis_len, inner) array (kiln_take, kiln_scatter_winners/write): `idx`
/// has `nidx` int64 values; rows of `inner_units` units of `unit_bytes`.
/// `bad` (init ~0) gets the smallest position of an out-of-range index.
struct take_params {
  const char *src;
  char *dst;
  const std::int64_t *idx;
  std::int64_t nidx;
  std::int64_t axis_len;
  std::int64_t inner_units;
  std::int64_t n; ///< take: outer * nidx * inner_units; scatter: nidx * inner_units
  std::int32_t unit_bytes;
  std::int32_t src_broadcast;
  unsigned long long *bad;
  unsigned long long *winner; ///< scatter: axis_len entries, init 0
};

/// One pass over a stack of `batch` rows x cols matrices
/// (kiln_matrix_map_<dtype>, runtime/linalg/stack.hpp): out[b, i, j]
/// (C-contiguous) = in[b, i, j] (element strides in_batch, in_row, in_col),
/// conjugated when `conj`, times scale[b * scale_batch + j] (real) when
/// `scale` is set, zero outside the band lo <= j - i <= hi, and 1 on the
/// diagonal when `unit_diagonal`.
struct matrix_map_params {
  const void *in;
  void *out;
  const void *scale;
  std::int64_t batch, rows, cols;
  std::int64_t in_batch, in_row, in_col, scale_batch;
  std::int64_t band_lo, band_hi;
  std::int32_t conj, unit_diagonal;
};

/// data[i] = (conj ? conj(data[i]) : data[i]) * factor over `n` contiguous
/// elements (kiln_scale_<dtype>): the FFTs' normalization.
struct scale_params {
  void *data;
  std::int64_t n;
  double factor;
  std::int32_t conj;
};

/// Conjugate gradients' vector updates over `n` contiguous elements
/// (kiln_cg_step_<dtype>: x += alpha p, r -= alpha q; kiln_cg_direction_<dtype>:
/// p = r + beta p); alpha and beta are real for a Hermitian matrix.
struct cg_params {
  void *x, *r, *p, *q;
  std::int64_t n;
  double alpha, beta;
};

/// *count += the number of zeros among x's n contiguous elements
/// (kiln_count_zeros_<dtype>; count is an unsigned long long on the GPU,
/// zeroed first).
struct count_zeros_params {
  const void *x;
  void *count;
  std::int64_t n;
};

/// A direct 2-d correlation (kiln_conv2d_<dtype>_<k>, runtime/signal/):
/// out[i, j] = sum over (p, q) of in_b[i + oy + p, j + ox + q] * w'[p, q]
/// (w' is w, reversed when `flip`, conjugated when `conj`), for
/// an out_h x out_w output, in_b being the h x w input extended by
/// `boundary` (0 fill with fill_re/fill_im, 1 wrap, 2 symm). C-contiguous.
struct conv2d_params {
  const void *in;
  const void *w;
  void *out;
  std::int64_t h, w_, out_h, out_w, oy, ox;
  std::int32_t kh, kw, boundary, tiles_x;
  std::int32_t flip, conj; ///< read w reversed (a convolution), conjugated (a correlation)
  double fill_re, fill_im;
  std::int64_t tiles; ///< tiles_x times the tile rows (the square kernels loop
                      ///< over them)
  std::int32_t aligned, out_aligned; ///< in / out is 16-byte aligned with rows
                                     ///< a whole number of 16-byte vectors
};

/// out[i] = a[i] * b[i] over `n` contiguous elements (kiln_multiply_<dtype>:
/// the spectra of an FFT convolution).
struct multiply_params {
  const void *a, *b;
  void *out;
  std::int64_t n;
};

/// out[i] = base + i * stride (bytes), i < count: the matrix addresses
/// cuBLAS's batched routines take (kiln_matrix_addresses).
struct matrix_addresses_params {
  char *base;
  std::int64_t stride;
  std::int64_t count;
  void **out;
};

} // namespace kiln::detail::kernels
