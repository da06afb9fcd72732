//===- runtime/nvrtc/disk_cache.hpp - Compiled CUDA source on disk --------===//
//
// One file per compilation under <cache dir>/raw_modules/, named by a hash of
// the key (source, options, name expressions, what the target depends on,
// the NVRTC library file) and holding the full key (and the NVRTC version
// and target of the compilation), so that a hash collision, a corrupt or a truncated
// file is a miss (a recompilation), never a wrong kernel. Files are written to
// a temporary name in the same folder and renamed, so that processes sharing
// the folder see whole files or none. Every failure to read or write is a
// miss: an unwritable folder means no caching, not an error. The layout is in
// docs/kernel-abi.md ("Raw CUDA modules"). Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/nvrtc/compile.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace kiln::detail::nvrtc {

/// The cache's folder: $KILN_CACHE_DIR/raw_modules, else
/// $XDG_CACHE_HOME/kiln/raw_modules, else $HOME/.cache/kiln/raw_modules;
/// "" when KILN_DISK_CACHE is 0/off/false/no or no location is known. Read
/// from the environment at each call.
std::string cache_directory();

/// The file of `key` in `dir`.
std::string cache_file(const std::string &dir, const std::string &key);

/// The code stored under `key` in `dir`, when a whole, intact file with
/// exactly this key and `num_names` lowered names is there.
std::optional<compiled_code> cache_load(const std::string &dir, const std::string &key, std::size_t num_names);

/// Stores `code` under `key` in `dir` (creating the folder); false when it
/// could not (nothing is left behind).
bool cache_store(const std::string &dir, const std::string &key, const compiled_code &code);

/// A 64-bit hash of `size` bytes (not cryptographic).
std::uint64_t hash64(const void *data, std::size_t size, std::uint64_t seed) noexcept;

} // namespace kiln::detail::nvrtc
