//===- runtime/kernels/cuda/signal_kernels.cu - Direct 2-d convolution ----===//
//
// kiln_conv2d_<dtype>_<k>: a direct 2-d correlation (runtime/signal/: a
// convolution is the correlation with the flipped taps).
//
// k = 3, 5 and 7 (square filters, loops unrolled) run persistent blocks of
// 128 threads over tiles of 32 rows by 32 16-byte vectors (128 float32
// columns, 64 float64/complex64, 32 complex128). Each block copies the next
// tile's input window (with its halo) into shared memory with cp.async
// while it computes the current one, so the copies of one tile overlap the
// arithmetic of the last: the window is fetched in aligned 16-byte pieces
// when it lies inside the image and its rows are aligned, element by
// element through the boundary (fill, wrap, symm) otherwise. A thread
// computes 8 rows of one vector of outputs, reading each window row once as
// aligned 16-byte loads, with the taps (flipped for a convolution,
// conjugated for a correlation) in registers when they fit in 256 bytes;
// outputs are written as streaming 16-byte stores. Measured on an H200,
// 4096^2 float32 5 x 5 same/symm: 0.70 of the device copy, where one
// non-persistent block a tile loading its window with 4-byte loads reached
// 0.42 (the load, the arithmetic and the stores of a block ran one after
// another and too few bytes were in flight).
//
// k = 0 takes any size up to what fits in 40 KiB of shared memory (the
// host checks): one 256-thread block per 32 x 64 tile, eight outputs of a
// column per thread. And kiln_multiply_<dtype>, the spectra's product of an
// FFT convolution.
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

/// Any filter size: one block a tile, the taps in shared memory.
template <class T>
__device__ void conv2d_general(const conv2d_params &p, T *smem) {
  const int kh = p.kh, kw = p.kw;
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
  {
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
  for (int pp = 0; pp < kh; ++pp)
    for (int q = 0; q < kw; ++q) {
      const T tap = taps[pp * kw + q];
#pragma unroll
      for (int r = 0; r < rows_per_thread; ++r)
        acc[r] =
            add(acc[r],
                mul(smem[(ty * rows_per_thread + r + pp) * tw + tx + q], tap));
    }
  const long long col = c0 + tx;
#pragma unroll
  for (int r = 0; r < rows_per_thread; ++r) {
    const long long row = r0 + ty * rows_per_thread + r;
    if (row < p.out_h && col < p.out_w)
      out[row * p.out_w + col] = acc[r];
  }
}

// --- Square 3, 5 and 7 filters: persistent blocks, cp.async double buffering.

constexpr int sq_warps = 4, sq_rows = 8,
              sq_tile_h = sq_warps * sq_rows; // 128 threads, 32 rows

/// Copies one element (4, 8 or 16 bytes) or an aligned 16-byte piece from
/// global to shared memory asynchronously (cp.async, sm_80 and later).
template <int Bytes>
__device__ __forceinline__ void copy_async(void *dst, const void *src) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (Bytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d),
                 "l"(src));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(d),
                 "l"(src), "n"(Bytes));
}
__device__ __forceinline__ void commit_copies() {
  asm volatile("cp.async.commit_group;\n");
}
/// Waits for all but the most recently committed group.
__device__ __forceinline__ void wait_previous_copies() {
  asm volatile("cp.async.wait_group 1;\n");
}

/// A 16-byte vector of V elements of T.
template <class T> struct alignas(16) vec {
  static constexpr int n = 16 / sizeof(T);
  T v[n];
};

/// The taps, flipped and conjugated as the host asked: in registers when
/// they fit in 256 bytes, else read from shared memory (broadcast loads).
template <class T, int K, bool Regs = sizeof(T) * K *K <= 256> struct taps_of;
template <class T, int K> struct taps_of<T, K, true> {
  T t[K * K];
  __device__ void load(const conv2d_params &p, T *) {
    const T *w = static_cast<const T *>(p.w);
#pragma unroll
    for (int e = 0; e < K * K; ++e) {
      const T tap = w[p.flip ? K * K - 1 - e : e];
      t[e] = p.conj ? conj_of(tap) : tap;
    }
  }
  __device__ __forceinline__ T operator[](int e) const { return t[e]; }
};
template <class T, int K> struct taps_of<T, K, false> {
  const T *t;
  __device__ void load(const conv2d_params &p, T *shared) {
    const T *w = static_cast<const T *>(p.w);
    for (int e = threadIdx.x; e < K * K; e += blockDim.x) {
      const T tap = w[p.flip ? K * K - 1 - e : e];
      shared[e] = p.conj ? conj_of(tap) : tap;
    }
    t = shared; // read after the loop's first __syncthreads
  }
  __device__ __forceinline__ T operator[](int e) const { return t[e]; }
};

template <class T, int K> struct square_tile {
  static constexpr int V = vec<T>::n, tile_w = 32 * V, halo = K - 1;
  /// The window's width in vectors: the tile, its halo, and up to V - 1
  /// elements before it to start on a 16-byte boundary.
  static constexpr int vectors = (tile_w + halo + 2 * (V - 1)) / V,
                       width = vectors * V;
  static constexpr int height = sq_tile_h + halo, elements = width * height;
};

/// Starts the copy of tile `t`'s input window into `dst`.
template <class T, int K>
__device__ void fetch_window(const conv2d_params &p, long long t, int shift,
                             T *dst) {
  using tile = square_tile<T, K>;
  const T *in = static_cast<const T *>(p.in);
  const long long y0 = t / p.tiles_x * sq_tile_h + p.oy,
                  xa = t % p.tiles_x * tile::tile_w + p.ox - shift;
  if (p.aligned && y0 >= 0 && xa >= 0 && y0 + tile::height <= p.h &&
      xa + tile::width <= p.w_) {
    for (int e = threadIdx.x; e < tile::height * tile::vectors;
         e += blockDim.x) {
      const int y = e / tile::vectors, x = e % tile::vectors;
      copy_async<16>(dst + e * tile::V,
                     in + (y0 + y) * p.w_ + xa + x * tile::V);
    }
    return;
  }
  const T fill = filled<T>(p.fill_re, p.fill_im);
  for (int e = threadIdx.x; e < tile::elements; e += blockDim.x) {
    const int y = e / tile::width, x = e % tile::width;
    const long long gy = mapped(y0 + y, p.h, p.boundary),
                    gx = mapped(xa + x, p.w_, p.boundary);
    if (gy < 0 || gx < 0)
      dst[e] = fill;
    else
      copy_async<int(sizeof(T))>(dst + e, in + gy * p.w_ + gx);
  }
}

/// A thread's sq_rows x V outputs from the window in shared memory; Shift
/// is where the tile's first input column lies in the window's first vector.
template <class T, int K, int Shift, class Taps>
__device__ __forceinline__ void compute_tile(const T *window, const Taps &taps,
                                             T (&acc)[sq_rows][vec<T>::n]) {
  using tile = square_tile<T, K>;
  constexpr int V = tile::V, loads = (Shift + V + K - 1 + V - 1) /
                                     V; // vectors covering V + K - 1 inputs
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
#pragma unroll
  for (int y = 0; y < sq_rows + K - 1; ++y) {
    T in[loads * V];
    const vec<T> *row = reinterpret_cast<const vec<T> *>(
                            window + (ty * sq_rows + y) * tile::width) +
                        tx;
#pragma unroll
    for (int j = 0; j < loads; ++j) {
      const vec<T> piece = row[j];
#pragma unroll
      for (int c = 0; c < V; ++c)
        in[j * V + c] = piece.v[c];
    }
#pragma unroll
    for (int pp = 0; pp < K; ++pp) {
      const int r =
          y - pp; // the output row this window row meets tap row pp in
      if (r >= 0 && r < sq_rows) {
#pragma unroll
        for (int q = 0; q < K; ++q) {
          const T w = taps[pp * K + q];
#pragma unroll
          for (int c = 0; c < V; ++c)
            acc[r][c] = add(acc[r][c], mul(in[Shift + c + q], w));
        }
      }
    }
  }
}

template <class T, int K>
__device__ void conv2d_square(const conv2d_params &p, T *smem) {
  using tile = square_tile<T, K>;
  constexpr int V = tile::V;
  taps_of<T, K> taps;
  taps.load(p, smem + 2 * tile::elements);
  const int shift = int((p.ox % V + V) % V);
  const long long tiles = p.tiles;
  long long t = blockIdx.x;
  if (t < tiles)
    fetch_window<T, K>(p, t, shift, smem);
  commit_copies();
  T *out = static_cast<T *>(p.out);
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
  for (int i = 0; t < tiles; ++i, t += gridDim.x) {
    if (t + gridDim.x < tiles)
      fetch_window<T, K>(p, t + gridDim.x, shift,
                         smem + ((i + 1) & 1) *
                                    tile::elements); // the other buffer
    commit_copies();
    wait_previous_copies();
    __syncthreads();
    T acc[sq_rows][V];
#pragma unroll
    for (int r = 0; r < sq_rows; ++r)
#pragma unroll
      for (int c = 0; c < V; ++c)
        acc[r][c] = zero<T>();
    const T *window = smem + (i & 1) * tile::elements;
    switch (shift) { // a constant in each case, so the loads are aligned and
                     // unrolled
    case 0:
      compute_tile<T, K, 0>(window, taps, acc);
      break;
    case 1:
      if constexpr (V > 1)
        compute_tile<T, K, 1>(window, taps, acc);
      break;
    case 2:
      if constexpr (V > 2)
        compute_tile<T, K, 2>(window, taps, acc);
      break;
    default:
      if constexpr (V > 3)
        compute_tile<T, K, 3>(window, taps, acc);
      break;
    }
    const long long row0 = t / p.tiles_x * sq_tile_h + ty * sq_rows,
                    col = t % p.tiles_x * tile::tile_w + tx * V;
#pragma unroll
    for (int r = 0; r < sq_rows; ++r) {
      const long long row = row0 + r;
      if (row >= p.out_h)
        break;
      T *dst = out + row * p.out_w + col;
      if (p.out_aligned && col + V <= p.out_w) {
        vec<T> piece;
#pragma unroll
        for (int c = 0; c < V; ++c)
          piece.v[c] = acc[r][c];
        __stcs(reinterpret_cast<float4 *>(dst),
               *reinterpret_cast<const float4 *>(&piece));
      } else {
#pragma unroll
        for (int c = 0; c < V; ++c)
          if (col + c < p.out_w)
            dst[c] = acc[r][c];
      }
    }
    __syncthreads(); // every thread is done with this window before it is
                     // refilled
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

#define KILN_CONV2D_GENERAL(NAME, T)                                           \
  extern "C" __global__ void __launch_bounds__(256)                            \
      kiln_conv2d_##NAME##_0(conv2d_params p) {                                \
    __shared__ alignas(16) unsigned char smem[40960];                          \
    signal_kernels::conv2d_general<T>(p, reinterpret_cast<T *>(smem));         \
  }
#define KILN_CONV2D_SQUARE(NAME, T, K)                                         \
  extern "C" __global__ void __launch_bounds__(128)                            \
      kiln_conv2d_##NAME##_##K(conv2d_params p) {                              \
    __shared__ alignas(16)                                                     \
        T smem[2 * signal_kernels::square_tile<T, K>::elements + K * K];       \
    signal_kernels::conv2d_square<T, K>(p, smem);                              \
  }
#define KILN_CONV2D_ALL(NAME, T)                                               \
  KILN_CONV2D_GENERAL(NAME, T)                                                 \
  KILN_CONV2D_SQUARE(NAME, T, 3) KILN_CONV2D_SQUARE(NAME, T, 5)                \
      KILN_CONV2D_SQUARE(NAME, T, 7)
KILN_CONV2D_ALL(float32, float)
KILN_CONV2D_ALL(float64, double)
KILN_CONV2D_ALL(complex64, complex64_t)
KILN_CONV2D_ALL(complex128, complex128_t)

extern "C" __global__ void kiln_multiply_complex64(multiply_params p) { signal_kernels::multiply<complex64_t>(p); }
extern "C" __global__ void kiln_multiply_complex128(multiply_params p) { signal_kernels::multiply<complex128_t>(p); }
