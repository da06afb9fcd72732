//===- Driver/Toolchain.h - Where kilnc finds its tools and files -*- C++
//-*-===//
//
// Locates what a compile needs besides kilnc itself: the Kiln headers and
// runtime library (installed layout next to the kilnc executable, else the
// build tree), clang's resource dir, the host compiler, ld and the CUDA tools.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_TOOLCHAIN_H
#define KILN_DRIVER_TOOLCHAIN_H

#include <string>
#include <vector>

namespace kiln::driver {

struct Toolchain {
  std::string kilncPath;      ///< this executable
  std::string includeDir;     ///< holds kiln/kiln.hpp
  std::string runtimeLibrary; ///< libkiln_runtime.a (may not exist yet)
  std::string resourceDir;    ///< clang's builtin headers
  /// The host compiler's words: $KILN_CXX split at spaces, else "c++" (in a
  /// sanitized build, its compiler and sanitizer flags).
  std::vector<std::string> hostCompiler;
  std::string ld;        ///< $KILN_LD, else ld on PATH
  std::string ptxas;     ///< empty when not found
  std::string fatbinary; ///< empty when not found
  /// libnvrtc for CUDA source literals (kiln::raw_module::from_source):
  /// the CUDA toolkit's found at configure time, when it exists; the
  /// frontend then looks further, and $KILN_NVRTC overrides both
  /// (Frontend/RawModuleLiteral.h).
  std::string nvrtc;
  /// System include directories for CUDA source compiled for the host (the
  /// toolkit's libcu++, <cuda/std/...>): $KILN_CCCL_INCLUDE, else the
  /// configure-time one when it exists.
  std::vector<std::string> cudaHostIncludes;
};

/// Finds everything; `argv0` locates the kilnc executable.
Toolchain findToolchain(const char *argv0);

/// The version line: "kilnc version 0.1.0 (LLVM 22.1.8, CUDA 13.0)".
std::string versionLine();

} // namespace kiln::driver

#endif
