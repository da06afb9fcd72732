//===- runtime/cuda/driver.hpp - The CUDA driver, loaded at run time -------===//
//
// kiln_runtime never links libcuda: it opens libcuda.so.1 with dlopen on
// first use and resolves every entry point through cuGetProcAddress. When the
// library or a GPU is absent, driver() returns nullptr and the runtime uses
// the host device. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cuda.h>

namespace kiln::detail::cuda {

/// Entry points of the driver API the runtime uses, each resolved for the
/// CUDA_VERSION of the headers it was built with.
struct driver_api {
#define KILN_CUDA_FN(name) decltype(&::name) name = nullptr;
#include "driver_functions.def"
#undef KILN_CUDA_FN
};

/// The loaded driver, or nullptr where there is none (or no GPU).
const driver_api *driver() noexcept;

/// The driver, or a device_error saying why CUDA is unavailable.
const driver_api &require_driver();

/// Throws kiln::cuda_error("<call> failed: <CUDA_ERROR_NAME> (<code>): <message>");
/// for a kernel fault the message goes on with the last kernel launched on
/// the device (see launched()) and what to do.
void check(CUresult result, const char *call);

/// Makes the primary context of GPU `ordinal` current on the calling thread
/// (retaining it on first use). Throws device_error for an absent GPU.
void make_current(int ordinal);

/// True for the errors a faulting kernel leaves behind (an illegal address,
/// a trap, an assert, ...): sticky errors that every later call on the
/// context returns.
bool is_kernel_fault(CUresult result) noexcept;

/// Records that kernel `name` (a string that lives as long as the process)
/// was just launched on GPU `ordinal` on `stream`, so that check() can name
/// it when a kernel fault surfaces later. With KILN_LAUNCH_BLOCKING=1 it
/// also waits for the kernel and throws cuda_error naming it if it failed.
void launched(const driver_api &api, int ordinal, const char *name,
              CUstream stream);

/// Runs `expr` (a driver call through `api`) and checks its result.
#define KILN_CU(api, fn, ...) ::kiln::detail::cuda::check((api).fn(__VA_ARGS__), #fn)

} // namespace kiln::detail::cuda
