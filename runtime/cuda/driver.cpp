//===- runtime/cuda/driver.cpp - Loading the CUDA driver at run time
//-------===//
//
// Opens libcuda.so.1 with dlopen once, resolves every entry point of
// driver_functions.def through cuGetProcAddress, and manages the primary
// context of each GPU. No GPU or no driver: driver() is nullptr.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/driver.hpp"
#include "runtime/cuda/driver_status.hpp"

#include "kiln/error.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace kiln::detail::cuda {
namespace {

// Never destroyed: deleters of pool memory and static destructors may use the
// driver during process exit.
struct loaded_driver {
  driver_api api;
  bool ok = false;
  int devices = 0;
  std::string reason;
};

using get_proc_address_fn = CUresult (*)(const char *, void **, int, cuuint64_t,
                                         CUdriverProcAddressQueryResult *);

/// The CUDA version to ask cuGetProcAddress for `name` at: `version`, except
/// where a newer version changed the function's ABI under a name cuda.h
/// keeps for the old one. CUDA 13's `cuCtxSynchronize` is
/// cuCtxSynchronize_v2(CUcontext), while cuda.h's `cuCtxSynchronize` (which
/// driver_api's member type comes from) takes no argument: asked at 13000,
/// the call would pass a stray register as the context (under
/// compute-sanitizer, "context is destroyed" and a crash).
int header_abi_version(std::string_view name, int version) {
  if (name == "cuCtxSynchronize")
    return std::min(version, 12090);
  return version;
}

std::string code_text(const driver_api &api, CUresult r) {
  const char *name = nullptr;
  if (!api.cuGetErrorName || api.cuGetErrorName(r, &name) != CUDA_SUCCESS ||
      !name)
    name = "CUDA_ERROR_UNKNOWN";
  return std::string(name) + " (" + std::to_string(static_cast<int>(r)) + ")";
}

loaded_driver *load() {
  auto *d = new loaded_driver();
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    d->reason = std::string("no CUDA driver (") +
                (why ? why : "libcuda.so.1 could not be loaded") + ")";
    return d;
  }
  auto get_proc =
      reinterpret_cast<get_proc_address_fn>(dlsym(lib, "cuGetProcAddress_v2"));
  if (!get_proc) {
    d->reason = "the CUDA driver is too old: libcuda.so.1 has no "
                "cuGetProcAddress_v2 (CUDA 12 or newer needed)";
    return d;
  }
  driver_api &api = d->api;
  // Ask for the ABI of our headers, or of the driver when it is older.
  int version = CUDA_VERSION;
  {
    void *p = nullptr;
    CUdriverProcAddressQueryResult st{};
    int driver_version = 0;
    if (get_proc("cuDriverGetVersion", &p, CUDA_VERSION,
                 CU_GET_PROC_ADDRESS_DEFAULT, &st) == CUDA_SUCCESS &&
        p &&
        reinterpret_cast<decltype(&::cuDriverGetVersion)>(p)(&driver_version) ==
            CUDA_SUCCESS &&
        driver_version > 0)
      version = std::min(version, driver_version);
  }
  std::string missing;
  // `#name` is not macro-expanded ("cuMemAlloc", what cuGetProcAddress wants);
  // the member `name` is (cuMemAlloc_v2), as in driver_api.
#define KILN_CUDA_FN(name)                                                     \
  {                                                                            \
    void *p = nullptr;                                                         \
    CUdriverProcAddressQueryResult st{};                                       \
    if (get_proc(#name, &p, header_abi_version(#name, version),                \
                 CU_GET_PROC_ADDRESS_DEFAULT, &st) ==                          \
            CUDA_SUCCESS &&                                                    \
        p && st == CU_GET_PROC_ADDRESS_SUCCESS)                                \
      api.name = reinterpret_cast<decltype(api.name)>(p);                      \
    else                                                                       \
      missing += std::string(missing.empty() ? "" : ", ") + #name;             \
  }
#include "runtime/cuda/driver_functions.def"
#undef KILN_CUDA_FN
  if (!missing.empty()) {
    d->reason = "the CUDA driver lacks entry points: " + missing;
    return d;
  }
  CUresult r = api.cuInit(0);
  if (r != CUDA_SUCCESS) {
    d->reason =
        "CUDA initialization failed: cuInit returned " + code_text(api, r);
    return d;
  }
  int count = 0;
  r = api.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) {
    d->reason = "cuDeviceGetCount failed: " + code_text(api, r);
    return d;
  }
  if (count <= 0) {
    d->reason = "no CUDA GPU (the driver reports 0 devices)";
    return d;
  }
  d->devices = count;
  d->ok = true;
  return d;
}

const loaded_driver &loaded() noexcept {
  static const loaded_driver *d = load(); // intentionally leaked
  return *d;
}

constexpr int max_devices = 64;
std::atomic<CUcontext> contexts[max_devices];
std::mutex context_mutex;

} // namespace

const driver_api *driver() noexcept {
  const loaded_driver &d = loaded();
  return d.ok ? &d.api : nullptr;
}

const std::string &unavailable_reason() noexcept { return loaded().reason; }

int device_count() noexcept {
  const loaded_driver &d = loaded();
  return d.ok ? std::min(d.devices, max_devices) : 0;
}

const driver_api &require_driver() {
  const driver_api *api = driver();
  if (!api)
    throw device_error("CUDA is not available: " + unavailable_reason() +
                       "; install or update the NVIDIA driver, or run on the "
                       "host device (KILN_DEVICE=host)");
  return *api;
}

namespace {

/// "CUDA_ERROR_NAME (code): message" of a driver result.
std::string result_text(CUresult result) {
  const loaded_driver &d = loaded();
  const char *name = nullptr;
  const char *text = nullptr;
  if (d.api.cuGetErrorName)
    d.api.cuGetErrorName(result, &name);
  if (d.api.cuGetErrorString)
    d.api.cuGetErrorString(result, &text);
  return std::string(name ? name : "CUDA_ERROR_UNKNOWN") + " (" +
         std::to_string(static_cast<int>(result)) +
         "): " + (text ? text : "unknown error");
}

/// The kernel launched last on each GPU (names live as long as the process).
std::atomic<const char *> last_kernel[max_devices];

/// The GPU whose primary context is current on this thread, or -1.
int current_ordinal() noexcept {
  const loaded_driver &d = loaded();
  if (!d.ok || !d.api.cuCtxGetCurrent)
    return -1;
  CUcontext cur = nullptr;
  if (d.api.cuCtxGetCurrent(&cur) != CUDA_SUCCESS || !cur)
    return -1;
  for (int i = 0; i < max_devices; ++i)
    if (contexts[i].load(std::memory_order_acquire) == cur)
      return i;
  return -1;
}

constexpr const char *restart_advice =
    "the CUDA context is unusable after a kernel fault: restart the process";

/// What a kernel-fault message adds: the kernel launched last on the
/// current GPU (on every GPU with a launch when that is unknown).
std::string fault_context() {
  auto on = [](int i) -> std::string {
    const char *k = last_kernel[i].load(std::memory_order_relaxed);
    return k ? "the last kernel launched on cuda:" + std::to_string(i) +
                   " was " + k
             : std::string();
  };
  std::string who;
  int cur = current_ordinal();
  if (cur >= 0) {
    who = on(cur);
  } else {
    for (int i = 0; i < max_devices; ++i) {
      std::string w = on(i);
      if (!w.empty())
        who += (who.empty() ? "" : ", ") + w;
    }
  }
  if (who.empty())
    who = "no kernel launched by Kiln is on record";
  return "; a kernel faulted: " + who +
         " (set KILN_LAUNCH_BLOCKING=1 to check every kernel as it ends and "
         "name the faulting one for certain); " +
         restart_advice;
}

bool launch_blocking() {
  static const bool on = [] {
    const char *v = std::getenv("KILN_LAUNCH_BLOCKING");
    return v && *v && std::string(v) != "0";
  }();
  return on;
}

} // namespace

bool is_kernel_fault(CUresult result) noexcept {
  switch (result) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
    return true;
  default:
    return false;
  }
}

void check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return;
  std::string msg = std::string(call) + " failed: " + result_text(result);
  if (is_kernel_fault(result))
    msg += fault_context();
  throw cuda_error(msg, static_cast<int>(result));
}

void launched(const driver_api &api, int ordinal, const char *name,
              CUstream stream) {
  if (ordinal >= 0 && ordinal < max_devices)
    last_kernel[ordinal].store(name, std::memory_order_relaxed);
  if (!launch_blocking())
    return;
  // Inside kiln::capture nothing runs yet (and the stream cannot be
  // synchronized): the graph's launch is checked instead.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (api.cuStreamIsCapturing(stream, &capture) == CUDA_SUCCESS &&
      capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return;
  CUresult r = api.cuStreamSynchronize(stream);
  if (r == CUDA_SUCCESS)
    return;
  std::string msg = std::string("kernel ") + (name ? name : "<unnamed>") +
                    " failed on cuda:" + std::to_string(ordinal) + ": " +
                    result_text(r) +
                    " (found by KILN_LAUNCH_BLOCKING=1, which waits for every "
                    "kernel)";
  if (is_kernel_fault(r))
    msg += std::string("; ") + restart_advice;
  throw cuda_error(msg, static_cast<int>(r));
}

CUcontext retained_context(int ordinal) noexcept {
  if (ordinal < 0 || ordinal >= max_devices)
    return nullptr;
  return contexts[ordinal].load(std::memory_order_acquire);
}

CUcontext primary_context(int ordinal) {
  const driver_api &api = require_driver();
  int n = device_count();
  if (ordinal < 0 || ordinal >= n)
    throw device_error("cuda:" + std::to_string(ordinal) +
                       " is not available: " + std::to_string(n) +
                       " CUDA device(s) present; use one of them, or the "
                       "host device");
  CUcontext ctx = contexts[ordinal].load(std::memory_order_acquire);
  if (ctx)
    return ctx;
  std::lock_guard<std::mutex> lock(context_mutex);
  ctx = contexts[ordinal].load(std::memory_order_relaxed);
  if (ctx)
    return ctx;
  CUdevice dev{};
  KILN_CU(api, cuDeviceGet, &dev, ordinal);
  KILN_CU(api, cuDevicePrimaryCtxRetain, &ctx,
          dev); // kept for the process's life
  contexts[ordinal].store(ctx, std::memory_order_release);
  return ctx;
}

void make_current(int ordinal) {
  CUcontext ctx = primary_context(ordinal);
  const driver_api &api = *driver();
  // cuCtxGetCurrent is a cheap thread-local read in the driver; asking it
  // (rather than caching our own idea of the current context) stays right
  // when user code or a library switched contexts behind our back.
  CUcontext cur = nullptr;
  KILN_CU(api, cuCtxGetCurrent, &cur);
  if (cur != ctx)
    KILN_CU(api, cuCtxSetCurrent, ctx);
}

} // namespace kiln::detail::cuda
