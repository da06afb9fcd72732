//===- test/unit/runtime/cuda_host_test.cpp - CUDA source kernels on the host ===//
//
// Tests kiln/cuda_host.hpp, the prelude with which kilnc compiles CUDA C++
// source for the host: kernels written here in CUDA's dialect (__global__,
// __shared__, threadIdx, shuffles, votes, atomics, cooperative groups) run
// through descriptors built as kilnc builds them (host = run_thread<&k>,
// host_block = run_block<&k> for kernels that do not synchronize) and
// kiln::detail::launch_raw on the host. Every result is checked against a
// reference computed here, in double, from random data. Also: the math and
// integer intrinsics against <cmath> and fesetround, GPU-only constructs,
// libcu++ in a kernel, and (printed, not asserted) the speed of a saxpy's
// one-block form against a plain loop.
//
// Built as kilnc builds CUDA source: include/kiln/cuda_host first on the
// include path (its cooperative_groups.h) and libcu++ from the toolkit
// (test/unit/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
#include "kiln/cuda_host.hpp"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <mma.h>

#if __has_include(<cuda/std/cmath>)
#include <cuda/std/cmath>
#include <cuda/std/limits>
#define KILN_TEST_HAS_LIBCUXX 1
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace cg = cooperative_groups;

namespace {

using kiln::device;
using kiln::detail::launch_raw;
using kiln::detail::raw_dims;
using kiln::detail::raw_kernel;

//===----------------------------------------------------------------------===//
// Launching
//===----------------------------------------------------------------------===//

/// The host form a launch uses: fibers (run_thread) or, for kernels that do
/// not synchronize, one call per block (run_block).
enum class form { fibers, blocks };

template <class F> struct signature;
template <class... P> struct signature<void (*)(P...)> {
  using values = std::tuple<std::remove_cvref_t<P>...>;
  static constexpr std::uint8_t count = sizeof...(P);
  static constexpr std::uint8_t bytes[sizeof...(P) + 1] = {static_cast<std::uint8_t>(sizeof(P))..., 0};
};

/// The descriptor kilnc would emit for kernel K.
template <auto K> raw_kernel descriptor(const char *name, form f) {
  using sig = signature<decltype(K)>;
  raw_kernel k{};
  k.name = name;
  k.symbol = name;
  k.host = &kiln::cuda_host::run_thread<K>;
  k.host_block = f == form::blocks ? &kiln::cuda_host::run_block<K> : nullptr;
  k.num_params = sig::count;
  k.param_bytes = sig::bytes;
  k.synchronizes = f == form::fibers;
  return k;
}

/// Launches K over grid x block on the host with its arguments converted
/// to the parameter types, as kernelParams.
template <auto K, class... A>
void launch(form f, raw_dims grid, raw_dims block, std::size_t dynamic_shared, A... args) {
  using values_t = typename signature<decltype(K)>::values;
  values_t values(args...);
  std::apply(
      [&](auto &...v) {
        void *params[] = {static_cast<void *>(&v)..., nullptr};
        launch_raw(descriptor<K>("kernel", f), device::host(), grid, block, dynamic_shared, nullptr, params);
      },
      values);
}

std::vector<float> random_floats(std::size_t n, unsigned seed, float lo = -4, float hi = 4) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float &x : v) {
    x = d(rng);
    if (x == 0)
      x = 0.5f;
  }
  return v;
}

std::vector<int> random_ints(std::size_t n, unsigned seed, int lo = -1000, int hi = 1000) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int> v(n);
  for (int &x : v)
    x = d(rng);
  return v;
}

template <class E, class F> std::string message_of(F &&f) {
  try {
    f();
  } catch (const E &e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

constexpr int kBlock = 256;

/// partial[block] = the block's sum: a tree in __shared__ memory.
__global__ void block_sum(const float *x, float *partial, int n) {
  __shared__ float s[kBlock];
  const unsigned int t = threadIdx.x;
  const int i = static_cast<int>(blockIdx.x * blockDim.x + t);
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0)
    partial[blockIdx.x] = s[0];
}

/// The same over 2-D blocks of doubles in dynamic shared memory (kilnc's
/// rewrite of `extern __shared__ double sd[];`).
__global__ void dynamic_sum(const double *x, double *partial, int n) {
  double *const sd = reinterpret_cast<double *>(::kiln::cuda_host::dynamic_shared());
  const unsigned int size = blockDim.x * blockDim.y;
  const unsigned int t = threadIdx.x + threadIdx.y * blockDim.x;
  const int i = static_cast<int>(blockIdx.x * size + t);
  sd[t] = i < n ? x[i] : 0.0;
  __syncthreads();
  for (unsigned int stride = size / 2; stride > 0; stride /= 2) {
    if (t < stride)
      sd[t] += sd[t + stride];
    __syncthreads();
  }
  if (t == 0)
    partial[blockIdx.x] = sd[0];
}

/// kilnc's rewrite of a namespace-scope `extern __shared__ double ns_shared[];`.
constexpr ::kiln::cuda_host::extern_shared<double> ns_shared{};

/// out[i] = x[i] + x[the next thread's i] through namespace-scope dynamic
/// shared memory, used as an array and as a pointer.
__global__ void neighbours(const double *x, double *out) {
  const unsigned int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  ns_shared[t] = x[i];
  __syncthreads();
  const double *p = ns_shared;
  out[i] = *(p + (t + 1) % blockDim.x) + ns_shared[t];
}

/// Per warp: a __shfl_down_sync sum (lane 0 writes it); per thread: the
/// __shfl_xor_sync all-reduce of its 8-lane segment, its 16-lane segment's
/// inclusive __shfl_up_sync scan, and a double2 (two exchanges) broadcast
/// from lane 5.
__global__ void warp_shuffles(const int *x, int *warp_sums, int *segment8, int *scan16, double2 *from5) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int lane = threadIdx.x % warpSize;
  const int v = x[i];
  int s = v;
  for (int offset = 16; offset > 0; offset /= 2)
    s += __shfl_down_sync(0xffffffffu, s, static_cast<unsigned int>(offset));
  if (lane == 0)
    warp_sums[i / 32] = s;
  int t = v;
  for (int mask = 4; mask > 0; mask /= 2)
    t += __shfl_xor_sync(0xffffffffu, t, mask, 8);
  segment8[i] = t;
  int scan = v;
  for (unsigned int delta = 1; delta < 16; delta *= 2) {
    const int up = __shfl_up_sync(0xffffffffu, scan, delta, 16);
    if (lane % 16 >= delta)
      scan += up;
  }
  scan16[i] = scan;
  from5[i] = __shfl_sync(0xffffffffu, make_double2(v, -2.0 * v), 5);
}

/// Votes on blocks whose last warp is partial: per thread its warp's
/// ballot, any, all and activemask of x > 0, and __all_sync(1).
__global__ void votes(const int *x, unsigned int *ballots, int *any, int *all, unsigned int *active, int *all_true) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int p = x[i] > 0;
  const unsigned int mask = __activemask();
  active[i] = mask;
  ballots[i] = __ballot_sync(mask, p);
  any[i] = __any_sync(mask, p);
  all[i] = __all_sync(mask, p);
  all_true[i] = __all_sync(mask, 1);
}

/// Per block and round r (three rounds: a generation each), the count, and
/// and or of x > r * 300 over the block.
__global__ void block_votes(const int *x, int *out) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < 3; ++r) {
    const int p = x[i] > r * 300;
    const int count = __syncthreads_count(p);
    const int all = __syncthreads_and(p);
    const int any = __syncthreads_or(p);
    if (threadIdx.x == 0) {
      out[(blockIdx.x * 3 + r) * 3 + 0] = count;
      out[(blockIdx.x * 3 + r) * 3 + 1] = all;
      out[(blockIdx.x * 3 + r) * 3 + 2] = any;
    }
  }
}

/// A warp-synchronous tree in shared memory, __syncwarp between steps (a
/// rendezvous: without it, a fiber would read a slot before its writer).
__global__ void syncwarp_sum(const int *x, int *out) {
  __shared__ int s[64];
  const unsigned int t = threadIdx.x;
  s[t] = x[blockIdx.x * blockDim.x + t];
  __syncwarp();
  for (unsigned int stride = 16; stride > 0; stride /= 2) {
    const unsigned int lane = t % 32;
    const int other = lane < stride ? s[t + stride] : 0;
    __syncwarp();
    if (lane < stride)
      s[t] += other;
    __syncwarp();
  }
  if (t % 32 == 0)
    out[(blockIdx.x * blockDim.x + t) / 32] = s[t];
}

/// Warp reductions of lanes that are left after lanes >= 20 returned:
/// add, min, max, and, or, xor; and __match_any_sync of x % 4.
__global__ void warp_reduces(const int *x, int *out, unsigned int *match) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = x[i];
  match[i] = __match_any_sync(0xffffffffu, v & 3);
  if (threadIdx.x % 32 >= 20)
    return;
  const unsigned int mask = 0xfffffu;
  const unsigned int u = static_cast<unsigned int>(v);
  int *o = out + i * 6;
  o[0] = __reduce_add_sync(mask, v);
  o[1] = __reduce_min_sync(mask, v);
  o[2] = __reduce_max_sync(mask, v);
  o[3] = static_cast<int>(__reduce_and_sync(mask, u));
  o[4] = static_cast<int>(__reduce_or_sync(mask, u));
  o[5] = static_cast<int>(__reduce_xor_sync(mask, u));
}

/// float atomicMax by atomicCAS on the bits, as CUDA code writes it.
__device__ float atomic_max_float(float *address, float value) {
  int *bits = reinterpret_cast<int *>(address);
  int old = atomicAdd(bits, 0), assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= value)
      break;
    old = atomicCAS(bits, assumed, __float_as_int(value));
  } while (assumed != old);
  return __int_as_float(old);
}

struct counters {
  float fsum;
  int isum;
  unsigned long long usum;
  double dsum;
  float fmax;
  unsigned int inc;
  unsigned int dec;
  int imin, imax;
  unsigned long long umin, umax;
  int sub;
  unsigned int band, bor, bxor;
  int exch;
};

/// Every thread updates the same counters (blocks run in parallel).
__global__ void contention(const int *x, counters *c, unsigned int *inc_old, int *exch_old) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = x[i];
  atomicAdd(&c->fsum, static_cast<float>(v & 7) * 0.25f); // exact in float
  atomicAdd_block(&c->isum, v);
  atomicAdd_system(&c->usum, static_cast<unsigned long long>(v + 2000) << 20);
  atomicAdd(&c->dsum, static_cast<double>(v));
  atomic_max_float(&c->fmax, static_cast<float>(v) * 0.5f);
  inc_old[i] = atomicInc(&c->inc, 99);
  atomicDec(&c->dec, 9);
  atomicMin(&c->imin, v);
  atomicMax(&c->imax, v);
  atomicMin(&c->umin, static_cast<unsigned long long>(v + 5000) * 3);
  atomicMax(&c->umax, static_cast<unsigned long long>(v + 5000) * 3);
  atomicSub(&c->sub, v);
  atomicAnd(&c->band, ~(1u << (i % 32)) | static_cast<unsigned int>(v & 1));
  atomicOr(&c->bor, 1u << (static_cast<unsigned int>(v) % 31));
  atomicXor(&c->bxor, static_cast<unsigned int>(v));
  exch_old[i] = atomicExch(&c->exch, static_cast<int>(i));
}

/// Vector types through a kernel.
__global__ void vectors(const float4 *a, const int2 *b, float4 *out, double2 *d, uchar4 *u) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 v = __ldg(&a[i]);
  const int2 w = b[i];
  out[i] = make_float4(v.w, v.z + 1.0f, v.y * 2.0f, v.x - static_cast<float>(w.x));
  d[i] = make_double2(static_cast<double>(w.x) * w.y, v.x);
  const char3 c = make_char3(static_cast<signed char>(i), 2, 3);
  u[i] = make_uchar4(static_cast<unsigned char>(c.x), static_cast<unsigned char>(c.y + c.z),
                     static_cast<unsigned char>(w.y & 0xff), 7);
}

/// Cooperative groups over 200-thread blocks: the block reversed after
/// sync(), then sums, maxima and ballots of 16-thread tiles (the last tile
/// has 8 threads), shuffles of 8-thread tiles of the tiles.
__global__ void groups(const float *x, float *tile_sums, float *tile_max, unsigned int *tile_ballots, float *t8_first,
                       unsigned int *meta) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ float s[kBlock];
  const unsigned int r = block.thread_rank();
  s[r] = x[blockIdx.x * block.size() + r];
  block.sync();
  const float mine = s[block.size() - 1 - r];
  const cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  const unsigned int t = blockIdx.x * tile.meta_group_size() + tile.meta_group_rank();
  const float sum = cg::reduce(tile, mine, cg::plus<float>());
  const float mx = cg::reduce(tile, mine, cg::greater<float>());
  const unsigned int ballot = tile.ballot(mine > 0);
  if (tile.thread_rank() == 0) {
    tile_sums[t] = sum;
    tile_max[t] = mx;
    tile_ballots[t] = ballot;
  }
  auto t8 = cg::tiled_partition<8>(tile);
  t8_first[blockIdx.x * block.size() + r] = t8.shfl(mine, 0) + t8.shfl_down(mine, 1);
  meta[blockIdx.x * block.size() + r] = t8.meta_group_rank() | t8.meta_group_size() << 4 | tile.any(mine > 3.5f) << 8 |
                                        tile.all(mine > -5.0f) << 9 | tile.thread_rank() << 12;
}

/// Stream compaction with an aggregated atomic: the threads with x > 0
/// form a coalesced group (the others returned); its first thread reserves
/// room for all of them.
__global__ void compact(const float *x, int *out, int *count) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (!(x[i] > 0))
    return;
  cg::coalesced_group g = cg::coalesced_threads();
  int base = 0;
  if (g.thread_rank() == 0)
    base = atomicAdd(count, static_cast<int>(g.size()));
  base = g.shfl(base, 0);
  out[base + static_cast<int>(g.thread_rank())] = i;
}

/// Global ids in 3-D grids of 3-D blocks.
__global__ void indices(unsigned int *ids, unsigned int *fields) {
  const unsigned int tx = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int ty = blockIdx.y * blockDim.y + threadIdx.y;
  const unsigned int tz = blockIdx.z * blockDim.z + threadIdx.z;
  const unsigned int nx = gridDim.x * blockDim.x, ny = gridDim.y * blockDim.y;
  const unsigned int g = tx + nx * (ty + ny * tz);
  ids[g] = g;
  fields[g] =
      threadIdx.x | threadIdx.y << 4 | threadIdx.z << 8 | blockIdx.x << 12 | blockIdx.y << 16 | blockIdx.z << 20;
}

/// GPU-only constructs and traps, reached by thread `which` of block 1.
__global__ void gpu_only_kernel(int what, unsigned int which, long long *sink) {
  if (blockIdx.x != 1 || threadIdx.x != which)
    return;
  switch (what) {
  case 0:
    *sink = clock64();
    break;
  case 1:
    cg::this_grid().sync();
    break;
  case 2: {
    nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> acc;
    nvcuda::wmma::fill_fragment(acc, 0.0f);
    break;
  }
  default:
    __trap();
  }
}

__global__ void saxpy(int n, float a, const float *x, float *y) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n)
    y[i] = a * x[i] + y[i];
}

#ifdef KILN_TEST_HAS_LIBCUXX
__global__ void libcuxx(const float *x, float *y, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n)
    y[i] = cuda::std::sqrt(cuda::std::fabs(x[i])) + cuda::std::numeric_limits<float>::epsilon() +
           cuda::std::fmax(x[i], 0.0f);
}
#endif

//===----------------------------------------------------------------------===//
// Synchronization
//===----------------------------------------------------------------------===//

TEST(CudaHost, SharedMemoryBlockReduction) {
  const int n = 100000; // the last block is partial
  const std::vector<float> x = random_floats(n, 1);
  const int blocks = (n + kBlock - 1) / kBlock;
  std::vector<float> partial(blocks, -1.0f);
  launch<&block_sum>(form::fibers, {static_cast<unsigned>(blocks)}, {kBlock}, 0, x.data(), partial.data(), n);
  for (int b = 0; b < blocks; ++b) {
    double ref = 0;
    for (int i = b * kBlock; i < std::min(n, (b + 1) * kBlock); ++i)
      ref += x[i];
    ASSERT_NEAR(partial[b], ref, 1e-3) << "block " << b;
  }
}

TEST(CudaHost, DynamicSharedMemoryReduction) {
  const int n = 64 * 4 * 37 - 100;
  std::vector<double> x(n);
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> d(-1, 1);
  for (double &v : x)
    v = d(rng);
  const int blocks = 37;
  std::vector<double> partial(blocks, -1.0);
  launch<&dynamic_sum>(form::fibers, {blocks}, {64, 4}, 256 * sizeof(double), x.data(), partial.data(), n);
  for (int b = 0; b < blocks; ++b) {
    double ref = 0;
    for (int i = b * 256; i < std::min(n, (b + 1) * 256); ++i)
      ref += x[i];
    ASSERT_NEAR(partial[b], ref, 1e-12) << "block " << b;
  }
}

TEST(CudaHost, NamespaceScopeExternShared) {
  const unsigned int blocks = 5, block = 48, n = blocks * block;
  std::vector<double> x(n), out(n, -1.0);
  std::mt19937 rng(18);
  std::uniform_real_distribution<double> d(-1, 1);
  for (double &v : x)
    v = d(rng);
  launch<&neighbours>(form::fibers, {blocks}, {block}, block * sizeof(double), x.data(), out.data());
  for (unsigned int i = 0; i < n; ++i)
    EXPECT_EQ(out[i], x[i / block * block + (i % block + 1) % block] + x[i]) << i;
}

TEST(CudaHost, WarpShuffles) {
  const unsigned int blocks = 5, block = 96, n = blocks * block;
  const std::vector<int> x = random_ints(n, 3);
  std::vector<int> warp_sums(n / 32), segment8(n), scan16(n);
  std::vector<double2> from5(n);
  launch<&warp_shuffles>(form::fibers, {blocks}, {block}, 0, x.data(), warp_sums.data(), segment8.data(), scan16.data(),
                         from5.data());
  for (unsigned int w = 0; w < n / 32; ++w) {
    long long s = 0;
    for (unsigned int l = 0; l < 32; ++l)
      s += x[w * 32 + l];
    EXPECT_EQ(warp_sums[w], s) << "warp " << w;
  }
  for (unsigned int i = 0; i < n; ++i) {
    long long s8 = 0, scan = 0;
    for (unsigned int j = i / 8 * 8; j < i / 8 * 8 + 8; ++j)
      s8 += x[j];
    for (unsigned int j = i / 16 * 16; j <= i; ++j)
      scan += x[j];
    EXPECT_EQ(segment8[i], s8) << i;
    EXPECT_EQ(scan16[i], scan) << i;
    const int v5 = x[i / 32 * 32 + 5];
    EXPECT_EQ(from5[i].x, v5) << i;
    EXPECT_EQ(from5[i].y, -2.0 * v5) << i;
  }
}

TEST(CudaHost, VotesOnAPartialLastWarp) {
  const unsigned int blocks = 3, block = 80, n = blocks * block; // warps of 32, 32 and 16 threads
  const std::vector<int> x = random_ints(n, 4);
  std::vector<unsigned int> ballots(n), active(n);
  std::vector<int> any(n), all(n), all_true(n);
  launch<&votes>(form::fibers, {blocks}, {block}, 0, x.data(), ballots.data(), any.data(), all.data(), active.data(),
                 all_true.data());
  for (unsigned int i = 0; i < n; ++i) {
    const unsigned int t = i % block, first = i - t % 32;
    const unsigned int lanes = std::min(32u, block - t / 32 * 32);
    unsigned int ref = 0;
    for (unsigned int l = 0; l < lanes; ++l)
      ref |= static_cast<unsigned int>(x[first + l] > 0) << l;
    const unsigned int exists = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
    EXPECT_EQ(active[i], exists) << i;
    EXPECT_EQ(ballots[i], ref) << i;
    EXPECT_EQ(any[i], ref != 0) << i;
    EXPECT_EQ(all[i], ref == exists) << i;
    EXPECT_EQ(all_true[i], 1) << i;
  }
}

TEST(CudaHost, SyncthreadsCountAndOr) {
  const unsigned int blocks = 6, block = 200;
  std::vector<int> x = random_ints(blocks * block, 5);
  for (unsigned int t = 0; t < block; ++t)
    x[4 * block + t] = 1000; // a block where every predicate holds
  std::vector<int> out(blocks * 3 * 3, -1);
  launch<&block_votes>(form::fibers, {blocks}, {block}, 0, x.data(), out.data());
  for (unsigned int b = 0; b < blocks; ++b)
    for (int r = 0; r < 3; ++r) {
      int count = 0;
      for (unsigned int t = 0; t < block; ++t)
        count += x[b * block + t] > r * 300;
      const int *o = &out[(b * 3 + static_cast<unsigned int>(r)) * 3];
      EXPECT_EQ(o[0], count) << b << " " << r;
      EXPECT_EQ(o[1], count == static_cast<int>(block)) << b << " " << r;
      EXPECT_EQ(o[2], count > 0) << b << " " << r;
    }
}

TEST(CudaHost, SyncwarpOrdersWarpSynchronousCode) {
  const unsigned int blocks = 4, block = 64;
  const std::vector<int> x = random_ints(blocks * block, 6);
  std::vector<int> out(blocks * block / 32);
  launch<&syncwarp_sum>(form::fibers, {blocks}, {block}, 0, x.data(), out.data());
  for (unsigned int w = 0; w < out.size(); ++w)
    EXPECT_EQ(out[w], std::accumulate(x.begin() + w * 32, x.begin() + w * 32 + 32, 0)) << w;
}

TEST(CudaHost, WarpReductionsAndMatch) {
  const unsigned int blocks = 3, block = 64, n = blocks * block;
  const std::vector<int> x = random_ints(n, 7);
  std::vector<int> out(n * 6, -7);
  std::vector<unsigned int> match(n);
  launch<&warp_reduces>(form::fibers, {blocks}, {block}, 0, x.data(), out.data(), match.data());
  for (unsigned int i = 0; i < n; ++i) {
    const unsigned int first = i / 32 * 32;
    unsigned int same = 0;
    for (unsigned int l = 0; l < 32; ++l)
      same |= static_cast<unsigned int>((x[first + l] & 3) == (x[i] & 3)) << l;
    EXPECT_EQ(match[i], same) << i;
    if (i % 32 >= 20)
      continue;
    int add = 0, mn = x[first], mx = x[first];
    unsigned int band = ~0u, bor = 0, bxor = 0;
    for (unsigned int l = 0; l < 20; ++l) {
      const int v = x[first + l];
      add += v, mn = std::min(mn, v), mx = std::max(mx, v);
      band &= static_cast<unsigned int>(v), bor |= static_cast<unsigned int>(v), bxor ^= static_cast<unsigned int>(v);
    }
    const int *o = &out[i * 6];
    EXPECT_EQ(o[0], add) << i;
    EXPECT_EQ(o[1], mn) << i;
    EXPECT_EQ(o[2], mx) << i;
    EXPECT_EQ(static_cast<unsigned int>(o[3]), band) << i;
    EXPECT_EQ(static_cast<unsigned int>(o[4]), bor) << i;
    EXPECT_EQ(static_cast<unsigned int>(o[5]), bxor) << i;
  }
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

TEST(CudaHost, AtomicsUnderContention) {
  const unsigned int blocks = 64, block = 256, n = blocks * block;
  const std::vector<int> x = random_ints(n, 8);
  for (form f : {form::blocks, form::fibers}) {
    counters c{};
    c.fmax = -1e30f;
    c.imin = std::numeric_limits<int>::max();
    c.imax = std::numeric_limits<int>::min();
    c.umin = ~0ull;
    c.band = ~0u;
    c.exch = -1;
    std::vector<unsigned int> inc_old(n);
    std::vector<int> exch_old(n);
    launch<&contention>(f, {blocks}, {block}, 0, x.data(), &c, inc_old.data(), exch_old.data());

    double fsum = 0, dsum = 0;
    long long isum = 0;
    unsigned long long usum = 0;
    unsigned int band = ~0u, bor = 0, bxor = 0;
    for (unsigned int i = 0; i < n; ++i) {
      const int v = x[i];
      fsum += (v & 7) * 0.25, dsum += v, isum += v;
      usum += static_cast<unsigned long long>(v + 2000) << 20;
      band &= ~(1u << (i % 32)) | static_cast<unsigned int>(v & 1);
      bor |= 1u << (static_cast<unsigned int>(v) % 31);
      bxor ^= static_cast<unsigned int>(v);
    }
    const int mn = *std::min_element(x.begin(), x.end()), mx = *std::max_element(x.begin(), x.end());
    EXPECT_EQ(c.fsum, static_cast<float>(fsum));
    EXPECT_EQ(c.isum, isum);
    EXPECT_EQ(c.usum, usum);
    EXPECT_EQ(c.dsum, dsum); // integers: exact in any order
    EXPECT_EQ(c.fmax, static_cast<float>(mx) * 0.5f);
    EXPECT_EQ(c.imin, mn);
    EXPECT_EQ(c.imax, mx);
    EXPECT_EQ(c.umin, static_cast<unsigned long long>(mn + 5000) * 3);
    EXPECT_EQ(c.umax, static_cast<unsigned long long>(mx + 5000) * 3);
    EXPECT_EQ(c.sub, -isum);
    EXPECT_EQ(c.band, band);
    EXPECT_EQ(c.bor, bor);
    EXPECT_EQ(c.bxor, bxor);
    // atomicInc(.., 99) wraps at 100: each old value 0..99 as often as n increments give it.
    EXPECT_EQ(c.inc, n % 100);
    std::vector<int> seen(100, 0);
    for (unsigned int v : inc_old) {
      ASSERT_LT(v, 100u);
      ++seen[v];
    }
    for (unsigned int v = 0; v < 100; ++v)
      EXPECT_EQ(seen[v], static_cast<int>(n / 100 + (v < n % 100))) << v;
    // atomicDec(.., 9) from 0: 9, 8, ..., 0, 9, ...
    EXPECT_EQ(c.dec, (10 - n % 10) % 10);
    // atomicExch: the old values and the final one are -1 and every index, once.
    exch_old.push_back(c.exch);
    std::sort(exch_old.begin(), exch_old.end());
    for (unsigned int i = 0; i <= n; ++i)
      ASSERT_EQ(exch_old[i], static_cast<int>(i) - 1);
  }
}

TEST(CudaHost, AtomicFunctionsOneByOne) {
  unsigned int u = 5;
  EXPECT_EQ(atomicInc(&u, 5), 5u);
  EXPECT_EQ(u, 0u);
  EXPECT_EQ(atomicInc(&u, 5), 0u);
  EXPECT_EQ(u, 1u);
  u = 7;
  EXPECT_EQ(atomicDec(&u, 5), 7u); // above val: wraps to val
  EXPECT_EQ(u, 5u);
  u = 0;
  atomicDec(&u, 5);
  EXPECT_EQ(u, 5u);
  unsigned short h = 3;
  EXPECT_EQ(atomicCAS(&h, static_cast<unsigned short>(3), static_cast<unsigned short>(9)), 3);
  EXPECT_EQ(h, 9);
  EXPECT_EQ(atomicCAS(&h, static_cast<unsigned short>(3), static_cast<unsigned short>(1)), 9);
  EXPECT_EQ(h, 9);
  unsigned long long ull = 10;
  EXPECT_EQ(atomicCAS_block(&ull, 10ull, 20ull), 10ull);
  EXPECT_EQ(ull, 20ull);
  float f = 1.5f;
  EXPECT_EQ(atomicExch(&f, 2.5f), 1.5f);
  float4 v4{1, 2, 3, 4};
  const float4 old = atomicAdd(&v4, make_float4(1, 1, 1, 1));
  EXPECT_EQ(old.w, 4.0f);
  EXPECT_EQ(v4.x, 2.0f);
  EXPECT_EQ(v4.w, 5.0f);
}

//===----------------------------------------------------------------------===//
// Threads, types
//===----------------------------------------------------------------------===//

TEST(CudaHost, IndicesInBothForms) {
  const raw_dims grid{3, 2, 2}, block{4, 3, 2};
  const unsigned int n = 3 * 2 * 2 * 4 * 3 * 2;
  for (form f : {form::blocks, form::fibers}) {
    std::vector<unsigned int> ids(n, ~0u), fields(n, ~0u);
    launch<&indices>(f, grid, block, 0, ids.data(), fields.data());
    for (unsigned int g = 0; g < n; ++g) {
      ASSERT_EQ(ids[g], g);
      const unsigned int tx = g % 12, ty = g / 12 % 6, tz = g / 72;
      EXPECT_EQ(fields[g], tx % 4 | ty % 3 << 4 | tz % 2 << 8 | tx / 4 << 12 | ty / 3 << 16 | tz / 2 << 20) << g;
    }
  }
}

TEST(CudaHost, VectorTypes) {
  static_assert(sizeof(float4) == 16 && alignof(float4) == 16);
  static_assert(sizeof(double2) == 16 && alignof(double2) == 16);
  static_assert(sizeof(float3) == 12 && alignof(float3) == 4);
  static_assert(alignof(float2) == 8 && alignof(int2) == 8 && alignof(int4) == 16 && alignof(uint3) == 4);
  static_assert(sizeof(char3) == 3 && alignof(char2) == 2 && alignof(uchar4) == 4);
  static_assert(alignof(short2) == 4 && alignof(ushort4) == 8 && alignof(short3) == 2);
  static_assert(alignof(long2) == 16 && alignof(longlong2) == 16 && alignof(ulonglong4) == 16);
  static_assert(alignof(double4_32a) == 32 && alignof(double4) == 16 && sizeof(double3) == 24);
  constexpr dim3 d(4);
  static_assert(d.x == 4 && d.y == 1 && d.z == 1);
  constexpr uint3 u = dim3(2, 3);
  static_assert(u.x == 2 && u.y == 3 && u.z == 1);

  const unsigned int n = 96;
  const std::vector<float> r = random_floats(n * 4, 9);
  std::vector<float4> a(n);
  std::vector<int2> b(n);
  for (unsigned int i = 0; i < n; ++i) {
    a[i] = make_float4(r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
    b[i] = make_int2(static_cast<int>(i) - 40, static_cast<int>(3 * i + 1));
  }
  std::vector<float4> out(n);
  std::vector<double2> dd(n);
  std::vector<uchar4> uu(n);
  launch<&vectors>(form::blocks, {3}, {32}, 0, a.data(), b.data(), out.data(), dd.data(), uu.data());
  for (unsigned int i = 0; i < n; ++i) {
    EXPECT_EQ(out[i].x, a[i].w);
    EXPECT_EQ(out[i].y, a[i].z + 1.0f);
    EXPECT_EQ(out[i].z, a[i].y * 2.0f);
    EXPECT_EQ(out[i].w, a[i].x - static_cast<float>(b[i].x));
    EXPECT_EQ(dd[i].x, static_cast<double>(b[i].x) * b[i].y);
    EXPECT_EQ(dd[i].y, a[i].x);
    EXPECT_EQ(uu[i].x, static_cast<unsigned char>(i));
    EXPECT_EQ(uu[i].y, 5);
    EXPECT_EQ(uu[i].z, static_cast<unsigned char>(b[i].y & 0xff));
    EXPECT_EQ(uu[i].w, 7);
  }
}

//===----------------------------------------------------------------------===//
// Cooperative groups
//===----------------------------------------------------------------------===//

TEST(CudaHost, CooperativeGroupsBlockAndTiles) {
  const unsigned int blocks = 4, block = 200, tiles = (block + 15) / 16, n = blocks * block;
  const std::vector<float> x = random_floats(n, 10);
  std::vector<float> sums(blocks * tiles), maxes(blocks * tiles), t8(n);
  std::vector<unsigned int> ballots(blocks * tiles), meta(n);
  launch<&groups>(form::fibers, {blocks}, {block}, 0, x.data(), sums.data(), maxes.data(), ballots.data(), t8.data(),
                  meta.data());
  auto mine = [&](unsigned int b, unsigned int r) { return x[b * block + (block - 1 - r)]; };
  for (unsigned int b = 0; b < blocks; ++b) {
    for (unsigned int t = 0; t < tiles; ++t) {
      double sum = 0;
      float mx = -1e30f;
      unsigned int ballot = 0;
      for (unsigned int r = t * 16; r < std::min(block, t * 16 + 16); ++r) {
        sum += mine(b, r);
        mx = std::max(mx, mine(b, r));
        ballot |= static_cast<unsigned int>(mine(b, r) > 0) << (r - t * 16);
      }
      EXPECT_NEAR(sums[b * tiles + t], sum, 1e-4) << b << " " << t;
      EXPECT_EQ(maxes[b * tiles + t], mx) << b << " " << t;
      EXPECT_EQ(ballots[b * tiles + t], ballot) << b << " " << t;
    }
    for (unsigned int r = 0; r < block; ++r) {
      const unsigned int first = r / 8 * 8;
      const float down = r % 8 < 7 && r + 1 < block ? mine(b, r + 1) : mine(b, r);
      EXPECT_EQ(t8[b * block + r], mine(b, first) + down) << b << " " << r;
      bool any = false, all = true;
      for (unsigned int q = r / 16 * 16; q < std::min(block, r / 16 * 16 + 16); ++q)
        any |= mine(b, q) > 3.5f, all &= mine(b, q) > -5.0f;
      const unsigned int m = meta[b * block + r];
      EXPECT_EQ(m & 15, (r % 16) / 8) << r;
      EXPECT_EQ(m >> 4 & 15, 2u) << r;
      EXPECT_EQ(m >> 8 & 1, any ? 1u : 0u) << r;
      EXPECT_EQ(m >> 9 & 1, all ? 1u : 0u) << r;
      EXPECT_EQ(m >> 12, r % 16) << r;
    }
  }
}

TEST(CudaHost, CoalescedGroupAggregatesAnAtomic) {
  const unsigned int blocks = 8, block = 128, n = blocks * block;
  const std::vector<float> x = random_floats(n, 11);
  std::vector<int> out(n, -1);
  int count = 0;
  launch<&compact>(form::fibers, {blocks}, {block}, 0, x.data(), out.data(), &count);
  std::vector<int> ref;
  for (unsigned int i = 0; i < n; ++i)
    if (x[i] > 0)
      ref.push_back(static_cast<int>(i));
  ASSERT_EQ(count, static_cast<int>(ref.size()));
  out.resize(static_cast<std::size_t>(count));
  std::sort(out.begin(), out.end());
  EXPECT_EQ(out, ref);
}

//===----------------------------------------------------------------------===//
// GPU-only constructs
//===----------------------------------------------------------------------===//

TEST(CudaHost, GpuOnlyConstructsThrowNamingThemselves) {
  long long sink = 0;
  const struct {
    int what;
    const char *names;
  } cases[] = {{0, "clock64 cannot run on the host"},
               {1, "cooperative_groups grid sync cannot run on the host"},
               {2, "tensor cores (nvcuda::wmma) cannot run on the host"}};
  for (form f : {form::blocks, form::fibers})
    for (const auto &c : cases) {
      const std::string msg =
          message_of<kiln::device_error>([&] { launch<&gpu_only_kernel>(f, {3}, {64}, 0, c.what, 37u, &sink); });
      EXPECT_TRUE(contains(msg, c.names)) << msg;
    }
  EXPECT_EQ(message_of<kiln::error>([&] { launch<&gpu_only_kernel>(form::fibers, {3}, {64}, 0, 3, 5u, &sink); }),
            "__trap() called in a kernel");
  EXPECT_THROW(kiln::cuda_host::gpu_only("x"), kiln::device_error);
}

//===----------------------------------------------------------------------===//
// Math
//===----------------------------------------------------------------------===//

TEST(CudaHost, ErfinvAndErfcinvInvertErfAndErfc) {
  for (int k = -999; k <= 999; ++k) {
    const float xf = static_cast<float>(k) / 1000.0f;
    EXPECT_NEAR(std::erf(erfinvf(xf)), xf, 3e-7f) << xf;
    const double xd = k / 1000.0 + 1e-4 * std::sin(k);
    EXPECT_NEAR(std::erf(erfinv(xd)), xd, 4e-16) << xd;
  }
  for (double q = 1e-300; q < 2; q *= 1.7) {
    // erfc(y) has the relative condition number 2y^2 (in the tail): the rounding of y counts that much.
    const double y = erfcinv(q);
    EXPECT_NEAR(std::erfc(y) / q, 1.0, 5e-16 * (2 + 2 * y * y)) << q;
  }
  for (double q : {0.5, 1.0, 1.5, 1.999999})
    EXPECT_NEAR(std::erfc(erfcinv(q)), q, 4e-16) << q;
  EXPECT_EQ(erfinvf(0.0f), 0.0f);
  EXPECT_EQ(erfinv(1.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(erfinv(-1.0), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(erfinvf(1.5f)));
  EXPECT_EQ(erfcinvf(0.0f), std::numeric_limits<float>::infinity());
  EXPECT_NEAR(erfinv(0.5), 0.4769362762044698733814183536431305598, 1e-16);
  EXPECT_NEAR(normcdfinv(0.975), 1.959963984540054, 1e-14);
  EXPECT_NEAR(normcdf(1.959963984540054), 0.975, 1e-15);
  EXPECT_EQ(normcdff(0.0f), 0.5f);
  EXPECT_NEAR(normcdfinvf(0.025f), -1.959964f, 1e-6f);
}

TEST(CudaHost, MathFunctionsAgainstCmath) {
  const std::vector<float> xs = random_floats(2000, 12, -20, 20);
  for (float x : xs) {
    const float ax = std::fabs(x);
    EXPECT_NEAR(rsqrtf(ax), 1.0 / std::sqrt(static_cast<double>(ax)), 1.2e-7 / std::sqrt(ax)) << x;
    EXPECT_NEAR(rcbrtf(x), 1.0 / std::cbrt(static_cast<double>(x)), 1.2e-7 / std::cbrt(ax)) << x;
    const double px = 3.141592653589793238462643383279502884 * static_cast<double>(x);
    EXPECT_NEAR(sinpif(x), std::sin(px), 1e-7) << x;
    EXPECT_NEAR(cospif(x), std::cos(px), 1e-7) << x;
    float s = 0, c = 0;
    sincospif(x, &s, &c);
    EXPECT_EQ(s, sinpif(x));
    EXPECT_EQ(c, cospif(x));
    EXPECT_EQ(__expf(x), std::exp(x));
    EXPECT_EQ(__sinf(x), std::sin(x));
    EXPECT_EQ(__powf(ax, 0.5f), std::pow(ax, 0.5f));
    __sincosf(x, &s, &c);
    EXPECT_EQ(s, std::sin(x));
    EXPECT_EQ(c, std::cos(x));
    EXPECT_EQ(__fdividef(x, 3.0f), x / 3.0f);
  }
  EXPECT_EQ(sinpif(0.5f), 1.0f);
  EXPECT_EQ(sinpif(1.0f), 0.0f);
  EXPECT_EQ(sinpif(-1.5f), 1.0f);
  EXPECT_EQ(cospif(0.5f), 0.0f);
  EXPECT_EQ(cospif(1.0f), -1.0f);
  EXPECT_EQ(sinpi(1e17), 0.0);
  EXPECT_EQ(rsqrtf(4.0f), 0.5f);
  EXPECT_EQ(rsqrt(0.25), 2.0);
  EXPECT_EQ(rcbrt(8.0), 0.5);
  EXPECT_EQ(exp10f(2.0f), 100.0f);
  EXPECT_EQ(__exp10f(3.0f), 1000.0f);
  EXPECT_EQ(__saturatef(1.5f), 1.0f);
  EXPECT_EQ(__saturatef(-0.5f), 0.0f);
  EXPECT_EQ(__saturatef(0.25f), 0.25f);
  EXPECT_EQ(__saturatef(std::numeric_limits<float>::quiet_NaN()), 0.0f);
  EXPECT_NEAR(norm3df(2, 3, 6), 7.0f, 1e-6f);
  EXPECT_NEAR(rhypotf(3, 4), 0.2f, 1e-8f);
  // CUDA's min/max: non-templates, unsigned for mixed signs, fmin/fmax for floats.
  EXPECT_EQ(min(3, 4), 3);
  EXPECT_EQ(max(-1, 1u), 0xffffffffu);
  EXPECT_EQ(min(-1, 1u), 1u);
  EXPECT_EQ(max(2.0f, 1.0), 2.0);
  EXPECT_EQ(max(std::numeric_limits<float>::quiet_NaN(), 1.0f), 1.0f);
  EXPECT_EQ(min(5ll, 7ll), 5ll);
  EXPECT_EQ(umax(3u, 9u), 9u);
  EXPECT_EQ(ullmin(3ull, 9ull), 3ull);
  {
    using namespace std;
    EXPECT_EQ(min(2, 3), 2); // ::min(int, int) is a better match than std::min<int>
  }
}

TEST(CudaHost, ConversionsRoundAsNamed) {
  const float ties[] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 3.49f, -3.51f};
  const int rn[] = {0, 2, 2, 0, -2, -2, 3, -4};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(__float2int_rn(ties[i]), rn[i]) << ties[i];
    EXPECT_EQ(__float2int_rz(ties[i]), static_cast<int>(std::trunc(ties[i])));
    EXPECT_EQ(__float2int_ru(ties[i]), static_cast<int>(std::ceil(ties[i])));
    EXPECT_EQ(__float2int_rd(ties[i]), static_cast<int>(std::floor(ties[i])));
    EXPECT_EQ(__double2ll_rn(static_cast<double>(ties[i])), rn[i]);
  }
  EXPECT_EQ(__float2int_rn(3e9f), std::numeric_limits<int>::max());
  EXPECT_EQ(__float2int_rn(-3e9f), std::numeric_limits<int>::min());
  EXPECT_EQ(__float2int_rz(std::numeric_limits<float>::quiet_NaN()), 0);
  EXPECT_EQ(__float2uint_rn(-1.0f), 0u);
  EXPECT_EQ(__float2uint_ru(4294967296.0f), 0xffffffffu);
  EXPECT_EQ(__float2ull_rd(1e30f), ~0ull);
  EXPECT_EQ(__float2ll_rd(-0.5f), -1);
  EXPECT_EQ(__double2uint_rz(7.9), 7u);
  EXPECT_EQ(__int2float_rn(16777217), 16777216.0f);
  EXPECT_EQ(__int2float_rz(16777219), 16777218.0f);
  EXPECT_EQ(__int2float_ru(16777217), 16777218.0f);
  EXPECT_EQ(__int2float_rd(-16777217), -16777218.0f);
  EXPECT_EQ(__uint2float_rn(0xffffffffu), 4294967296.0f);
  EXPECT_EQ(__ull2float_rz(~0ull), std::nextafter(18446744073709551616.0f, 0.0f));
  EXPECT_EQ(__ll2double_ru((1ll << 53) + 1), 9007199254740994.0);
  EXPECT_EQ(__ll2double_rd((1ll << 53) + 1), 9007199254740992.0);
  EXPECT_EQ(__double2float_rz(1.0 + 0x1p-30), 1.0f);
  EXPECT_EQ(__double2float_ru(1.0 + 0x1p-30), std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(__double2float_rd(-1.0 - 0x1p-30), std::nextafter(-1.0f, -2.0f));
  EXPECT_EQ(__double2float_rz(1e300), std::numeric_limits<float>::max());
  EXPECT_EQ(__float_as_int(1.0f), 0x3f800000);
  EXPECT_EQ(__int_as_float(0x40000000), 2.0f);
  EXPECT_EQ(__float_as_uint(-0.0f), 0x80000000u);
  EXPECT_EQ(__double_as_longlong(1.0), 0x3ff0000000000000ll);
  EXPECT_EQ(__longlong_as_double(0x4000000000000000ll), 2.0);
  const double d = -123.456e78;
  EXPECT_EQ(__hiloint2double(__double2hiint(d), __double2loint(d)), d);
  EXPECT_EQ(__double2hiint(1.0), 0x3ff00000);
}

// The references run with the rounding mode set; volatile keeps the
// operations after the fesetround call.
[[gnu::noinline]] float ref_fadd(float a, float b) {
  volatile float x = a, y = b;
  return x + y;
}
[[gnu::noinline]] float ref_fmul(float a, float b) {
  volatile float x = a, y = b;
  return x * y;
}
[[gnu::noinline]] float ref_fdiv(float a, float b) {
  volatile float x = a, y = b;
  return x / y;
}
[[gnu::noinline]] float ref_fsqrt(float a) {
  volatile float x = a;
  return std::sqrt(x);
}
[[gnu::noinline]] float ref_fmaf(float a, float b, float c) {
  volatile float x = a, y = b, z = c;
  return std::fma(x, y, z);
}
[[gnu::noinline]] double ref_dadd(double a, double b) {
  volatile double x = a, y = b;
  return x + y;
}
[[gnu::noinline]] double ref_dmul(double a, double b) {
  volatile double x = a, y = b;
  return x * y;
}
[[gnu::noinline]] double ref_ddiv(double a, double b) {
  volatile double x = a, y = b;
  return x / y;
}
[[gnu::noinline]] double ref_dsqrt(double a) {
  volatile double x = a;
  return std::sqrt(x);
}
[[gnu::noinline]] double ref_dfma(double a, double b, double c) {
  volatile double x = a, y = b, z = c;
  return std::fma(x, y, z);
}

template <class T> bool same_bits(T a, T b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

TEST(CudaHost, DirectedRoundingIntrinsicsMatchFesetround) {
  std::mt19937_64 rng(13);
  auto random_float = [&](int max_exp) {
    std::uniform_int_distribution<int> e(-max_exp, max_exp);
    std::uniform_real_distribution<float> m(1.0f, 2.0f);
    return (rng() & 1 ? -1.0f : 1.0f) * std::ldexp(m(rng), e(rng));
  };
  auto random_double = [&](int max_exp) {
    std::uniform_int_distribution<int> e(-max_exp, max_exp);
    std::uniform_real_distribution<double> m(1.0, 2.0);
    return (rng() & 1 ? -1.0 : 1.0) * std::ldexp(m(rng), e(rng));
  };
  std::vector<float> fa, fb, fc;
  std::vector<double> da, db, dc;
  for (int i = 0; i < 4000; ++i) {
    const int fe = i % 4 == 0 ? 126 : 20; // some overflow, underflow into subnormals, far-apart operands
    fa.push_back(random_float(fe)), fb.push_back(random_float(fe)), fc.push_back(random_float(fe));
    da.push_back(random_double(200)), db.push_back(random_double(200)), dc.push_back(random_double(200));
  }
  // Exact results, zero sums, overflow.
  const float fmax = std::numeric_limits<float>::max();
  const double dmax = std::numeric_limits<double>::max();
  for (float v : {1.0f, 2.0f, 0.75f, fmax}) {
    fa.push_back(v), fb.push_back(-v), fc.push_back(v * 0.5f);
    fa.push_back(v), fb.push_back(v), fc.push_back(-v);
  }
  for (double v : {1.0, 3.0, dmax}) {
    da.push_back(v), db.push_back(-v), dc.push_back(-v * 0.5);
    da.push_back(v), db.push_back(v), dc.push_back(v);
  }

  const int modes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
  using f2 = float (*)(float, float);
  using d2 = double (*)(double, double);
  const f2 fadd[] = {__fadd_rn, __fadd_rz, __fadd_ru, __fadd_rd}, fsub[] = {__fsub_rn, __fsub_rz, __fsub_ru, __fsub_rd};
  const f2 fmul[] = {__fmul_rn, __fmul_rz, __fmul_ru, __fmul_rd}, fdiv[] = {__fdiv_rn, __fdiv_rz, __fdiv_ru, __fdiv_rd};
  const d2 dadd[] = {__dadd_rn, __dadd_rz, __dadd_ru, __dadd_rd}, dsub[] = {__dsub_rn, __dsub_rz, __dsub_ru, __dsub_rd};
  const d2 dmul[] = {__dmul_rn, __dmul_rz, __dmul_ru, __dmul_rd}, ddiv[] = {__ddiv_rn, __ddiv_rz, __ddiv_ru, __ddiv_rd};
  float (*const fsqrt[])(float) = {__fsqrt_rn, __fsqrt_rz, __fsqrt_ru, __fsqrt_rd};
  float (*const frcp[])(float) = {__frcp_rn, __frcp_rz, __frcp_ru, __frcp_rd};
  double (*const dsqrt[])(double) = {__dsqrt_rn, __dsqrt_rz, __dsqrt_ru, __dsqrt_rd};
  double (*const drcp[])(double) = {__drcp_rn, __drcp_rz, __drcp_ru, __drcp_rd};
  float (*const ffma[])(float, float, float) = {__fmaf_rn, __fmaf_rz, __fmaf_ru, __fmaf_rd};
  double (*const dfma[])(double, double, double) = {__fma_rn, __fma_rz, __fma_ru, __fma_rd};

  int failures = 0;
  for (int m = 0; m < 4; ++m) {
    for (std::size_t i = 0; i < fa.size(); ++i) {
      const float a = fa[i], b = fb[i], c = fc[i];
      std::fesetround(modes[m]);
      const float r[] = {ref_fadd(a, b),          ref_fadd(a, -b),   ref_fmul(a, b),   ref_fdiv(a, b),
                         ref_fsqrt(std::fabs(a)), ref_fdiv(1.0f, a), ref_fmaf(a, b, c)};
      std::fesetround(FE_TONEAREST);
      const float got[] = {fadd[m](a, b),          fsub[m](a, b), fmul[m](a, b),   fdiv[m](a, b),
                           fsqrt[m](std::fabs(a)), frcp[m](a),    ffma[m](a, b, c)};
      for (int k = 0; k < 7; ++k)
        if (!same_bits(got[k], r[k]) && ++failures < 20)
          ADD_FAILURE() << "float op " << k << " mode " << m << ": " << a << ", " << b << ", " << c << " gives "
                        << got[k] << ", fesetround " << r[k];
    }
    for (std::size_t i = 0; i < da.size(); ++i) {
      const double a = da[i], b = db[i], c = dc[i];
      std::fesetround(modes[m]);
      const double r[] = {ref_dadd(a, b),          ref_dadd(a, -b),  ref_dmul(a, b),   ref_ddiv(a, b),
                          ref_dsqrt(std::fabs(a)), ref_ddiv(1.0, a), ref_dfma(a, b, c)};
      std::fesetround(FE_TONEAREST);
      const double got[] = {dadd[m](a, b),          dsub[m](a, b), dmul[m](a, b),   ddiv[m](a, b),
                            dsqrt[m](std::fabs(a)), drcp[m](a),    dfma[m](a, b, c)};
      for (int k = 0; k < 7; ++k)
        if (!same_bits(got[k], r[k]) && ++failures < 20)
          ADD_FAILURE() << "double op " << k << " mode " << m << ": " << a << ", " << b << ", " << c << " gives "
                        << got[k] << ", fesetround " << r[k];
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST(CudaHost, IntegerIntrinsics) {
  EXPECT_EQ(__brev(1u), 0x80000000u);
  EXPECT_EQ(__brev(0x12345678u), 0x1e6a2c48u);
  EXPECT_EQ(__brevll(1ull), 0x8000000000000000ull);
  EXPECT_EQ(__brevll(0x0123456789abcdefull), 0xf7b3d591e6a2c480ull);
  EXPECT_EQ(__byte_perm(0x33221100u, 0x77665544u, 0x0123u), 0x00112233u);
  EXPECT_EQ(__byte_perm(0x33221100u, 0x77665544u, 0x7654u), 0x77665544u);
  EXPECT_EQ(__byte_perm(0x33221100u, 0x77665544u, 0x5410u), 0x55441100u);
  EXPECT_EQ(__byte_perm(0x332211aau, 0x77665544u, 0x8888u), 0xaaaaaaaau); // only 3 bits of a selector count
  EXPECT_EQ(__clz(0), 32);
  EXPECT_EQ(__clz(1), 31);
  EXPECT_EQ(__clz(-1), 0);
  EXPECT_EQ(__clzll(1), 63);
  EXPECT_EQ(__clzll(0), 64);
  EXPECT_EQ(__ffs(0), 0);
  EXPECT_EQ(__ffs(8), 4);
  EXPECT_EQ(__ffs(std::numeric_limits<int>::min()), 32);
  EXPECT_EQ(__ffsll(1ll << 40), 41);
  EXPECT_EQ(__popc(0xf0f0u), 8);
  EXPECT_EQ(__popcll(~0ull), 64);
  EXPECT_EQ(__funnelshift_l(0x89abcdefu, 0x01234567u, 8), 0x23456789u);
  EXPECT_EQ(__funnelshift_l(0x89abcdefu, 0x01234567u, 40), 0x23456789u);
  EXPECT_EQ(__funnelshift_lc(0x89abcdefu, 0x01234567u, 40), 0x89abcdefu);
  EXPECT_EQ(__funnelshift_r(0x89abcdefu, 0x01234567u, 8), 0x6789abcdu);
  EXPECT_EQ(__funnelshift_rc(0x89abcdefu, 0x01234567u, 40), 0x01234567u);
  EXPECT_EQ(__funnelshift_r(0x89abcdefu, 0x01234567u, 0), 0x89abcdefu);
  EXPECT_EQ(__fns(0x58u, 0, 1), 3u);
  EXPECT_EQ(__fns(0x58u, 0, 2), 4u);
  EXPECT_EQ(__fns(0x58u, 5, -1), 4u);
  EXPECT_EQ(__fns(0x58u, 5, -2), 3u);
  EXPECT_EQ(__fns(0x58u, 3, 0), 3u);
  EXPECT_EQ(__fns(0x58u, 2, 0), 0xffffffffu);
  EXPECT_EQ(__fns(0x58u, 0, 4), 0xffffffffu);
  EXPECT_EQ(__hadd(-3, 0), -2);
  EXPECT_EQ(__rhadd(-3, 0), -1);
  EXPECT_EQ(__hadd(std::numeric_limits<int>::max(), std::numeric_limits<int>::max()), std::numeric_limits<int>::max());
  EXPECT_EQ(__uhadd(0xffffffffu, 0xffffffffu), 0xffffffffu);
  EXPECT_EQ(__urhadd(0xffffffffu, 0xfffffffeu), 0xffffffffu);
  EXPECT_EQ(__sad(std::numeric_limits<int>::min(), 0, 1u), 0x80000001u);
  EXPECT_EQ(__usad(3u, 10u, 5u), 12u);
  EXPECT_EQ(__dp4a(0x01ff0203, 0x02030405, 10), 10 + 1 * 2 + -1 * 3 + 2 * 4 + 3 * 5);
  std::mt19937_64 rng(14);
  for (int i = 0; i < 1000; ++i) {
    const long long a = static_cast<long long>(rng()), b = static_cast<long long>(rng());
    const int ia = static_cast<int>(a), ib = static_cast<int>(b);
    const unsigned int ua = static_cast<unsigned int>(a), ub = static_cast<unsigned int>(b);
    EXPECT_EQ(__mulhi(ia, ib), static_cast<int>((static_cast<long long>(ia) * ib) >> 32));
    EXPECT_EQ(__umulhi(ua, ub), static_cast<unsigned int>((static_cast<unsigned long long>(ua) * ub) >> 32));
    __extension__ typedef __int128 i128;
    __extension__ typedef unsigned __int128 u128;
    EXPECT_EQ(__mul64hi(a, b), static_cast<long long>((static_cast<i128>(a) * b) >> 64));
    EXPECT_EQ(__umul64hi(static_cast<unsigned long long>(a), static_cast<unsigned long long>(b)),
              static_cast<unsigned long long>(
                  (static_cast<u128>(static_cast<unsigned long long>(a)) * static_cast<unsigned long long>(b)) >> 64));
    const int a24 = ((ia & 0xffffff) ^ 0x800000) - 0x800000, b24 = ((ib & 0xffffff) ^ 0x800000) - 0x800000;
    EXPECT_EQ(__mul24(ia, ib), static_cast<int>(static_cast<unsigned int>(static_cast<long long>(a24) * b24)));
    EXPECT_EQ(__umul24(ua, ub), (ua & 0xffffffu) * (ub & 0xffffffu));
    EXPECT_EQ(__brev(__brev(ua)), ua);
    EXPECT_EQ(__popc(ua) + __popc(~ua), 32);
  }
}

#ifdef KILN_TEST_HAS_LIBCUXX
TEST(CudaHost, LibcuxxInAKernel) {
  const int n = 1000;
  const std::vector<float> x = random_floats(n, 15);
  std::vector<float> y(n);
  launch<&libcuxx>(form::blocks, {4}, {256}, 0, x.data(), y.data(), n);
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(y[i], std::sqrt(std::fabs(x[i])) + std::numeric_limits<float>::epsilon() + std::fmax(x[i], 0.0f));
}
#endif

//===----------------------------------------------------------------------===//
// Speed of the one-block form
//===----------------------------------------------------------------------===//

[[gnu::noinline]] void plain_saxpy(int n, float a, const float *x, float *y) {
  for (int i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

/// run_block over every block on this thread, as the runtime calls it.
[[gnu::noinline]] void saxpy_by_blocks(int n, float a, const float *x, float *y) {
  const float *cx = x;
  void *args[] = {&n, &a, &cx, &y};
  kiln::detail::raw_thread_ctx ctx{};
  ctx.block_dim[0] = 256, ctx.block_dim[1] = ctx.block_dim[2] = 1;
  ctx.grid_dim[0] = static_cast<unsigned int>((n + 255) / 256), ctx.grid_dim[1] = ctx.grid_dim[2] = 1;
  for (unsigned int b = 0; b < ctx.grid_dim[0]; ++b) {
    ctx.block_idx[0] = b;
    kiln::cuda_host::run_block<&saxpy>(args, &ctx);
  }
}

TEST(CudaHost, SaxpyOneBlockFormIsCloseToAPlainLoop) {
  const int n = 1 << 24;
  const std::vector<float> x = random_floats(n, 16);
  std::vector<float> y0 = random_floats(n, 17), y1 = y0, y2 = y0;
  auto best = [](auto &&f) {
    double best_s = 1e30;
    for (int rep = 0; rep < 7; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      f();
      best_s = std::min(best_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best_s;
  };
  const double loop = best([&] { plain_saxpy(n, 1.0001f, x.data(), y0.data()); });
  const double blocks = best([&] { saxpy_by_blocks(n, 1.0001f, x.data(), y1.data()); });
  const double launched =
      best([&] { launch<&saxpy>(form::blocks, {n / 256}, {256}, 0, n, 1.0001f, x.data(), y2.data()); });
  std::printf("[ saxpy 2^24 floats ] plain loop %.2f ms, run_block on one thread %.2f ms (%.2fx), launch_raw on the "
              "pool %.2f ms\n",
              loop * 1e3, blocks * 1e3, blocks / loop, launched * 1e3);
  EXPECT_EQ(y0, y1);
  EXPECT_EQ(y0, y2);
}

} // namespace
