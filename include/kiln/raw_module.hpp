//===- kiln/raw_module.hpp - CUDA source compiled by NVRTC -------*- C++ -*-===//
//
// CuPy's RawModule / RawKernel: kernels written in CUDA C++ source text,
// compiled at run time by NVRTC (loaded with dlopen, like the driver), cached
// on disk, and launched with kiln::launch (docs/user-guide.md, "Raw CUDA
// modules"):
//
//   kiln::raw_module m = kiln::raw_module::from_source(R"(
//     extern "C" __global__ void saxpy(float a, const float *x, float *y, long long n) {
//       long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
//       if (i < n) y[i] = a * x[i] + y[i];
//     }
//     template <class T> __global__ void scale(T *x, T a, long long n) { ... }
//   )", {"--use_fast_math"}, {"scale<float>"});
//   kiln::launch(m.function("saxpy"), kiln::grid{blocks}, kiln::block{256}, 2.0f, x, y, n);
//   kiln::launch(m.function("scale<float>"), kiln::grid{blocks}, kiln::block{256}, x, 0.5f, n);
//
// A source that kilnc compiles (a string literal, with literal options and
// name expressions) runs on the host device too: kilnc compiles it as C++
// with Kiln's definitions of CUDA's built-ins (kiln/cuda_host.hpp), and
// checks each launch's arguments against the kernel's parameters. A source
// known only at run time (NVRTC's path) runs only on a CUDA GPU, and its
// arguments are passed unchecked, each by its own C++ type (kiln/kernel.hpp).
// The layout of the disk cache and raw_module_image, kilnc's entry point,
// are in docs/kernel-abi.md ("Raw CUDA modules").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/kernel.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

namespace detail {
struct raw_module_state;   // the runtime's: compiled code, entry points
struct raw_function_state; // the runtime's: one entry point of a module
} // namespace detail

/// One kernel of a raw_module, which kiln::launch runs on a GPU. Cheap to
/// copy; valid for the life of the process.
class raw_function {
public:
  /// An empty function: kiln::launch of it is a value_error.
  raw_function() noexcept = default;

  bool valid() const noexcept { return state_ != nullptr; }
  /// The name it was asked for with (a name expression such as
  /// "scale<float>", or an extern "C" name); "" when empty.
  std::string_view name() const noexcept;
  /// The entry point in the module's code (the lowered, mangled name of a
  /// name expression); "" when empty.
  std::string_view symbol() const noexcept;

  /// The runtime's state (for kiln::launch).
  const detail::raw_function_state *state() const noexcept { return state_; }
  explicit raw_function(const detail::raw_function_state *s) noexcept : state_(s) {}

private:
  const detail::raw_function_state *state_ = nullptr;
};

/// A module of CUDA C++ source compiled for the GPU (CuPy's RawModule).
/// Cheap to copy; the compiled code stays loaded for the life of the
/// process (as every kernel's module does).
class raw_module {
public:
  /// An empty module: function() is a value_error.
  raw_module() noexcept = default;

  /// Compiles CUDA C++ `source` with NVRTC and `options` (NVRTC's, e.g.
  /// {"-std=c++17", "--use_fast_math", "-DN=4"}), making each of
  /// `name_expressions` (template instantiations or overloads such as
  /// "scale<float>") available to function() by that text. Without an
  /// `-arch`/`--gpu-architecture` option, the code is PTX for compute_80
  /// (no GPU needed) or, when GPUs are present, a cubin for the lowest
  /// compute capability among them plus its PTX (docs/user-guide.md).
  /// Results are cached in memory and on disk ($KILN_CACHE_DIR, else
  /// $XDG_CACHE_HOME/kiln, else ~/.cache/kiln; KILN_DISK_CACHE=0 turns the
  /// disk cache off); a cached result is found without loading NVRTC (its
  /// key names NVRTC by its library file). Throws compile_error with NVRTC's
  /// log when the source does not compile, or when it must be compiled and
  /// NVRTC is not installed (saying what to install). In a file compiled
  /// by kilnc, a string-literal `source` with literal options and names is
  /// compiled at build time instead (the call becomes raw_module_from_image
  /// of kilnc's image: no NVRTC at run time). Thread-safe: threads
  /// compiling the same source share one compilation.
  static raw_module from_source(std::string_view source, const std::vector<std::string> &options = {},
                                const std::vector<std::string> &name_expressions = {});

  /// The kernel `name`: a name expression given to from_source, or an entry
  /// point of the code (an extern "C" kernel's name, or a mangled name).
  /// Throws kiln::error "raw_module has no kernel 'x'" naming the module's
  /// kernels when the code has no such entry point (a module made from a
  /// fatbin without PTX is only checked when launched), value_error for an
  /// empty module.
  raw_function function(std::string_view name) const;

  /// The module's kernels: its name expressions, then the other entry
  /// points of its PTX (empty for a module of a fatbin only).
  std::vector<std::string> kernel_names() const;
  /// The PTX ("" when the module has only a fatbin).
  std::string_view ptx() const noexcept;
  /// The cubin (an sm_XY target) or fatbin (an image's); empty for PTX only.
  std::span<const unsigned char> fatbin() const noexcept;
  /// What the code was compiled for: "compute_80", "sm_90" (a cubin plus
  /// its PTX), the value of the user's -arch option, or "" for a module made
  /// from an image.
  std::string_view target() const noexcept;

  bool valid() const noexcept { return state_ != nullptr; }
  const detail::raw_module_state *state() const noexcept { return state_; }
  explicit raw_module(const detail::raw_module_state *s) noexcept : state_(s) {}

private:
  const detail::raw_module_state *state_ = nullptr;
};

namespace detail {

/// One kernel of a CUDA source literal that kilnc compiled for the host
/// too (docs/kernel-abi.md, "Raw CUDA modules on the host").
struct raw_host_entry {
  const char *name;         ///< the extern "C" name or the name expression; nullptr for neither
  const char *symbol;       ///< its entry point on a GPU: the C name, or the (lowered) mangled name
  raw_host_fn thread;       ///< one thread; nullptr when the kernel cannot run on the host
  raw_host_block_fn block;  ///< one block; nullptr when it synchronizes or cannot run on the host
  std::size_t num_params;   ///< the kernel's parameters
  const std::uint32_t *param_bytes; ///< the size of each
  const char *signature;    ///< its declaration, for messages ("saxpy(float a, const float *x)")
  const char *unsupported;  ///< why it cannot run on the host ("inline PTX asm at app.cpp:12:5"), or nullptr
};

/// The host code of a CUDA source literal: kilnc compiles the source as
/// C++ with Kiln's definitions of CUDA's built-ins (kiln/cuda_host.hpp).
struct raw_host_module {
  const raw_host_entry *entries;
  std::size_t num_entries;
};

/// A module compiled ahead of time (kilnc compiles the string literal given
/// to raw_module::from_source at build time and emits one of these as
/// static data). Every pointer must stay valid for the life of the process.
/// Members after source_name may be left out (zero): an image of an older
/// kilnc has no host code.
struct raw_module_image {
  const char *ptx;                     ///< NUL-terminated PTX, or nullptr
  const unsigned char *fatbin;         ///< a fatbin or cubin (8-byte aligned), or nullptr
  std::size_t fatbin_size;             ///< bytes of `fatbin`
  const char *const *name_expressions; ///< num_names name expressions, as given to from_source
  const char *const *lowered_names;    ///< their lowered (mangled) names, as NVRTC gave them
  std::size_t num_names;
  const char *source_name; ///< where the source is, for messages ("app.cpp:42"), or nullptr
  /// The kernels' host code, or nullptr (then `host_unsupported` says why).
  const raw_host_module *host;
  const char *host_unsupported;
  /// Without GPU code (kilnc built with --cuda-host-only, or without NVRTC):
  /// the source and NVRTC options, compiled at the first launch on a GPU.
  const char *source;
  const char *const *options;
  std::size_t num_options;
};

/// The module of a precompiled image, without any NVRTC call (NVRTC need
/// not be installed). Calls with the same image data return the same module.
/// Throws value_error for an image with no code: neither PTX, a fatbin,
/// host code nor a source.
raw_module raw_module_from_image(const raw_module_image &image);

/// The version of the NVRTC that from_source uses ("13.0"), loading it on
/// the first call; "" when none can be loaded.
std::string nvrtc_version();

/// Whether this process has loaded NVRTC (a from_source that compiled, or
/// nvrtc_version()); from_source served by a cache does not load it.
bool nvrtc_loaded() noexcept;

/// NVRTC compilations this process has run (each nvrtcCompileProgram call,
/// failed ones included; cache hits run none).
std::size_t nvrtc_compile_count() noexcept;

/// Forgets the in-memory cache of from_source, so that its next calls read
/// the disk cache (or compile) again, as a new process would. Modules and
/// functions already made stay valid. For tests and benchmarks.
void raw_module_clear_memory_cache();

} // namespace detail
} // namespace kiln
