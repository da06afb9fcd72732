//===- Frontend/RawModuleHost.h - CUDA source literals for the host -*- C++ -*-===//
//
// The host half of a `kiln::raw_module::from_source` call with a literal
// source (RawModuleLiteral.h compiles the GPU half with NVRTC). The source
// is parsed as C++20 with Kiln's definitions of CUDA's built-ins
// (kiln/cuda_host.hpp, in its analysis mode) to find the kernels: each
// extern "C" or plain __global__ function and each name expression's
// instantiation, with its parameters, whether it synchronizes (a call that
// reaches __syncthreads, a shuffle or a vote: its threads then run as
// fibers) and whether it reaches something a CPU cannot run (inline PTX
// asm, clock64, tensor cores, a grid-wide sync). Then it writes the
// translation unit the driver compiles with the host compiler: the source
// inside an anonymous namespace (so that two modules' kernels never clash
// at link time), `extern "C"` dropped, `extern __shared__` arrays bound to
// the block's dynamic shared memory, inline asm removed, and a table of
// host entry points (kiln::detail::raw_host_module) named `symbol`.
// docs/kernel-abi.md, "Raw CUDA modules on the host".
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_RAWMODULEHOST_H
#define KILN_FRONTEND_RAWMODULEHOST_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kiln::frontend {

/// One kernel of the host translation unit.
struct RawHostKernel {
  std::string name;   ///< the extern "C" name or the name expression; "" for neither
  std::string symbol; ///< its GPU entry point: the C name or the mangled name
  /// A C++ expression, valid inside the translation unit's anonymous
  /// namespace, that is the kernel's address ("&saxpy", "&scale<float>").
  std::string address;
  bool synchronizes = false;
  /// Why it cannot run on the host ("inline PTX asm at app.cpp:14:7"), or "".
  std::string unsupported;
  std::vector<std::uint32_t> paramBytes;
  std::string signature; ///< "saxpy(float a, const float *x)", for messages
};

/// The host code of one CUDA source literal.
struct RawHostModule {
  /// The translation unit to compile ("" when the source has no host form:
  /// then `unsupported` says why).
  std::string translationUnit;
  std::string unsupported;
  /// Host compiler flags the NVRTC options imply (-D, -U, -I, -include).
  std::vector<std::string> flags;
  /// The kiln::detail::raw_host_module the translation unit defines.
  std::string symbol;
  std::vector<RawHostKernel> kernels;
};

/// What compiling a literal for the host needs.
struct RawHostInput {
  std::string source;
  std::vector<std::string> options;     ///< NVRTC's, as written
  std::vector<std::string> names;       ///< the name expressions
  std::vector<std::string> loweredNames; ///< NVRTC's names of them; empty when NVRTC did not run
  std::string symbol;                   ///< for RawHostModule::symbol
  std::string origin;                   ///< "app.cpp:42", for the translation unit's header
  std::string resourceDir;              ///< clang's builtin headers
  std::string kilnIncludeDir;           ///< holds kiln/cuda_host.hpp
  std::vector<std::string> systemIncludes; ///< e.g. the CUDA toolkit's CCCL (cuda/std/...)
  /// Reports a warning at (line, column) of the source (1-based line,
  /// 0-based byte column; line 0: the literal itself) and returns the
  /// place as "file:line:col", for messages the program keeps.
  std::function<std::string(unsigned line, unsigned column, const std::string &text)> warn;
};

/// Analyses `in.source` and fills `out`. Problems are warnings (through
/// in.warn), never errors: the program builds, and a kernel without host
/// code raises kiln::device_error when launched on the host.
void compileRawModuleForHost(const RawHostInput &in, RawHostModule &out);

/// The host compiler flags of NVRTC options: -D/-U/-I/-include in their
/// spellings (-DX, -D X, --define-macro=X, ...); the others are GPU-only.
std::vector<std::string> hostFlagsOfNvrtcOptions(const std::vector<std::string> &options);

} // namespace kiln::frontend

#endif
