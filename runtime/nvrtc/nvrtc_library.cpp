//===- runtime/nvrtc/nvrtc_library.cpp - Loading NVRTC at run time --------===//
//
// Opens libnvrtc with dlopen once (as runtime/cuda/driver.cpp opens libcuda)
// and resolves every entry point of nvrtc_functions.def with dlsym. No NVRTC:
// loaded() is nullptr and require() throws compile_error saying what to
// install; nothing else in the runtime needs NVRTC.
//
// file_identity() finds the library file without loading it, following the
// search of glibc's dlopen for each candidate: a name with a '/' is a path;
// a bare name is looked for in $LD_LIBRARY_PATH, then /etc/ld.so.cache, then
// the default folders. What it does not follow (the DT_RPATH/DT_RUNPATH of
// the program, glibc-hwcaps subfolders, a file that exists but does not
// load) can make it name another file than the one dlopen opens: the loaded
// library's own identity (dlinfo) then keys what it compiles, so the cache
// is never wrong, only missed in such a process (docs/kernel-abi.md).
//
//===----------------------------------------------------------------------===//
#include "runtime/nvrtc/nvrtc_library.hpp"

#include "kiln/error.hpp"

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <mutex>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace kiln::detail::nvrtc {
namespace {

// Never destroyed (and never unloaded): modules made from its output live as
// long as the process.
struct attempt {
  library lib;
  bool ok = false;
  std::string reason;
};

/// Where to look, in order.
std::vector<std::string> candidates() {
  if (const char *forced = std::getenv("KILN_NVRTC"); forced && *forced)
    return {forced};
  std::vector<std::string> names = {"libnvrtc.so.13", "libnvrtc.so", "libnvrtc.so.12"};
  std::vector<std::string> dirs;
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    dirs.push_back(std::string(home) + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  std::vector<std::string> all = names;
  for (const std::string &d : dirs)
    for (const std::string &n : names)
      all.push_back(d + "/" + n);
  return all;
}

//===----------------------------------------------------------------------===//
// Finding the library file without loading it
//===----------------------------------------------------------------------===//

bool is_regular_file(const std::string &path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/// "<canonical path> <size> <mtime s>.<ns>" of the file `path`; "" when it
/// is not a regular file.
std::string identity_of(const std::string &path) {
  char resolved[PATH_MAX];
  if (!::realpath(path.c_str(), resolved))
    return {};
  struct stat st {};
  if (::stat(resolved, &st) != 0 || !S_ISREG(st.st_mode))
    return {};
  return std::string(resolved) + " " + std::to_string(static_cast<long long>(st.st_size)) + " " +
         std::to_string(static_cast<long long>(st.st_mtim.tv_sec)) + "." +
         std::to_string(static_cast<long long>(st.st_mtim.tv_nsec));
}

/// The whole of a small file; "" when it cannot be read.
std::string read_small_file(const char *path, std::size_t limit) {
  std::string out;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return out;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && static_cast<std::size_t>(st.st_size) <= limit) {
    out.resize(static_cast<std::size_t>(st.st_size));
    std::size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = ::read(fd, out.data() + done, out.size() - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      done += static_cast<std::size_t>(n);
    }
    out.resize(done);
  }
  ::close(fd);
  return out;
}

/// The path /etc/ld.so.cache gives the library `name` (ld.so's lookup for a
/// bare name after $LD_LIBRARY_PATH), "" when it has none. The format is
/// glibc's "glibc-ld.so.cache1.1" (elf/dl-cache.h): a 48-byte header (magic
/// and version, u32 nlibs, u32 len_strings, u8 flags, 3 bytes, u32
/// extension_offset, 3 x u32), then nlibs 24-byte entries (i32 flags, u32
/// key, u32 value, u32 osversion, u64 hwcap) whose key and value are offsets
/// of NUL-terminated strings from the start of the file. Only entries of
/// this machine's ABI and no hwcap subfolder count.
std::string ld_cache_lookup(const std::string &name) {
#if defined(__x86_64__)
  constexpr std::int32_t abi_flags = 0x0303; // FLAG_ELF_LIBC6 | FLAG_X8664_LIB64
#elif defined(__aarch64__)
  constexpr std::int32_t abi_flags = 0x0a03; // FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64
#else
  constexpr std::int32_t abi_flags = -1; // not followed: the default folders, or a miss
#endif
  if (abi_flags < 0)
    return {};
  const std::string file = read_small_file("/etc/ld.so.cache", std::size_t(64) << 20);
  constexpr std::string_view magic = "glibc-ld.so.cache1.1";
  constexpr std::size_t header = 48, entry = 24;
  if (file.size() < header || std::string_view(file).substr(0, magic.size()) != magic)
    return {};
  auto u32 = [&](std::size_t at) {
    std::uint32_t v;
    std::memcpy(&v, file.data() + at, 4);
    return v;
  };
  auto string_at = [&](std::uint32_t at) -> std::string_view {
    if (at >= file.size())
      return {};
    const char *s = file.data() + at;
    const void *end = std::memchr(s, '\0', file.size() - at);
    return end ? std::string_view(s, static_cast<const char *>(end) - s) : std::string_view();
  };
  const std::uint32_t nlibs = u32(20);
  if (nlibs > (file.size() - header) / entry)
    return {};
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    const std::size_t at = header + std::size_t(i) * entry;
    std::uint64_t hwcap;
    std::memcpy(&hwcap, file.data() + at + 16, 8);
    if (static_cast<std::int32_t>(u32(at)) != abi_flags || hwcap != 0 || string_at(u32(at + 4)) != name)
      continue;
    const std::string_view value = string_at(u32(at + 8));
    if (!value.empty())
      return std::string(value);
  }
  return {};
}

/// The folders of a search path such as $LD_LIBRARY_PATH (':' or ';'
/// separated; an empty entry is the current folder, as for ld.so).
std::vector<std::string> split_search_path(const char *value) {
  std::vector<std::string> out;
  if (!value || !*value)
    return out;
  std::string cur;
  for (const char *p = value;; ++p) {
    if (*p == ':' || *p == ';' || *p == '\0') {
      out.push_back(cur.empty() ? std::string(".") : cur);
      cur.clear();
      if (!*p)
        break;
    } else {
      cur.push_back(*p);
    }
  }
  return out;
}

/// The file dlopen(candidate) would open, as far as it can be told without
/// dlopen; "" when none.
std::string find_file(const std::string &candidate) {
  if (candidate.find('/') != std::string::npos)
    return is_regular_file(candidate) ? candidate : std::string();
  for (const std::string &dir : split_search_path(std::getenv("LD_LIBRARY_PATH")))
    if (std::string path = dir + "/" + candidate; is_regular_file(path))
      return path;
  if (std::string path = ld_cache_lookup(candidate); !path.empty() && is_regular_file(path))
    return path;
  static const char *const default_dirs[] = {
#if defined(__x86_64__)
      "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
      "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
#endif
      "/lib64", "/usr/lib64", "/lib", "/usr/lib"};
  for (const char *dir : default_dirs)
    if (std::string path = std::string(dir) + "/" + candidate; is_regular_file(path))
      return path;
  return {};
}

/// The identity of the first candidate that exists; "" when none does.
std::string resolve_identity() {
  for (const std::string &name : candidates())
    if (const std::string path = find_file(name); !path.empty())
      return identity_of(path);
  return {};
}

/// The identity of the file a dlopen handle came from.
std::string loaded_identity(void *handle) {
  struct link_map *map = nullptr;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name || !*map->l_name)
    return {};
  return identity_of(map->l_name);
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

std::atomic<std::size_t> attempts{0};
std::atomic<bool> refuse{false};

attempt *load() {
  auto *a = new attempt();
  attempts.fetch_add(1, std::memory_order_relaxed);
  if (refuse.load(std::memory_order_relaxed)) {
    a->reason = "NVRTC could not be loaded (loading refused by kiln::detail::nvrtc::reset_for_testing)";
    return a;
  }
  const std::vector<std::string> tried = candidates();
  void *handle = nullptr;
  std::string first_error;
  for (const std::string &name : tried) {
    handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      a->lib.path = name;
      break;
    }
    if (first_error.empty()) {
      const char *why = dlerror();
      first_error = why ? why : name + ": cannot be loaded";
    }
  }
  if (!handle) {
    std::string list;
    for (const std::string &name : tried)
      list += (list.empty() ? "" : ", ") + name;
    a->reason = "NVRTC could not be loaded (tried " + list + "; " + first_error + ")";
    return a;
  }
  std::string missing;
#define KILN_NVRTC_FN(name)                                                                                    \
  if (void *p = dlsym(handle, #name))                                                                          \
    a->lib.name = reinterpret_cast<decltype(a->lib.name)>(p);                                                  \
  else                                                                                                         \
    missing += std::string(missing.empty() ? "" : ", ") + #name;
#include "runtime/nvrtc/nvrtc_functions.def"
#undef KILN_NVRTC_FN
  if (!missing.empty()) {
    a->reason = "the NVRTC library " + a->lib.path + " lacks entry points: " + missing + " (CUDA 12 or newer needed)";
    return a;
  }
  if (a->lib.nvrtcVersion(&a->lib.major, &a->lib.minor) != NVRTC_SUCCESS) {
    a->reason = "nvrtcVersion failed in " + a->lib.path;
    return a;
  }
  a->lib.identity = loaded_identity(handle);
  a->ok = true;
  return a;
}

std::atomic<attempt *> current{nullptr};
std::mutex load_mutex;
/// file_identity()'s resolution before any load (never freed).
std::atomic<const std::string *> resolved{nullptr};

const attempt &get() {
  if (attempt *a = current.load(std::memory_order_acquire))
    return *a;
  std::lock_guard<std::mutex> lock(load_mutex);
  attempt *a = current.load(std::memory_order_relaxed);
  if (!a) {
    a = load(); // intentionally leaked
    current.store(a, std::memory_order_release);
  }
  return *a;
}

} // namespace

const library *loaded() noexcept {
  try {
    const attempt &a = get();
    return a.ok ? &a.lib : nullptr;
  } catch (...) { // std::bad_alloc
    return nullptr;
  }
}

std::string file_identity() {
  if (const attempt *a = current.load(std::memory_order_acquire); a && a->ok)
    return a->lib.identity;
  if (const std::string *r = resolved.load(std::memory_order_acquire))
    return *r;
  std::lock_guard<std::mutex> lock(load_mutex);
  const std::string *r = resolved.load(std::memory_order_relaxed);
  if (!r) {
    r = new std::string(resolve_identity()); // intentionally leaked
    resolved.store(r, std::memory_order_release);
  }
  return *r;
}

bool is_loaded() noexcept {
  const attempt *a = current.load(std::memory_order_acquire);
  return a && a->ok;
}

std::size_t load_attempts() noexcept { return attempts.load(std::memory_order_relaxed); }

std::string unavailable_reason() {
  const attempt &a = get();
  return a.ok ? std::string() : a.reason;
}

const library &require() {
  const attempt &a = get();
  if (a.ok)
    return a.lib;
  throw compile_error("kiln::raw_module: cannot compile CUDA source: " + a.reason +
                      "; install NVRTC, the CUDA toolkit's runtime compiler (the cuda-nvrtc-13-0 package, or the "
                      "whole CUDA 13 toolkit), and make it visible (the library path, CUDA_HOME, or KILN_NVRTC=<path "
                      "of libnvrtc.so>); KILN_RAWKERNEL kernels, compiled ahead of time by kilnc, need no NVRTC");
}

std::string result_text(const library &lib, nvrtcResult r) {
  const char *name = lib.nvrtcGetErrorString ? lib.nvrtcGetErrorString(r) : nullptr;
  return std::string(name ? name : "NVRTC_ERROR") + " (" + std::to_string(static_cast<int>(r)) + ")";
}

void reset_for_testing(bool refuse_loading) {
  std::lock_guard<std::mutex> lock(load_mutex);
  current.store(nullptr, std::memory_order_release);
  resolved.store(nullptr, std::memory_order_release);
  refuse.store(refuse_loading, std::memory_order_relaxed);
}

} // namespace kiln::detail::nvrtc
