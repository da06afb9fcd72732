//===- Driver/HostCompiler.h - The host compiler and linker steps -*- C++
//-*-===//
//
// Compiles the rewritten C++ with the host compiler ($KILN_CXX, else c++),
// merges the kernels' host object into the result with `ld -r`, and links
// programs against libkiln_runtime.a.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_HOSTCOMPILER_H
#define KILN_DRIVER_HOSTCOMPILER_H

#include "Driver/Options.h"
#include "Driver/Stages.h"
#include "Driver/TempFiles.h"
#include "Driver/Toolchain.h"

#include <string>
#include <vector>

namespace kiln::driver {

/// Compiles `stages.cpp` (the rewritten `job.source`) with `compiler` into
/// `objectPath`, adding the kernels' host object when there is one. Fixes a
/// dependency file (-MD) to name `job.source`. Returns an ExitCode.
int compileObject(const SourceJob &job, const StageOutputs &stages,
                  const std::vector<std::string> &compiler,
                  const DriverOptions &opts, const Toolchain &tc,
                  TempFiles &temps, const std::string &objectPath);

/// Compiles the host translation unit of CUDA source literal `module`
/// (Frontend/RawModuleHost.h) with the host compiler and `job`'s
/// optimization, debug, code-model and sanitizer flags, into `object` (the
/// object file's bytes). When the host compiler fails: a warning naming the
/// literal and the compiler's first error, and `module.host` loses its
/// translation unit and kernels and says why (its kernels then run only on
/// a GPU). Returns false then.
bool compileRawModuleHost(frontend::RawModuleDecl &module, const SourceJob &job, const DriverOptions &opts,
                          const Toolchain &tc, TempFiles &temps, std::string &object);

/// Links `inputs` (objects and linker flags, in order) with the runtime into
/// `output`. Returns an ExitCode.
int linkProgram(const std::vector<std::string> &inputs,
                const DriverOptions &opts, const Toolchain &tc,
                const std::string &output);

/// Replaces `from` by `to` in the make-style dependency file at `path`.
bool rewriteDepFile(const std::string &path, const std::string &from,
                    const std::string &to);

} // namespace kiln::driver

#endif
