//===- runtime/nvrtc/raw_module.cpp - kiln::raw_module --------------------===//
//
// from_source: the in-memory cache (one state per key, shared by threads:
// the first compiles, the others wait for it), then the disk cache, then
// NVRTC. raw_module_from_image: a state over kilnc's static data, no NVRTC.
// function(): a name expression's lowered name, or an entry point of the
// PTX, checked when the PTX is known. States are never freed
// (raw_module_state.hpp says why).
//
//===----------------------------------------------------------------------===//
#include "kiln/raw_module.hpp"

#include "kiln/error.hpp"
#include "runtime/nvrtc/compile.hpp"
#include "runtime/nvrtc/disk_cache.hpp"
#include "runtime/nvrtc/nvrtc_library.hpp"
#include "runtime/nvrtc/raw_module_state.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace kiln {
namespace detail {
namespace {

/// The name of the source in NVRTC's messages ("raw_module.cu(3): error").
constexpr const char *source_name = "raw_module.cu";
/// Bumped when the key or the meaning of a cache file changes.
constexpr const char *key_version = "kiln raw_module key 2";

/// One key of the in-memory cache: the state, once made. A thread making
/// it holds `mutex`, so that the others wait for its compilation.
struct memory_slot {
  std::mutex mutex;
  const raw_module_state *state = nullptr;
};

std::mutex memory_mutex; // guards memory_cache (not the slots)
// Leaked, as the states: from_source may run during static destruction.
auto *memory_cache = new std::unordered_map<std::string, std::shared_ptr<memory_slot>>();

/// Images already made into modules, by their data's addresses.
using image_key = std::tuple<const void *, const void *, std::size_t, const void *, const void *, std::size_t,
                             const void *, const void *>;
std::mutex image_mutex;
auto *image_modules = new std::map<image_key, const raw_module_state *>();

void add_field(std::string &key, std::string_view s) {
  key += std::to_string(s.size());
  key += ':';
  key.append(s);
  key += '\n';
}

/// Everything a compilation's result depends on, unambiguously: NVRTC is
/// named by its library file (nvrtc::file_identity), so that a warm start
/// need not load it; the target by what chooses it (nvrtc::target_request).
std::string make_key(const std::string &nvrtc_file, std::string_view source, const std::vector<std::string> &options,
                     const std::string &target_request, const std::vector<std::string> &names) {
  std::string key;
  key.reserve(source.size() + 512);
  add_field(key, key_version);
  add_field(key, "nvrtc file " + nvrtc_file);
  add_field(key, source_name);
  add_field(key, source);
  add_field(key, std::to_string(options.size()) + " options");
  for (const std::string &o : options)
    add_field(key, o);
  add_field(key, "target " + target_request);
  add_field(key, std::to_string(names.size()) + " name expressions");
  for (const std::string &n : names)
    add_field(key, n);
  return key;
}

void finish(raw_module_state &s) {
  s.entries = ptx_entries(s.ptx);
}

const raw_module_state *make_state(nvrtc::compiled_code code, const std::vector<std::string> &names) {
  auto *s = new raw_module_state();
  s->source_name = source_name;
  s->host_unsupported =
      "its CUDA source was compiled at run time by NVRTC, which makes GPU code only (kilnc compiles a source for the "
      "host too when it is a string literal and the options and name expressions are braced lists of literals, in a "
      "file kilnc compiles)";
  s->target = std::move(code.target);
  s->owned_ptx = std::move(code.ptx);
  s->owned_cubin = std::move(code.cubin);
  s->ptx = s->owned_ptx.empty() ? nullptr : s->owned_ptx.c_str();
  s->fatbin = s->owned_cubin.empty() ? nullptr : s->owned_cubin.data();
  s->fatbin_size = s->owned_cubin.size();
  for (std::size_t i = 0; i < names.size(); ++i)
    s->names.emplace_back(names[i], code.lowered_names[i]);
  finish(*s);
  return s;
}

/// "_Z3fooPf (foo(float*))" for a mangled name, else the name.
std::string shown(const std::string &entry) {
  if (entry.rfind("_Z", 0) != 0)
    return entry;
  int status = 0;
  char *demangled = abi::__cxa_demangle(entry.c_str(), nullptr, nullptr, &status);
  std::string out = entry;
  if (status == 0 && demangled)
    out += " (" + std::string(demangled) + ")";
  std::free(demangled);
  return out;
}

/// The module's entry points: its PTX's, else (no PTX) its host code's.
std::vector<std::string> kernel_entries(const raw_module_state &m) {
  if (m.ptx || !m.host)
    return m.entries;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < m.host->num_entries; ++i)
    if (const char *sym = m.host->entries[i].symbol)
      out.emplace_back(sym);
  return out;
}

/// The host entry of kernel `name` (entry point `symbol`), or nullptr.
const raw_host_entry *find_host_entry(const raw_module_state &m, std::string_view name, std::string_view symbol) {
  if (!m.host)
    return nullptr;
  const raw_host_entry *by_symbol = nullptr;
  for (std::size_t i = 0; i < m.host->num_entries; ++i) {
    const raw_host_entry &e = m.host->entries[i];
    if (e.name && name == e.name)
      return &e;
    if (!by_symbol && e.symbol && symbol == e.symbol)
      by_symbol = &e;
  }
  return by_symbol;
}

[[noreturn]] void no_such_kernel(const raw_module_state &m, std::string_view name) {
  std::string list;
  bool mangled = false;
  for (const auto &[expr, lowered] : m.names)
    list += (list.empty() ? "" : ", ") + expr;
  for (const std::string &e : kernel_entries(m)) {
    if (std::any_of(m.names.begin(), m.names.end(), [&](const auto &n) { return n.second == e; }))
      continue;
    mangled |= e.rfind("_Z", 0) == 0;
    list += (list.empty() ? "" : ", ") + shown(e);
  }
  std::string msg = "raw_module has no kernel '" + std::string(name) + "' (its kernels: " +
                    (list.empty() ? std::string("none") : list) + ")";
  if (mangled || m.entries.empty())
    msg += "; a __global__ function not declared extern \"C\" has a mangled name: declare it extern \"C\", or give "
           "it (a template instantiation such as \"scale<float>\") to from_source as a name expression";
  throw kiln::error(msg);
}

} // namespace

std::vector<std::string> ptx_entries(const char *ptx) {
  std::vector<std::string> out;
  if (!ptx)
    return out;
  const std::string_view text(ptx);
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  auto is_ident = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
           c == '%';
  };
  for (std::size_t pos = text.find(".entry"); pos != std::string_view::npos; pos = text.find(".entry", pos + 6)) {
    if (pos > 0 && !is_space(text[pos - 1]))
      continue;
    std::size_t i = pos + 6;
    if (i >= text.size() || !is_space(text[i]))
      continue;
    while (i < text.size() && is_space(text[i]))
      ++i;
    const std::size_t start = i;
    while (i < text.size() && is_ident(text[i]))
      ++i;
    if (i > start)
      out.emplace_back(text.substr(start, i - start));
  }
  return out;
}

std::size_t nvrtc_compile_count() noexcept { return nvrtc::compile_count(); }

bool nvrtc_loaded() noexcept { return nvrtc::is_loaded(); }

std::string nvrtc_version() {
  const nvrtc::library *lib = nvrtc::loaded();
  return lib ? std::to_string(lib->major) + "." + std::to_string(lib->minor) : std::string();
}

void raw_module_clear_memory_cache() {
  std::lock_guard<std::mutex> lock(memory_mutex);
  memory_cache->clear();
}

raw_module raw_module_from_image(const raw_module_image &image) {
  if (!image.ptx && !(image.fatbin && image.fatbin_size) && !image.host && !image.source)
    throw value_error("kiln::detail::raw_module_from_image: the image has no code (neither PTX, a fatbin, host code "
                      "nor a source)");
  if (image.num_options && !image.options)
    throw value_error("kiln::detail::raw_module_from_image: the image has " + std::to_string(image.num_options) +
                      " options but no list of them");
  if (image.num_names && (!image.name_expressions || !image.lowered_names))
    throw value_error("kiln::detail::raw_module_from_image: the image has " + std::to_string(image.num_names) +
                      " name expressions but no list of them or of their lowered names");
  for (std::size_t i = 0; i < image.num_names; ++i)
    if (!image.name_expressions[i] || !image.lowered_names[i])
      throw value_error("kiln::detail::raw_module_from_image: name " + std::to_string(i) + " of the image is null");
  const image_key key{image.ptx,           image.fatbin,        image.fatbin_size, image.name_expressions,
                      image.lowered_names, image.num_names, image.host,        image.source};
  std::lock_guard<std::mutex> lock(image_mutex);
  if (auto it = image_modules->find(key); it != image_modules->end())
    return raw_module(it->second);
  auto *s = new raw_module_state();
  s->source_name = image.source_name ? image.source_name : "a precompiled raw_module";
  s->ptx = image.ptx && *image.ptx ? image.ptx : nullptr;
  s->fatbin = image.fatbin_size ? image.fatbin : nullptr;
  s->fatbin_size = s->fatbin ? image.fatbin_size : 0;
  for (std::size_t i = 0; i < image.num_names; ++i)
    s->names.emplace_back(image.name_expressions[i], image.lowered_names[i]);
  s->host = image.host;
  if (!s->host)
    s->host_unsupported = image.host_unsupported && *image.host_unsupported
                              ? image.host_unsupported
                              : "the kilnc that compiled it made no host code for it (rebuild the program with this Kiln)";
  if (!s->ptx && !s->fatbin && image.source) {
    s->deferred_source = image.source;
    for (std::size_t i = 0; i < image.num_options; ++i)
      s->deferred_options.emplace_back(image.options[i] ? image.options[i] : "");
  }
  finish(*s);
  image_modules->emplace(key, s);
  return raw_module(s);
}

} // namespace detail

raw_module raw_module::from_source(std::string_view source, const std::vector<std::string> &options,
                                   const std::vector<std::string> &name_expressions) {
  namespace nvrtc = detail::nvrtc;
  // The key without loading NVRTC: a hit (in memory or on disk) never loads it.
  const std::string nvrtc_file = nvrtc::file_identity();
  const std::string request = nvrtc::target_request(options);
  std::string key = detail::make_key(nvrtc_file, source, options, request, name_expressions);

  std::shared_ptr<detail::memory_slot> slot;
  {
    std::lock_guard<std::mutex> lock(detail::memory_mutex);
    std::shared_ptr<detail::memory_slot> &s = (*detail::memory_cache)[key];
    if (!s)
      s = std::make_shared<detail::memory_slot>();
    slot = s;
  }
  std::lock_guard<std::mutex> lock(slot->mutex); // a thread compiling this key makes the others wait
  if (slot->state)
    return raw_module(slot->state);
  // Without a known library file there is nothing to key a file by.
  std::string dir = nvrtc_file.empty() ? std::string() : nvrtc::cache_directory();
  std::optional<nvrtc::compiled_code> code = nvrtc::cache_load(dir, key, name_expressions.size());
  if (!code) {
    const nvrtc::library &lib = nvrtc::require(); // compile_error without NVRTC
    if (lib.identity != nvrtc_file) {
      // The loader opened another file than the one found without it (a
      // search file_identity does not follow, or a file replaced since):
      // what it compiles is keyed by the file it came from.
      key = detail::make_key(lib.identity, source, options, request, name_expressions);
      dir = lib.identity.empty() ? std::string() : nvrtc::cache_directory();
      code = nvrtc::cache_load(dir, key, name_expressions.size());
    }
    if (!code) {
      const nvrtc::target target = nvrtc::choose_target(lib, options);
      std::vector<std::string> all_options = options;
      if (!target.option.empty())
        all_options.push_back(target.option);
      code = nvrtc::compile(lib, std::string(source), detail::source_name, all_options, name_expressions);
      code->target = target.name;
      nvrtc::cache_store(dir, key, *code); // best effort
    }
  }
  slot->state = detail::make_state(std::move(*code), name_expressions);
  return raw_module(slot->state);
}

raw_function raw_module::function(std::string_view name) const {
  if (!state_)
    throw value_error("kiln::raw_module::function('" + std::string(name) +
                      "'): the module is empty (default-constructed); make one with kiln::raw_module::from_source");
  const detail::raw_module_state &m = *state_;
  std::lock_guard<std::mutex> lock(m.mutex);
  if (auto it = m.functions.find(name); it != m.functions.end())
    return raw_function(it->second.get());
  std::string symbol;
  for (const auto &[expr, lowered] : m.names)
    if (expr == name) {
      symbol = lowered;
      break;
    }
  if (symbol.empty()) {
    // Without PTX the entry points are the host code's; without either (a
    // fatbin only) they are unknown here: the launch finds out
    // (cuModuleGetFunction).
    const std::vector<std::string> entries = detail::kernel_entries(m);
    if ((m.ptx || m.host) && std::find(entries.begin(), entries.end(), name) == entries.end())
      detail::no_such_kernel(m, name);
    symbol = std::string(name);
  }
  auto f = std::make_unique<detail::raw_function_state>();
  f->module = &m;
  f->name = std::string(name);
  f->symbol = std::move(symbol);
  detail::raw_kernel &k = f->descriptor;
  k.name = f->name.c_str();
  k.symbol = f->symbol.c_str();
  k.ptx = m.ptx;
  k.fatbin = m.fatbin;
  k.fatbin_size = m.fatbin_size;
  f->host = detail::find_host_entry(m, f->name, f->symbol);
  if (f->host && f->host->thread) {
    k.host = f->host->thread;
    k.host_block = f->host->block;
  } else {
    k.host = nullptr;
    k.host_block = nullptr;
    f->host_unsupported = f->host ? (f->host->unsupported ? f->host->unsupported : "it has no host code")
                          : m.host ? "kilnc found no kernel '" + f->name + "' in its host compilation of the source"
                                   : m.host_unsupported;
  }
  k.num_params = 0; // the CUDA source's parameters are checked by check_cuda_source_params, not launch_raw
  k.param_bytes = nullptr;
  k.static_shared_bytes = 0; // the PTX's own shared arrays are the driver's business; the host's are thread_local
  k.synchronizes = k.host && !k.host_block;
  const detail::raw_function_state *out = f.get();
  m.functions.emplace(std::string(name), std::move(f));
  return raw_function(out);
}

namespace detail {

void ensure_gpu_code(const raw_function_state &f) {
  const raw_module_state &m = *f.module;
  if (m.deferred_source.empty())
    return;
  std::call_once(m.gpu_once, [&] {
    std::vector<std::string> names;
    for (const auto &[expr, lowered] : m.names)
      names.push_back(expr);
    m.gpu_module = raw_module::from_source(m.deferred_source, m.deferred_options, names).state();
  });
  const raw_module_state &g = *m.gpu_module;
  std::lock_guard<std::mutex> lock(m.mutex);
  raw_kernel &k = f.descriptor;
  if (k.ptx || k.fatbin)
    return;
  // The entry point as NVRTC lowered it (a name expression), else the name.
  for (const auto &[expr, lowered] : g.names)
    if (expr == f.name) {
      const_cast<raw_function_state &>(f).symbol = lowered; // not yet read by a GPU launch
      k.symbol = f.symbol.c_str();
    }
  k.ptx = g.ptx;
  k.fatbin = g.fatbin;
  k.fatbin_size = g.fatbin_size;
}

} // namespace detail

std::vector<std::string> raw_module::kernel_names() const {
  std::vector<std::string> out;
  if (!state_)
    return out;
  for (const auto &[expr, lowered] : state_->names)
    out.push_back(expr);
  for (const std::string &e : detail::kernel_entries(*state_))
    if (std::none_of(state_->names.begin(), state_->names.end(), [&](const auto &n) { return n.second == e; }))
      out.push_back(e);
  return out;
}

std::string_view raw_module::ptx() const noexcept {
  return state_ && state_->ptx ? std::string_view(state_->ptx) : std::string_view();
}

std::span<const unsigned char> raw_module::fatbin() const noexcept {
  return state_ && state_->fatbin ? std::span<const unsigned char>(state_->fatbin, state_->fatbin_size)
                                  : std::span<const unsigned char>();
}

std::string_view raw_module::target() const noexcept {
  return state_ ? std::string_view(state_->target) : std::string_view();
}

std::string_view raw_function::name() const noexcept {
  return state_ ? std::string_view(state_->name) : std::string_view();
}

std::string_view raw_function::symbol() const noexcept {
  return state_ ? std::string_view(state_->symbol) : std::string_view();
}

} // namespace kiln
