//===- runtime/nvrtc/raw_module_state.hpp - What a raw_module holds -------===//
//
// The state behind kiln::raw_module and kiln::raw_function. States are never
// freed: the module cache of gpu_launch.cpp keys loaded GPU modules by the
// address of their code and functions by the address of their descriptor,
// for the life of the process, so neither may ever be reused. Repeated
// from_source calls of one source share one state (the in-memory cache), so
// this holds one copy of each distinct module's code. Internal to the
// runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/detail/raw_kernel.hpp"
#include "kiln/raw_module.hpp"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kiln::detail {

/// One kernel of a module, as kiln::launch runs it: a raw_kernel descriptor
/// without host code, whose PTX and fatbin are the module's.
struct raw_function_state {
  const raw_module_state *module = nullptr;
  std::string name;   ///< as asked for (descriptor.name)
  std::string symbol; ///< the entry point (descriptor.symbol)
  /// Its host code's entry (descriptor.host and host_block come from it), or
  /// nullptr: then `host_unsupported` says why it has none.
  const raw_host_entry *host = nullptr;
  std::string host_unsupported;
  /// Mutable for an image without GPU code: its PTX arrives with the first
  /// launch on a GPU (raw_module.cpp, ensure_gpu_code), under the module's
  /// mutex and before any GPU launch reads it.
  mutable raw_kernel descriptor{};
};

/// For a function of an image without GPU code, compiles the deferred
/// source with NVRTC (once per module) and gives the descriptor its code.
/// No-op for the others. Throws compile_error as from_source does.
void ensure_gpu_code(const raw_function_state &f);

struct raw_module_state {
  std::string source_name; ///< for messages: "raw_module.cu", or the image's
  std::string target;      ///< compile target ("" for an image)
  // The code: owned by a compiled module, the image's static data otherwise.
  std::string owned_ptx;
  std::vector<unsigned char> owned_cubin;
  const char *ptx = nullptr; ///< NUL-terminated, or nullptr
  const unsigned char *fatbin = nullptr;
  std::size_t fatbin_size = 0;
  /// (name expression, lowered name) pairs.
  std::vector<std::pair<std::string, std::string>> names;
  /// The PTX's .entry names, in order (empty without PTX).
  std::vector<std::string> entries;
  /// The host code kilnc compiled, or nullptr: then `host_unsupported`
  /// says why the module has none.
  const raw_host_module *host = nullptr;
  std::string host_unsupported;
  /// An image without GPU code: the source and options NVRTC compiles at
  /// the first launch on a GPU (`gpu_once`), which then sets ptx/fatbin.
  std::string deferred_source;
  std::vector<std::string> deferred_options;
  mutable std::once_flag gpu_once;
  mutable const raw_module_state *gpu_module = nullptr; ///< from_source's module of the deferred source

  /// The functions handed out, by the name asked for. Guarded by `mutex`.
  mutable std::mutex mutex;
  mutable std::map<std::string, std::unique_ptr<raw_function_state>, std::less<>> functions;
};

/// The entry points (.entry names) of a PTX module.
std::vector<std::string> ptx_entries(const char *ptx);

} // namespace kiln::detail
