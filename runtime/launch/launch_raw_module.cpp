//===- runtime/launch/launch_raw_module.cpp - Launching CUDA source -------===//
//
// kiln::launch of a kiln::raw_function (kiln/raw_module.hpp): the same
// checks and the same GPU path as a KILN_RAWKERNEL kernel (launch_raw.cpp,
// the module cache of gpu_launch.cpp, keyed by the function's descriptor),
// except that CUDA source has no host form: a launch on the host is a
// device_error saying what to do, and an entry point the code lacks (found
// by cuModuleGetFunction) is kiln::error "raw_module has no kernel 'x'".
//
//===----------------------------------------------------------------------===//
#include "kiln/error.hpp"
#include "kiln/kernel.hpp"
#include "kiln/raw_module.hpp"
#include "kiln/stream.hpp"
#include "runtime/cuda/driver_status.hpp"
#include "runtime/nvrtc/raw_module_state.hpp"

#include <cuda.h>

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
  if (dev.is_host()) {
    const std::string why =
        cuda_device_count() == 0
            ? "there is no CUDA GPU here (" + cuda::unavailable_reason() + ")"
            : std::string("the launch's device is its first array argument's, else its stream's, else the current "
                          "device");
    throw device_error("kernel '" + std::string(f.name()) +
                       "' is CUDA source (kiln::raw_module), which runs only on a CUDA GPU, but the launch runs on "
                       "the host: " +
                       why +
                       ". Launch it with arrays on a GPU (x.to(kiln::device::cuda(0))) on a machine with one, or "
                       "write the kernel as a KILN_RAWKERNEL function, which runs on the host too");
  }
  return shape;
}

void check_cuda_source_array(const raw_function &f, std::size_t index, const array_base &a, device dev) {
  check_raw_array(descriptor_of(f), index, a, dev);
}

void launch_cuda_source(const raw_function &f, device dev, const raw_launch_shape &shape, const stream *s,
                        void **args) {
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
