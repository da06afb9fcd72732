//===- Driver/Launcher.cpp - kilnc as CMake's compiler launcher -----------===//
//
// Keeps the build system's command line: its flags, its output, its
// dependency file (which names the original source, not the rewritten one).
// KILN_VERBOSE=1 in the environment prints what kilnc does.
//
//===----------------------------------------------------------------------===//
#include "Driver/Launcher.h"
#include "Driver/Command.h"
#include "Driver/HostCompiler.h"
#include "Driver/Stages.h"
#include "Driver/TempFiles.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstdlib>

namespace kiln::driver {

namespace {

/// True when the file's text mentions `kiln` (a kiln/ header, kiln::) or
/// `KILN` (KILN_FUSE): a file that does neither has nothing to fuse.
bool mentionsKiln(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return true; // let the frontend report it
  llvm::StringRef text = (*buffer)->getBuffer();
  return text.contains("kiln") || text.contains("KILN");
}

} // namespace

int runLauncher(const DriverOptions &parsed,
                const std::vector<std::string> &args, const Toolchain &tc) {
  DriverOptions opts = parsed;
  const char *verboseEnv = std::getenv("KILN_VERBOSE");
  opts.verbose = verboseEnv && *verboseEnv && std::string(verboseEnv) != "0";

  bool kilnCompile = opts.compileOnly && opts.sources.size() == 1 &&
                     opts.output && opts.passthroughReason.empty() &&
                     mentionsKiln(opts.sources[0]);
  if (!kilnCompile) {
    int code = runCommand(args, opts.verbose);
    return code < 0 ? ExitCompileError : code;
  }

  SourceJob job;
  job.source = opts.sources[0];
  job.frontendFlags = opts.frontendFlags;
  job.compileFlags = opts.compileFlags;
  job.hasStd = opts.hasStd;
  job.optLevel = opts.optLevel;
  StageOutputs stages;
  if (int code = runStages(job, opts, tc, StopAfter::Compile, /*forPtx=*/false,
                           stages))
    return code;
  TempFiles temps(/*keep=*/false);
  return compileObject(job, stages, opts.hostCompiler, opts, tc, temps,
                       *opts.output);
}

} // namespace kiln::driver
