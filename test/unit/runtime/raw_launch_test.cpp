//===- test/unit/runtime/raw_launch_test.cpp - Raw kernels' launches ------===//
//
// Tests kiln::detail::launch_raw and kiln::launch with raw kernels written by
// hand in this file, in the forms kilnc emits (kiln/detail/raw_kernel.hpp):
// one-thread host forms that read their raw_thread_ctx and call
// kiln_raw_syncthreads / kiln_raw_shfl / kiln_raw_ballot, one-block host
// forms, and a PTX kernel for GPUs. Every result is checked against a
// reference computed here from random data. GPU tests skip themselves where
// no GPU is present.
//
//===----------------------------------------------------------------------===//
#include "kiln/kiln.hpp"

#include "fault_child.hpp"
#include "gpu.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using kiln::device;
using kiln::detail::launch_raw;
using kiln::detail::raw_dims;
using kiln::detail::raw_kernel;
using kiln::detail::raw_thread_ctx;
using i64 = std::int64_t;
using u32 = std::uint32_t;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

template <class T> T param(void **args, int i) { return *static_cast<T *>(args[i]); }

u32 block_threads(const raw_thread_ctx *c) { return c->block_dim[0] * c->block_dim[1] * c->block_dim[2]; }
/// x fastest, as warps are formed.
u32 linear_thread(const raw_thread_ctx *c) {
  return c->thread_idx[0] + c->block_dim[0] * (c->thread_idx[1] + c->block_dim[1] * c->thread_idx[2]);
}
i64 linear_block(const raw_thread_ctx *c) {
  return c->block_idx[0] + i64{c->grid_dim[0]} * (c->block_idx[1] + i64{c->grid_dim[1]} * c->block_idx[2]);
}
/// The thread's index in the whole launch (blocks in order, x fastest).
i64 global_linear(const raw_thread_ctx *c) { return linear_block(c) * block_threads(c) + linear_thread(c); }

/// A host-only descriptor (launch_raw does not read param_bytes).
raw_kernel host_kernel(const char *name, kiln::detail::raw_host_fn host, kiln::detail::raw_host_block_fn block,
                       std::uint8_t num_params, std::uint32_t static_shared = 0) {
  raw_kernel k{};
  k.name = name;
  k.symbol = name;
  k.host = host;
  k.host_block = block;
  k.num_params = num_params;
  k.static_shared_bytes = static_shared;
  k.synchronizes = block == nullptr;
  return k;
}

void run_host(const raw_kernel &k, raw_dims grid, raw_dims block, std::vector<void *> args,
              std::size_t dynamic_shared = 0) {
  launch_raw(k, device::host(), grid, block, dynamic_shared, nullptr, args.data());
}

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng);
  return v;
}

std::vector<std::int32_t> random_ints(std::size_t n, unsigned seed, int lo = -1000, int hi = 1000) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<std::int32_t> v(n);
  for (auto &x : v)
    x = d(rng);
  return v;
}

/// The message of the kiln exception `f` throws (or "" when none).
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

/// saxpy(a, x, y, n), grid-stride; per-thread and one-block forms.
void saxpy_thread(void **args, raw_thread_ctx *c) {
  const float a = param<float>(args, 0);
  const float *x = param<const float *>(args, 1);
  float *y = param<float *>(args, 2);
  const i64 n = param<i64>(args, 3);
  const i64 stride = i64{c->grid_dim[0]} * c->block_dim[0];
  for (i64 i = i64{c->block_idx[0]} * c->block_dim[0] + c->thread_idx[0]; i < n; i += stride)
    y[i] = a * x[i] + y[i];
}
void saxpy_block(void **args, raw_thread_ctx *c) {
  for (u32 t = 0; t < c->block_dim[0]; ++t) {
    c->thread_idx[0] = t;
    saxpy_thread(args, c);
  }
}
std::atomic<int> saxpy_thread_calls{0};
void saxpy_thread_counted(void **args, raw_thread_ctx *c) {
  saxpy_thread_calls.fetch_add(1, std::memory_order_relaxed);
  saxpy_thread(args, c);
}

/// Each thread writes its global linear id and its index fields, packed.
std::atomic<int> index_mismatches{0};
void index_thread(void **args, raw_thread_ctx *c) {
  i64 *ids = param<i64 *>(args, 0);
  i64 *fields = param<i64 *>(args, 1);
  const u32 *dims = param<const u32 *>(args, 2); // grid xyz, block xyz
  for (int d = 0; d < 3; ++d)
    if (c->grid_dim[d] != dims[d] || c->block_dim[d] != dims[3 + d])
      index_mismatches.fetch_add(1);
  if (reinterpret_cast<std::uintptr_t>(c->shared) % 16 != 0)
    index_mismatches.fetch_add(1);
  const i64 g = global_linear(c);
  ids[g] = g;
  fields[g] = i64{c->thread_idx[0]} | i64{c->thread_idx[1]} << 8 | i64{c->thread_idx[2]} << 16 |
              i64{c->block_idx[0]} << 24 | i64{c->block_idx[1]} << 32 | i64{c->block_idx[2]} << 40;
}
void index_block(void **args, raw_thread_ctx *c) {
  for (u32 z = 0; z < c->block_dim[2]; ++z)
    for (u32 y = 0; y < c->block_dim[1]; ++y)
      for (u32 x = 0; x < c->block_dim[0]; ++x) {
        c->thread_idx[0] = x, c->thread_idx[1] = y, c->thread_idx[2] = z;
        index_thread(args, c);
      }
}

/// out[block] = sum of x over the block's elements: a tree in shared memory.
void block_sum_thread(void **args, raw_thread_ctx *c) {
  const float *x = param<const float *>(args, 0);
  float *out = param<float *>(args, 1);
  const i64 n = param<i64>(args, 2);
  float *s = reinterpret_cast<float *>(c->shared);
  const u32 t = c->thread_idx[0];
  const i64 i = i64{c->block_idx[0]} * c->block_dim[0] + t;
  s[t] = i < n ? x[i] : 0.0f;
  kiln_raw_syncthreads(c);
  for (u32 stride = c->block_dim[0] / 2; stride > 0; stride /= 2) {
    if (t < stride)
      s[t] += s[t + stride];
    kiln_raw_syncthreads(c);
  }
  if (t == 0)
    out[c->block_idx[0]] = s[0];
}

std::vector<double> block_sums(const std::vector<float> &x, i64 block) {
  std::vector<double> r(static_cast<std::size_t>((static_cast<i64>(x.size()) + block - 1) / block), 0.0);
  for (std::size_t i = 0; i < x.size(); ++i)
    r[i / static_cast<std::size_t>(block)] += x[i];
  return r;
}

/// Static shared: 20 bytes (5 ints), so the dynamic part starts at 32.
constexpr std::uint32_t dyn_static_bytes = 20;
std::atomic<int> dynamic_misplaced{0};
void dynamic_shared_thread(void **args, raw_thread_ctx *c) {
  const double *x = param<const double *>(args, 0);
  double *out = param<double *>(args, 1);
  int *st = reinterpret_cast<int *>(c->shared);
  double *dyn = reinterpret_cast<double *>(c->shared + 32);
  const u32 t = c->thread_idx[0], n = c->block_dim[0];
  const i64 i = i64{c->block_idx[0]} * n + t;
  if (t < 5)
    st[t] = static_cast<int>(c->block_idx[0] * 10 + t);
  dyn[t] = x[i];
  kiln_raw_syncthreads(c);
  if (reinterpret_cast<std::uintptr_t>(dyn) % 16 != 0)
    dynamic_misplaced.fetch_add(1);
  out[i] = dyn[(t + 1) % n] + st[t % 5];
}

/// out[g] = kiln_raw_shfl(x[g], mode, arg (idx: lane * 7 + 3), width).
void shuffle_thread(void **args, raw_thread_ctx *c) {
  const std::int32_t *x = param<const std::int32_t *>(args, 0);
  std::int32_t *out = param<std::int32_t *>(args, 1);
  const std::int32_t mode = param<std::int32_t>(args, 2);
  std::int32_t arg = param<std::int32_t>(args, 3);
  const std::int32_t width = param<std::int32_t>(args, 4);
  const i64 g = global_linear(c);
  const u32 lane = linear_thread(c) % 32;
  if (mode == 0)
    arg = static_cast<std::int32_t>(lane * 7 + 3);
  const std::uint64_t bits = static_cast<std::uint32_t>(x[g]);
  out[g] = static_cast<std::int32_t>(kiln_raw_shfl(c, bits, mode, arg, width));
}

std::int32_t shfl_i32(raw_thread_ctx *c, std::int32_t v, int mode, int arg, int width) {
  return static_cast<std::int32_t>(kiln_raw_shfl(c, static_cast<std::uint32_t>(v), mode, arg, width));
}

/// Four warp algorithms per thread: a shfl_down reduction (width 32), an
/// xor all-reduce over 16-lane segments, an inclusive shfl_up scan over
/// 16-lane segments, and an 8-lane idx broadcast of lane 5.
void warp_algorithms_thread(void **args, raw_thread_ctx *c) {
  const std::int32_t *x = param<const std::int32_t *>(args, 0);
  std::int32_t *out = param<std::int32_t *>(args, 1); // 4 per thread
  const i64 g = global_linear(c);
  const u32 lane = linear_thread(c) % 32;
  const std::int32_t v = x[g];
  std::int32_t down = v;
  for (int off = 16; off > 0; off /= 2)
    down += shfl_i32(c, down, 2, off, 32);
  std::int32_t all = v;
  for (int m = 8; m > 0; m /= 2)
    all += shfl_i32(c, all, 3, m, 16);
  std::int32_t scan = v;
  for (int d = 1; d < 16; d *= 2) {
    const std::int32_t t = shfl_i32(c, scan, 1, d, 16);
    if (static_cast<int>(lane % 16) >= d)
      scan += t;
  }
  const std::int32_t bcast = shfl_i32(c, v, 0, 5, 8);
  out[4 * g] = down, out[4 * g + 1] = all, out[4 * g + 2] = scan, out[4 * g + 3] = bcast;
}

void ballot_thread(void **args, raw_thread_ctx *c) {
  const std::int32_t *x = param<const std::int32_t *>(args, 0);
  std::uint32_t *out = param<std::uint32_t *>(args, 1);
  const i64 g = global_linear(c);
  out[g] = kiln_raw_ballot(c, x[g] > 0);
}

/// Block of 256: all threads stage 256 values, then warp 0 alone reduces
/// them with shuffles (the other warps have exited).
void warp0_sum_thread(void **args, raw_thread_ctx *c) {
  const std::int32_t *x = param<const std::int32_t *>(args, 0);
  std::int32_t *out = param<std::int32_t *>(args, 1);
  std::int32_t *s = reinterpret_cast<std::int32_t *>(c->shared);
  const u32 t = c->thread_idx[0];
  s[t] = x[i64{c->block_idx[0]} * c->block_dim[0] + t];
  kiln_raw_syncthreads(c);
  if (t >= 32)
    return;
  std::int32_t v = 0;
  for (u32 k = t; k < c->block_dim[0]; k += 32)
    v += s[k];
  for (int off = 16; off > 0; off /= 2)
    v += shfl_i32(c, v, 2, off, 32);
  if (t == 0)
    out[c->block_idx[0]] = v;
}

/// Odd threads return at once; even ones pass three barriers, exchanging
/// values through shared memory.
void half_exit_thread(void **args, raw_thread_ctx *c) {
  const std::int32_t *x = param<const std::int32_t *>(args, 0);
  std::int32_t *out = param<std::int32_t *>(args, 1);
  std::int32_t *s = reinterpret_cast<std::int32_t *>(c->shared);
  const u32 t = c->thread_idx[0], n = c->block_dim[0];
  const i64 base = i64{c->block_idx[0]} * n;
  if (t % 2 == 1)
    return;
  s[t] = x[base + t];
  kiln_raw_syncthreads(c);
  const std::int32_t a = s[(t + 2) % n];
  kiln_raw_syncthreads(c);
  s[t] = a * 2;
  kiln_raw_syncthreads(c);
  out[base + t] = s[(t + 2) % n];
}

/// hist[x & 15] += 1, sum += x, max = max(x), with atomics from every block.
void atomics_thread(void **args, raw_thread_ctx *c) {
  const std::int32_t *x = param<const std::int32_t *>(args, 0);
  int *hist = param<int *>(args, 1);
  i64 *sum = param<i64 *>(args, 2);
  int *max = param<int *>(args, 3);
  const i64 n = param<i64>(args, 4);
  const i64 stride = i64{c->grid_dim[0]} * c->block_dim[0];
  for (i64 i = i64{c->block_idx[0]} * c->block_dim[0] + c->thread_idx[0]; i < n; i += stride) {
    std::atomic_ref<int>(hist[x[i] & 15]).fetch_add(1, std::memory_order_relaxed);
    std::atomic_ref<i64>(*sum).fetch_add(x[i], std::memory_order_relaxed);
    std::atomic_ref<int> m(*max);
    int seen = m.load(std::memory_order_relaxed);
    while (seen < x[i] && !m.compare_exchange_weak(seen, x[i], std::memory_order_relaxed)) {
    }
  }
}
void atomics_block(void **args, raw_thread_ctx *c) {
  for (u32 t = 0; t < c->block_dim[0]; ++t) {
    c->thread_idx[0] = t;
    atomics_thread(args, c);
  }
}

//===----------------------------------------------------------------------===//
// Host launches
//===----------------------------------------------------------------------===//

TEST(RawLaunchHost, SaxpyOneBlockFormAndFibersMatchReference) {
  const i64 n = 100003;
  const std::vector<float> x = random_floats(n, 1), y0 = random_floats(n, 2);
  const float a = 1.75f;
  std::vector<float> ref(y0);
  for (i64 i = 0; i < n; ++i)
    ref[i] = a * x[i] + y0[i];

  const raw_kernel by_block = host_kernel("saxpy", &saxpy_thread_counted, &saxpy_block, 4);
  const raw_kernel by_thread = host_kernel("saxpy", &saxpy_thread, nullptr, 4);
  for (const raw_kernel *k : {&by_block, &by_thread}) {
    std::vector<float> y(y0);
    float a_ = a;
    const float *xp = x.data();
    float *yp = y.data();
    i64 n_ = n;
    saxpy_thread_calls = 0;
    run_host(*k, {37}, {128}, {&a_, &xp, &yp, &n_});
    for (i64 i = 0; i < n; ++i)
      ASSERT_FLOAT_EQ(y[i], ref[i]) << "element " << i;
    EXPECT_EQ(saxpy_thread_calls.load(), 0) << "the one-block form should run the blocks";
  }
}

TEST(RawLaunchHost, EveryThreadOfA3DLaunchRunsOnceWithItsIndices) {
  const u32 dims[6] = {3, 4, 2, 4, 2, 3};
  const raw_dims grid{dims[0], dims[1], dims[2]}, block{dims[3], dims[4], dims[5]};
  const i64 total = i64{3} * 4 * 2 * 4 * 2 * 3;
  const raw_kernel fibers = host_kernel("index3d", &index_thread, nullptr, 3);
  const raw_kernel blocks = host_kernel("index3d", &index_thread, &index_block, 3);
  for (const raw_kernel *k : {&fibers, &blocks}) {
    std::vector<i64> ids(total, -1), fields(total, -1);
    i64 *ip = ids.data(), *fp = fields.data();
    const u32 *dp = dims;
    index_mismatches = 0;
    run_host(*k, grid, block, {&ip, &fp, &dp});
    EXPECT_EQ(index_mismatches.load(), 0);
    for (i64 g = 0; g < total; ++g) {
      ASSERT_EQ(ids[g], g);
      const i64 t = g % 24, b = g / 24;
      const i64 expect =
          (t % 4) | (t / 4 % 2) << 8 | (t / 8) << 16 | (b % 3) << 24 | (b / 3 % 4) << 32 | (b / 12) << 40;
      ASSERT_EQ(fields[g], expect) << "thread " << g;
    }
  }
}

TEST(RawLaunchHost, BlockSumThroughSharedMemoryWithBarriers) {
  for (const i64 block : {256, 1024, 64}) {
    const i64 n = block * (block == 1024 ? 41 : 301) - 77; // (1024: kept short for ThreadSanitizer)
    const std::vector<float> x = random_floats(n, 3);
    const std::vector<double> ref = block_sums(x, block);
    std::vector<float> out(ref.size(), std::nanf(""));
    const raw_kernel k = host_kernel("block_sum", &block_sum_thread, nullptr, 3, block * sizeof(float));
    const float *xp = x.data();
    float *op = out.data();
    i64 n_ = n;
    const auto start = std::chrono::steady_clock::now();
    run_host(k, {static_cast<u32>(ref.size())}, {static_cast<u32>(block)}, {&xp, &op, &n_});
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("block sum: %zu blocks of %lld threads, %d barriers each: %.2f ms\n", ref.size(),
                static_cast<long long>(block), static_cast<int>(std::log2(block)) + 1, ms);
    for (std::size_t b = 0; b < ref.size(); ++b)
      ASSERT_NEAR(out[b], ref[b], 1e-6 * 4 * block) << "block " << b << " of " << block << " threads";
  }
}

TEST(RawLaunchHost, DynamicSharedMemoryFollowsTheStaticPartAt16Bytes) {
  const u32 block = 96, blocks = 17;
  const std::vector<float> xf = random_floats(block * blocks, 4);
  std::vector<double> x(xf.begin(), xf.end()), out(x.size(), std::nan(""));
  const raw_kernel k = host_kernel("dynamic_shared", &dynamic_shared_thread, nullptr, 2, dyn_static_bytes);
  const double *xp = x.data();
  double *op = out.data();
  dynamic_misplaced = 0;
  run_host(k, {blocks}, {block}, {&xp, &op}, block * sizeof(double));
  EXPECT_EQ(dynamic_misplaced.load(), 0);
  for (u32 b = 0; b < blocks; ++b)
    for (u32 t = 0; t < block; ++t)
      ASSERT_EQ(out[b * block + t], x[b * block + (t + 1) % block] + static_cast<int>(b * 10 + t % 5))
          << "block " << b << " thread " << t;
}

/// What CUDA's documentation says a shuffle returns, written independently
/// of the runtime's PTX-style computation.
std::int32_t expected_shuffle(const std::vector<std::int32_t> &x, i64 block_base, int warp_base, int lanes_in_warp,
                              int lane, int mode, int arg, int width) {
  const int seg = lane / width * width;
  int src = lane;
  bool ok = true;
  if (mode == 0) {
    src = seg + (lane * 7 + 3) % width;
  } else if (mode == 1) {
    src = lane - arg;
    ok = src >= seg;
  } else if (mode == 2) {
    src = lane + arg;
    ok = src < seg + width;
  } else {
    src = lane ^ arg;
    ok = src < seg + width; // earlier segments may be read, later ones not
  }
  if (!ok || src >= lanes_in_warp)
    src = lane;
  return x[block_base + warp_base + src];
}

TEST(RawLaunchHost, ShufflesFollowCudaSemanticsWithSegmentsAndPartialWarps) {
  const raw_kernel k = host_kernel("shuffle", &shuffle_thread, nullptr, 5);
  struct shuffle_case {
    int mode, arg, width;
  };
  const shuffle_case cases[] = {{0, 0, 32},  {0, 0, 16}, {0, 0, 8},   {1, 1, 32}, {1, 3, 16}, {1, 5, 8},
                                {2, 1, 32},  {2, 7, 16}, {2, 2, 4},   {3, 1, 32}, {3, 5, 16}, {3, 16, 8},
                                {3, 31, 32}, {1, 0, 32}, {2, 31, 32}, {0, 0, 1}};
  for (const u32 block : {32u, 64u, 48u, 100u, 7u}) {
    const u32 blocks = 3;
    const std::vector<std::int32_t> x = random_ints(block * blocks, 5 + block);
    for (const shuffle_case &sc : cases) {
      std::vector<std::int32_t> out(x.size(), 0);
      const std::int32_t *xp = x.data();
      std::int32_t *op = out.data();
      std::int32_t mode = sc.mode, arg = sc.arg, width = sc.width;
      run_host(k, {blocks}, {block}, {&xp, &op, &mode, &arg, &width});
      for (u32 b = 0; b < blocks; ++b)
        for (u32 t = 0; t < block; ++t) {
          const int warp_base = static_cast<int>(t / 32 * 32);
          const int lanes = static_cast<int>(std::min<u32>(32, block - t / 32 * 32));
          ASSERT_EQ(out[b * block + t], expected_shuffle(x, i64{b} * block, warp_base, lanes, static_cast<int>(t % 32),
                                                         sc.mode, sc.arg, sc.width))
              << "mode " << sc.mode << " arg " << sc.arg << " width " << sc.width << " block " << block << " thread "
              << t;
        }
    }
  }
}

TEST(RawLaunchHost, WarpReductionsScansAndBroadcasts) {
  // 3 full warps and a partial one of 16 lanes (its 16-lane segments are whole).
  const u32 block = 112, blocks = 9;
  const std::vector<std::int32_t> x = random_ints(block * blocks, 6);
  std::vector<std::int32_t> out(4 * x.size(), 0);
  const raw_kernel k = host_kernel("warp_algorithms", &warp_algorithms_thread, nullptr, 2);
  const std::int32_t *xp = x.data();
  std::int32_t *op = out.data();
  run_host(k, {blocks}, {block}, {&xp, &op});
  for (u32 b = 0; b < blocks; ++b)
    for (u32 t = 0; t < block; ++t) {
      const std::size_t g = b * block + t;
      const std::size_t warp = b * block + t / 32 * 32, seg16 = b * block + t / 16 * 16, seg8 = b * block + t / 8 * 8;
      if (t % 32 == 0 && t + 32 <= block) {
        const std::int32_t sum = std::accumulate(x.begin() + warp, x.begin() + warp + 32, 0);
        ASSERT_EQ(out[4 * g], sum) << "shfl_down reduction, thread " << g;
      }
      ASSERT_EQ(out[4 * g + 1], std::accumulate(x.begin() + seg16, x.begin() + seg16 + 16, 0))
          << "xor all-reduce, thread " << g;
      ASSERT_EQ(out[4 * g + 2], std::accumulate(x.begin() + seg16, x.begin() + g + 1, 0)) << "up scan, thread " << g;
      ASSERT_EQ(out[4 * g + 3], x[seg8 + 5]) << "idx broadcast, thread " << g;
    }
}

TEST(RawLaunchHost, BallotGathersEachWarpsPredicates) {
  const u32 block = 100, blocks = 5; // the last warp has 4 lanes
  const std::vector<std::int32_t> x = random_ints(block * blocks, 7);
  std::vector<std::uint32_t> out(x.size(), 0xdeadbeef);
  const raw_kernel k = host_kernel("ballot", &ballot_thread, nullptr, 2);
  const std::int32_t *xp = x.data();
  std::uint32_t *op = out.data();
  run_host(k, {blocks}, {block}, {&xp, &op});
  for (u32 b = 0; b < blocks; ++b)
    for (u32 t = 0; t < block; ++t) {
      std::uint32_t mask = 0;
      for (u32 l = 0; l < 32 && t / 32 * 32 + l < block; ++l)
        if (x[b * block + t / 32 * 32 + l] > 0)
          mask |= 1u << l;
      ASSERT_EQ(out[b * block + t], mask) << "block " << b << " thread " << t;
    }
}

TEST(RawLaunchHost, ShufflesInWarpZeroAloneAfterABarrierDoNotWaitForOtherWarps) {
  const u32 block = 256, blocks = 50;
  const std::vector<std::int32_t> x = random_ints(block * blocks, 8);
  std::vector<std::int32_t> out(blocks, 0);
  const raw_kernel k = host_kernel("warp0_sum", &warp0_sum_thread, nullptr, 2, block * 4);
  const std::int32_t *xp = x.data();
  std::int32_t *op = out.data();
  run_host(k, {blocks}, {block}, {&xp, &op});
  for (u32 b = 0; b < blocks; ++b)
    ASSERT_EQ(out[b], std::accumulate(x.begin() + b * block, x.begin() + (b + 1) * block, 0)) << "block " << b;
}

TEST(RawLaunchHost, ExitedThreadsCountAsArrivedAtBarriers) {
  const u32 block = 64, blocks = 11;
  const std::vector<std::int32_t> x = random_ints(block * blocks, 9);
  std::vector<std::int32_t> out(x.size(), 12345);
  const raw_kernel k = host_kernel("half_exit", &half_exit_thread, nullptr, 2, block * 4);
  const std::int32_t *xp = x.data();
  std::int32_t *op = out.data();
  run_host(k, {blocks}, {block}, {&xp, &op});
  for (u32 b = 0; b < blocks; ++b)
    for (u32 t = 0; t < block; ++t) {
      const std::int32_t expect = t % 2 ? 12345 : 2 * x[b * block + (t + 4) % block];
      ASSERT_EQ(out[b * block + t], expect) << "block " << b << " thread " << t;
    }
}

TEST(RawLaunchHost, AtomicsFromManyBlocksInParallel) {
  const i64 n = 200000;
  const std::vector<std::int32_t> x = random_ints(n, 10, -100000, 100000);
  int ref_hist[16] = {};
  i64 ref_sum = 0;
  int ref_max = x[0];
  for (std::int32_t v : x) {
    ++ref_hist[v & 15];
    ref_sum += v;
    ref_max = std::max(ref_max, v);
  }
  const raw_kernel by_block = host_kernel("atomics", &atomics_thread, &atomics_block, 5);
  const raw_kernel by_thread = host_kernel("atomics", &atomics_thread, nullptr, 5);
  for (const raw_kernel *k : {&by_block, &by_thread}) {
    int hist[16] = {};
    i64 sum = 0;
    int max = -1000000;
    const std::int32_t *xp = x.data();
    int *hp = hist, *mp = &max;
    i64 *sp = &sum;
    i64 n_ = n;
    run_host(*k, {64}, {128}, {&xp, &hp, &sp, &mp, &n_});
    for (int b = 0; b < 16; ++b)
      EXPECT_EQ(hist[b], ref_hist[b]) << "bin " << b;
    EXPECT_EQ(sum, ref_sum);
    EXPECT_EQ(max, ref_max);
  }
}

void throwing_thread(void **args, raw_thread_ctx *c) {
  const u32 t = c->thread_idx[0];
  if (c->block_idx[0] == 3 && t == 5)
    throw kiln::value_error("thread 5 of block 3 gave up");
  kiln_raw_syncthreads(c);
  kiln_raw_syncthreads(c);
  param<std::atomic<int> *>(args, 0)->fetch_add(1);
}
void throwing_block(void *[], raw_thread_ctx *c) {
  if (c->block_idx[0] == 2)
    throw kiln::shape_error("block 2 gave up");
}

TEST(RawLaunchHost, ExceptionsOfHostThreadsReachTheLauncherAsThemselves) {
  std::atomic<int> finished{0};
  std::atomic<int> *fp = &finished;
  const raw_kernel fibers = host_kernel("throwing", &throwing_thread, nullptr, 1);
  EXPECT_EQ(message_of<kiln::value_error>([&] { run_host(fibers, {8}, {64}, {&fp}); }), "thread 5 of block 3 gave up");
  const raw_kernel blocks = host_kernel("throwing", &throwing_thread, &throwing_block, 1);
  EXPECT_EQ(message_of<kiln::shape_error>([&] { run_host(blocks, {8}, {64}, {&fp}); }), "block 2 gave up");
  // The runners stay usable.
  finished = 0;
  run_host(fibers, {1}, {64}, {&fp});
  EXPECT_EQ(finished.load(), 64);
}

/// Half of warp 0 shuffles while the other threads wait at syncthreads:
/// neither barrier can complete.
void deadlock_thread(void **, raw_thread_ctx *c) {
  if (linear_thread(c) < 16)
    kiln_raw_shfl(c, 1, 2, 1, 32);
  else
    kiln_raw_syncthreads(c);
}

TEST(RawLaunchHost, ABlockWhoseBarriersCannotCompleteThrowsInsteadOfHanging) {
  const raw_kernel k = host_kernel("deadlock", &deadlock_thread, nullptr, 0);
  const std::string msg = message_of<kiln::error>([&] { run_host(k, {3}, {64}, {}); });
  EXPECT_TRUE(contains(msg, "kernel 'deadlock' cannot finish block")) << msg;
  EXPECT_TRUE(contains(msg, "48 of its threads wait at syncthreads() and 16 in a warp shuffle")) << msg;
  // Abandoned fibers are restarted cleanly by the next launch.
  const i64 block = 256, n = block * 7;
  const std::vector<float> x = random_floats(n, 11);
  std::vector<float> out(7);
  const raw_kernel sum = host_kernel("block_sum", &block_sum_thread, nullptr, 3, block * sizeof(float));
  const float *xp = x.data();
  float *op = out.data();
  i64 n_ = n;
  run_host(sum, {7}, {static_cast<u32>(block)}, {&xp, &op, &n_});
  const std::vector<double> ref = block_sums(x, block);
  for (std::size_t b = 0; b < ref.size(); ++b)
    EXPECT_NEAR(out[b], ref[b], 1e-2);
}

/// Thread 0 of each block launches saxpy on its own slice (a launch from a
/// host thread of another launch gets a block runner of its own).
void nested_thread(void **args, raw_thread_ctx *c) {
  kiln_raw_syncthreads(c);
  if (c->thread_idx[0] != 0)
    return;
  const raw_kernel *inner = param<const raw_kernel *>(args, 0);
  float a = 3.0f;
  const float *x = param<const float *>(args, 1) + c->block_idx[0] * 1000;
  float *y = param<float *>(args, 2) + c->block_idx[0] * 1000;
  i64 n = 1000;
  void *inner_args[] = {&a, &x, &y, &n};
  launch_raw(*inner, device::host(), {2}, {64}, 0, nullptr, inner_args);
}

TEST(RawLaunchHost, ALaunchFromInsideAHostThreadRuns) {
  const raw_kernel inner = host_kernel("saxpy", &saxpy_thread, nullptr, 4);
  const raw_kernel outer = host_kernel("nested", &nested_thread, nullptr, 3);
  const std::vector<float> x = random_floats(4000, 12), y0 = random_floats(4000, 13);
  std::vector<float> y(y0);
  const raw_kernel *ip = &inner;
  const float *xp = x.data();
  float *yp = y.data();
  run_host(outer, {4}, {32}, {&ip, &xp, &yp});
  for (std::size_t i = 0; i < y.size(); ++i)
    ASSERT_FLOAT_EQ(y[i], 3.0f * x[i] + y0[i]);
}

TEST(RawLaunchHost, ConcurrentLaunchesFromEightThreads) {
  const i64 block = 128;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      const raw_kernel k = host_kernel("block_sum", &block_sum_thread, nullptr, 3, block * sizeof(float));
      for (int rep = 0; rep < 20; ++rep) {
        const i64 n = block * (20 + t + rep) - rep;
        const std::vector<float> x = random_floats(n, 100 * t + rep);
        const std::vector<double> ref = block_sums(x, block);
        std::vector<float> out(ref.size());
        const float *xp = x.data();
        float *op = out.data();
        i64 n_ = n;
        void *args[] = {&xp, &op, &n_};
        launch_raw(k, device::host(), {static_cast<u32>(ref.size())}, {static_cast<u32>(block)}, 0, nullptr, args);
        for (std::size_t b = 0; b < ref.size(); ++b)
          if (std::abs(out[b] - ref[b]) > 1e-3)
            failures.fetch_add(1);
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

void touch_last_shared_byte(void **args, raw_thread_ctx *c) {
  // One thread at a time touches both ends of the block's buffer.
  const std::size_t bytes = param<std::size_t>(args, 0);
  c->shared[bytes - 1] = 1;
  c->shared[0] = 1;
}

TEST(RawLaunchValidation, ShapesOutsideCudasLimitsAreValueErrors) {
  const raw_kernel k = host_kernel("saxpy", &saxpy_thread, &saxpy_block, 4);
  float a = 1;
  const float *x = nullptr;
  float *y = nullptr;
  i64 n = 0;
  auto error = [&](raw_dims grid, raw_dims block, std::size_t shared = 0) {
    return message_of<kiln::value_error>([&] { run_host(k, grid, block, {&a, &x, &y, &n}, shared); });
  };
  EXPECT_EQ(error({0}, {32}),
            "kernel 'saxpy': grid dimension x is 0 (every dimension of a grid or block is at least 1)");
  EXPECT_TRUE(contains(error({1, 0}, {32}), "grid dimension y is 0"));
  EXPECT_TRUE(contains(error({1}, {32, 1, 0}), "block dimension z is 0"));
  EXPECT_EQ(error({2147483648u}, {32}),
            "kernel 'saxpy': grid dimension x is 2147483648, above CUDA's limit of 2147483647");
  EXPECT_TRUE(contains(error({1, 65536}, {32}), "grid dimension y is 65536, above CUDA's limit of 65535"));
  EXPECT_TRUE(contains(error({1, 1, 65536}, {32}), "grid dimension z is 65536, above CUDA's limit of 65535"));
  EXPECT_TRUE(contains(error({1}, {1025}), "block dimension x is 1025, above CUDA's limit of 1024"));
  EXPECT_TRUE(contains(error({1}, {1, 1025}), "block dimension y is 1025, above CUDA's limit of 1024"));
  EXPECT_TRUE(contains(error({1}, {1, 1, 65}), "block dimension z is 65, above CUDA's limit of 64"));
  EXPECT_EQ(error({1}, {32, 32, 2}),
            "kernel 'saxpy': a block of 2048 threads (32 x 32 x 2) is above CUDA's limit of 1024 threads per block");
  EXPECT_EQ(error({1}, {32}, 300000), "kernel 'saxpy': 300000 bytes of shared memory per block (0 static + 300000 "
                                      "dynamic) are above the limit of 232448 bytes on the host");
  EXPECT_FALSE(error({1}, {32}, ~std::size_t{0}).empty());
  // CUDA's largest extents are accepted (n = 0: no work).
  run_host(k, {1, 65535}, {1024}, {&a, &x, &y, &n});
  run_host(k, {1, 1, 65535}, {1, 1, 64}, {&a, &x, &y, &n});
  run_host(k, {2}, {1, 1024}, {&a, &x, &y, &n});

  // Static shared memory counts, aligned to 16, with the dynamic part.
  const raw_kernel big = host_kernel("touch", &touch_last_shared_byte, nullptr, 1, 232448 - 20);
  std::size_t bytes = 232448;
  EXPECT_EQ(message_of<kiln::value_error>([&] { run_host(big, {1}, {1}, {&bytes}, 17); }),
            "kernel 'touch': 232449 bytes of shared memory per block (232432 static + 17 dynamic) are above the "
            "limit of 232448 bytes on the host");
  run_host(big, {1}, {1}, {&bytes}, 16); // exactly the limit: the last byte is writable
  const raw_kernel all_dynamic = host_kernel("touch", &touch_last_shared_byte, nullptr, 1);
  bytes = 232448;
  run_host(all_dynamic, {2}, {2}, {&bytes}, bytes);
}

TEST(RawLaunchValidation, KernelWithoutGpuCodeOnAGpuIsADeviceError) {
  KILN_REQUIRE_GPU();
  const raw_kernel k = host_kernel("saxpy", &saxpy_thread, &saxpy_block, 4);
  float a = 1;
  const float *x = nullptr;
  float *y = nullptr;
  i64 n = 0;
  void *args[] = {&a, &x, &y, &n};
  const std::string msg =
      message_of<kiln::device_error>([&] { launch_raw(k, device::cuda(0), {1}, {32}, 0, nullptr, args); });
  EXPECT_TRUE(
      contains(msg, "kernel 'saxpy' has no GPU code (it was compiled with --cuda-host-only; rebuild without it"))
      << msg;
}

//===----------------------------------------------------------------------===//
// kiln::launch
//===----------------------------------------------------------------------===//

void plain_saxpy(float a, const float *x, float *y, std::int64_t n) {
  for (std::int64_t i = kiln::global_thread_id(); i < n; i += kiln::grid_stride())
    y[i] = a * x[i] + y[i];
}

TEST(RawLaunchApi, LaunchingAFunctionKilncDidNotCompileThrows) {
  const std::vector<float> xs = random_floats(64, 14);
  const auto x = kiln::asarray<float>(xs, device::host());
  auto y = kiln::asarray<float>(xs, device::host());
  const std::string msg =
      message_of<kiln::error>([&] { kiln::launch(plain_saxpy, kiln::grid{1}, kiln::block{64}, 2.0f, x, y, x.size()); });
  EXPECT_TRUE(contains(msg, "kiln::launch: the kernel was not compiled by kilnc")) << msg;
  EXPECT_THROW(kiln::launch(plain_saxpy, 1, 64, kiln::shared_memory{16}, kiln::stream::current(device::host()), 2.0f, x,
                            y, x.size()),
               kiln::error);
  // The built-ins of kernels run only inside launched kernels.
  EXPECT_EQ(message_of<kiln::error>([] { (void)kiln::thread_idx(); }),
            "kiln::thread_idx() is a KILN_RAWKERNEL built-in: call it inside a kernel that kiln::launch runs (a "
            "KILN_RAWKERNEL function in a file compiled by kilnc)");
  EXPECT_THROW(kiln::syncthreads(), kiln::error);
  EXPECT_THROW((void)kiln::shfl_down(1.0f, 1), kiln::error);
  int v = 0;
  EXPECT_THROW((void)kiln::atomic_add(&v, 1), kiln::error);
  EXPECT_THROW((void)kiln::ballot(true), kiln::error);
  EXPECT_THROW((void)(kiln::shared_array<float, 16>()), kiln::error);
}

/// The host form kilnc would emit for
///   void axpy(float a, const float *x, kiln::span<float> y, int n, double scale, bool add)
/// (y[i] = a * x[i] * scale + (add ? y[i] : 0) for i < min(n, y.size())).
struct axpy_seen {
  float a = 0;
  i64 y_size = 0;
  int n = 0;
  double scale = 0;
  bool add = false;
};
axpy_seen axpy_params;
void axpy_thread(void **args, raw_thread_ctx *c) {
  const float a = param<float>(args, 0);
  const float *x = param<const float *>(args, 1);
  float *y = param<float *>(args, 2);
  const i64 y_size = param<i64>(args, 3);
  const int n = param<int>(args, 4);
  const double scale = param<double>(args, 5);
  const bool add = param<bool>(args, 6);
  if (global_linear(c) == 0)
    axpy_params = {a, y_size, n, scale, add};
  const i64 stride = i64{c->grid_dim[0]} * c->grid_dim[1] * c->grid_dim[2] * block_threads(c);
  for (i64 i = global_linear(c); i < std::min<i64>(n, y_size); i += stride)
    y[i] = static_cast<float>(a * x[i] * scale + (add ? y[i] : 0.0f));
}
const std::uint8_t axpy_bytes[] = {4, 8, 8, 8, 4, 8, 1};
raw_kernel axpy_kernel() {
  raw_kernel k = host_kernel("axpy", &axpy_thread, nullptr, 7);
  k.param_bytes = axpy_bytes;
  return k;
}
using axpy_type = kiln::detail::typed_raw_kernel<void(float, const float *, kiln::span<float>, int, double, bool)>;

TEST(RawLaunchApi, TypedLaunchMarshalsArraysSpansPointersAndScalars) {
  const raw_kernel k = axpy_kernel();
  const i64 n = 1000;
  const std::vector<float> xs = random_floats(n, 15), ys = random_floats(n, 16);
  auto expect_axpy = [&](const std::vector<float> &y, float a, double scale, i64 count) {
    for (i64 i = 0; i < n; ++i) {
      const float want = i < count ? static_cast<float>(a * xs[i] * scale + ys[i]) : ys[i];
      ASSERT_FLOAT_EQ(y[i], want) << "element " << i;
    }
  };

  // Arrays for the pointer and span parameters; int -> float, int64 -> int,
  // float -> double and int -> bool conversions for the scalars.
  // The test's kernel has only a host form: launch on the host device even
  // where KILN_DEVICE names a GPU (the device check runs this suite so).
  const kiln::device_scope on_host(device::host());
  const auto x = kiln::asarray<float>(xs, device::host());
  auto y = kiln::asarray<float>(ys, device::host());
  kiln::launch(axpy_type(k), kiln::grid{3}, kiln::block{64}, 2, x, y, std::int64_t{n}, 0.5f, 1);
  EXPECT_EQ(axpy_params.a, 2.0f);
  EXPECT_EQ(axpy_params.y_size, n);
  EXPECT_EQ(axpy_params.n, n);
  EXPECT_EQ(axpy_params.scale, 0.5);
  EXPECT_TRUE(axpy_params.add);
  expect_axpy(y.to_vector(), 2.0f, 0.5, n);

  // A pointer and a kiln::span as they are; shared memory and a stream;
  // integers for the shape.
  std::vector<float> yv(ys);
  const float *xp = xs.data();
  kiln::launch(axpy_type(k), 5, 32, kiln::shared_memory{256}, kiln::stream::current(device::host()), -1.5, xp,
               kiln::span<float>(yv.data(), n), 700, 2.0, true);
  EXPECT_EQ(axpy_params.y_size, n);
  expect_axpy(yv, -1.5f, 2.0, 700);
  yv = ys;
  kiln::launch(axpy_type(k), kiln::grid{2, 1}, kiln::block{8, 4}, kiln::stream::current(device::host()), 1.0f, xp,
               kiln::span<float>(yv.data(), n), 1000, 1.0, true);
  expect_axpy(yv, 1.0f, 1.0, n);
  yv = ys;
  kiln::launch(axpy_type(k), kiln::grid{4u}, kiln::block{std::size_t{32}}, kiln::shared_memory{0}, 1.0f, xp,
               kiln::span<float>(yv.data(), n), 10, 1.0, true);
  expect_axpy(yv, 1.0f, 1.0, 10);
}

TEST(RawLaunchApi, TypedLaunchRejectsBadArraysAndShapes) {
  const raw_kernel k = axpy_kernel();
  const std::vector<float> xs = random_floats(64, 17);
  const auto x = kiln::asarray<float>(xs, device::host());
  auto y = kiln::asarray<float>(xs, device::host());

  // Not C-contiguous: a strided view, a transpose.
  const auto strided = y.slice({kiln::range(0, 64, 2)});
  EXPECT_EQ(message_of<kiln::value_error>([&] { kiln::launch(axpy_type(k), 1, 32, 1.0f, x, strided, 32, 1.0, true); }),
            "kernel 'axpy': argument 2 is not a C-contiguous array (a strided or transposed view, or a result laid out "
            "as its transposed input): pass a contiguous copy (.copy())");
  const auto square = kiln::asarray<float>(xs, kiln::shape{8, 8}, device::host());
  EXPECT_THROW(kiln::launch(axpy_type(k), 1, 32, 1.0f, square.T(), y, 64, 1.0, true), kiln::value_error);

  // An array of another device than the launch's (the first array's): a
  // descriptor that claims cuda:0 (never touched: the launch stops first).
  const auto elsewhere = kiln::array<float>(kiln::array_base::from_parts(
      y.storage(), kiln::dtype::float32, device::cuda(0), kiln::shape{64}, kiln::shape{1}, 0));
  EXPECT_EQ(
      message_of<kiln::device_error>([&] { kiln::launch(axpy_type(k), 1, 32, 1.0f, x, elsewhere, 64, 1.0, true); }),
      "kernel 'axpy': argument 2 is an array on cuda:0 but the launch runs on host (kiln::launch does not copy: "
      "move it with .to())");
  EXPECT_THROW(kiln::launch(axpy_type(k), 1, 32, 1.0f, elsewhere, y, 64, 1.0, true), kiln::device_error);

  // Shapes: negative or zero extents, negative shared memory.
  EXPECT_EQ(message_of<kiln::value_error>([&] { kiln::launch(axpy_type(k), -1, 32, 1.0f, x, y, 64, 1.0, true); }),
            "kernel 'axpy': grid dimension x is -1 (every dimension of a grid or block is at least 1)");
  EXPECT_TRUE(contains(message_of<kiln::value_error>([&] {
                         kiln::launch(axpy_type(k), 1, kiln::block{8, 0}, 1.0f, x, y, 64, 1.0, true);
                       }),
                       "block dimension y is 0"));
  EXPECT_TRUE(contains(message_of<kiln::value_error>(
                           [&] { kiln::launch(axpy_type(k), kiln::grid{1ull << 40}, 32, 1.0f, x, y, 64, 1.0, true); }),
                       "grid dimension x is 1099511627776, above CUDA's limit of 2147483647"));
  EXPECT_EQ(message_of<kiln::value_error>(
                [&] { kiln::launch(axpy_type(k), 1, 32, kiln::shared_memory{-8}, 1.0f, x, y, 64, 1.0, true); }),
            "kernel 'axpy': -8 bytes of dynamic shared memory (the size is at least 0)");

  // A descriptor whose parameters differ from the signature kilnc gave.
  raw_kernel wrong = k;
  wrong.num_params = 6;
  EXPECT_TRUE(
      contains(message_of<kiln::error>([&] { kiln::launch(axpy_type(wrong), 1, 32, 1.0f, x, y, 64, 1.0, true); }),
               "it takes 6 parameter values, the launch passes 7"));
  const std::uint8_t other_bytes[] = {4, 8, 8, 8, 8, 8, 1};
  wrong = k;
  wrong.param_bytes = other_bytes;
  EXPECT_TRUE(
      contains(message_of<kiln::error>([&] { kiln::launch(axpy_type(wrong), 1, 32, 1.0f, x, y, 64, 1.0, true); }),
               "its parameter value 4 has 8 bytes, the launch passes 4"));
}

//===----------------------------------------------------------------------===//
// GPU
//===----------------------------------------------------------------------===//

/// out[g] = g * 2048 + (linear thread + 1) % threads, read back from the
/// dynamic shared memory where each thread stored its linear index: a 3-D
/// launch with the PTX's one extern shared array.
const char *index_ptx = R"(.version 7.0
.target sm_80
.address_size 64

.extern .shared .align 16 .b8 kiln_raw_shared[];

.visible .entry kiln_raw_test_index3d(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %tid.z;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %ntid.y;
  mov.u32 %r6, %ntid.z;
  mov.u32 %r7, %ctaid.x;
  mov.u32 %r8, %ctaid.y;
  mov.u32 %r9, %ctaid.z;
  mov.u32 %r10, %nctaid.x;
  mov.u32 %r11, %nctaid.y;
  mad.lo.u32 %r12, %r5, %r3, %r2;
  mad.lo.u32 %r12, %r4, %r12, %r1;
  mul.lo.u32 %r13, %r4, %r5;
  mul.lo.u32 %r13, %r13, %r6;
  mad.lo.u32 %r14, %r11, %r9, %r8;
  mad.lo.u32 %r14, %r10, %r14, %r7;
  mul.wide.u32 %rd2, %r14, %r13;
  cvt.u64.u32 %rd3, %r12;
  add.u64 %rd2, %rd2, %rd3;
  mov.u64 %rd4, kiln_raw_shared;
  mul.wide.u32 %rd5, %r12, 4;
  add.u64 %rd5, %rd4, %rd5;
  st.shared.u32 [%rd5], %r12;
  bar.sync 0;
  add.u32 %r15, %r12, 1;
  rem.u32 %r15, %r15, %r13;
  mul.wide.u32 %rd6, %r15, 4;
  add.u64 %rd6, %rd4, %rd6;
  ld.shared.u32 %r16, [%rd6];
  shl.b64 %rd7, %rd2, 11;
  cvt.u64.u32 %rd8, %r16;
  add.u64 %rd7, %rd7, %rd8;
  shl.b64 %rd9, %rd2, 3;
  add.u64 %rd9, %rd1, %rd9;
  st.global.u64 [%rd9], %rd7;
  ret;
}
)";

/// The same kernel's host form.
void index3d_thread(void **args, raw_thread_ctx *c) {
  i64 *out = param<i64 *>(args, 0);
  auto *s = reinterpret_cast<std::uint32_t *>(c->shared);
  const u32 t = linear_thread(c), n = block_threads(c);
  s[t] = t;
  kiln_raw_syncthreads(c);
  const i64 g = global_linear(c);
  out[g] = g * 2048 + s[(t + 1) % n];
}

raw_kernel index3d_kernel() {
  static const std::uint8_t bytes[] = {8};
  raw_kernel k = host_kernel("index3d", &index3d_thread, nullptr, 1);
  k.symbol = "kiln_raw_test_index3d";
  k.ptx = index_ptx;
  k.param_bytes = bytes;
  return k;
}

TEST(RawLaunchGpu, PtxAssemblesWithPtxas) {
  const char *candidates[] = {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas"};
  const char *ptxas = nullptr;
  for (const char *c : candidates)
    if (std::FILE *f = std::fopen(c, "r")) {
      std::fclose(f);
      ptxas = c;
      break;
    }
  if (!ptxas)
    GTEST_SKIP() << "ptxas not found";
  const std::string path = ::testing::TempDir() + "kiln_raw_index3d.ptx";
  {
    std::FILE *f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(index_ptx, f);
    std::fclose(f);
  }
  const std::string cmd = std::string(ptxas) + " -arch=sm_80 " + path + " -o " + path + ".cubin";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << index_ptx;
}

TEST(RawLaunchGpu, ThreeDLaunchWithLargeDynamicSharedMemoryMatchesTheHost) {
  KILN_REQUIRE_GPU();
  const raw_kernel k = index3d_kernel();
  const raw_dims grid{5, 3, 2}, block{8, 4, 3};
  const i64 total = i64{5} * 3 * 2 * 8 * 4 * 3;
  // Above the default 48 KiB: the launch raises the function's limit.
  const std::size_t shared = 64 * 1024;

  std::vector<i64> host(total, 0);
  i64 *hp = host.data();
  run_host(k, grid, block, {&hp}, shared);
  for (i64 g = 0; g < total; ++g)
    ASSERT_EQ(host[g], g * 2048 + (g % 96 + 1) % 96) << "host thread " << g;

  const device gpu = device::cuda(0);
  auto out = kiln::zeros<i64>(kiln::shape{total}, gpu);
  i64 *dp = out.data();
  void *args[] = {&dp};
  launch_raw(k, gpu, grid, block, shared, nullptr, args);
  EXPECT_EQ(out.to_vector(), host);

  // Through kiln::launch, on a stream of its own.
  kiln::stream s(gpu);
  auto out2 = kiln::zeros<i64>(kiln::shape{total}, gpu);
  kiln::launch(kiln::detail::typed_raw_kernel<void(i64 *)>(k), kiln::grid{5, 3, 2}, kiln::block{8, 4, 3},
               kiln::shared_memory{shared}, s, out2);
  s.synchronize();
  EXPECT_EQ(out2.to_vector(), host);
}

TEST(RawLaunchGpu, DeviceMismatchesAndSharedMemoryLimitsAreErrors) {
  KILN_REQUIRE_GPU();
  const raw_kernel k = index3d_kernel();
  const device gpu = device::cuda(0);
  using typed = kiln::detail::typed_raw_kernel<void(i64 *)>;
  auto on_host = kiln::zeros<i64>(kiln::shape{96}, device::host());
  // The launch runs on the host array's device; a GPU stream cannot run it.
  EXPECT_TRUE(contains(message_of<kiln::device_error>([&] {
                         kiln::launch(typed(k), 1, kiln::block{8, 4, 3}, kiln::stream(gpu), on_host);
                       }),
                       "a stream of cuda:0 cannot run a launch on host"));
  i64 *p = nullptr;
  void *args[] = {&p};
  const std::string msg =
      message_of<kiln::value_error>([&] { launch_raw(k, gpu, {1}, {32}, std::size_t{1} << 20, nullptr, args); });
  EXPECT_TRUE(contains(msg, "bytes of shared memory per block (0 static + 1048576 dynamic) are above the limit of"))
      << msg;
  EXPECT_TRUE(contains(msg, "bytes on cuda:0")) << msg;
}

/// PTX of a raw kernel (one pointer parameter) that stores to address 16.
const char *raw_fault_ptx = R"(.version 7.0
.target sm_80
.address_size 64
.visible .entry kiln_raw_fault_probe(.param .u64 p0)
{
  .reg .f32 %f<2>;
  .reg .b64 %rd<2>;
  mov.f32 %f1, 0f3F800000;
  mov.u64 %rd1, 16;
  st.global.f32 [%rd1], %f1;
  ret;
}
)";
const std::uint8_t raw_fault_bytes[] = {8};
void raw_fault_no_host(void **, raw_thread_ctx *) { std::abort(); }

/// In the child: the faulting raw kernel on cuda:0 (fault_child.hpp).
[[noreturn]] void raw_fault_child(bool blocking) {
  kiln_test::fault_child(blocking, [] {
    const raw_kernel k{"fault_probe", "kiln_raw_fault_probe", raw_fault_ptx, nullptr, 0, &raw_fault_no_host, nullptr,
                       1, raw_fault_bytes, 0, false};
    float *p = nullptr;
    void *args[] = {&p};
    launch_raw(k, device::cuda(0), {1}, {32}, 0, nullptr, args);
  });
}

TEST(RawLaunchGpu, AFaultingKernelIsACudaErrorNamingIt) {
  KILN_REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Found at the next synchronization: the last kernel launched is named.
  EXPECT_EXIT(raw_fault_child(false), ::testing::ExitedWithCode(0),
              "cuda_error 7[0-9][0-9]: .*CUDA_ERROR_[A-Z_]+ \\(7[0-9][0-9]\\): .*a kernel faulted: the last kernel "
              "launched on cuda:0 was kiln_raw_fault_probe");
  // With KILN_LAUNCH_BLOCKING=1, at the launch: the C++ name leads.
  EXPECT_EXIT(raw_fault_child(true), ::testing::ExitedWithCode(0),
              "cuda_error 7[0-9][0-9]: kernel 'fault_probe': kernel kiln_raw_fault_probe failed on cuda:0: "
              "CUDA_ERROR_[A-Z_]+");
}

} // namespace
