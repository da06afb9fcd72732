// Tests of the run-time CUDA loader: no driver means no GPU and a clear
// device_error; with a GPU every entry point resolves and errors are named.
#include "gpu.hpp"

#include "kiln/error.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/cuda/driver_status.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace cu = kiln::detail::cuda;

TEST(CudaLoader, WithoutDriverEverythingSaysWhy) {
  if (cu::driver() != nullptr)
    GTEST_SKIP() << "a CUDA driver is present";
  EXPECT_EQ(cu::device_count(), 0);
  EXPECT_EQ(kiln::cuda_device_count(), 0);
  EXPECT_FALSE(kiln::cuda_available());
  EXPECT_FALSE(cu::unavailable_reason().empty());
  try {
    cu::require_driver();
    FAIL() << "require_driver() did not throw";
  } catch (const kiln::device_error &e) {
    EXPECT_EQ(std::string(e.what()).rfind("CUDA is not available: ", 0), 0u)
        << e.what();
  }
  EXPECT_THROW(cu::make_current(0), kiln::device_error);
  EXPECT_EQ(cu::retained_context(0), nullptr);
  // The program goes on after the error.
  EXPECT_EQ(kiln::current_device(), kiln::device::host());
}

TEST(CudaLoader, CheckPassesSuccessAndNamesFailures) {
  EXPECT_NO_THROW(cu::check(CUDA_SUCCESS, "cuInit"));
  try {
    cu::check(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc");
    FAIL() << "check() did not throw";
  } catch (const kiln::cuda_error &e) {
    EXPECT_EQ(e.code(), 2);
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("cuMemAlloc failed: ", 0), 0u) << msg;
    EXPECT_NE(msg.find("(2)"), std::string::npos) << msg;
    if (cu::driver())
      EXPECT_NE(msg.find("CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"),
                std::string::npos)
          << msg;
  }
  // cuda_error is a kiln::error.
  EXPECT_THROW(cu::check(CUDA_ERROR_INVALID_VALUE, "cuMemcpy"), kiln::error);
}

TEST(CudaLoader, KilnCuMacroNamesTheCall) {
  KILN_REQUIRE_GPU();
  const auto &api = cu::require_driver();
  try {
    KILN_CU(api, cuDeviceGet, nullptr, 0);
    FAIL() << "cuDeviceGet(nullptr) did not fail";
  } catch (const kiln::cuda_error &e) {
    EXPECT_EQ(std::string(e.what()).rfind("cuDeviceGet failed: CUDA_ERROR_", 0),
              0u)
        << e.what();
  }
}

TEST(CudaLoader, EveryEntryPointResolves) {
  KILN_REQUIRE_GPU();
  const cu::driver_api &api = cu::require_driver();
#define KILN_CUDA_FN(name)                                                     \
  EXPECT_NE(reinterpret_cast<const void *>(api.name), nullptr) << #name;
#include "runtime/cuda/driver_functions.def"
#undef KILN_CUDA_FN
  int version = 0;
  KILN_CU(api, cuDriverGetVersion, &version);
  EXPECT_GE(version, 12000);
  EXPECT_TRUE(cu::unavailable_reason().empty());
}

// cuCtxSynchronize is resolved with cuda.h's ABI (no argument), not CUDA 13's
// cuCtxSynchronize_v2(CUcontext), which cuGetProcAddress returns when asked
// at version 13000: called with a stray first argument (as a register holds
// one at any call), the argumentless function ignores it. With the v2 ABI
// this returned CUDA_ERROR_CONTEXT_IS_DESTROYED (or crashed) under
// compute-sanitizer. (Passing an extra argument is harmless in the x86-64
// and AArch64 calling conventions.)
TEST(CudaLoader, CtxSynchronizeHasTheHeadersAbi) {
  KILN_REQUIRE_GPU();
  const cu::driver_api &api = cu::require_driver();
  cu::make_current(0);
  auto with_stray_argument = reinterpret_cast<CUresult (*)(CUcontext)>(api.cuCtxSynchronize);
  EXPECT_EQ(with_stray_argument(reinterpret_cast<CUcontext>(std::uintptr_t(0x1000))), CUDA_SUCCESS);
  EXPECT_EQ(api.cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST(CudaLoader, MakeCurrentSetsThePrimaryContext) {
  KILN_REQUIRE_GPU();
  const auto &api = cu::require_driver();
  for (int i = 0; i < cu::device_count(); ++i) {
    cu::make_current(i);
    CUcontext cur = nullptr;
    KILN_CU(api, cuCtxGetCurrent, &cur);
    EXPECT_EQ(cur, cu::retained_context(i));
    EXPECT_EQ(cur, cu::primary_context(i));
    cu::make_current(i); // again: no change, no error
  }
  // Another context made current behind our back is noticed.
  KILN_CU(api, cuCtxSetCurrent, nullptr);
  cu::make_current(0);
  CUcontext cur = nullptr;
  KILN_CU(api, cuCtxGetCurrent, &cur);
  EXPECT_EQ(cur, cu::retained_context(0));
  // A real driver allocation through versioned entry points (cuMemAlloc_v2).
  CUdeviceptr p = 0;
  KILN_CU(api, cuMemAlloc, &p, 1 << 20);
  EXPECT_NE(p, 0u);
  KILN_CU(api, cuMemFree, p);
  EXPECT_THROW(cu::make_current(cu::device_count()), kiln::device_error);
}
