//===- runtime/nvrtc/disk_cache.cpp - Compiled CUDA source on disk --------===//
//
// File layout (little-endian u64 sizes; docs/kernel-abi.md):
//
//   "KILNRMC2"                      magic and format version
//   u64 n, n bytes                  the key
//   u64 n, n bytes                  the NVRTC version that compiled it ("13.0")
//   u64 n, n bytes                  the target it was compiled for ("sm_90")
//   u64 n, n bytes                  PTX (n may be 0)
//   u64 n, n bytes                  cubin (n may be 0)
//   u64 k, then k times u64 n, n bytes   lowered names of the name expressions
//   u64                             hash64 of every byte before it
//
// Name: <hash64(key, 1)><hash64(key, 2)>.kiln in hex. Written as
// <name>.tmp.<pid>.<n> (O_EXCL), then renamed over <name>.
//
//===----------------------------------------------------------------------===//
#include "runtime/nvrtc/disk_cache.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::detail::nvrtc {
namespace {

constexpr char magic[8] = {'K', 'I', 'L', 'N', 'R', 'M', 'C', '2'};
/// Files above this are not read (a cache file is a few hundred KiB).
constexpr std::uint64_t max_file_bytes = std::uint64_t(1) << 30;

std::string env(const char *name) {
  const char *v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool disabled() {
  const std::string v = env("KILN_DISK_CACHE");
  return v == "0" || v == "off" || v == "OFF" || v == "false" || v == "no";
}

/// mkdir -p; true when `dir` is a folder afterwards.
bool make_directories(const std::string &dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0)
    return S_ISDIR(st.st_mode);
  for (std::size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/')
      continue;
    const std::string part = dir.substr(0, pos);
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST)
      return false;
  }
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void put_u64(std::string &out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void put_bytes(std::string &out, const void *data, std::size_t n) {
  put_u64(out, n);
  out.append(static_cast<const char *>(data), n);
}

/// Reads the fields of a file, each bounds-checked.
struct reader {
  std::string_view rest;
  bool ok = true;

  std::uint64_t u64() {
    if (rest.size() < 8) {
      ok = false;
      return 0;
    }
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= std::uint64_t(static_cast<unsigned char>(rest[i])) << (8 * i);
    rest.remove_prefix(8);
    return v;
  }
  std::string_view bytes() {
    const std::uint64_t n = u64();
    if (!ok || n > rest.size()) {
      ok = false;
      return {};
    }
    std::string_view v = rest.substr(0, n);
    rest.remove_prefix(n);
    return v;
  }
};

bool read_file(const std::string &path, std::string &out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
            static_cast<std::uint64_t>(st.st_size) <= max_file_bytes;
  if (ok) {
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
    ok = done == out.size();
  }
  ::close(fd);
  return ok;
}

bool write_all(int fd, const std::string &data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::atomic<unsigned> temp_counter{0};

} // namespace

std::uint64_t hash64(const void *data, std::size_t size, std::uint64_t seed) noexcept {
  const auto *p = static_cast<const unsigned char *>(data);
  auto mix = [](std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
  };
  std::uint64_t h = mix(seed * 0x9E3779B97F4A7C15ull ^ size);
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ mix(w)) * 0x100000001b3ull + 0x52dce729ull;
    h = (h << 27) | (h >> 37);
  }
  std::uint64_t tail = 0;
  for (std::size_t k = 0; i < size; ++i, ++k)
    tail |= std::uint64_t(p[i]) << (8 * k);
  h = (h ^ mix(tail + 1)) * 0x100000001b3ull;
  return mix(h);
}

std::string cache_directory() {
  if (disabled())
    return {};
  std::string base = env("KILN_CACHE_DIR");
  if (base.empty()) {
    const std::string xdg = env("XDG_CACHE_HOME");
    if (!xdg.empty() && xdg[0] == '/') // the XDG spec ignores relative paths
      base = xdg + "/kiln";
  }
  if (base.empty()) {
    const std::string home = env("HOME");
    if (!home.empty())
      base = home + "/.cache/kiln";
  }
  if (base.empty())
    return {};
  while (base.size() > 1 && base.back() == '/')
    base.pop_back();
  return base + "/raw_modules";
}

std::string cache_file(const std::string &dir, const std::string &key) {
  char name[40];
  std::snprintf(name, sizeof name, "%016llx%016llx.kiln",
                static_cast<unsigned long long>(hash64(key.data(), key.size(), 1)),
                static_cast<unsigned long long>(hash64(key.data(), key.size(), 2)));
  return dir + "/" + name;
}

std::optional<compiled_code> cache_load(const std::string &dir, const std::string &key, std::size_t num_names) {
  std::string file;
  if (dir.empty() || !read_file(cache_file(dir, key), file))
    return std::nullopt;
  if (file.size() < sizeof magic + 8 || std::memcmp(file.data(), magic, sizeof magic) != 0)
    return std::nullopt;
  const std::size_t body = file.size() - 8;
  reader check{std::string_view(file).substr(body)};
  if (check.u64() != hash64(file.data(), body, 3))
    return std::nullopt; // truncated, or corrupt
  reader in{std::string_view(file.data() + sizeof magic, body - sizeof magic)};
  if (in.bytes() != key || !in.ok)
    return std::nullopt; // another key with the same hash
  compiled_code code;
  code.nvrtc_version = std::string(in.bytes());
  code.target = std::string(in.bytes());
  code.ptx = std::string(in.bytes());
  const std::string_view cubin = in.bytes();
  code.cubin.assign(cubin.begin(), cubin.end());
  const std::uint64_t names = in.u64();
  if (!in.ok || names != num_names)
    return std::nullopt;
  for (std::uint64_t i = 0; i < names; ++i)
    code.lowered_names.emplace_back(in.bytes());
  if (!in.ok || !in.rest.empty() || (code.ptx.empty() && code.cubin.empty()))
    return std::nullopt;
  return code;
}

bool cache_store(const std::string &dir, const std::string &key, const compiled_code &code) {
  if (dir.empty() || !make_directories(dir))
    return false;
  std::string data(magic, sizeof magic);
  put_bytes(data, key.data(), key.size());
  put_bytes(data, code.nvrtc_version.data(), code.nvrtc_version.size());
  put_bytes(data, code.target.data(), code.target.size());
  put_bytes(data, code.ptx.data(), code.ptx.size());
  put_bytes(data, code.cubin.data(), code.cubin.size());
  put_u64(data, code.lowered_names.size());
  for (const std::string &name : code.lowered_names)
    put_bytes(data, name.data(), name.size());
  put_u64(data, hash64(data.data(), data.size(), 3));

  const std::string file = cache_file(dir, key);
  const std::string temp = file + ".tmp." + std::to_string(::getpid()) + "." +
                           std::to_string(temp_counter.fetch_add(1, std::memory_order_relaxed));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return false;
  const bool written = write_all(fd, data);
  const bool closed = ::close(fd) == 0;
  if (!written || !closed || ::rename(temp.c_str(), file.c_str()) != 0) {
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

} // namespace kiln::detail::nvrtc
