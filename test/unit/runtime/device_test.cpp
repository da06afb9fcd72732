// Tests of devices: the host fallback without a GPU, KILN_DEVICE, the
// per-thread current device, device_scope, check_device and properties.
#include "env_device.hpp"
#include "gpu.hpp"

#include "kiln/device.hpp"
#include "kiln/error.hpp"
#include "runtime/device/device_state.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <thread>

using kiln::device;

namespace {

std::string error_of(const std::function<void()> &f) {
  try {
    f();
  } catch (const kiln::device_error &e) {
    return e.what();
  }
  return "(no device_error)";
}

} // namespace

TEST(Device, Names) {
  EXPECT_EQ(device::host().str(), "host");
  EXPECT_EQ(device().str(), "host");
  EXPECT_EQ(device::cuda().str(), "cuda:0");
  EXPECT_EQ(device::cuda(3).str(), "cuda:3");
  EXPECT_TRUE(device::cuda(1).is_cuda());
  EXPECT_EQ(device::cuda(1).index(), 1);
  EXPECT_FALSE(device::cuda(0) == device::host());
  EXPECT_TRUE(device::cuda(2) == device::cuda(2));
}

// The "runs without a GPU" test: on a machine without a driver everything
// falls back to the host.
TEST(Device, RunsWithoutGpu) {
  env_device env(nullptr);
  if (kiln::cuda_device_count() > 0) {
    EXPECT_TRUE(kiln::cuda_available());
    EXPECT_EQ(kiln::current_device(), device::cuda(0));
    return;
  }
  EXPECT_FALSE(kiln::cuda_available());
  EXPECT_EQ(kiln::current_device(), device::host());
  EXPECT_NO_THROW(kiln::check_device(device::host()));
  EXPECT_NO_THROW(kiln::set_current_device(device::host()));
  std::string msg = error_of([] { kiln::check_device(device::cuda(0)); });
  EXPECT_EQ(msg.rfind("cuda:0 is not available: no CUDA", 0), 0u) << msg;
}

TEST(Device, AbsentGpuIsADeviceErrorAndTheProgramGoesOn) {
  int n = kiln::cuda_device_count();
  device absent = device::cuda(n);
  std::string msg = error_of([&] { kiln::check_device(absent); });
  std::string prefix = absent.str() + " is not available: ";
  EXPECT_EQ(msg.rfind(prefix, 0), 0u) << msg;
  if (n > 0)
    EXPECT_NE(msg.find(std::to_string(n) + " CUDA device(s) present"),
              std::string::npos)
        << msg;
  EXPECT_THROW(kiln::check_device(device::cuda(-1)), kiln::device_error);

  device before = kiln::current_device();
  EXPECT_THROW(kiln::set_current_device(absent), kiln::device_error);
  EXPECT_EQ(kiln::current_device(), before);
  EXPECT_THROW(kiln::device_scope s(absent), kiln::device_error);
  EXPECT_EQ(kiln::current_device(), before);
  EXPECT_THROW(kiln::properties(absent), kiln::device_error);
  EXPECT_NO_THROW(kiln::properties(kiln::device::host()));
}

TEST(Device, KilnDeviceHost) {
  env_device env("host");
  EXPECT_EQ(kiln::current_device(), device::host());
}

TEST(Device, KilnDeviceSpacesAreIgnored) {
  env_device env("  host ");
  EXPECT_EQ(kiln::current_device(), device::host());
}

TEST(Device, KilnDeviceEmptyMeansDefault) {
  env_device env("");
  EXPECT_EQ(kiln::current_device(),
            kiln::cuda_available() ? device::cuda(0) : device::host());
}

TEST(Device, KilnDeviceBadValues) {
  for (const char *bad : {"gpu", "cuda:", "cuda:x", "cuda:-1", "cuda0", "HOST",
                          "cuda:1:2", "cuda:99999999"}) {
    env_device env(bad);
    std::string msg = error_of([] { kiln::current_device(); });
    EXPECT_EQ(msg, std::string("KILN_DEVICE='") + bad +
                       "' is not a device: expected 'host', 'cuda' or 'cuda:N'")
        << bad;
    // Still an error on the next use, and an explicit choice still works.
    EXPECT_THROW(kiln::current_device(), kiln::device_error);
    kiln::set_current_device(device::host());
    EXPECT_EQ(kiln::current_device(), device::host());
  }
}

TEST(Device, KilnDeviceAbsentGpu) {
  int n = kiln::cuda_device_count();
  std::string value = "cuda:" + std::to_string(n);
  env_device env(value.c_str());
  std::string msg = error_of([] { kiln::current_device(); });
  EXPECT_EQ(msg.rfind("KILN_DEVICE='" + value + "': cuda:" + std::to_string(n) +
                          " is not available: ",
                      0),
            0u)
      << msg;
}

TEST(Device, KilnDeviceCudaWithoutGpu) {
  if (kiln::cuda_available())
    GTEST_SKIP() << "a GPU is present";
  env_device env("cuda");
  std::string msg = error_of([] { kiln::current_device(); });
  EXPECT_EQ(
      msg.rfind("KILN_DEVICE='cuda': cuda:0 is not available: no CUDA", 0), 0u)
      << msg;
}

TEST(Device, KilnDeviceCuda) {
  KILN_REQUIRE_GPU();
  {
    env_device env("cuda");
    EXPECT_EQ(kiln::current_device(), device::cuda(0));
  }
  {
    env_device env("host");
    EXPECT_EQ(kiln::current_device(), device::host()); // host even with a GPU
  }
  int last = kiln::cuda_device_count() - 1;
  std::string value = "cuda:" + std::to_string(last);
  env_device env(value.c_str());
  EXPECT_EQ(kiln::current_device(), device::cuda(last));
}

TEST(Device, CurrentDeviceIsPerThread) {
  env_device env("host");
  kiln::set_current_device(device::host());
  device other_thread_default;
  std::thread t([&] { other_thread_default = kiln::current_device(); });
  t.join();
  EXPECT_EQ(other_thread_default, device::host());
  if (kiln::cuda_available()) {
    kiln::set_current_device(device::cuda(0));
    device seen = device::cuda(0);
    std::thread u([&] { seen = kiln::current_device(); });
    u.join();
    EXPECT_EQ(seen,
              device::host()); // KILN_DEVICE=host, not this thread's choice
    EXPECT_EQ(kiln::current_device(), device::cuda(0));
    kiln::set_current_device(device::host());
  }
}

TEST(Device, ScopeRestoresNested) {
  env_device env("host");
  device outer = kiln::current_device();
  {
    kiln::device_scope a(device::host());
    EXPECT_EQ(kiln::current_device(), device::host());
    if (kiln::cuda_available()) {
      kiln::device_scope b(device::cuda(kiln::cuda_device_count() - 1));
      EXPECT_EQ(kiln::current_device(),
                device::cuda(kiln::cuda_device_count() - 1));
    }
    EXPECT_EQ(kiln::current_device(), device::host());
  }
  EXPECT_EQ(kiln::current_device(), outer);
}

TEST(Device, HostProperties) {
  kiln::device_properties p = kiln::properties(device::host());
  EXPECT_FALSE(p.name.empty());
  EXPECT_GT(p.multiprocessors, 0);
  EXPECT_GT(p.total_memory, std::size_t(64) << 20);
  EXPECT_EQ(p.compute_capability_major, 0);
  EXPECT_EQ(p.max_threads_per_block, 1);
}

TEST(Device, GpuProperties) {
  KILN_REQUIRE_GPU();
  for (int i = 0; i < kiln::cuda_device_count(); ++i) {
    kiln::device_properties p = kiln::properties(device::cuda(i));
    EXPECT_FALSE(p.name.empty());
    EXPECT_GT(p.multiprocessors, 0);
    EXPECT_GT(p.total_memory, std::size_t(1) << 30);
    EXPECT_GE(p.compute_capability_major, 5);
    EXPECT_GE(p.max_threads_per_block, 512);
    EXPECT_GT(p.l2_cache_bytes, 0u);
    std::printf("cuda:%d: %s, %d SMs, %zu MiB, sm_%d%d, L2 %zu KiB\n", i,
                p.name.c_str(), p.multiprocessors, p.total_memory >> 20,
                p.compute_capability_major, p.compute_capability_minor,
                p.l2_cache_bytes >> 10);
  }
}
