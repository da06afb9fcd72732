//===- runtime/launch/launch_raw_module.cpp - Launching CUDA source -------===//
//
// kiln::launch of a kiln::raw_function (kiln/raw_module.hpp): the same
// checks and the same paths as a KILN_RAWKERNEL kernel (launch_raw.cpp: the
// module cache of gpu_launch.cpp keyed by the function's descriptor on a
// GPU, raw_host.cpp on the host). On the host only a kernel kilnc compiled
// for it runs (a string-literal source: kiln/cuda_host.hpp); the others are
// a device_error saying why. An image without GPU code gets it from NVRTC
// at its first GPU launch. An entry point the code lacks (found by
// cuModuleGetFunction) is kiln::error "raw_module has no kernel 'x'".
//
//===----------------------------------------------------------------------===//
#include "kiln/error.hpp"
#include "kiln/kernel.hpp"
#include "kiln/raw_module.hpp"
#include "kiln/stream.hpp"
#include "runtime/cuda/driver_status.hpp"
#include "runtime/nvrtc/raw_module_state.hpp"

#include <cuda.h>

#include <cstdint>
#include <string>

namespace kiln::detail {
namespace {

const raw_kernel &descriptor_of(const raw_function &f) { return f.state()->descriptor; }

} // namespace

raw_launch_shape check_cuda_source_launch(const raw_function &f, const grid &g, const block &b, std::int64_t shared,
                                          device dev, const stream *s) {
  (void)s; // its device is checked by launch_raw, after the arguments
  if (!f.valid())
    throw value_error("kiln::launch: the kiln::raw_function is empty (default-constructed); get one from "
                      "kiln::raw_module::function()");
  const raw_kernel &k = descriptor_of(f);
  raw_launch_shape shape;
  shape.grid = raw_launch_dims(k, "grid", g);
  shape.block = raw_launch_dims(k, "block", b);
  shape.shared = raw_launch_shared(k, shared);
  if (dev.is_host() && !k.host) {
    const raw_function_state &fs = *f.state();
    const std::string where =
        cuda_device_count() == 0
            ? "there is no CUDA GPU here (" + cuda::unavailable_reason() + ")"
            : std::string("the launch's device is its first array argument's, else its stream's, else the current "
                          "device");
    throw device_error("kernel '" + std::string(f.name()) +
                       "' of a kiln::raw_module has no host code, so it runs only on a CUDA GPU: " +
                       fs.host_unsupported + ". The launch runs on the host: " + where +
                       ". Launch it with arrays on a GPU (x.to(kiln::device::cuda(0))) on a machine with one, or "
                       "write the kernel as a KILN_RAWKERNEL function, which runs everywhere");
  }
  return shape;
}

void check_cuda_source_params(const raw_function &f, const std::uint32_t *bytes, std::size_t count) {
  const raw_host_entry *h = f.state() ? f.state()->host : nullptr;
  if (!h) [[unlikely]]
    return; // compiled at run time: no signature
  bool same = h->num_params == count;
  for (std::size_t i = 0; same && i < count; ++i)
    same = h->param_bytes[i] == bytes[i];
  if (same) [[likely]]
    return;
  const std::string kernel = "kiln::launch of kernel '" + std::string(f.name()) + "' (" +
                             (h->signature ? h->signature : "?") + ")";
  if (h->num_params != count)
    throw value_error(kernel + ": it takes " + std::to_string(h->num_params) + " parameters, the launch passes " +
                      std::to_string(count) + " values (a kiln::span passes two: its data pointer and its size)");
  for (std::size_t i = 0; i < count; ++i)
    if (h->param_bytes[i] != bytes[i])
      throw value_error(kernel + ": parameter " + std::to_string(i + 1) + " takes " +
                        std::to_string(h->param_bytes[i]) + " bytes, the launch passes " + std::to_string(bytes[i]) +
                        " (pass exactly the type the kernel declares, e.g. 2.0f for a float, std::int64_t{n} for a "
                        "long long)");
}

void check_cuda_source_array(const raw_function &f, std::size_t index, const array_base &a, device dev) {
  check_raw_array(descriptor_of(f), index, a, dev);
}

void launch_cuda_source(const raw_function &f, device dev, const raw_launch_shape &shape, const stream *s,
                        void **args) {
  if (!dev.is_host())
    ensure_gpu_code(*f.state());
  const raw_kernel &k = descriptor_of(f);
  try {
    launch_raw(k, dev, shape.grid, shape.block, shape.shared, s, args);
  } catch (const cuda_error &e) {
    if (e.code() != CUDA_ERROR_NOT_FOUND) // only cuModuleGetFunction says NOT_FOUND here
      throw;
    const raw_module_state &m = *f.state()->module;
    throw kiln::error("raw_module has no kernel '" + std::string(f.name()) + "': the code of " + m.source_name +
                      " has no entry point " + std::string(f.symbol()) + " (" + e.what() +
                      "); a __global__ function not declared extern \"C\" is found by a name expression");
  }
}

} // namespace kiln::detail
