// KILN_RAWKERNEL kernels of the CuPy tutorials, compiled by kilnc and run on
// the current device (host in CI, the GPU under scripts/device-check.sh),
// each against a double reference on random data: a grid-stride saxpy, a
// block sum through shared memory, a histogram with atomics, warp shuffles
// (a shfl_down reduction, an xor butterfly, a broadcast, an up scan in
// 16-lane segments, ballot), a 2-D stencil with .x/.y indices, a Mandelbrot
// set, kiln::span parameters, a kernel template, dynamic shared memory,
// 3-D blocks and a matrix product in shared-memory tiles (a loop with a
// run-time bound around barriers).
#include "e2e.hpp"

#include <kiln/kernel.hpp>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>

using namespace e2e;
using C = std::complex<double>;

KILN_RAWKERNEL void saxpy(float a, const float *x, float *y, std::int64_t n) {
  for (std::int64_t i = kiln::global_thread_id(); i < n; i += kiln::grid_stride())
    y[i] = a * x[i] + y[i];
}

/// One partial sum per block of 256 threads: a tree through shared memory.
KILN_RAWKERNEL void block_sum(const double *x, double *partial, std::int64_t n) {
  double *s = kiln::shared_array<double, 256>();
  unsigned t = kiln::thread_idx().x;
  std::int64_t i = kiln::global_thread_id();
  s[t] = i < n ? x[i] : 0.0;
  kiln::syncthreads();
  for (unsigned k = kiln::block_dim().x / 2; k > 0; k /= 2) {
    if (t < k)
      s[t] += s[t + k];
    kiln::syncthreads();
  }
  if (t == 0)
    partial[kiln::block_idx().x] = s[0];
}

/// Bins of [0, 1) counted with atomics, first per block in shared memory.
KILN_RAWKERNEL void histogram(const float *x, std::int64_t n, int *bins, int nbins) {
  int *local = kiln::shared_array<int, 64>();
  for (int b = kiln::thread_idx().x; b < nbins; b += kiln::block_dim().x)
    local[b] = 0;
  kiln::syncthreads();
  for (std::int64_t i = kiln::global_thread_id(); i < n; i += kiln::grid_stride()) {
    int b = static_cast<int>(x[i] * nbins);
    kiln::atomic_add(&local[b < nbins ? b : nbins - 1], 1);
  }
  kiln::syncthreads();
  for (int b = kiln::thread_idx().x; b < nbins; b += kiln::block_dim().x)
    kiln::atomic_add(&bins[b], local[b]);
}

/// Warp sums with shfl_down, lane 0 adding its warp's into *total.
KILN_RAWKERNEL void warp_reduce(const float *x, std::int64_t n, float *total) {
  std::int64_t i = kiln::global_thread_id();
  float v = i < n ? x[i] : 0.0f;
  for (int d = 16; d > 0; d /= 2)
    v += kiln::shfl_down(v, d);
  if (kiln::lane_id() == 0)
    kiln::atomic_add(total, v);
}

/// Per thread: its warp's sum (xor butterfly), lane 3's value (broadcast),
/// an inclusive scan within 16-lane segments (shfl_up), and how many lanes
/// of its warp hold a positive value (ballot).
/// 64-bit shuffles: a warp's double sum (shfl_xor butterfly, every lane
/// holds it) and each lane's int64 key from lane 31 - lane (shfl).
KILN_RAWKERNEL void warp_ops64(const double *x, double *sum, const std::int64_t *keys, std::int64_t *mirrored) {
  std::int64_t i = kiln::global_thread_id();
  double v = x[i];
  for (int d = 16; d > 0; d /= 2)
    v += kiln::shfl_xor(v, d);
  sum[i] = v;
  mirrored[i] = kiln::shfl(keys[i], 31 - static_cast<int>(kiln::lane_id()));
}

KILN_RAWKERNEL void warp_ops(const float *x, float *sum, float *lane3, float *scan, int *positive) {
  std::int64_t i = kiln::global_thread_id();
  float v = x[i];
  float s = v;
  for (int m = 16; m > 0; m /= 2)
    s += kiln::shfl_xor(s, m);
  sum[i] = s;
  lane3[i] = kiln::shfl(v, 3);
  float c = v;
  unsigned lane = kiln::lane_id() % 16;
  for (unsigned d = 1; d < 16; d *= 2) {
    float up = kiln::shfl_up(c, d, 16);
    if (lane >= d)
      c += up;
  }
  scan[i] = c;
  unsigned mask = kiln::ballot(v > 0.0f);
  int count = 0;
  for (int b = 0; b < 32; ++b)
    count += (mask >> b) & 1u;
  positive[i] = count;
}

/// out = 5-point Laplacian of in (h x w, row-major), zero outside.
KILN_RAWKERNEL void laplacian(const float *in, float *out, int h, int w) {
  int c = kiln::block_idx().x * kiln::block_dim().x + kiln::thread_idx().x;
  int r = kiln::block_idx().y * kiln::block_dim().y + kiln::thread_idx().y;
  if (r >= h || c >= w)
    return;
  float centre = in[r * w + c];
  float sum = -4.0f * centre;
  if (r > 0) sum += in[(r - 1) * w + c];
  if (r + 1 < h) sum += in[(r + 1) * w + c];
  if (c > 0) sum += in[r * w + c - 1];
  if (c + 1 < w) sum += in[r * w + c + 1];
  out[r * w + c] = sum;
}

/// Iterations before |z| > 2 (at most max_iter) for each pixel of [x0, x1] x [y0, y1].
KILN_RAWKERNEL void mandelbrot(int *iters, int w, int h, double x0, double x1, double y0, double y1, int max_iter) {
  int px = kiln::block_idx().x * kiln::block_dim().x + kiln::thread_idx().x;
  int py = kiln::block_idx().y * kiln::block_dim().y + kiln::thread_idx().y;
  if (px >= w || py >= h)
    return;
  double cr = x0 + (x1 - x0) * px / (w - 1), ci = y0 + (y1 - y0) * py / (h - 1);
  double zr = 0.0, zi = 0.0;
  int k = 0;
  while (k < max_iter && zr * zr + zi * zi <= 4.0) {
    double t = zr * zr - zi * zi + cr;
    zi = 2.0 * zr * zi + ci;
    zr = t;
    ++k;
  }
  iters[py * w + px] = k;
}

KILN_RAWKERNEL void span_axpby(float a, kiln::span<const float> x, float b, kiln::span<float> y) {
  for (std::int64_t i = kiln::global_thread_id(); i < y.size(); i += kiln::grid_stride())
    y[i] = a * x[i] + b * y[i];
}

template <class T> KILN_RAWKERNEL void scale_shift(T *y, T a, T b, std::int64_t n) {
  std::int64_t i = kiln::global_thread_id();
  if (i < n)
    y[i] = a * y[i] + b;
}

/// Each block reverses its slice through dynamic shared memory.
KILN_RAWKERNEL void reverse_blocks(const float *x, float *y) {
  float *s = kiln::dynamic_shared<float>();
  unsigned t = kiln::thread_idx().x, n = kiln::block_dim().x;
  std::int64_t base = static_cast<std::int64_t>(kiln::block_idx().x) * n;
  s[t] = x[base + t];
  kiln::syncthreads();
  y[base + t] = s[n - 1 - t];
}

/// Every thread of a 3-D grid of 3-D blocks writes its linear id.
KILN_RAWKERNEL void ids3d(std::int64_t *out) {
  kiln::dim3 t = kiln::thread_idx(), b = kiln::block_idx(), bd = kiln::block_dim(), gd = kiln::grid_dim();
  std::int64_t x = b.x * bd.x + t.x, y = b.y * bd.y + t.y, z = b.z * bd.z + t.z;
  std::int64_t width = gd.x * bd.x, height = gd.y * bd.y;
  out[(z * height + y) * width + x] = (z * height + y) * width + x;
}

namespace {

// C = A B, n x n (n a multiple of the tile), 16 x 16 tiles in shared memory.
constexpr int tile = 16;
KILN_RAWKERNEL void tiled_matmul(const float *a, const float *b, float *c, std::int64_t n) {
  float *sa = kiln::shared_array<float, tile * tile>();
  float *sb = kiln::shared_array<float, tile * tile>();
  const std::int64_t ty = kiln::thread_idx().y, tx = kiln::thread_idx().x;
  const std::int64_t row = kiln::block_idx().y * tile + ty, col = kiln::block_idx().x * tile + tx;
  float acc = 0;
  for (std::int64_t t = 0; t < n; t += tile) {
    sa[ty * tile + tx] = a[row * n + t + tx];
    sb[ty * tile + tx] = b[(t + ty) * n + col];
    kiln::syncthreads();
    for (int k = 0; k < tile; ++k)
      acc += sa[ty * tile + k] * sb[k * tile + tx];
    kiln::syncthreads();
  }
  c[row * n + col] = acc;
}

template <class T> std::vector<double> host(const kiln::array<T> &a) {
  std::vector<T> v = a.to_vector();
  return std::vector<double>(v.begin(), v.end());
}

void test_saxpy() {
  const std::int64_t n = 1'000'003;
  auto rng = kiln::random::default_rng(1);
  kiln::array<float> x = rng.normal<float>({n}, 0.0, 1.0), y = rng.normal<float>({n}, 0.0, 1.0);
  std::vector<double> xs = host(x), ys = host(y);
  kiln::launch(saxpy, kiln::grid{120}, kiln::block{256}, 2.5f, x, y, n);
  expect("saxpy", y, n, [&](std::size_t i) { return C(2.5 * xs[i] + ys[i]); }, 1e-6);
}

void test_block_sum() {
  const std::int64_t n = 300'000, blocks = (n + 255) / 256;
  auto rng = kiln::random::default_rng(2);
  kiln::array<double> x = rng.normal<double>({n}, 1.0, 3.0);
  kiln::array<double> partial = kiln::zeros<double>({blocks});
  kiln::launch(block_sum, kiln::grid{blocks}, kiln::block{256}, x, partial, n);
  std::vector<double> xs = host(x);
  expect("block_sum", partial, blocks, [&](std::size_t b) {
    double s = 0;
    for (std::int64_t i = b * 256; i < std::min<std::int64_t>(n, (b + 1) * 256); ++i) s += xs[i];
    return C(s);
  }, 1e-12);
}

void test_histogram() {
  const std::int64_t n = 500'000;
  const int nbins = 64;
  auto rng = kiln::random::default_rng(3);
  kiln::array<float> x = rng.random<float>({n});
  kiln::array<int> bins = kiln::zeros<int>({nbins});
  kiln::launch(histogram, kiln::grid{64}, kiln::block{128}, x, n, bins, nbins);
  std::vector<float> xs = x.to_vector();
  std::vector<double> want(nbins);
  for (float v : xs) want[std::min(nbins - 1, static_cast<int>(v * nbins))] += 1;
  expect("histogram", bins, nbins, [&](std::size_t b) { return C(want[b]); }, 0);
}

void test_warp_reduce() {
  const std::int64_t n = 100'000;
  auto rng = kiln::random::default_rng(4);
  kiln::array<float> x = rng.random<float>({n});
  kiln::array<float> total = kiln::zeros<float>({1});
  kiln::launch(warp_reduce, kiln::grid{(n + 255) / 256}, kiln::block{256}, x, n, total);
  std::vector<double> xs = host(x);
  double want = 0;
  for (double v : xs) want += v;
  expect("warp_reduce", total, 1, [&](std::size_t) { return C(want); }, 1e-5);
}

void test_warp_ops64() {
  const std::int64_t n = 64 * 20;
  auto rng = kiln::random::default_rng(15);
  kiln::array<double> x = rng.normal<double>({n}, 0.0, 1.0);
  // Keys beyond 32 bits: both halves must travel.
  kiln::array<std::int64_t> keys = rng.integers<std::int64_t>(-(std::int64_t(1) << 50), std::int64_t(1) << 50, {n});
  auto sum = kiln::zeros<double>({n});
  auto mirrored = kiln::zeros<std::int64_t>({n});
  kiln::launch(warp_ops64, kiln::grid{20}, kiln::block{64}, x, sum, keys, mirrored);
  std::vector<double> xs = host(x);
  std::vector<std::int64_t> ks = keys.to_vector();
  expect("64-bit shfl_xor butterfly (double)", sum, n, [&](std::size_t i) {
    double s = 0;
    for (std::size_t j = i / 32 * 32; j < i / 32 * 32 + 32; ++j) s += xs[j];
    return C(s);
  }, 1e-13);
  ++checks;
  std::vector<std::int64_t> got = mirrored.to_vector();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != ks[i / 32 * 32 + (31 - i % 32)]) {
      std::printf("FAIL 64-bit shfl (int64) [%zu]: %lld\n", i, static_cast<long long>(got[i]));
      ++failures;
      break;
    }
}

void test_warp_ops() {
  const std::int64_t n = 64 * 40; // 40 blocks of 64: two warps each
  auto rng = kiln::random::default_rng(5);
  kiln::array<float> x = rng.normal<float>({n}, 0.0, 1.0);
  auto sum = kiln::zeros<float>({n}), lane3 = kiln::zeros<float>({n}), scan = kiln::zeros<float>({n});
  auto positive = kiln::zeros<int>({n});
  kiln::launch(warp_ops, kiln::grid{40}, kiln::block{64}, x, sum, lane3, scan, positive);
  std::vector<double> xs = host(x);
  auto warp = [](std::size_t i) { return i / 32 * 32; };
  expect("shfl_xor butterfly", sum, n, [&](std::size_t i) {
    double s = 0;
    for (std::size_t j = warp(i); j < warp(i) + 32; ++j) s += xs[j];
    return C(s);
  }, 1e-5);
  expect("shfl broadcast", lane3, n, [&](std::size_t i) { return C(xs[warp(i) + 3]); }, 0);
  expect("shfl_up scan in 16-lane segments", scan, n, [&](std::size_t i) {
    double s = 0;
    for (std::size_t j = i / 16 * 16; j <= i; ++j) s += xs[j];
    return C(s);
  }, 1e-5);
  expect("ballot", positive, n, [&](std::size_t i) {
    int c = 0;
    for (std::size_t j = warp(i); j < warp(i) + 32; ++j) c += xs[j] > 0;
    return C(c);
  }, 0);
}

void test_laplacian() {
  const int h = 123, w = 77;
  auto rng = kiln::random::default_rng(6);
  kiln::array<float> in = rng.normal<float>({h, w}, 0.0, 1.0);
  kiln::array<float> out = kiln::zeros<float>({h, w});
  kiln::launch(laplacian, kiln::grid{(w + 15) / 16, (h + 15) / 16}, kiln::block{16, 16}, in, out, h, w);
  std::vector<double> v = host(in);
  auto at = [&](int r, int c) { return r < 0 || r >= h || c < 0 || c >= w ? 0.0 : v[r * w + c]; };
  expect("laplacian", out, std::size_t(h) * w, [&](std::size_t i) {
    int r = i / w, c = i % w;
    return C(at(r - 1, c) + at(r + 1, c) + at(r, c - 1) + at(r, c + 1) - 4 * at(r, c));
  }, 1e-5);
}

void test_mandelbrot() {
  const int w = 200, h = 150, max_iter = 200;
  kiln::array<int> iters = kiln::zeros<int>({h, w});
  kiln::launch(mandelbrot, kiln::grid{(w + 15) / 16, (h + 15) / 16}, kiln::block{16, 16}, iters, w, h, -2.0, 1.0,
               -1.2, 1.2, max_iter);
  expect("mandelbrot", iters, std::size_t(w) * h, [&](std::size_t i) {
    int px = i % w, py = i / w;
    double cr = -2.0 + 3.0 * px / (w - 1), ci = -1.2 + 2.4 * py / (h - 1), zr = 0, zi = 0;
    int k = 0;
    while (k < max_iter && zr * zr + zi * zi <= 4.0) {
      double t = zr * zr - zi * zi + cr;
      zi = 2.0 * zr * zi + ci;
      zr = t;
      ++k;
    }
    return C(k);
  }, 0);
}

void test_span_and_template() {
  const std::int64_t n = 70'001;
  auto rng = kiln::random::default_rng(7);
  kiln::array<float> x = rng.normal<float>({n}, 0.0, 1.0), y = rng.normal<float>({n}, 0.0, 1.0);
  std::vector<double> xs = host(x), ys = host(y);
  kiln::launch(span_axpby, kiln::grid{64}, kiln::block{128}, 3.0f, x, -0.5f, y);
  expect("span_axpby", y, n, [&](std::size_t i) { return C(3.0 * xs[i] - 0.5 * ys[i]); }, 1e-6);

  kiln::array<double> d = rng.normal<double>({n}, 0.0, 1.0);
  std::vector<double> ds = host(d), fs = host(x);
  kiln::launch(scale_shift<double>, kiln::grid{(n + 255) / 256}, kiln::block{256}, d, 1.5, -2.0, n);
  kiln::launch(scale_shift<float>, kiln::grid{(n + 255) / 256}, kiln::block{256}, x, 0.25f, 1.0f, n);
  expect("scale_shift<double>", d, n, [&](std::size_t i) { return C(1.5 * ds[i] - 2.0); }, 1e-14);
  expect("scale_shift<float>", x, n, [&](std::size_t i) { return C(0.25 * fs[i] + 1.0); }, 1e-6);
}

void test_dynamic_shared() {
  const std::int64_t blocks = 37, threads = 96, n = blocks * threads;
  auto rng = kiln::random::default_rng(8);
  kiln::array<float> x = rng.normal<float>({n}, 0.0, 1.0), y = kiln::zeros<float>({n});
  kiln::launch(reverse_blocks, kiln::grid{blocks}, kiln::block{threads}, kiln::shared_memory{threads * 4}, x, y);
  std::vector<double> xs = host(x);
  expect("reverse_blocks", y, n, [&](std::size_t i) {
    std::size_t b = i / threads, t = i % threads;
    return C(xs[b * threads + threads - 1 - t]);
  }, 0);
}

void test_ids3d() {
  const unsigned gx = 3, gy = 2, gz = 4, bx = 8, by = 4, bz = 2;
  const std::int64_t n = std::int64_t(gx) * gy * gz * bx * by * bz;
  kiln::array<std::int64_t> out = kiln::full<std::int64_t>({n}, -1);
  kiln::launch(ids3d, kiln::grid{gx, gy, gz}, kiln::block{bx, by, bz}, out);
  expect("ids3d", out, n, [&](std::size_t i) { return C(double(i)); }, 0);
}

void test_tiled_matmul() {
  const std::int64_t n = 64;
  auto rng = kiln::random::default_rng(9);
  kiln::array<float> a = rng.normal<float>({n, n}, 0.0, 1.0), b = rng.normal<float>({n, n}, 0.0, 1.0);
  kiln::array<float> c = kiln::full<float>({n, n}, std::numeric_limits<float>::quiet_NaN());
  std::vector<double> ha = host(a), hb = host(b);
  kiln::launch(tiled_matmul, kiln::grid{n / tile, n / tile}, kiln::block{tile, tile}, a, b, c, n);
  expect("tiled matmul", c, std::size_t(n * n), [&](std::size_t i) {
    double s = 0;
    for (std::int64_t k = 0; k < n; ++k) s += ha[(i / n) * n + k] * hb[k * n + i % n];
    return C(s);
  }, 1e-5);
}

void test_errors() {
  ++checks;
  kiln::array<float> y = kiln::zeros<float>({8});
  bool thrown = false;
  try {
    kiln::launch(scale_shift<float>, kiln::grid{1}, kiln::block{2048}, y, 1.0f, 0.0f, std::int64_t(8));
  } catch (const kiln::value_error &e) {
    thrown = std::string(e.what()).find("1024") != std::string::npos;
    if (!thrown) std::printf("FAIL block over the limit: message '%s' does not name the limit\n", e.what());
  }
  if (!thrown) {
    std::printf("FAIL a block of 2048 threads did not throw value_error\n");
    ++failures;
  }
}

} // namespace

int main() {
  test_saxpy();
  test_block_sum();
  test_histogram();
  test_warp_reduce();
  test_warp_ops64();
  test_warp_ops();
  test_laplacian();
  test_mandelbrot();
  test_span_and_template();
  test_dynamic_shared();
  test_ids3d();
  test_tiled_matmul();
  test_errors();
  kiln::synchronize();
  return finish("raw_kernels");
}
