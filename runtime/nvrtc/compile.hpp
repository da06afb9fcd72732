//===- runtime/nvrtc/compile.hpp - Compiling CUDA source with NVRTC -------===//
//
// One NVRTC compilation of a raw_module's source: PTX, a cubin when the
// target is a real architecture (sm_XY), and the lowered names of the name
// expressions; and the choice of the target when the user's options name
// none. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/nvrtc/nvrtc_library.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace kiln::detail::nvrtc {

/// What a compilation gives (and what the disk cache stores).
struct compiled_code {
  std::string ptx;                        ///< "" when NVRTC gave none
  std::vector<unsigned char> cubin;       ///< empty for a virtual target (compute_XY)
  std::vector<std::string> lowered_names; ///< one per name expression, in order
  std::string target;                     ///< what it was compiled for (target::name)
  std::string nvrtc_version;              ///< the NVRTC that compiled it ("13.0")
};

/// Compiles `source` (called `source_name` in NVRTC's log) with `options`
/// as given, adding `name_expressions`. Throws compile_error holding NVRTC's
/// log when it fails. Thread-safe (NVRTC programs are independent).
compiled_code compile(const library &lib, const std::string &source, const std::string &source_name,
                      const std::vector<std::string> &options, const std::vector<std::string> &name_expressions);

/// nvrtcCompileProgram calls so far in this process.
std::size_t compile_count() noexcept;

/// The target of a compilation with `options`: `option` is what to add
/// ("--gpu-architecture=compute_80", "" when the options name an
/// architecture themselves), `name` the architecture ("compute_80", "sm_90",
/// or the user's value). Without a user choice: a cubin plus PTX for the
/// lowest compute capability among the GPUs present when NVRTC supports it,
/// else PTX for compute_80.
struct target {
  std::string option;
  std::string name;
};
target choose_target(const library &lib, const std::vector<std::string> &options);

/// What choose_target's answer depends on besides NVRTC, known without
/// loading it (part of the disk cache's key): "options" when the options
/// name an architecture, else "lowest GPU <cc>" ("lowest GPU 0" without a
/// GPU).
std::string target_request(const std::vector<std::string> &options);

} // namespace kiln::detail::nvrtc
