// Tests of streams and events: the current stream per thread and device,
// stream_scope, host events and elapsed_ms, errors; on GPUs two streams
// ordered by an event, and peer access between two GPUs.
#include "gpu.hpp"

#include "kiln/error.hpp"
#include "kiln/memory.hpp"
#include "kiln/stream.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/cuda/driver_status.hpp"
#include "runtime/device/peer.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

using kiln::device;

TEST(Stream, HostStreams) {
  kiln::stream d = kiln::stream::default_stream(device::host());
  kiln::stream s(device::host());
  EXPECT_EQ(d.get_device(), device::host());
  EXPECT_EQ(d.native_handle(), nullptr);
  EXPECT_EQ(s.native_handle(), nullptr);
  EXPECT_TRUE(s.query());
  EXPECT_NO_THROW(s.synchronize());
  EXPECT_NO_THROW(d.synchronize());
  EXPECT_EQ(kiln::stream::current(device::host()), d);
  EXPECT_NO_THROW(kiln::synchronize());
  EXPECT_NO_THROW(kiln::synchronize(device::host()));
}

TEST(Stream, AbsentDevice) {
  device absent = device::cuda(kiln::cuda_device_count());
  EXPECT_THROW(kiln::stream s(absent), kiln::device_error);
  EXPECT_THROW(kiln::stream::default_stream(absent), kiln::device_error);
  EXPECT_THROW(kiln::stream::current(absent), kiln::device_error);
  EXPECT_THROW(kiln::event e(absent), kiln::device_error);
  EXPECT_THROW(kiln::synchronize(absent), kiln::device_error);
  kiln::stream ok(device::host()); // the program goes on
  EXPECT_TRUE(ok.query());
}

TEST(Stream, ScopeIsPerThreadAndNests) {
  device dev = kiln::cuda_available() ? device::cuda(0) : device::host();
  kiln::stream a(dev), b(dev);
  kiln::stream def = kiln::stream::default_stream(dev);
  EXPECT_EQ(kiln::stream::current(dev), def);
  {
    kiln::stream_scope sa(a);
    EXPECT_EQ(kiln::stream::current(dev), a);
    bool other_thread_sees_default = false;
    std::thread t(
        [&] { other_thread_sees_default = kiln::stream::current(dev) == def; });
    t.join();
    EXPECT_TRUE(other_thread_sees_default);
    {
      kiln::stream_scope sb(b);
      EXPECT_EQ(kiln::stream::current(dev), b);
      if (dev.is_cuda()) {
        EXPECT_NE(a.native_handle(), b.native_handle());
        EXPECT_FALSE(a == b);
      }
    }
    EXPECT_EQ(kiln::stream::current(dev), a);
  }
  EXPECT_EQ(kiln::stream::current(dev), def);
  if (dev.is_cuda()) {
    // Another device's current stream is untouched by a scope on this one.
    kiln::stream_scope sa(a);
    EXPECT_EQ(kiln::stream::current(device::host()),
              kiln::stream::default_stream(device::host()));
  }
}

TEST(Event, HostElapsedIsMonotonic) {
  kiln::event e0(device::host()), e1(device::host()), e2(device::host());
  e0.record();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  e1.record(kiln::stream(device::host()));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  e2.record();
  EXPECT_TRUE(e2.query());
  e2.synchronize();
  float a = kiln::elapsed_ms(e0, e1), b = kiln::elapsed_ms(e0, e2);
  EXPECT_GE(a, 4.5f);
  EXPECT_GE(b, a + 4.5f);
  EXPECT_LT(b, 5000.0f);
  EXPECT_NEAR(kiln::elapsed_ms(e1, e2) + a, b, 0.01f);
  EXPECT_LE(kiln::elapsed_ms(e2, e0),
            -9.0f); // reversed order: negative, as CUDA
  EXPECT_NO_THROW(e1.wait(kiln::stream(device::host())));
}

TEST(Event, Errors) {
  kiln::event recorded(device::host()), never(device::host());
  recorded.record();
  try {
    kiln::elapsed_ms(recorded, never);
    FAIL();
  } catch (const kiln::value_error &e) {
    EXPECT_STREQ(e.what(), "elapsed_ms: both events must be recorded first");
  }
  EXPECT_TRUE(never.query()); // an unrecorded event is complete, as in CUDA
  EXPECT_NO_THROW(never.synchronize());
  if (kiln::cuda_available()) {
    kiln::event g(device::cuda(0));
    g.record();
    try {
      kiln::elapsed_ms(recorded, g);
      FAIL();
    } catch (const kiln::device_error &e) {
      EXPECT_STREQ(
          e.what(),
          "elapsed_ms: the events are on different devices (host and cuda:0)");
    }
    try {
      recorded.record(kiln::stream::default_stream(device::cuda(0)));
      FAIL();
    } catch (const kiln::device_error &e) {
      EXPECT_STREQ(e.what(),
                   "cannot record an event of host on a stream of cuda:0");
    }
  }
}

// --- GPU ---------------------------------------------------------------------

namespace {
const kiln::detail::cuda::driver_api &api() {
  return kiln::detail::cuda::require_driver();
}
CUdeviceptr dptr(const kiln::allocation &a) {
  return reinterpret_cast<CUdeviceptr>(a.get());
}
} // namespace

TEST(StreamGpu, TwoStreamsOrderedByAnEvent) {
  KILN_REQUIRE_GPU();
  device dev = device::cuda(0);
  kiln::stream producer(dev), consumer(dev);
  EXPECT_NE(producer.native_handle(), nullptr);
  EXPECT_NE(producer.native_handle(), consumer.native_handle());
  constexpr std::size_t n = 64 << 20; // 256 MiB of uint32: long enough to race
  auto &pool = kiln::get_default_memory_pool(dev);
  kiln::allocation src = pool.allocate(n * 4, producer),
                   dst = pool.allocate(n * 4, producer);
  kiln::pinned_buffer<std::uint32_t> host(n);
  std::mt19937 rng(9);
  std::uint32_t value = rng() | 1;
  for (int round = 0; round < 3; ++round, value = rng() | 1) {
    KILN_CU(api(), cuMemsetD32Async, dptr(src), value, n,
            static_cast<CUstream>(producer.native_handle()));
    KILN_CU(api(), cuMemcpyDtoDAsync, dptr(dst), dptr(src), n * 4,
            static_cast<CUstream>(producer.native_handle()));
    kiln::event done(dev);
    done.record(producer);
    done.wait(consumer);
    KILN_CU(api(), cuMemcpyDtoHAsync, host.data(), dptr(dst), n * 4,
            static_cast<CUstream>(consumer.native_handle()));
    consumer.synchronize();
    EXPECT_TRUE(consumer.query());
    EXPECT_TRUE(done.query());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; i += 4097)
      wrong += host[i] != value;
    EXPECT_EQ(host[n - 1], value);
    EXPECT_EQ(wrong, 0u);
  }
}

TEST(StreamGpu, ElapsedTimeOfWork) {
  KILN_REQUIRE_GPU();
  device dev = device::cuda(0);
  kiln::stream s(dev);
  kiln::allocation buf =
      kiln::get_default_memory_pool(dev).allocate(256 << 20, s);
  kiln::event e0(dev), e1(dev), e2(dev);
  e0.record(s);
  KILN_CU(api(), cuMemsetD8Async, dptr(buf), 1, 256 << 20,
          static_cast<CUstream>(s.native_handle()));
  e1.record(s);
  KILN_CU(api(), cuMemsetD8Async, dptr(buf), 2, 256 << 20,
          static_cast<CUstream>(s.native_handle()));
  e2.record(s);
  float a = kiln::elapsed_ms(e0, e1), b = kiln::elapsed_ms(e0, e2);
  EXPECT_GT(a, 0.0f);
  EXPECT_GT(b, a);
  EXPECT_LT(b, 10000.0f);
  kiln::synchronize();
  kiln::synchronize(dev);
  // The default stream and the current stream.
  kiln::event d(dev);
  d.record(); // on the current (default) stream
  d.synchronize();
  EXPECT_TRUE(d.query());
}

TEST(StreamGpu, HostStreamWaitsForAGpuEvent) {
  KILN_REQUIRE_GPU();
  device dev = device::cuda(0);
  kiln::stream s(dev);
  kiln::allocation buf =
      kiln::get_default_memory_pool(dev).allocate(256 << 20, s);
  KILN_CU(api(), cuMemsetD8Async, dptr(buf), 3, 256 << 20,
          static_cast<CUstream>(s.native_handle()));
  kiln::event e(dev);
  e.record(s);
  e.wait(kiln::stream::default_stream(device::host())); // blocks until done
  EXPECT_TRUE(e.query());
}

TEST(StreamGpu, PeerAccessBetweenTwoGpus) {
  KILN_REQUIRE_GPUS(2);
  EXPECT_TRUE(kiln::detail::enable_peer_access(0, 0));
  bool p01 = kiln::detail::enable_peer_access(0, 1);
  EXPECT_EQ(kiln::detail::enable_peer_access(0, 1),
            p01); // cached, no ALREADY_ENABLED error
  bool p10 = kiln::detail::enable_peer_access(1, 0);
  std::printf("peer access 0->1: %d, 1->0: %d\n", p01, p10);
  EXPECT_THROW(kiln::detail::enable_peer_access(0, kiln::cuda_device_count()),
               kiln::device_error);

  constexpr std::size_t n = 1 << 22;
  std::vector<float> data(n), back(n);
  std::mt19937 rng(13);
  std::normal_distribution<float> dist;
  for (float &v : data)
    v = dist(rng);
  kiln::stream s0(device::cuda(0)), s1(device::cuda(1));
  kiln::allocation a0 =
      kiln::get_default_memory_pool(device::cuda(0)).allocate(n * 4, s0);
  kiln::allocation a1 =
      kiln::get_default_memory_pool(device::cuda(1)).allocate(n * 4, s1);
  kiln::detail::cuda::make_current(0);
  KILN_CU(api(), cuMemcpyHtoD, dptr(a0), data.data(), n * 4);
  // With peer access a plain device-to-device copy in cuda:0's context reads
  // cuda:1's memory through unified addressing; cuMemcpyPeerAsync works either
  // way.
  CUcontext c0 = kiln::detail::cuda::primary_context(0),
            c1 = kiln::detail::cuda::primary_context(1);
  KILN_CU(api(), cuMemcpyPeerAsync, dptr(a1), c1, dptr(a0), c0, n * 4,
          static_cast<CUstream>(s0.native_handle()));
  s0.synchronize();
  kiln::detail::cuda::make_current(1);
  KILN_CU(api(), cuMemcpyDtoH, back.data(), dptr(a1), n * 4);
  EXPECT_EQ(data, back);
  if (p01) {
    kiln::detail::cuda::make_current(0);
    KILN_CU(api(), cuMemsetD32Async, dptr(a0), 0x3f800000u, n,
            static_cast<CUstream>(s0.native_handle()));
    KILN_CU(api(), cuMemcpyDtoDAsync, dptr(a1), dptr(a0), n * 4,
            static_cast<CUstream>(s0.native_handle()));
    s0.synchronize();
    kiln::detail::cuda::make_current(1);
    KILN_CU(api(), cuMemcpyDtoH, back.data(), dptr(a1), n * 4);
    EXPECT_EQ(back[0], 1.0f);
    EXPECT_EQ(back[n - 1], 1.0f);
  }
  // Events of two devices: elapsed_ms refuses; a stream waits on another GPU's
  // event.
  kiln::event e0(device::cuda(0)), e1(device::cuda(1));
  e0.record(s0);
  e1.record(s1);
  EXPECT_THROW(kiln::elapsed_ms(e0, e1), kiln::device_error);
  e0.wait(s1);
  s1.synchronize();
}
