//===- Driver/Toolchain.cpp - Where kilnc finds its tools and files -------===//
//
// An installed kilnc (<prefix>/bin/kilnc) uses <prefix>/include and
// <prefix>/<libdir>/libkiln_runtime.a; one run from the build tree uses the
// paths baked in at configure time. Environment variables override both.
//
//===----------------------------------------------------------------------===//
#include "Driver/Toolchain.h"
#include "Driver/DriverConfig.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

#ifndef KILN_BUILD_RUNTIME_LIBRARY
#define KILN_BUILD_RUNTIME_LIBRARY ""
#endif

namespace kiln::driver {

namespace {

std::string env(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

/// `name` on PATH, else `fallback` if it exists, else "".
std::string findTool(llvm::StringRef name, llvm::StringRef fallback) {
  if (auto path = llvm::sys::findProgramByName(name))
    return *path;
  if (!fallback.empty() && llvm::sys::fs::can_execute(fallback))
    return fallback.str();
  return "";
}

} // namespace

Toolchain findToolchain(const char *argv0) {
  static int anchor;
  Toolchain tc;
  tc.kilncPath = llvm::sys::fs::getMainExecutable(argv0, &anchor);

  // Installed layout: <prefix>/bin/kilnc.
  llvm::SmallString<256> prefix(tc.kilncPath);
  llvm::sys::path::remove_filename(prefix); // bin
  llvm::sys::path::remove_filename(prefix); // prefix
  llvm::SmallString<256> include(prefix), library(prefix);
  llvm::sys::path::append(include, KILN_INSTALL_INCLUDEDIR);
  llvm::sys::path::append(library, KILN_INSTALL_LIBDIR, "libkiln_runtime.a");
  llvm::SmallString<256> header(include);
  llvm::sys::path::append(header, "kiln", "kiln.hpp");
  if (!tc.kilncPath.empty() && llvm::sys::fs::exists(header)) {
    tc.includeDir = include.str().str();
    tc.runtimeLibrary = library.str().str();
  } else {
    tc.includeDir = KILN_BUILD_INCLUDE_DIR;
    tc.runtimeLibrary = KILN_BUILD_RUNTIME_LIBRARY;
  }
  if (std::string dir = env("KILN_INCLUDE_DIR"); !dir.empty())
    tc.includeDir = dir;
  if (std::string lib = env("KILN_RUNTIME_LIBRARY"); !lib.empty())
    tc.runtimeLibrary = lib;

  tc.resourceDir = KILN_CLANG_RESOURCE_DIR;

  std::string cxx = env("KILN_CXX");
  if (cxx.empty())
    cxx = KILN_CONFIG_HOST_CXX;
  llvm::SmallVector<llvm::StringRef> words;
  llvm::StringRef(cxx).split(words, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef w : words)
    tc.hostCompiler.push_back(w.str());
  if (tc.hostCompiler.empty())
    tc.hostCompiler.push_back("c++");

  tc.ld = env("KILN_LD");
  if (tc.ld.empty())
    tc.ld = findTool("ld", "/usr/bin/ld");
  tc.ptxas = env("KILN_PTXAS");
  if (tc.ptxas.empty())
    tc.ptxas = findTool("ptxas", KILN_CONFIG_PTXAS);
  tc.fatbinary = env("KILN_FATBINARY");
  if (tc.fatbinary.empty())
    tc.fatbinary = findTool("fatbinary", KILN_CONFIG_FATBINARY);
  if (llvm::sys::fs::exists(KILN_CONFIG_NVRTC))
    tc.nvrtc = KILN_CONFIG_NVRTC;
  std::string cccl = env("KILN_CCCL_INCLUDE");
  if (cccl.empty() && llvm::sys::fs::is_directory(KILN_CONFIG_CCCL_INCLUDE))
    cccl = KILN_CONFIG_CCCL_INCLUDE;
  if (!cccl.empty())
    tc.cudaHostIncludes.push_back(cccl);
  return tc;
}

std::string versionLine() {
  return std::string("kilnc version ") + KILN_VERSION_STRING + " (LLVM " +
         KILN_LLVM_VERSION_STRING + ", CUDA " + KILN_CUDA_VERSION_STRING + ")";
}

} // namespace kiln::driver
