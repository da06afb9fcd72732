//===- runtime/nvrtc/target.cpp - What CUDA source is compiled for --------===//
//
// The user's -arch/--gpu-architecture option wins. Otherwise: where GPUs are
// present, a cubin for the lowest compute capability among them (no JIT on
// those GPUs) plus its PTX, which the driver JIT-compiles on newer ones;
// without a GPU (CI, a build machine), PTX for compute_80, as kilnc's kernels
// (every GPU Kiln supports JIT-compiles it). What the choice depends on
// (the options, the GPUs, and through the NVRTC library file what it
// supports) is part of the disk cache's key; the choice is stored in the
// file.
//
//===----------------------------------------------------------------------===//
#include "runtime/nvrtc/compile.hpp"

#include "kiln/device.hpp"
#include "runtime/launch/gpu_launch.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

namespace kiln::detail::nvrtc {
namespace {

constexpr int default_arch = 80;

/// The lowest compute capability (10 * major + minor) among the GPUs, 0
/// without a GPU. Asked once: the GPUs of a process do not change.
int lowest_gpu_arch() {
  static const int arch = [] {
    const int n = cuda_device_count();
    int lowest = 0;
    for (int i = 0; i < n; ++i) {
      try {
        const int cc = launch::compute_capability(i);
        if (cc > 0 && (lowest == 0 || cc < lowest))
          lowest = cc;
      } catch (const std::exception &) {
        // A GPU that cannot be asked gets the PTX of the default target.
      }
    }
    return lowest;
  }();
  return arch;
}

bool nvrtc_supports(const library &lib, int arch) {
  int n = 0;
  if (lib.nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0)
    return false;
  std::vector<int> archs(static_cast<std::size_t>(n));
  if (lib.nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS)
    return false;
  return std::find(archs.begin(), archs.end(), arch) != archs.end();
}

/// The architecture the options name, if they do.
std::optional<std::string> user_arch(const std::vector<std::string> &options) {
  for (std::size_t i = 0; i < options.size(); ++i) {
    const std::string_view o = options[i];
    for (std::string_view flag : {std::string_view("--gpu-architecture"), std::string_view("-arch")}) {
      if (o.substr(0, flag.size()) != flag)
        continue;
      std::string_view rest = o.substr(flag.size());
      if (rest.empty()) // the value as the next option
        return i + 1 < options.size() ? options[i + 1] : std::string();
      if (rest[0] == '=')
        return std::string(rest.substr(1));
    }
  }
  return std::nullopt;
}

} // namespace

std::string target_request(const std::vector<std::string> &options) {
  if (user_arch(options))
    return "options";
  return "lowest GPU " + std::to_string(lowest_gpu_arch());
}

target choose_target(const library &lib, const std::vector<std::string> &options) {
  if (std::optional<std::string> arch = user_arch(options))
    return {"", *arch};
  const int gpu = lowest_gpu_arch();
  if (gpu > 0 && nvrtc_supports(lib, gpu)) {
    const std::string name = "sm_" + std::to_string(gpu);
    return {"--gpu-architecture=" + name, name};
  }
  const std::string name = "compute_" + std::to_string(default_arch);
  return {"--gpu-architecture=" + name, name};
}

} // namespace kiln::detail::nvrtc
