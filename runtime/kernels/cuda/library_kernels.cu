//===- runtime/kernels/cuda/library_kernels.cu - Around the vendor libraries
//
// The small passes the vendor libraries need around them:
// kiln_matrix_map_<dtype>, linear algebra's one elementwise pass
// (runtime/linalg/stack.hpp): a strided (so possibly transposed) read of a
// stack of matrices, an optional conjugate, column scale and triangle (band)
// mask, and a unit diagonal, written C-contiguous (the host twin is in
// runtime/linalg/stack.cpp); kiln_matrix_addresses, the pointer arrays of
// cuBLAS's batched routines; and kiln_scale_<dtype>, a scale (and conjugate)
// in place, the FFTs' normalization (runtime/fft/); and kiln_cg_step_<dtype>
// and kiln_cg_direction_<dtype>, conjugate gradients' fused vector updates
// (runtime/sparse/cg.cpp); kiln_count_zeros_<dtype>, the zeros a sparse
// product's values hold (runtime/sparse/products.cpp).
//
//===----------------------------------------------------------------------===//
#include "runtime/kernels/element.hpp"
#include "runtime/kernels/params.hpp"

using namespace kiln::detail::kernels;

namespace library_kernels {

template <class T> __device__ __forceinline__ T conj_of(T v) { return v; }
template <class R> __device__ __forceinline__ cplx<R> conj_of(cplx<R> v) { return {v.re, -v.im}; }
template <class T, class R> __device__ __forceinline__ T scaled(T v, R s) { return v * s; }
template <class R> __device__ __forceinline__ cplx<R> scaled(cplx<R> v, R s) { return {v.re * s, v.im * s}; }
template <class T> __device__ __forceinline__ T one() { return T(1); }
template <> __device__ __forceinline__ complex64_t one<complex64_t>() { return {1.0f, 0.0f}; }
template <> __device__ __forceinline__ complex128_t one<complex128_t>() { return {1.0, 0.0}; }
template <class T> __device__ __forceinline__ T zero() { return T(0); }
template <> __device__ __forceinline__ complex64_t zero<complex64_t>() { return {0.0f, 0.0f}; }
template <> __device__ __forceinline__ complex128_t zero<complex128_t>() { return {0.0, 0.0}; }

template <class T, class R> __device__ void matrix_map(const matrix_map_params &p) {
  const T *in = static_cast<const T *>(p.in);
  T *out = static_cast<T *>(p.out);
  const R *scale = static_cast<const R *>(p.scale);
  const std::int64_t per = p.rows * p.cols, n = p.batch * per;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t b = e / per, i = (e % per) / p.cols, j = e % p.cols;
    T v;
    if (j - i < p.band_lo || j - i > p.band_hi) {
      v = zero<T>();
    } else if (p.unit_diagonal && i == j) {
      v = one<T>();
    } else {
      v = in[b * p.in_batch + i * p.in_row + j * p.in_col];
      if (p.conj)
        v = conj_of(v);
      if (scale)
        v = scaled(v, scale[b * p.scale_batch + j]);
    }
    out[e] = v;
  }
}

} // namespace library_kernels

extern "C" __global__ void kiln_matrix_map_float32(matrix_map_params p) { library_kernels::matrix_map<float, float>(p); }
extern "C" __global__ void kiln_matrix_map_float64(matrix_map_params p) { library_kernels::matrix_map<double, double>(p); }
extern "C" __global__ void kiln_matrix_map_complex64(matrix_map_params p) {
  library_kernels::matrix_map<complex64_t, float>(p);
}
extern "C" __global__ void kiln_matrix_map_complex128(matrix_map_params p) {
  library_kernels::matrix_map<complex128_t, double>(p);
}

extern "C" __global__ void kiln_matrix_addresses(matrix_addresses_params p) {
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    p.out[i] = p.base + i * p.stride;
}

namespace library_kernels {
template <class T, class R> __device__ void scale(const scale_params &p) {
  T *data = static_cast<T *>(p.data);
  const R factor = static_cast<R>(p.factor);
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    T v = data[i];
    if (p.conj)
      v = conj_of(v);
    data[i] = scaled(v, factor);
  }
}
} // namespace library_kernels

extern "C" __global__ void kiln_scale_float32(scale_params p) { library_kernels::scale<float, float>(p); }
extern "C" __global__ void kiln_scale_float64(scale_params p) { library_kernels::scale<double, double>(p); }
extern "C" __global__ void kiln_scale_complex64(scale_params p) { library_kernels::scale<complex64_t, float>(p); }
extern "C" __global__ void kiln_scale_complex128(scale_params p) { library_kernels::scale<complex128_t, double>(p); }

namespace library_kernels {
template <class T, class R> __device__ void cg_step(const cg_params &c) {
  T *x = static_cast<T *>(c.x), *r = static_cast<T *>(c.r);
  const T *p = static_cast<const T *>(c.p), *q = static_cast<const T *>(c.q);
  const R a = static_cast<R>(c.alpha);
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < c.n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const T pi = scaled(p[i], a), qi = scaled(q[i], a);
    if constexpr (is_cplx<T>::value) {
      x[i] = T{x[i].re + pi.re, x[i].im + pi.im};
      r[i] = T{r[i].re - qi.re, r[i].im - qi.im};
    } else {
      x[i] += pi;
      r[i] -= qi;
    }
  }
}
template <class T, class R> __device__ void cg_direction(const cg_params &c) {
  const T *r = static_cast<const T *>(c.r);
  T *p = static_cast<T *>(c.p);
  const R b = static_cast<R>(c.beta);
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < c.n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const T bp = scaled(p[i], b);
    if constexpr (is_cplx<T>::value)
      p[i] = T{r[i].re + bp.re, r[i].im + bp.im};
    else
      p[i] = r[i] + bp;
  }
}
} // namespace library_kernels

extern "C" __global__ void kiln_cg_step_float32(cg_params p) { library_kernels::cg_step<float, float>(p); }
extern "C" __global__ void kiln_cg_step_float64(cg_params p) { library_kernels::cg_step<double, double>(p); }
extern "C" __global__ void kiln_cg_step_complex64(cg_params p) { library_kernels::cg_step<complex64_t, float>(p); }
extern "C" __global__ void kiln_cg_step_complex128(cg_params p) { library_kernels::cg_step<complex128_t, double>(p); }
extern "C" __global__ void kiln_cg_direction_float32(cg_params p) { library_kernels::cg_direction<float, float>(p); }
extern "C" __global__ void kiln_cg_direction_float64(cg_params p) { library_kernels::cg_direction<double, double>(p); }
extern "C" __global__ void kiln_cg_direction_complex64(cg_params p) {
  library_kernels::cg_direction<complex64_t, float>(p);
}
extern "C" __global__ void kiln_cg_direction_complex128(cg_params p) {
  library_kernels::cg_direction<complex128_t, double>(p);
}

namespace library_kernels {
/// *count += the elements of x equal to zero: a warp's votes summed, one
/// atomic add a warp.
template <class T> __device__ void count_zeros(const count_zeros_params &c) {
  const T *x = static_cast<const T *>(c.x);
  unsigned long long zeros = 0;
  for (std::int64_t i =
           static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < c.n; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    if constexpr (is_cplx<T>::value)
      zeros += x[i].re == 0 && x[i].im == 0;
    else
      zeros += x[i] == T(0);
  }
  for (int offset = 16; offset > 0; offset /= 2)
    zeros += __shfl_down_sync(0xffffffffu, zeros, offset);
  if (threadIdx.x % 32 == 0 && zeros)
    atomicAdd(static_cast<unsigned long long *>(c.count), zeros);
}
} // namespace library_kernels

extern "C" __global__ void kiln_count_zeros_float32(count_zeros_params p) {
  library_kernels::count_zeros<float>(p);
}
extern "C" __global__ void kiln_count_zeros_float64(count_zeros_params p) {
  library_kernels::count_zeros<double>(p);
}
extern "C" __global__ void kiln_count_zeros_complex64(count_zeros_params p) {
  library_kernels::count_zeros<complex64_t>(p);
}
extern "C" __global__ void kiln_count_zeros_complex128(count_zeros_params p) {
  library_kernels::count_zeros<complex128_t>(p);
}
