// Tests of the caching memory pools: reuse without new allocations, size
// classes, accounting, free_all_blocks, limits and out_of_memory, stream-aware
// reuse, pinned buffers, thread safety, and the speed of a cached allocation.
#include "gpu.hpp"

#include "kiln/error.hpp"
#include "kiln/memory.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/memory/caching_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

using kiln::device;

namespace {

kiln::detail::caching_pool &host_pool() {
  return dynamic_cast<kiln::detail::caching_pool &>(
      kiln::get_default_memory_pool(device::host()));
}

kiln::stream host_stream() {
  return kiln::stream::default_stream(device::host());
}

/// Fills `n` doubles at `p` with random values and checks that they read back
/// equal to an independent copy (the memory is usable and not shared).
void check_usable(void *p, std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1e3, 1e3);
  std::vector<double> ref(n);
  for (double &v : ref)
    v = dist(rng);
  std::memcpy(p, ref.data(), n * sizeof(double));
  double sum = 0, ref_sum = 0;
  for (std::size_t i = 0; i < n; ++i)
    sum += static_cast<double *>(p)[i], ref_sum += ref[i];
  EXPECT_EQ(std::memcmp(p, ref.data(), n * sizeof(double)), 0);
  EXPECT_DOUBLE_EQ(sum, ref_sum);
}

} // namespace

TEST(MemoryPool, CachedSizeComesBackWithoutNewAllocation) {
  auto &pool = host_pool();
  auto s = host_stream();
  void *first;
  {
    kiln::allocation a = pool.allocate(1000, s);
    first = a.get();
    ASSERT_NE(first, nullptr);
    check_usable(first, 1000 / sizeof(double), 1);
  }
  std::size_t total = pool.total_bytes();
  std::size_t calls = pool.backend_allocations();
  std::size_t used = pool.used_bytes();
  for (int i = 0; i < 10; ++i) {
    kiln::allocation a = pool.allocate(1000, s);
    EXPECT_EQ(a.get(), first);
    EXPECT_EQ(pool.used_bytes(), used + 1024); // one 512-byte size class up
    // 513..1024 bytes share the size class.
    kiln::allocation b = pool.allocate(600);
    EXPECT_NE(b.get(), first);
  }
  EXPECT_EQ(pool.total_bytes(), total + 1024); // b's block, allocated once
  EXPECT_EQ(pool.backend_allocations(), calls + 1);
  EXPECT_EQ(pool.used_bytes(), used);
}

TEST(MemoryPool, SizeClassesAlignmentAndAccounting) {
  auto &pool = host_pool();
  pool.free_all_blocks();
  std::size_t used0 = pool.used_bytes();
  std::vector<kiln::allocation> live;
  std::size_t expect = 0;
  std::mt19937 rng(7);
  for (int i = 0; i < 50; ++i) {
    std::size_t n = std::uniform_int_distribution<std::size_t>(0, 100000)(rng);
    live.push_back(pool.allocate(n, host_stream()));
    std::size_t rounded = n == 0 ? 512 : (n + 511) / 512 * 512;
    expect += rounded;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(live.back().get()) % 256, 0u);
    EXPECT_EQ(pool.used_bytes(), used0 + expect);
    EXPECT_GE(pool.total_bytes(), pool.used_bytes());
    if (n >= 8)
      check_usable(live.back().get(), n / 8, i);
  }
  live.clear();
  EXPECT_EQ(pool.used_bytes(), used0);
  EXPECT_GE(pool.total_bytes(), expect);
  pool.free_all_blocks();
  EXPECT_EQ(pool.total_bytes(), pool.used_bytes());
}

TEST(MemoryPool, BigHostBlocksStartOnHugePageBoundaries) {
  // Blocks of 4 MiB or more are mapped on their own at a 2 MiB boundary and
  // advised to transparent huge pages (host_pages.hpp), as NumPy's arrays;
  // smaller ones keep the pool's 256-byte alignment.
  auto &pool = host_pool();
  pool.free_all_blocks();
  for (std::size_t n : {std::size_t(4) << 20, (std::size_t(9) << 20) + 512, std::size_t(64) << 20}) {
    kiln::allocation a = pool.allocate(n, host_stream());
#if defined(__linux__)
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.get()) % (std::size_t(2) << 20), 0u) << n;
#endif
    check_usable(a.get(), n / sizeof(double), static_cast<unsigned>(n));
  }
  kiln::allocation small = pool.allocate((std::size_t(4) << 20) - 512, host_stream());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.get()) % 256, 0u);
  check_usable(small.get(), ((std::size_t(4) << 20) - 512) / sizeof(double), 9);
  pool.free_all_blocks(); // unmaps the big blocks
  EXPECT_EQ(pool.total_bytes(), pool.used_bytes());
}

TEST(MemoryPool, ZeroBytesGivesADistinctBlock) {
  kiln::allocation a = host_pool().allocate(0, host_stream());
  kiln::allocation b = host_pool().allocate(0, host_stream());
  EXPECT_NE(a.get(), nullptr);
  EXPECT_NE(a.get(), b.get());
}

TEST(MemoryPool, BigCachedBlockIsNotWastedOnASmallRequest) {
  auto &pool = host_pool();
  void *big;
  {
    kiln::allocation a = pool.allocate(1 << 20, host_stream());
    big = a.get();
  }
  kiln::allocation small = pool.allocate(1000, host_stream());
  EXPECT_NE(small.get(), big);
  kiln::allocation near =
      pool.allocate((1 << 20) - 4096, host_stream()); // within 2x: reused
  EXPECT_EQ(near.get(), big);
}

TEST(MemoryPool, LimitTooSmallIsOutOfMemoryThenSmallerWorks) {
  auto &pool = host_pool();
  pool.free_all_blocks();
  std::size_t used = pool.used_bytes();
  pool.set_limit(used + (1 << 20));
  EXPECT_EQ(pool.get_limit(), used + (1 << 20));
  try {
    pool.allocate(3 << 20, host_stream());
    FAIL() << "no out_of_memory";
  } catch (const kiln::out_of_memory &e) {
    std::string msg = e.what();
    EXPECT_EQ(
        msg.rfind("out of memory allocating 3145728 bytes on host (pool: used ",
                  0),
        0u)
        << msg;
    EXPECT_NE(msg.find("limit " + std::to_string(used + (1 << 20)) + ")"),
              std::string::npos)
        << msg;
  }
  EXPECT_THROW(pool.allocate(3 << 20),
               kiln::error); // out_of_memory is a kiln::error
  {
    kiln::allocation a = pool.allocate(512 << 10, host_stream());
    check_usable(a.get(), (512 << 10) / 8, 3);
    EXPECT_LE(pool.total_bytes(), pool.get_limit());
  }
  // The cache is freed to make room: a 768 KiB block after a 512 KiB one.
  { kiln::allocation a = pool.allocate(768 << 10, host_stream()); }
  EXPECT_LE(pool.total_bytes(), pool.get_limit());
  pool.set_limit(0);
  EXPECT_EQ(pool.get_limit(), 0u);
  kiln::allocation a = pool.allocate(3 << 20, host_stream());
  EXPECT_NE(a.get(), nullptr);
}

TEST(MemoryPool, ImpossibleSizesAreOutOfMemory) {
  auto &pool = host_pool();
  std::size_t total = pool.total_bytes();
  EXPECT_THROW(pool.allocate(std::size_t(1) << 62, host_stream()),
               kiln::out_of_memory);
  EXPECT_THROW(pool.allocate(SIZE_MAX, host_stream()), kiln::out_of_memory);
  try {
    pool.allocate(std::size_t(1) << 62, host_stream());
  } catch (const kiln::out_of_memory &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "allocating 4611686018427387904 bytes on host"),
              std::string::npos)
        << e.what();
  }
  EXPECT_LE(pool.total_bytes(), total); // nothing leaked in the accounting
  kiln::allocation a = pool.allocate(4096, host_stream());
  check_usable(a.get(), 512, 4);
}

TEST(MemoryPool, AbsentDeviceAndWrongStream) {
  EXPECT_THROW(
      kiln::get_default_memory_pool(device::cuda(kiln::cuda_device_count())),
      kiln::device_error);
  EXPECT_EQ(&kiln::get_default_memory_pool(device::host()),
            &kiln::get_default_memory_pool(device::host()));
  EXPECT_EQ(kiln::get_default_memory_pool(device::host()).get_device(),
            device::host());
  if (kiln::cuda_available()) {
    try {
      host_pool().allocate(100, kiln::stream::default_stream(device::cuda(0)));
      FAIL();
    } catch (const kiln::device_error &e) {
      EXPECT_STREQ(e.what(), "cannot allocate from the memory pool of host for "
                             "a stream of cuda:0");
    }
  }
}

TEST(MemoryPool, ThreadedStress) {
  auto &pool = host_pool();
  std::size_t used0 = pool.used_bytes();
  std::atomic<int> bad{0};
  auto work = [&](unsigned seed) {
    struct block {
      kiln::allocation mem;
      std::size_t words;
      std::uint32_t tag;
    };
    std::mt19937 rng(seed);
    std::vector<block> live;
    for (int i = 0; i < 20000; ++i) {
      if (live.size() < 32 && rng() % 2) {
        std::size_t words = 1 + rng() % 4096;
        block b{pool.allocate(words * 4, host_stream()), words,
                static_cast<std::uint32_t>(rng())};
        auto *w = static_cast<std::uint32_t *>(b.mem.get());
        w[0] = b.tag;
        w[words - 1] = b.tag ^ 0xabcdefu;
        w[0] = b.tag;
        live.push_back(std::move(b));
      } else if (!live.empty()) {
        std::size_t k = rng() % live.size();
        auto *w = static_cast<std::uint32_t *>(live[k].mem.get());
        if (live[k].words > 1 &&
            w[live[k].words - 1] != (live[k].tag ^ 0xabcdefu))
          ++bad;
        if (w[0] != live[k].tag)
          ++bad;
        live.erase(live.begin() + k);
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t)
    threads.emplace_back(work, 100 + t);
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(pool.used_bytes(), used0);
  std::thread freer([&] { pool.free_all_blocks(); });
  freer.join();
  EXPECT_EQ(pool.total_bytes(), pool.used_bytes());
}

TEST(MemoryPool, CachedAllocationIsFast) {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "a timing goal: meaningless under a sanitizer";
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
  GTEST_SKIP() << "a timing goal: meaningless under a sanitizer";
#endif
#endif
  auto &pool = host_pool();
  auto s = host_stream();
  { kiln::allocation warm = pool.allocate(1 << 20, s); }
  std::size_t calls = pool.backend_allocations();
  constexpr int n = 200000;
  double best = 1e9;
  for (int round = 0; round < 5; ++round) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
      kiln::allocation a = pool.allocate(1 << 20, s);
      if (!a)
        std::abort();
    }
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(
        best, std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
  }
  std::printf("cached 1 MiB allocate+free: %.3f us\n", best);
  EXPECT_EQ(pool.backend_allocations(), calls);
  EXPECT_LT(best, 1.0); // goal 0.2 us; generous for a loaded machine
}

TEST(MemoryPool, PinnedBuffer) {
  auto &pinned = kiln::get_default_pinned_memory_pool();
  EXPECT_EQ(pinned.get_device(), device::host());
  EXPECT_NE(&pinned, &kiln::get_default_memory_pool(device::host()));
  std::size_t used0 = pinned.used_bytes();
  std::mt19937_64 rng(11);
  std::normal_distribution<double> dist(0.0, 2.0);
  void *first;
  {
    kiln::pinned_buffer<double> buf(10000);
    EXPECT_EQ(buf.size(), 10000u);
    EXPECT_EQ(pinned.used_bytes(), used0 + 80384); // 80000 rounded up to 512
    std::vector<double> ref(buf.size());
    for (std::size_t i = 0; i < buf.size(); ++i)
      buf[i] = ref[i] = dist(rng);
    long double sum = 0, ref_sum = 0;
    for (double v : buf)
      sum += v;
    for (double v : ref)
      ref_sum += v;
    EXPECT_EQ(sum, ref_sum);
    std::span<const double> view = buf;
    EXPECT_EQ(view[123], ref[123]);
    first = buf.data();
  }
  EXPECT_EQ(pinned.used_bytes(), used0);
  kiln::pinned_buffer<double> again(10000);
  EXPECT_EQ(again.data(), first);
  if (kiln::cuda_available()) {
    // Page-locked: the driver knows the pointer.
    const auto &api = kiln::detail::cuda::require_driver();
    unsigned int type = 0;
    KILN_CU(api, cuPointerGetAttribute, &type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
            reinterpret_cast<CUdeviceptr>(again.data()));
    EXPECT_EQ(type, unsigned(CU_MEMORYTYPE_HOST));
  }
}

// --- GPU ---------------------------------------------------------------------

TEST(MemoryPoolGpu, DeviceMemoryIsUsableAndReused) {
  KILN_REQUIRE_GPU();
  const auto &api = kiln::detail::cuda::require_driver();
  auto &pool = dynamic_cast<kiln::detail::caching_pool &>(
      kiln::get_default_memory_pool(device::cuda(0)));
  EXPECT_EQ(pool.get_device(), device::cuda(0));
  auto s = kiln::stream::default_stream(device::cuda(0));
  std::vector<float> host(1 << 20), back(1 << 20);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (float &v : host)
    v = dist(rng);
  void *first;
  {
    kiln::allocation a = pool.allocate(host.size() * 4, s);
    first = a.get();
    KILN_CU(api, cuMemcpyHtoD, reinterpret_cast<CUdeviceptr>(a.get()),
            host.data(), host.size() * 4);
    KILN_CU(api, cuMemcpyDtoH, back.data(),
            reinterpret_cast<CUdeviceptr>(a.get()), host.size() * 4);
    EXPECT_EQ(host, back);
  }
  std::size_t calls = pool.backend_allocations(), total = pool.total_bytes();
  kiln::allocation b = pool.allocate(host.size() * 4, s);
  EXPECT_EQ(b.get(), first);
  EXPECT_EQ(pool.backend_allocations(), calls);
  EXPECT_EQ(pool.total_bytes(), total);
}

TEST(MemoryPoolGpu, StreamAwareReuse) {
  KILN_REQUIRE_GPU();
  auto &pool = kiln::get_default_memory_pool(device::cuda(0));
  kiln::stream s1(device::cuda(0)), s2(device::cuda(0));
  void *p1;
  {
    kiln::allocation a = pool.allocate(1 << 16, s1);
    p1 = a.get();
  }
  kiln::allocation on_s2 = pool.allocate(1 << 16, s2);
  EXPECT_NE(on_s2.get(), p1); // s1's block waits for s1
  kiln::allocation on_s1 = pool.allocate(1 << 16, s1);
  EXPECT_EQ(on_s1.get(), p1);
  // The current stream decides for allocate(n).
  on_s1.reset();
  kiln::stream_scope scope(s1);
  kiln::allocation cur = pool.allocate(1 << 16);
  EXPECT_EQ(cur.get(), p1);
}

TEST(MemoryPoolGpu, LimitAndDriverOutOfMemory) {
  KILN_REQUIRE_GPU();
  auto &pool = kiln::get_default_memory_pool(device::cuda(0));
  auto s = kiln::stream::default_stream(device::cuda(0));
  pool.free_all_blocks(); // else a cached 4 MiB block would serve the 2 MiB
                          // request
  pool.set_limit(pool.used_bytes() + (1 << 20));
  try {
    pool.allocate(2 << 20, s);
    FAIL();
  } catch (const kiln::out_of_memory &e) {
    EXPECT_EQ(
        std::string(e.what()).rfind(
            "out of memory allocating 2097152 bytes on cuda:0 (pool: used ", 0),
        0u)
        << e.what();
  }
  { kiln::allocation ok = pool.allocate(1 << 19, s); }
  pool.set_limit(0);
  // More than the GPU has: the driver says OOM, the pool frees and retries,
  // then throws.
  std::size_t too_much = kiln::properties(device::cuda(0)).total_memory * 2;
  try {
    pool.allocate(too_much, s);
    FAIL();
  } catch (const kiln::out_of_memory &e) {
    EXPECT_NE(std::string(e.what()).find("allocating " +
                                         std::to_string(too_much) +
                                         " bytes on cuda:0"),
              std::string::npos)
        << e.what();
  }
  kiln::allocation after = pool.allocate(1 << 20, s);
  EXPECT_NE(after.get(), nullptr);
  pool.free_all_blocks();
  EXPECT_EQ(pool.total_bytes(), pool.used_bytes());
}

TEST(MemoryPoolGpu, EachGpuHasItsPool) {
  KILN_REQUIRE_GPUS(2);
  auto &p0 = kiln::get_default_memory_pool(device::cuda(0));
  auto &p1 = kiln::get_default_memory_pool(device::cuda(1));
  EXPECT_NE(&p0, &p1);
  kiln::allocation a =
      p1.allocate(1 << 20, kiln::stream::default_stream(device::cuda(1)));
  const auto &api = kiln::detail::cuda::require_driver();
  CUcontext ctx = nullptr;
  KILN_CU(api, cuPointerGetAttribute, &ctx, CU_POINTER_ATTRIBUTE_CONTEXT,
          reinterpret_cast<CUdeviceptr>(a.get()));
  int ordinal = -1;
  KILN_CU(api, cuPointerGetAttribute, &ordinal,
          CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
          reinterpret_cast<CUdeviceptr>(a.get()));
  EXPECT_EQ(ordinal, 1);
  EXPECT_THROW(p0.allocate(16, kiln::stream::default_stream(device::cuda(1))),
               kiln::device_error);
}
