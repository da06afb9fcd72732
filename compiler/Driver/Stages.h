//===- Driver/Stages.h - One source through kilnc's stages ------*- C++ -*-===//
//
// Runs one C++ source through the frontend (kernels as MLIR + rewritten C++),
// fusion, and the back ends (PTX, fatbin, host object), and assembles the C++
// the host compiler sees: the rewritten source followed by the kernel table.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_STAGES_H
#define KILN_DRIVER_STAGES_H

#include "Driver/Options.h"
#include "Driver/Toolchain.h"
#include "Frontend/Frontend.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::driver {

/// One source and the flags it compiles with (its own, from -p, and the
/// command line's).
struct SourceJob {
  std::string source;
  /// When set, the source's text (`source` is then only its name).
  std::optional<std::string> contents;
  std::vector<std::string> frontendFlags;
  std::vector<std::string> compileFlags;
  bool hasStd = false;
  int optLevel = -1;
};

/// The last stage to run.
enum class StopAfter { Frontend, Fuse, Compile };

/// What the stages produced for one source.
struct StageOutputs {
  std::string mlir;       ///< frontend module (when stopping after Frontend)
  std::string fusedMlir;  ///< fused module (when stopping after Fuse)
  std::string ptx;        ///< all kernels' PTX
  std::string ptxSm90;    ///< the sm_90 variants' PTX (thread-block clusters), if any
  std::string cpp;        ///< rewritten source + kernel table
  std::string hostObject; ///< the kernels' host variants (ELF), may be empty
  /// The host code of CUDA source literals (ELF objects), one per literal
  /// that compiled for the host.
  std::vector<std::string> rawModuleObjects;
  unsigned numKernels = 0;
  std::vector<frontend::FusionRecord> report;
  std::vector<frontend::RawKernelDecl> rawKernels; ///< for --fusion-report
};

/// Runs the stages up to `stop`. Diagnostics go to stderr; returns
/// ExitSuccess or ExitCompileError. `forPtx` skips the host back end.
int runStages(const SourceJob &job, const DriverOptions &opts,
              const Toolchain &tc, StopAfter stop, bool forPtx,
              StageOutputs &out);

} // namespace kiln::driver

#endif
