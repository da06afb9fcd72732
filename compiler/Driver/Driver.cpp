//===- Driver/Driver.cpp - kilnc's entry point ----------------------------===//
//
// Parses the command line, then per mode: prints a stage (--emit), prints the
// fusion report, compiles each source to an object (-c), or compiles and
// links a program against the runtime.
//
//===----------------------------------------------------------------------===//
#include "Driver/Driver.h"
#include "Driver/Command.h"
#include "Driver/CompileDatabase.h"
#include "Driver/FusionReport.h"
#include "Driver/HostCompiler.h"
#include "Driver/Launcher.h"
#include "Driver/Options.h"
#include "Driver/Stages.h"
#include "Driver/TempFiles.h"
#include "Driver/Toolchain.h"

#include "clang/Basic/Stack.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"

#include <memory>

namespace kiln::driver {

namespace {

/// Builds each source's job: its database flags (with -p), then the command
/// line's. Returns an ExitCode.
int makeJobs(const DriverOptions &opts, std::vector<SourceJob> &jobs) {
  std::unique_ptr<CompileDatabase> db;
  if (opts.buildDir) {
    std::string error;
    db = CompileDatabase::load(*opts.buildDir, error);
    if (!db) {
      reportError("cannot load a compilation database from '" + *opts.buildDir +
                  "': " + llvm::StringRef(error).trim().str());
      return ExitCompileError;
    }
  }
  for (const std::string &source : opts.sources) {
    if (!llvm::sys::fs::exists(source)) {
      reportError("no such file or directory: '" + source + "'");
      return ExitCompileError;
    }
    SourceJob job;
    job.source = source;
    if (db) {
      std::vector<std::string> flags;
      if (!db->flagsFor(source, flags)) {
        reportWarning("'" + source +
                      "' is not in the compilation database of '" +
                      *opts.buildDir + "'");
      } else {
        // Sort the database's flags like a launcher command line.
        std::vector<std::string> words = {"--launcher", "c++"};
        words.insert(words.end(), flags.begin(), flags.end());
        DriverOptions fromDb = parseCommandLine(words).options;
        job.frontendFlags = fromDb.frontendFlags;
        job.compileFlags = fromDb.compileFlags;
        job.hasStd = fromDb.hasStd;
        job.optLevel = fromDb.optLevel;
      }
    }
    job.frontendFlags.insert(job.frontendFlags.end(),
                             opts.frontendFlags.begin(),
                             opts.frontendFlags.end());
    job.compileFlags.insert(job.compileFlags.end(), opts.compileFlags.begin(),
                            opts.compileFlags.end());
    job.hasStd = job.hasStd || opts.hasStd;
    if (opts.optLevel >= 0)
      job.optLevel = opts.optLevel;
    jobs.push_back(std::move(job));
  }
  return ExitSuccess;
}

/// --emit: prints the chosen stage of every source to -o (default stdout).
int emitStage(const DriverOptions &opts, const Toolchain &tc,
              const std::vector<SourceJob> &jobs) {
  StopAfter stop = opts.emit == EmitKind::MLIR        ? StopAfter::Frontend
                   : opts.emit == EmitKind::FusedMLIR ? StopAfter::Fuse
                                                      : StopAfter::Compile;
  bool forPtx = opts.emit == EmitKind::PTX;
  std::string text;
  for (const SourceJob &job : jobs) {
    StageOutputs out;
    if (int code = runStages(job, opts, tc, stop, forPtx, out))
      return code;
    if (opts.fusionReport)
      printFusionReport(llvm::errs(), job.source, out.report, out.rawKernels);
    switch (opts.emit) {
    case EmitKind::MLIR:
      text += out.mlir;
      break;
    case EmitKind::FusedMLIR:
      text += out.fusedMlir;
      break;
    case EmitKind::PTX:
      text += out.ptx;
      if (!out.ptxSm90.empty()) // a second module, for sm_90 and later
        text += "\n// kilnc: the sm_90 module (thread-block cluster variants)\n" + out.ptxSm90;
      break;
    case EmitKind::Cpp:
      text += out.cpp;
      break;
    case EmitKind::None:
      break;
    }
  }
  std::string path = opts.output.value_or("-");
  std::error_code ec;
  llvm::ToolOutputFile file(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    reportError("cannot write '" + path + "': " + ec.message());
    return ExitCompileError;
  }
  file.os() << text;
  file.os().flush();
  if (file.os().has_error()) {
    reportError("cannot write '" + path + "'");
    file.os().clear_error();
    return ExitCompileError;
  }
  file.keep();
  return ExitSuccess;
}

/// The object file -c writes for `source`: -o, else ./<stem>.o.
std::string objectPathFor(const DriverOptions &opts,
                          const std::string &source) {
  if (opts.output)
    return *opts.output;
  return (llvm::sys::path::stem(source) + ".o").str();
}

int compileAndLink(const DriverOptions &opts, const Toolchain &tc,
                   const std::vector<SourceJob> &jobs) {
  TempFiles temps(opts.saveTemps);
  bool linking = !opts.compileOnly;
  int status = ExitSuccess;
  std::vector<std::string> objects; // one per source, in order
  for (const SourceJob &job : jobs) {
    StageOutputs out;
    int code =
        runStages(job, opts, tc, StopAfter::Compile, /*forPtx=*/false, out);
    if (code == ExitSuccess && opts.fusionReport)
      printFusionReport(llvm::outs(), job.source, out.report, out.rawKernels);
    std::string object;
    if (code == ExitSuccess) {
      object = linking ? temps.create(job.source, "link.o")
                       : objectPathFor(opts, job.source);
      code = object.empty() ? ExitCompileError
                            : compileObject(job, out, tc.hostCompiler, opts, tc,
                                            temps, object);
    }
    if (code != ExitSuccess)
      status = code;
    objects.push_back(object);
  }
  if (status != ExitSuccess)
    return status;

  if (!linking) {
    for (const LinkItem &item : opts.linkItems)
      if (item.kind == LinkItem::Object)
        reportWarning("'" + item.value + "': linker input unused with -c");
    return ExitSuccess;
  }
  std::vector<std::string> inputs;
  size_t nextObject = 0;
  for (const LinkItem &item : opts.linkItems)
    inputs.push_back(item.kind == LinkItem::Source ? objects[nextObject++]
                                                   : item.value);
  reportStage(opts.verbose, "link");
  return linkProgram(inputs, opts, tc, opts.output.value_or("a.out"));
}

} // namespace

static int runKilncHere(int argc, const char **argv) {
  llvm::SmallVector<const char *, 64> expanded(argv + 1, argv + argc);
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  if (!llvm::cl::ExpandResponseFiles(saver, llvm::cl::TokenizeGNUCommandLine,
                                     expanded)) {
    reportError("cannot read a response file (@file) of the command line");
    return ExitUsageError;
  }
  std::vector<std::string> args(expanded.begin(), expanded.end());

  ParseResult parsed = parseCommandLine(args);
  if (!parsed.error.empty()) {
    reportError(parsed.error);
    return ExitUsageError;
  }
  const DriverOptions &opts = parsed.options;
  if (opts.showHelp) {
    llvm::outs() << helpText();
    return ExitSuccess;
  }
  if (opts.showVersion) {
    llvm::outs() << versionLine() << "\n";
    return ExitSuccess;
  }

  Toolchain tc = findToolchain(argc > 0 ? argv[0] : "kilnc");
  if (opts.launcher)
    return runLauncher(
        opts, std::vector<std::string>(args.begin() + 1, args.end()), tc);

  reportStage(opts.verbose, versionLine());
  reportStage(opts.verbose, "include dir " + tc.includeDir + ", runtime " +
                                tc.runtimeLibrary);
  std::vector<SourceJob> jobs;
  if (int code = makeJobs(opts, jobs))
    return code;

  if (opts.emit != EmitKind::None)
    return emitStage(opts, tc, jobs);

  if (opts.fusionReport && !opts.compileOnly && !opts.output) {
    int status = ExitSuccess;
    for (const SourceJob &job : jobs) {
      StageOutputs out;
      if (int code =
              runStages(job, opts, tc, StopAfter::Frontend, false, out)) {
        status = code;
        continue;
      }
      printFusionReport(llvm::outs(), job.source, out.report, out.rawKernels);
    }
    return status;
  }
  return compileAndLink(opts, tc, jobs);
}

void runOnCompileStack(void (*fn)(void *), void *arg) {
  llvm::thread worker(std::optional<unsigned>(CompileStackSize), [fn, arg] {
    clang::noteBottomOfStack(/*ForceSet=*/true);
    fn(arg);
  });
  worker.join();
}

int runKilnc(int argc, const char **argv) {
  struct Call {
    int argc;
    const char **argv;
    int code;
  } call{argc, argv, ExitCompileError};
  runOnCompileStack(
      [](void *p) {
        auto *c = static_cast<Call *>(p);
        c->code = runKilncHere(c->argc, c->argv);
      },
      &call);
  return call.code;
}

} // namespace kiln::driver
