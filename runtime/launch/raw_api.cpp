//===- runtime/launch/raw_api.cpp - The out-of-line half of kiln/kernel.hpp ===//
//
// What kiln::launch and the KILN_RAWKERNEL built-ins need at run time beyond
// launch_raw: the errors of code that kilnc did not compile (a built-in
// called outside a kernel, a launch of a plain C++ function), and the checks
// of a launch's arguments (the kernel's parameter list as kilnc compiled it,
// each array's device and layout).
//
//===----------------------------------------------------------------------===//
#include "kiln/error.hpp"
#include "kiln/kernel.hpp"

#include <string>

namespace kiln::detail {
namespace {

std::string kernel_name(const raw_kernel &k) { return k.name ? k.name : "<unnamed>"; }

} // namespace

void raw_builtin_outside_kernel(const char *name) {
  throw kiln::error(std::string("kiln::") + name +
                    "() is a KILN_RAWKERNEL built-in: call it inside a kernel that kiln::launch runs (a "
                    "KILN_RAWKERNEL function in a file compiled by kilnc)");
}

void raw_kernel_not_compiled() {
  throw kiln::error("kiln::launch: the kernel was not compiled by kilnc, so it cannot run (KILN_RAWKERNEL kernels "
                    "run when their file is compiled with kilnc; compiled by another compiler, a kernel is a plain "
                    "C++ function, passed here as a pointer)");
}

// These run on every launch: their messages are built only for an error.

void check_raw_signature(const raw_kernel &k, const std::uint8_t *bytes, std::size_t count) {
  auto mismatch = [&] {
    return "kernel '" + kernel_name(k) +
           "' was compiled by a kilnc that does not match kiln/kernel.hpp (rebuild it with this Kiln): ";
  };
  if (k.num_params != count)
    throw kiln::error(mismatch() + "it takes " + std::to_string(k.num_params) +
                      " parameter values, the launch passes " + std::to_string(count));
  if (!k.param_bytes)
    return;
  for (std::size_t i = 0; i < count; ++i)
    if (k.param_bytes[i] != bytes[i])
      throw kiln::error(mismatch() + "its parameter value " + std::to_string(i) + " has " +
                        std::to_string(k.param_bytes[i]) + " bytes, the launch passes " + std::to_string(bytes[i]));
}

void check_raw_array(const raw_kernel &k, std::size_t index, const array_base &a, device dev) {
  if (a.valid() && a.device() == dev && a.is_contiguous()) [[likely]]
    return;
  const std::string argument = "kernel '" + kernel_name(k) + "': argument " + std::to_string(index);
  if (!a.valid())
    throw value_error(argument + " is not an array (default-constructed or moved from)");
  if (a.device() != dev)
    throw device_error(argument + " is an array on " + a.device().str() + " but the launch runs on " + dev.str() +
                       " (kiln::launch does not copy: move it with .to())");
  throw value_error(argument +
                    " is not a C-contiguous array (a strided or transposed view, or a result laid out as its "
                    "transposed input): pass a contiguous copy (.copy())");
}

} // namespace kiln::detail
