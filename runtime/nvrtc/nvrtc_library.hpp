//===- runtime/nvrtc/nvrtc_library.hpp - NVRTC, loaded at run time --------===//
//
// kiln_runtime never links NVRTC: it opens libnvrtc with dlopen the first
// time CUDA source is compiled (raw_module::from_source), so that a program
// runs where NVRTC is absent and only compiling says why it cannot. Where it
// looks: $KILN_NVRTC alone when set (a file name or path), else
// libnvrtc.so.13, libnvrtc.so and libnvrtc.so.12 on the library path, then
// under $CUDA_HOME/lib64 and /usr/local/cuda/lib64. The disk cache's key
// names NVRTC by its library file (file_identity), which is found the way
// dlopen would find it but with stat alone: a warm start never loads NVRTC.
// Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <nvrtc.h>

#include <cstddef>
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
  /// The file the loader opened: "<canonical path> <size> <mtime s>.<ns>"
  /// (see file_identity), "" when it cannot be told.
  std::string identity;
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

/// What names NVRTC in the disk cache's key, without loading it: the
/// loaded library's identity once this process has loaded NVRTC, else that
/// of the file dlopen would open for the first candidate that exists
/// ("<canonical path> <size> <mtime s>.<ns>": stat, no dlopen), resolved once
/// per process; "" when no candidate exists (or the loaded file cannot be
/// told). A different or updated library file is a different identity.
std::string file_identity();

/// Whether this process has loaded NVRTC (loaded() would not try now).
bool is_loaded() noexcept;

/// How many times this process has tried to dlopen NVRTC (each try walks
/// the candidates once). For tests.
std::size_t load_attempts() noexcept;

/// Forgets the loaded library and the resolved file so that the next use
/// looks again (reading $KILN_NVRTC anew); with `refuse_loading`, loading is
/// then refused (as if no NVRTC were installed, while file_identity() still
/// finds its file), until the next reset. Libraries are never unloaded. For
/// tests.
void reset_for_testing(bool refuse_loading = false);

} // namespace kiln::detail::nvrtc
