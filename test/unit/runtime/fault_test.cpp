// Fault tests (issue 8, "Faults"): out of memory in the middle of a
// multi-step operation under a pool limit, absent devices (KILN_DEVICE),
// corrupt and foreign DLPack tensors, and a faulting GPU kernel. Each fault
// is a typed kiln::error whose message says what happened and what to do;
// live arrays stay intact and the runtime stays usable after it.
//
// The GPU part (KernelFault.*) needs a GPU and skips itself, with a message,
// without one; on the device machine run
//   build/test/unit/unit_runtime_fault_test --gtest_filter='KernelFault.*'
// (it forks a child per case: the CUDA context is unusable after a fault).
#include "expect.hpp"
#include "env_device.hpp"
#include "fault_child.hpp"
#include "gpu.hpp"

#include "kiln/kiln.hpp" // before fused.hpp, as in kilnc's output
#include "kiln/detail/fused.hpp"
#include "kiln/dlpack.h"
#include "runtime/cuda/driver.hpp"
#include "runtime/device/device_state.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace {

using kiln::array;
using kiln::array_base;
using kiln::device;
using kiln::shape;
using i64 = std::int64_t;

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

/// Rounds a request up to the pool's 512-byte size class.
std::size_t block_of(std::size_t n) { return (n + 511) / 512 * 512; }

/// Sets a limit on the current device's pool for one test, then lifts it.
class pool_limit {
public:
  explicit pool_limit(std::size_t bytes) : pool_(kiln::get_default_memory_pool()) { pool_.set_limit(bytes); }
  ~pool_limit() { pool_.set_limit(0); }

private:
  kiln::memory_pool &pool_;
};

//===----------------------------------------------------------------------===//
// Out of memory under a pool limit
//===----------------------------------------------------------------------===//

TEST(OutOfMemory, MidExpressionLeavesArraysIntactAndThePoolUsable) {
  const device dev = kiln::current_device();
  auto &pool = kiln::get_default_memory_pool(dev);
  const i64 n = 100000;
  const std::vector<double> xv = random_doubles(n, 11), yv = random_doubles(n, 12);
  auto x = kiln::asarray<double>(xv, shape{n}, dev);
  auto y = kiln::asarray<double>(yv, shape{n}, dev);
  kiln::synchronize();
  pool.free_all_blocks();
  const std::size_t used0 = pool.used_bytes();
  const std::size_t block = block_of(n * sizeof(double));
  // Room for two temporaries: x*x and y*y fit, their sum does not.
  const std::size_t limit = used0 + 2 * block;
  {
    pool_limit lim(limit);
    try {
      auto r = kiln::sqrt(x * x + y * y);
      ADD_FAILURE() << "no out_of_memory; used " << pool.used_bytes();
    } catch (const kiln::out_of_memory &e) {
      const std::string msg = e.what();
      // Which device, how many bytes, and the pool's state and limit.
      EXPECT_EQ(msg.rfind("out of memory allocating " + std::to_string(n * sizeof(double)) + " bytes on " +
                              dev.str() + " (pool: used ",
                          0),
                0u)
          << msg;
      EXPECT_TRUE(contains(msg, "limit " + std::to_string(limit) + ")")) << msg;
    }
    // Temporaries are gone; the operands are untouched.
    EXPECT_EQ(pool.used_bytes(), used0);
    EXPECT_EQ(x.to_vector(), xv);
    EXPECT_EQ(y.to_vector(), yv);
    EXPECT_LE(pool.total_bytes(), limit);
    // Still usable under the limit: an expression of one temporary fits.
    auto twice = x + x;
    auto tv = twice.to_vector();
    for (i64 i = 0; i < n; i += 997)
      ASSERT_EQ(tv[i], xv[i] + xv[i]);
  }
  // Freeing an operand makes room: the expression fits the same limit now.
  {
    x = kiln::array<double>();
    pool_limit lim(limit);
    auto r = kiln::sqrt(y * y + 1.0);
    auto rv = r.to_vector();
    for (i64 i = 0; i < n; i += 997)
      ASSERT_NEAR(rv[i], std::sqrt(yv[i] * yv[i] + 1.0), 1e-12);
  }
  EXPECT_EQ(y.to_vector(), yv);
}

/// A host kernel of fused.hpp's ABI with one input and two outputs
/// (out0 = 2x, out1 = x + 1), contiguous variant only.
void two_outputs_contig(void **args) {
  auto ptr = [&](int operand) { return *static_cast<double **>(args[operand * 5 + 1]); };
  const i64 n = *static_cast<i64 *>(args[3]);
  const double *x = ptr(0);
  double *a = ptr(1), *b = ptr(2);
  for (i64 i = 0; i < n; ++i)
    a[i] = 2 * x[i], b[i] = x[i] + 1;
}
void never_strided(void **) { std::abort(); }
const kiln::dtype two_outputs_dtypes[] = {kiln::dtype::float64, kiln::dtype::float64, kiln::dtype::float64};
const kiln::detail::fused_kernel two_outputs_kernel = {
    "fault_two_outputs", nullptr, nullptr, 0, &two_outputs_contig,
    {&never_strided, &never_strided, &never_strided, &never_strided},
    1, 2, 0, two_outputs_dtypes, 2, nullptr};

TEST(OutOfMemory, FusedKernelWhoseSecondOutputDoesNotFit) {
  if (!kiln::current_device().is_host())
    GTEST_SKIP() << "the hand-written kernel has host code only";
  auto &pool = kiln::get_default_memory_pool();
  const i64 n = 50000;
  const std::vector<double> xv = random_doubles(n, 21);
  auto x = kiln::asarray<double>(xv, shape{n});
  pool.free_all_blocks();
  const std::size_t used0 = pool.used_bytes();
  const std::size_t limit = used0 + block_of(n * sizeof(double)); // one output
  {
    pool_limit lim(limit);
    const array_base *in[] = {&x};
    array_base outs[2];
    EXPECT_THROW(kiln::detail::launch_elementwise(two_outputs_kernel, in, {}, outs), kiln::out_of_memory);
  }
  EXPECT_EQ(pool.used_bytes(), used0);
  EXPECT_EQ(x.to_vector(), xv);
  // Without the limit the same call runs.
  const array_base *in[] = {&x};
  array_base outs[2];
  kiln::detail::launch_elementwise(two_outputs_kernel, in, {}, outs);
  auto a = array<double>(outs[0]).to_vector(), b = array<double>(outs[1]).to_vector();
  for (i64 i = 0; i < n; i += 101) {
    ASSERT_EQ(a[i], 2 * xv[i]);
    ASSERT_EQ(b[i], xv[i] + 1);
  }
}

TEST(OutOfMemory, ManyThreadsAtTheLimitAllGetTypedErrorsAndNothingLeaks) {
  const device dev = kiln::current_device();
  auto &pool = kiln::get_default_memory_pool(dev);
  kiln::synchronize();
  pool.free_all_blocks();
  const std::size_t used0 = pool.used_bytes();
  std::atomic<int> ooms{0}, wrong{0}, bad_values{0};
  {
    pool_limit lim(used0 + (4 << 20));
    std::vector<std::thread> ts;
    for (int t = 0; t < 8; ++t)
      ts.emplace_back([&, t] {
        kiln::device_scope ds(dev);
        for (int i = 0; i < 40; ++i) {
          try {
            const i64 n = 20000 + 10000 * ((t + i) % 7); // 160 KB to 640 KB each
            auto a = kiln::full<double>(shape{n}, 1.5 + t, dev);
            auto b = a * 2.0 + a; // two temporaries
            auto c = kiln::sum(b).item();
            if (c != 4.5 * n + 3.0 * t * n)
              ++bad_values;
          } catch (const kiln::out_of_memory &) {
            ++ooms;
          } catch (...) {
            ++wrong;
          }
        }
      });
    for (auto &t : ts)
      t.join();
  }
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(bad_values.load(), 0);
  EXPECT_EQ(pool.used_bytes(), used0);
  std::printf("[ oom      ] 320 calls at a 4 MiB limit from 8 threads: %d out_of_memory\n", ooms.load());
}

//===----------------------------------------------------------------------===//
// Absent devices
//===----------------------------------------------------------------------===//

std::string device_error_of(const std::function<void()> &f) {
  try {
    f();
  } catch (const kiln::device_error &e) {
    return e.what();
  } catch (const std::exception &e) {
    return std::string("(another exception: ") + e.what() + ")";
  }
  return "(no device_error)";
}

TEST(BadDevice, KilnDeviceCuda7SaysWhatToDo) {
  const int n = kiln::cuda_device_count();
  if (n > 7)
    GTEST_SKIP() << "cuda:7 exists here";
  env_device env("cuda:7");
  // The first array operation, as in a program started with KILN_DEVICE=cuda:7.
  const std::string msg = device_error_of([] { kiln::zeros<float>(shape{3}); });
  EXPECT_EQ(msg.rfind("KILN_DEVICE='cuda:7': cuda:7 is not available: ", 0), 0u) << msg;
  if (n == 0)
    EXPECT_TRUE(contains(msg, "no CUDA")) << msg; // the reason: no driver, no GPU
  else
    EXPECT_TRUE(contains(msg, std::to_string(n) + " CUDA device(s) present")) << msg;
  EXPECT_TRUE(contains(msg, "KILN_DEVICE=host") || contains(msg, "set KILN_DEVICE to one of them, or to host"))
      << msg;
  // Every entry point says the same, and an explicit device still works.
  EXPECT_EQ(device_error_of([] { kiln::current_device(); }), msg);
  EXPECT_EQ(device_error_of([] { kiln::get_default_memory_pool(); }), msg);
  kiln::set_current_device(device::host());
  EXPECT_EQ(kiln::sum(kiln::ones<float>(shape{4})).item(), 4.0f);
}

TEST(BadDevice, KilnDeviceCudaWithoutDriverSaysWhyAndWhatToDo) {
  if (kiln::cuda_available())
    GTEST_SKIP() << "a GPU and driver are present";
  env_device env("cuda");
  const std::string msg = device_error_of([] { kiln::ones<double>(shape{2}); });
  EXPECT_EQ(msg.rfind("KILN_DEVICE='cuda': cuda:0 is not available: no CUDA driver (", 0), 0u) << msg;
  EXPECT_TRUE(contains(msg, "install or update the NVIDIA driver")) << msg;
  EXPECT_TRUE(contains(msg, "set KILN_DEVICE=host (or unset it) to run on the CPU")) << msg;
}

TEST(BadDevice, AbsentGpuFromTheProgramSaysWhatToDo) {
  const int n = kiln::cuda_device_count();
  const std::string msg = device_error_of([&] { kiln::zeros<float>(shape{3}, device::cuda(n + 6)); });
  EXPECT_EQ(msg.rfind("cuda:" + std::to_string(n + 6) + " is not available: ", 0), 0u) << msg;
  EXPECT_TRUE(contains(msg, "kiln::device::host()")) << msg;
  EXPECT_FALSE(contains(msg, "KILN_DEVICE")) << msg; // not the environment's fault
}

TEST(BadDevice, InAFreshProcess) {
  // What a user sees: a program started with a bad KILN_DEVICE gets a
  // device_error at its first array, not a crash at start-up.
  if (kiln::cuda_device_count() > 7)
    GTEST_SKIP() << "cuda:7 exists here";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("KILN_DEVICE", "cuda:7", 1);
        kiln::detail::reset_device_state_for_testing();
        try {
          auto x = kiln::arange<float>(5.0f);
          std::fprintf(stderr, "no error\n");
        } catch (const kiln::device_error &e) {
          std::fprintf(stderr, "device_error: %s\n", e.what());
          std::exit(0);
        }
        std::exit(1);
      },
      ::testing::ExitedWithCode(0), "device_error: KILN_DEVICE='cuda:7': cuda:7 is not available: .*KILN_DEVICE");
}

//===----------------------------------------------------------------------===//
// Corrupt and foreign DLPack tensors
//===----------------------------------------------------------------------===//

/// A foreign tensor over caller memory that counts deleter calls.
struct foreign {
  std::vector<i64> shape = {4}, strides;
  DLManagedTensor t{};
  int deleted = 0;
  foreign(void *data, DLDataType dt = {kDLFloat, 64, 1}, DLDevice dev = {kDLCPU, 0}) {
    t.dl_tensor.data = data;
    t.dl_tensor.device = dev;
    t.dl_tensor.dtype = dt;
    t.manager_ctx = this;
    t.deleter = [](DLManagedTensor *self) { ++static_cast<foreign *>(self->manager_ctx)->deleted; };
  }
  DLManagedTensor *get() {
    t.dl_tensor.ndim = static_cast<std::int32_t>(shape.size());
    t.dl_tensor.shape = shape.data();
    t.dl_tensor.strides = strides.empty() ? nullptr : strides.data();
    return &t;
  }
};

/// from_dlpack(f) throws an E whose message starts with `prefix`; the tensor
/// stays with the caller (its deleter is not called).
template <class E> void refused(foreign &f, const std::string &prefix, const char *what) {
  SCOPED_TRACE(what);
  try {
    kiln::detail::from_dlpack(f.get());
    ADD_FAILURE() << "accepted";
  } catch (const E &e) {
    EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what();
  } catch (const std::exception &e) {
    ADD_FAILURE() << "another exception: " << e.what();
  }
  EXPECT_EQ(f.deleted, 0);
}

TEST(DLPackFaults, CorruptTensorsAreRefusedWithTypedErrors) {
  alignas(64) double buf[16] = {};
  EXPECT_THROW(kiln::detail::from_dlpack(nullptr), kiln::value_error);
  {
    foreign f(buf);
    f.get()->dl_tensor.ndim = -1;
    f.t.dl_tensor.shape = f.shape.data();
    try {
      kiln::detail::from_dlpack(&f.t);
      ADD_FAILURE() << "accepted";
    } catch (const kiln::value_error &e) {
      EXPECT_EQ(std::string(e.what()), "from_dlpack: invalid ndim -1 (0 to 64 dimensions)");
    }
    // A huge ndim over a 1-element shape array: refused before reading it.
    f.t.dl_tensor.ndim = 1 << 30;
    EXPECT_THROW(kiln::detail::from_dlpack(&f.t), kiln::value_error);
    f.t.dl_tensor.ndim = 65;
    EXPECT_THROW(kiln::detail::from_dlpack(&f.t), kiln::value_error);
    f.t.dl_tensor.ndim = 2;
    f.t.dl_tensor.shape = nullptr;
    EXPECT_THROW(kiln::detail::from_dlpack(&f.t), kiln::value_error);
    EXPECT_EQ(f.deleted, 0);
  }
  {
    foreign f(buf);
    f.shape = {2, -3};
    refused<kiln::value_error>(f, "from_dlpack: negative dimension in shape (2,-3)", "negative shape");
  }
  {
    foreign f(buf);
    f.shape = {i64{1} << 40, i64{1} << 40};
    refused<kiln::value_error>(f, "from_dlpack: the shape (1099511627776,1099511627776) of float64 is too big",
                               "shape whose size overflows");
  }
  const DLDataType bad_types[] = {{kDLFloat, 16, 1}, {kDLFloat, 32, 4}, {kDLInt, 16, 1}, {kDLUInt, 32, 1},
                                  {kDLBool, 1, 1},   {kDLBfloat, 16, 1}, {99, 64, 1},    {kDLComplex, 32, 1},
                                  {kDLFloat, 64, 0}};
  for (DLDataType dt : bad_types) {
    foreign f(buf, dt);
    refused<kiln::value_error>(f, "unsupported DLPack dtype (code " + std::to_string(dt.code), "dtype");
  }
  const DLDevice bad_devices[] = {{kDLOpenCL, 0}, {kDLVulkan, 0}, {kDLMetal, 0}, {kDLROCM, 0},
                                  {static_cast<DLDeviceType>(1234), 0}};
  for (DLDevice d : bad_devices) {
    foreign f(buf, {kDLFloat, 64, 1}, d);
    refused<kiln::device_error>(f, "unsupported DLPack device type " + std::to_string(static_cast<int>(d.device_type)),
                                "device type");
  }
  {
    // A GPU that is not there (and a negative id).
    foreign f(buf, {kDLFloat, 64, 1}, {kDLCUDA, 7 + kiln::cuda_device_count()});
    refused<kiln::device_error>(f, "cuda:", "absent GPU");
    foreign g(buf, {kDLFloat, 64, 1}, {kDLCUDA, -1});
    refused<kiln::device_error>(g, "cuda:-1 is not available", "negative GPU id");
  }
  {
    // Strides whose extent overflows 64 bits, in elements or in bytes, or
    // that reach below address 0.
    foreign f(buf);
    f.shape = {4};
    f.strides = {std::numeric_limits<i64>::max() / 2};
    refused<kiln::value_error>(f, "from_dlpack: the strides (4611686018427387903,) of shape (4,) reach outside",
                               "stride overflow");
    foreign g(buf);
    g.shape = {3, 3};
    g.strides = {i64{1} << 61, 1};
    refused<kiln::value_error>(g, "from_dlpack: the strides", "byte extent overflow");
    foreign h(buf);
    h.shape = {3};
    h.strides = {std::numeric_limits<i64>::min() / 4};
    refused<kiln::value_error>(h, "from_dlpack: the strides", "negative stride below address 0");
    foreign k(buf);
    k.t.dl_tensor.byte_offset = ~std::uint64_t{0} - 7;
    refused<kiln::value_error>(k, "from_dlpack: byte_offset 18446744073709551608 reaches outside", "byte_offset that wraps");
  }
  {
    foreign f(nullptr);
    f.shape = {4};
    refused<kiln::value_error>(f, "from_dlpack: null data for a tensor of shape (4,)", "null data");
  }
  {
    // Misaligned first element: byte_offset 3 into float64 data.
    foreign f(buf);
    f.t.dl_tensor.byte_offset = 3;
    refused<kiln::value_error>(f, "from_dlpack: data + byte_offset is not aligned to 8 bytes", "misaligned");
    foreign g(reinterpret_cast<char *>(buf) + 2, {kDLInt, 32, 1});
    refused<kiln::value_error>(g, "from_dlpack: data + byte_offset is not aligned to 4 bytes", "misaligned data");
  }
}

TEST(DLPackFaults, OddButValidTensorsAreAccepted) {
  alignas(64) double buf[16];
  for (int i = 0; i < 16; ++i)
    buf[i] = i + 0.5;
  {
    // Size 0 with null data; 0-d with a null shape.
    foreign f(nullptr);
    f.shape = {0, 5};
    auto a = kiln::from_dlpack<double>(f.get());
    EXPECT_EQ(a.size(), 0);
  }
  {
    foreign f(buf);
    f.shape = {};
    f.t.dl_tensor.byte_offset = 3 * sizeof(double);
    auto a = kiln::from_dlpack<double>(f.get());
    EXPECT_EQ(a.item(), 3.5);
  }
  {
    // Negative strides starting at the last element, and a broadcast (0)
    // stride; a byte_offset aligned to the element.
    foreign f(buf);
    f.shape = {4, 3};
    f.strides = {-3, 0};
    f.t.dl_tensor.byte_offset = 9 * sizeof(double);
    auto a = kiln::from_dlpack<double>(f.get());
    auto v = a.copy().to_vector();
    ASSERT_EQ(v.size(), 12u);
    EXPECT_EQ(v[0], 9.5);
    EXPECT_EQ(v[2], 9.5);
    EXPECT_EQ(v[11], 0.5);
    a = kiln::array<double>();
    EXPECT_EQ(f.deleted, 1);
  }
  {
    // CUDA-host (pinned) memory is host memory; a size-1 dimension's stride
    // is never used, so any value is fine.
    foreign f(buf, {kDLFloat, 64, 1}, {kDLCUDAHost, 0});
    f.shape = {2, 1};
    f.strides = {5, std::numeric_limits<i64>::max()};
    auto a = kiln::from_dlpack<double>(f.get());
    auto v = a.copy().to_vector();
    EXPECT_EQ(v, (std::vector<double>{0.5, 5.5}));
  }
}

//===----------------------------------------------------------------------===//
// A faulting kernel
//===----------------------------------------------------------------------===//

TEST(KernelFault, MessageNamesTheLastKernelLaunched) {
  // The host side of the report, without a GPU: a sticky kernel error seen
  // by any later call names the kernel last launched on the device. A
  // fresh thread has no CUDA context current, so every device is listed.
  std::thread([] {
    kiln::detail::cuda::driver_api none{};
    kiln::detail::cuda::launched(none, 5, "fault_probe_kernel_contig", nullptr);
    try {
      kiln::detail::cuda::check(CUDA_ERROR_ILLEGAL_ADDRESS, "cuStreamSynchronize");
      ADD_FAILURE() << "no error";
    } catch (const kiln::cuda_error &e) {
      const std::string msg = e.what();
      EXPECT_EQ(e.code(), 700);
      EXPECT_EQ(msg.rfind("cuStreamSynchronize failed: ", 0), 0u) << msg;
      EXPECT_TRUE(contains(msg, "a kernel faulted: ")) << msg;
      EXPECT_TRUE(contains(msg, "the last kernel launched on cuda:5 was fault_probe_kernel_contig")) << msg;
      EXPECT_TRUE(contains(msg, "KILN_LAUNCH_BLOCKING=1")) << msg;
      EXPECT_TRUE(contains(msg, "restart the process")) << msg;
    }
    // Other errors are not kernel faults.
    try {
      kiln::detail::cuda::check(CUDA_ERROR_INVALID_VALUE, "cuMemcpy");
    } catch (const kiln::cuda_error &e) {
      EXPECT_FALSE(contains(e.what(), "kernel")) << e.what();
    }
  }).join();
}

/// PTX of a kernel that stores to address 16: `<name>_contig` with the
/// parameters of one float32 input and one float32 output (fused.hpp).
const char *fault_ptx = R"(.version 7.0
.target sm_80
.address_size 64
.visible .entry kiln_fault_probe_contig(
  .param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3, .param .u64 p4,
  .param .u64 p5, .param .u64 p6, .param .u64 p7, .param .u64 p8, .param .u64 p9)
{
  .reg .f32 %f<2>;
  .reg .b64 %rd<2>;
  mov.f32 %f1, 0f3F800000;
  mov.u64 %rd1, 16;
  st.global.f32 [%rd1], %f1;
  ret;
}
)";
const kiln::dtype fault_dtypes[] = {kiln::dtype::float32, kiln::dtype::float32};
void no_host_code(void **) { std::abort(); }
const kiln::detail::fused_kernel fault_kernel = {
    "kiln_fault_probe", fault_ptx, nullptr, 0, &no_host_code,
    {&no_host_code, &no_host_code, &no_host_code, &no_host_code},
    1, 1, 0, fault_dtypes, 4, nullptr};

/// In the child: the faulting kernel on cuda:0 (fault_child.hpp).
[[noreturn]] void fault_child(bool blocking) {
  kiln_test::fault_child(blocking, [] {
    auto x = kiln::ones<float>(shape{1024}, device::cuda(0));
    kiln::synchronize();
    const array_base *in[] = {&x};
    array_base outs[1];
    kiln::detail::launch_elementwise(fault_kernel, in, {}, outs);
  });
}

TEST(KernelFault, FaultSurfacesAtTheNextSynchronizeNamingTheKernel) {
  KILN_REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fault_child(false), ::testing::ExitedWithCode(0),
              "cuda_error 7[0-9][0-9]: cuCtxSynchronize failed: CUDA_ERROR_[A-Z_]+ \\(7[0-9][0-9]\\): .*a kernel "
              "faulted: the last kernel launched on cuda:0 was kiln_fault_probe_contig");
}

TEST(KernelFault, LaunchBlockingNamesTheFaultingKernelAtItsLaunch) {
  KILN_REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fault_child(true), ::testing::ExitedWithCode(0),
              "cuda_error 7[0-9][0-9]: kernel kiln_fault_probe_contig failed on cuda:0: CUDA_ERROR_[A-Z_]+ "
              "\\(7[0-9][0-9]\\): .*KILN_LAUNCH_BLOCKING=1");
}

} // namespace
