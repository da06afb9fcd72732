//===- runtime/kernels/cuda/signal_kernels.cu - Direct 2-d convolution ----===//
//
// kiln_conv2d_<dtype>_<k>: a direct 2-d correlation (runtime/signal/: a
// convolution is the correlation with the flipped taps), one 256-thread
// block per 32 x 64 tile of the output. The block loads its input tile with
// the halo (boundary conditions applied on the way: fill, wrap, symm) and
// the taps (flipped for a convolution, conjugated for a correlation) into
// shared memory once; each thread then computes eight outputs
// of a column from there. k = 3, 5 and 7 are square filters whose loops the
// compiler unrolls; k = 0 takes any size up to what fits in 40 KiB of shared
// memory (the host checks). And kiln_multiply_<dtype>, the spectra's product
// of an FFT convolution.
//
//===----------------------------------------------------------------------===//
#include "runtime/kernels/element.hpp"
#include "runtime/kernels/params.hpp"

using namespace kiln::detail::kernels;

namespace signal_kernels {

constexpr int tile_w = 32, rows_per_thread = 8, tile_h = 8 * rows_per_thread;

template <class T> __device__ __forceinline__ T mul(T a, T b) { return a * b; }
template <class R> __device__ __forceinline__ cplx<R> mul(cplx<R> a, cplx<R> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <class T> __device__ __forceinline__ T add(T a, T b) { return a + b; }
template <class R> __device__ __forceinline__ cplx<R> add(cplx<R> a, cplx<R> b) { return {a.re + b.re, a.im + b.im}; }
template <class T> __device__ __forceinline__ T conj_of(T v) { return v; }
template <class R> __device__ __forceinline__ cplx<R> conj_of(cplx<R> v) { return {v.re, -v.im}; }
template <class T> __device__ __forceinline__ T zero() { return T(0); }
template <> __device__ __forceinline__ complex64_t zero<complex64_t>() { return {0.0f, 0.0f}; }
template <> __device__ __forceinline__ complex128_t zero<complex128_t>() { return {0.0, 0.0}; }
template <class T> __device__ __forceinline__ T filled(double re, double) { return T(re); }
template <> __device__ __forceinline__ complex64_t filled<complex64_t>(double re, double im) {
  return {float(re), float(im)};
}
template <> __device__ __forceinline__ complex128_t filled<complex128_t>(double re, double im) { return {re, im}; }

/// Index `i` of an axis of length n under the boundary (-1: outside, fill).
__device__ __forceinline__ long long mapped(long long i, long long n, int boundary) {
  if (i >= 0 && i < n)
    return i;
  if (boundary == 0)
    return -1;
  if (boundary == 1) { // wrap
    long long m = i % n;
    return m < 0 ? m + n : m;
  }
  // symm: ... 1 0 | 0 1 ... n-1 | n-1 n-2 ..., folding until inside
  const long long period = 2 * n;
  long long m = i % period;
  if (m < 0)
    m += period;
  return m < n ? m : period - 1 - m;
}

template <class T, int K> __device__ void conv2d(const conv2d_params &p, T *smem) {
  const int kh = K ? K : p.kh, kw = K ? K : p.kw;
  const int tw = tile_w + kw - 1, th = tile_h + kh - 1;
  T *taps = smem + tw * th;
  const T *in = static_cast<const T *>(p.in), *w = static_cast<const T *>(p.w);
  T *out = static_cast<T *>(p.out);
  const long long bx = blockIdx.x % p.tiles_x, by = blockIdx.x / p.tiles_x;
  const long long r0 = by * tile_h, c0 = bx * tile_w;
  const T fill = filled<T>(p.fill_re, p.fill_im);
  // The tile with its halo: rows by the block's 8 warps, columns by lanes.
  // A tile inside the image (most of them) loads without boundary tests.
  const int lane = threadIdx.x % tile_w, warp = threadIdx.x / tile_w;
  const long long y0 = r0 + p.oy, x0 = c0 + p.ox;
  if (y0 >= 0 && x0 >= 0 && y0 + th <= p.h && x0 + tw <= p.w_) {
    // Unrolled (the extent is a constant for K > 0): every load of the tile
    // is in flight at once, not one latency after another.
#pragma unroll
    for (int i = 0; i < (th + 7) / 8; ++i) {
      const int y = warp + 8 * i;
      if (y < th) {
        const T *row = in + (y0 + y) * p.w_ + x0;
#pragma unroll
        for (int j = 0; j < (tw + tile_w - 1) / tile_w; ++j)
          if (lane + tile_w * j < tw)
            smem[y * tw + lane + tile_w * j] = row[lane + tile_w * j];
      }
    }
  } else {
    for (int y = warp; y < th; y += 8) {
      const long long gy = mapped(y0 + y, p.h, p.boundary);
      for (int x = lane; x < tw; x += tile_w) {
        const long long gx = mapped(x0 + x, p.w_, p.boundary);
        smem[y * tw + x] = gy < 0 || gx < 0 ? fill : in[gy * p.w_ + gx];
      }
    }
  }
  for (int e = threadIdx.x; e < kh * kw; e += blockDim.x) {
    const T tap = w[p.flip ? kh * kw - 1 - e : e];
    taps[e] = p.conj ? conj_of(tap) : tap;
  }
  __syncthreads();
  const int tx = threadIdx.x % tile_w, ty = threadIdx.x / tile_w; // 32 x 8 threads
  T acc[rows_per_thread];
#pragma unroll
  for (int r = 0; r < rows_per_thread; ++r)
    acc[r] = zero<T>();
  if constexpr (K == 0) {
    for (int pp = 0; pp < kh; ++pp)
      for (int q = 0; q < kw; ++q) {
        const T tap = taps[pp * kw + q];
#pragma unroll
        for (int r = 0; r < rows_per_thread; ++r)
          acc[r] = add(acc[r], mul(smem[(ty * rows_per_thread + r + pp) * tw + tx + q], tap));
      }
  } else {
    // A column of the tile in registers serves all K rows of taps.
#pragma unroll
    for (int q = 0; q < K; ++q) {
      T column[rows_per_thread + K - 1];
#pragma unroll
      for (int y = 0; y < rows_per_thread + K - 1; ++y)
        column[y] = smem[(ty * rows_per_thread + y) * tw + tx + q];
#pragma unroll
      for (int pp = 0; pp < K; ++pp) {
        const T tap = taps[pp * K + q];
#pragma unroll
        for (int r = 0; r < rows_per_thread; ++r)
          acc[r] = add(acc[r], mul(column[r + pp], tap));
      }
    }
  }
  const long long col = c0 + tx;
#pragma unroll
  for (int r = 0; r < rows_per_thread; ++r) {
    const long long row = r0 + ty * rows_per_thread + r;
    if (row < p.out_h && col < p.out_w)
      out[row * p.out_w + col] = acc[r];
  }
}

template <class T> __device__ void multiply(const multiply_params &p) {
  const T *a = static_cast<const T *>(p.a), *b = static_cast<const T *>(p.b);
  T *out = static_cast<T *>(p.out);
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = mul(a[i], b[i]);
}

} // namespace signal_kernels

#define KILN_CONV2D(NAME, T, K)                                                                                  \
  extern "C" __global__ void __launch_bounds__(256) kiln_conv2d_##NAME##_##K(conv2d_params p) {                \
    constexpr int halo = (K ? K : 1) - 1;                                                                      \
    constexpr int bytes =                                                                                      \
        K ? int(sizeof(T)) * ((signal_kernels::tile_w + halo) * (signal_kernels::tile_h + halo) + K * K) : 40960; \
    __shared__ alignas(16) unsigned char smem[bytes];                                                          \
    signal_kernels::conv2d<T, K>(p, reinterpret_cast<T *>(smem));                                              \
  }
#define KILN_CONV2D_ALL(NAME, T) KILN_CONV2D(NAME, T, 0) KILN_CONV2D(NAME, T, 3) KILN_CONV2D(NAME, T, 5) KILN_CONV2D(NAME, T, 7)
KILN_CONV2D_ALL(float32, float)
KILN_CONV2D_ALL(float64, double)
KILN_CONV2D_ALL(complex64, complex64_t)
KILN_CONV2D_ALL(complex128, complex128_t)

extern "C" __global__ void kiln_multiply_complex64(multiply_params p) { signal_kernels::multiply<complex64_t>(p); }
extern "C" __global__ void kiln_multiply_complex128(multiply_params p) { signal_kernels::multiply<complex128_t>(p); }
