//===- kiln/cuda_host/mma.h - Tensor-core matrix operations (GPU only) -*- C++ -*-===//
//
// CUDA's <mma.h> for CUDA source compiled for the host (kiln/cuda_host.hpp):
// nvcuda::wmma declared so that typical code compiles (fragments, their
// layouts and uses, load_matrix_sync, store_matrix_sync, fill_fragment,
// mma_sync). Tensor cores exist only on a GPU: every function carries the
// GPU-only annotation, so kilnc knows a kernel that reaches one, and on the
// host throws kiln::device_error naming "tensor cores (nvcuda::wmma)".
// CUDA's <mma.h> includes cuda_fp16.h and cuda_bf16.h (half, __nv_bfloat16):
// so does this one when they are on the include path.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/cuda_host.hpp"

#if __has_include(<cuda_fp16.h>)
#include <cuda_fp16.h>
#endif
#if __has_include(<cuda_bf16.h>)
#include <cuda_bf16.h>
#endif

#define KILN_CUDA_WMMA KILN_CUDA_GPU_ONLY("tensor cores (nvcuda::wmma)")

namespace nvcuda::wmma {

// The uses of a fragment and the layouts of matrices.
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

namespace precision {
struct tf32 {};
} // namespace precision
namespace experimental {
namespace precision {
struct u4 {};
struct s4 {};
struct b1 {};
} // namespace precision
enum bmmaBitOp { bmmaBitOpXOR = 1, bmmaBitOpAND = 2 };
enum bmmaAccumulateOp { bmmaAccumulateOpPOPC = 1 };
} // namespace experimental

namespace detail {
/// The type a fragment stores its elements as.
template <class T> struct storage { using type = T; };
template <> struct storage<precision::tf32> { using type = float; };
template <> struct storage<experimental::precision::u4> { using type = unsigned int; };
template <> struct storage<experimental::precision::s4> { using type = int; };
template <> struct storage<experimental::precision::b1> { using type = unsigned int; };
/// The elements a thread holds on a GPU (a warp holds the whole tile).
template <class Use, int M, int N, int K> constexpr int elements() {
  const int tile = std::is_same_v<Use, matrix_a> ? M * K : std::is_same_v<Use, matrix_b> ? K * N : M * N;
  return tile / 32 > 0 ? tile / 32 : 1;
}
[[noreturn]] inline void tensor_cores() { ::kiln::cuda_host::gpu_only("tensor cores (nvcuda::wmma)"); }
} // namespace detail

/// A warp's share of an M x N x K matrix operation's operand.
template <class Use, int M, int N, int K, class T, class Layout = void> class fragment {
public:
  using element_type = T;
  using storage_element_type = typename detail::storage<T>::type;
  enum { num_elements = detail::elements<Use, M, N, K>(), num_storage_elements = num_elements };
  storage_element_type x[num_elements];
};

template <class Use, int M, int N, int K, class T, class Layout, class V>
KILN_CUDA_WMMA void fill_fragment(fragment<Use, M, N, K, T, Layout> &, const V &) {
  detail::tensor_cores();
}
template <class Use, int M, int N, int K, class T, class Layout, class P>
KILN_CUDA_WMMA void load_matrix_sync(fragment<Use, M, N, K, T, Layout> &, const P *, unsigned int) {
  detail::tensor_cores();
}
template <int M, int N, int K, class T, class P>
KILN_CUDA_WMMA void load_matrix_sync(fragment<accumulator, M, N, K, T, void> &, const P *, unsigned int, layout_t) {
  detail::tensor_cores();
}
template <int M, int N, int K, class T, class P>
KILN_CUDA_WMMA void store_matrix_sync(P *, const fragment<accumulator, M, N, K, T, void> &, unsigned int, layout_t) {
  detail::tensor_cores();
}
template <int M, int N, int K, class TA, class LA, class TB, class LB, class TC, class TD>
KILN_CUDA_WMMA void mma_sync(fragment<accumulator, M, N, K, TD, void> &, const fragment<matrix_a, M, N, K, TA, LA> &,
                             const fragment<matrix_b, M, N, K, TB, LB> &,
                             const fragment<accumulator, M, N, K, TC, void> &, bool = false) {
  detail::tensor_cores();
}
template <int M, int N, int K, class TA, class LA, class TB, class LB>
KILN_CUDA_WMMA void bmma_sync(fragment<accumulator, M, N, K, int, void> &, const fragment<matrix_a, M, N, K, TA, LA> &,
                              const fragment<matrix_b, M, N, K, TB, LB> &,
                              const fragment<accumulator, M, N, K, int, void> &,
                              experimental::bmmaBitOp = experimental::bmmaBitOpXOR,
                              experimental::bmmaAccumulateOp = experimental::bmmaAccumulateOpPOPC) {
  detail::tensor_cores();
}
/// tf32's rounding of a float (the fragment conversion of precision::tf32).
KILN_CUDA_WMMA inline float __float_to_tf32(float) { detail::tensor_cores(); }

} // namespace nvcuda::wmma

#undef KILN_CUDA_WMMA
