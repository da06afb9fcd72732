//===- runtime/nvrtc/compile.cpp - One NVRTC compilation ------------------===//
//
// nvrtcCreateProgram, the name expressions, nvrtcCompileProgram with the
// options, then the PTX, the cubin (for sm_XY targets) and the lowered names.
// A failure is a compile_error with NVRTC's log, which names the lines of the
// source ("raw_module.cu(3): error: ..."). NVRTC allows concurrent
// compilations of distinct programs, so nothing here is locked.
//
//===----------------------------------------------------------------------===//
#include "runtime/nvrtc/compile.hpp"

#include "kiln/error.hpp"

#include <atomic>

namespace kiln::detail::nvrtc {
namespace {

std::atomic<std::size_t> compilations{0};

/// Destroys the program when the compilation is done, thrown or not.
struct program {
  const library &lib;
  nvrtcProgram handle = nullptr;
  ~program() {
    if (handle)
      lib.nvrtcDestroyProgram(&handle);
  }
};

std::string program_log(const library &lib, nvrtcProgram p) {
  std::size_t size = 0;
  if (lib.nvrtcGetProgramLogSize(p, &size) != NVRTC_SUCCESS || size <= 1)
    return {};
  std::string log(size, '\0');
  if (lib.nvrtcGetProgramLog(p, log.data()) != NVRTC_SUCCESS)
    return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}

std::string joined(const std::vector<std::string> &options) {
  std::string all;
  for (const std::string &o : options)
    all += (all.empty() ? "" : " ") + o;
  return all.empty() ? "(none)" : all;
}

[[noreturn]] void fail(const library &lib, nvrtcResult r, const std::string &what, const std::string &log) {
  std::string msg = "kiln::raw_module: " + what + ": " + result_text(lib, r);
  if (!log.empty())
    msg += "\n" + log;
  throw compile_error(msg);
}

} // namespace

std::size_t compile_count() noexcept { return compilations.load(std::memory_order_relaxed); }

compiled_code compile(const library &lib, const std::string &source, const std::string &source_name,
                      const std::vector<std::string> &options, const std::vector<std::string> &name_expressions) {
  program prog{lib};
  nvrtcResult r = lib.nvrtcCreateProgram(&prog.handle, source.c_str(), source_name.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) {
    prog.handle = nullptr;
    fail(lib, r, "nvrtcCreateProgram failed", "");
  }
  for (const std::string &name : name_expressions) {
    r = lib.nvrtcAddNameExpression(prog.handle, name.c_str());
    if (r != NVRTC_SUCCESS)
      fail(lib, r, "NVRTC refused the name expression '" + name + "'", "");
  }

  std::vector<const char *> argv;
  argv.reserve(options.size());
  for (const std::string &o : options)
    argv.push_back(o.c_str());
  compilations.fetch_add(1, std::memory_order_relaxed);
  r = lib.nvrtcCompileProgram(prog.handle, static_cast<int>(argv.size()), argv.data());
  if (r != NVRTC_SUCCESS) {
    const std::string log = program_log(lib, prog.handle);
    if (r == NVRTC_ERROR_INVALID_OPTION)
      fail(lib, r, "NVRTC does not accept the options " + joined(options), log);
    fail(lib, r, "NVRTC could not compile the CUDA source (options " + joined(options) + ")", log);
  }

  compiled_code out;
  std::size_t size = 0;
  if (lib.nvrtcGetPTXSize(prog.handle, &size) == NVRTC_SUCCESS && size > 1) {
    out.ptx.resize(size);
    if ((r = lib.nvrtcGetPTX(prog.handle, out.ptx.data())) != NVRTC_SUCCESS)
      fail(lib, r, "nvrtcGetPTX failed", "");
    while (!out.ptx.empty() && out.ptx.back() == '\0')
      out.ptx.pop_back();
  }
  size = 0;
  if (lib.nvrtcGetCUBINSize(prog.handle, &size) == NVRTC_SUCCESS && size > 0) {
    out.cubin.resize(size);
    if ((r = lib.nvrtcGetCUBIN(prog.handle, reinterpret_cast<char *>(out.cubin.data()))) != NVRTC_SUCCESS)
      fail(lib, r, "nvrtcGetCUBIN failed", "");
  }
  if (out.ptx.empty() && out.cubin.empty())
    fail(lib, NVRTC_SUCCESS,
         "NVRTC produced neither PTX nor a cubin (options " + joined(options) +
             "; an option such as -dlto asks for another output, which kiln::raw_module cannot load)",
         program_log(lib, prog.handle));
  for (const std::string &name : name_expressions) {
    const char *lowered = nullptr;
    r = lib.nvrtcGetLoweredName(prog.handle, name.c_str(), &lowered);
    if (r != NVRTC_SUCCESS || !lowered)
      fail(lib, r,
           "the name expression '" + name +
               "' names no __global__ function of the source (a template instantiation such as \"scale<float>\", "
               "or a kernel's name)",
           program_log(lib, prog.handle));
    out.lowered_names.emplace_back(lowered);
  }
  out.nvrtc_version = std::to_string(lib.major) + "." + std::to_string(lib.minor);
  return out;
}

} // namespace kiln::detail::nvrtc
