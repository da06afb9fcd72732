//===- runtime/nvrtc/nvrtc_library.hpp - NVRTC, loaded at run time --------===//
//
// kiln_runtime never links NVRTC: it opens libnvrtc with dlopen the first
// time CUDA source is compiled (raw_module::from_source), so that a program
// runs where NVRTC is absent and only compiling says why it cannot. Where it
// looks: $KILN_NVRTC alone when set (a file name or path), else
// libnvrtc.so.13, libnvrtc.so and libnvrtc.so.12 on the library path, then
// under $CUDA_HOME/lib64 and /usr/local/cuda/lib64. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <nvrtc.h>

#include <string>

namespace kiln::detail::nvrtc {

/// The loaded library: its entry points (those of nvrtc_functions.def), its
/// version and where it was found.
struct library {
#define KILN_NVRTC_FN(name) decltype(&::name) name = nullptr;
#include "runtime/nvrtc/nvrtc_functions.def"
#undef KILN_NVRTC_FN
  int major = 0, minor = 0; ///< nvrtcVersion
  std::string path;         ///< the name or path dlopen took
};

/// The loaded NVRTC, or nullptr where none could be loaded.
const library *loaded() noexcept;

/// The loaded NVRTC, or a kiln::compile_error saying that CUDA source cannot
/// be compiled, why NVRTC could not be loaded and what to install.
const library &require();

/// Why loaded() is nullptr ("" when NVRTC is loaded).
std::string unavailable_reason();

/// "NVRTC_ERROR_COMPILATION (6)": the name and number of a result.
std::string result_text(const library &lib, nvrtcResult r);

/// Forgets the loaded library so that the next use looks again (reading
/// $KILN_NVRTC anew). Libraries are never unloaded. For tests.
void reset_for_testing();

} // namespace kiln::detail::nvrtc
