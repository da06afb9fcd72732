//===- Driver/HostCompiler.cpp - The host compiler and linker steps -------===//
//
// Builds and runs the host compiler, `ld -r` and link command lines, and
// compiles the host translation units of CUDA source literals.
//
//===----------------------------------------------------------------------===//
#include "Driver/HostCompiler.h"
#include "Driver/Command.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace kiln::driver {

namespace {

/// A path as make-style dependency files write it.
std::string escapeForMake(llvm::StringRef path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#')
      out += '\\';
    if (c == '$')
      out += '$';
    out += c;
  }
  return out;
}

} // namespace

bool rewriteDepFile(const std::string &path, const std::string &from,
                    const std::string &to) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return false;
  std::string text = (*buffer)->getBuffer().str();
  std::string oldName = escapeForMake(from), newName = escapeForMake(to);
  for (size_t pos = text.find(oldName); pos != std::string::npos;
       pos = text.find(oldName, pos + newName.size()))
    text.replace(pos, oldName.size(), newName);
  return TempFiles::write(path, text);
}

int compileObject(const SourceJob &job, const StageOutputs &stages,
                  const std::vector<std::string> &compiler,
                  const DriverOptions &opts, const Toolchain &tc,
                  TempFiles &temps, const std::string &objectPath) {
  std::string cppPath = temps.create(job.source, "kiln.cpp");
  if (cppPath.empty() || !TempFiles::write(cppPath, stages.cpp))
    return ExitCompileError;
  if (opts.saveTemps && !stages.ptx.empty()) {
    std::string ptxPath = temps.create(job.source, "kernels.ptx");
    if (ptxPath.empty() || !TempFiles::write(ptxPath, stages.ptx))
      return ExitCompileError;
  }
  bool hasKernelObject = !stages.hostObject.empty() || !stages.rawModuleObjects.empty();
  std::string hostObject = objectPath;
  if (hasKernelObject) {
    hostObject = temps.create(job.source, "kiln.o");
    if (hostObject.empty())
      return ExitCompileError;
  }

  // The rewritten file lives elsewhere: "..." includes still resolve next to
  // the original source.
  llvm::SmallString<256> sourceDir(job.source);
  llvm::sys::path::remove_filename(sourceDir);
  if (sourceDir.empty())
    sourceDir = ".";

  std::vector<std::string> argv = compiler;
  if (!job.hasStd)
    argv.push_back("-std=c++20");
  argv.insert(argv.end(), job.compileFlags.begin(), job.compileFlags.end());
  argv.push_back("-I" + tc.includeDir);
  argv.insert(argv.end(), {"-iquote", sourceDir.str().str()});
  std::string depFile;
  if (opts.writesDepFile) {
    if (opts.depFile) {
      depFile = *opts.depFile;
    } else {
      llvm::SmallString<256> d(objectPath);
      llvm::sys::path::replace_extension(d, "d");
      depFile = d.str().str();
      argv.insert(argv.end(), {"-MF", depFile});
    }
    if (!opts.hasDepTarget)
      argv.insert(argv.end(), {"-MT", objectPath});
  }
  argv.insert(argv.end(), {"-c", cppPath, "-o", hostObject});
  int code = runCommand(argv, opts.verbose);
  if (code != 0)
    return ExitCompileError;
  if (!depFile.empty() && !rewriteDepFile(depFile, cppPath, job.source))
    reportWarning("could not update the dependency file '" + depFile + "'");

  if (!hasKernelObject)
    return ExitSuccess;
  std::vector<std::string> ld = {tc.ld, "-r", "-o", objectPath, hostObject};
  if (!stages.hostObject.empty()) {
    std::string kernelObject = temps.create(job.source, "kernels.o");
    if (kernelObject.empty() ||
        !TempFiles::write(kernelObject, stages.hostObject))
      return ExitCompileError;
    ld.push_back(kernelObject);
  }
  for (size_t i = 0; i < stages.rawModuleObjects.size(); ++i) {
    std::string moduleObject =
        temps.create(job.source, "raw_modules_" + std::to_string(i) + ".o");
    if (moduleObject.empty() ||
        !TempFiles::write(moduleObject, stages.rawModuleObjects[i]))
      return ExitCompileError;
    ld.push_back(moduleObject);
  }
  if (tc.ld.empty()) {
    reportError("cannot find 'ld' to add the kernels to '" + objectPath +
                "' (set KILN_LD or put ld on PATH)");
    return ExitCompileError;
  }
  code = runCommand(ld, opts.verbose);
  return code == 0 ? ExitSuccess : ExitCompileError;
}

bool compileRawModuleHost(frontend::RawModuleDecl &module, const SourceJob &job, const DriverOptions &opts,
                          const Toolchain &tc, TempFiles &temps, std::string &object) {
  frontend::RawHostModule &host = module.host;
  const std::string origin = module.file + ":" + std::to_string(module.line);
  auto fail = [&](const std::string &why) {
    reportWarning("the CUDA source at " + origin + " does not compile for the host (" + why +
                  "); its kernels run only on a GPU");
    host.translationUnit.clear();
    host.kernels.clear();
    host.unsupported = "the host compiler rejected it: " + why;
    return false;
  };
  std::string cppPath = temps.create(job.source, "raw_module_" + std::to_string(module.line) + ".cpp");
  std::string objPath = temps.create(job.source, "raw_module_" + std::to_string(module.line) + ".o");
  if (cppPath.empty() || objPath.empty() || !TempFiles::write(cppPath, host.translationUnit))
    return fail("kilnc could not write its files");
  std::vector<std::string> argv = tc.hostCompiler;
  argv.insert(argv.end(), {"-std=c++20", "-w", "-x", "c++"});
  argv.push_back("-O" + std::to_string(job.optLevel >= 0 ? job.optLevel : 3));
  // The flags of the user's compile that shape code, not its meaning.
  for (const std::string &flag : job.compileFlags) {
    llvm::StringRef f = flag;
    if (f.starts_with("-g") || f.starts_with("-m") || f.starts_with("-fsanitize") || f == "-fPIC" ||
        f == "-fpic" || f == "-fPIE" || f == "-fpie" || f == "-fno-pic" || f == "-fno-pie" || f == "-pthread")
      argv.push_back(flag);
  }
  argv.push_back("-I" + tc.includeDir);
  argv.insert(argv.end(), {"-isystem", tc.includeDir + "/kiln/cuda_host"});
  for (const std::string &dir : tc.cudaHostIncludes)
    argv.insert(argv.end(), {"-isystem", dir});
  argv.insert(argv.end(), host.flags.begin(), host.flags.end());
  argv.insert(argv.end(), {"-c", cppPath, "-o", objPath});
  std::string output;
  if (runCommandCapturing(argv, opts.verbose, output) != 0) {
    llvm::StringRef text(output), first;
    while (!text.empty() && first.empty()) {
      auto [line, rest] = text.split('\n');
      if (line.contains("error"))
        first = line.trim();
      text = rest;
    }
    return fail(first.empty() ? "'" + argv.front() + "' failed" : first.str());
  }
  auto buffer = llvm::MemoryBuffer::getFile(objPath);
  if (!buffer)
    return fail("kilnc could not read the object file");
  object = (*buffer)->getBuffer().str();
  return true;
}

int linkProgram(const std::vector<std::string> &inputs,
                const DriverOptions &opts, const Toolchain &tc,
                const std::string &output) {
  if (tc.runtimeLibrary.empty() || !llvm::sys::fs::exists(tc.runtimeLibrary)) {
    reportError(
        "cannot find the Kiln runtime library" +
        (tc.runtimeLibrary.empty() ? std::string()
                                   : " '" + tc.runtimeLibrary + "'") +
        " (build the kiln_runtime target, or set KILN_RUNTIME_LIBRARY)");
    return ExitCompileError;
  }
  std::vector<std::string> argv = tc.hostCompiler;
  argv.insert(argv.end(), opts.linkDriverFlags.begin(),
              opts.linkDriverFlags.end());
  argv.insert(argv.end(), inputs.begin(), inputs.end());
  argv.insert(argv.end(),
              {"-o", output, tc.runtimeLibrary, "-ldl", "-lpthread"});
#ifdef KILN_HOST_LIBMVEC
  // The host kernels' float32 sin/cos (compiler/Target/Host/CpuVariants.h).
  argv.push_back("-lmvec");
#endif
  return runCommand(argv, opts.verbose) == 0 ? ExitSuccess : ExitCompileError;
}

} // namespace kiln::driver
