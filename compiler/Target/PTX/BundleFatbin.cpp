//===- Target/PTX/BundleFatbin.cpp - cubins + PTX into a fatbin -----------===//
//
// Writes the PTX to a temporary file, runs `ptxas -arch=<arch>` for each
// requested arch and `fatbinary --create` to bundle the cubins and the PTX.
//
//===----------------------------------------------------------------------===//
#include "Target/PTX/BundleFatbin.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

#ifndef KILN_DEFAULT_PTXAS
#define KILN_DEFAULT_PTXAS "/usr/local/cuda/bin/ptxas"
#endif
#ifndef KILN_DEFAULT_FATBINARY
#define KILN_DEFAULT_FATBINARY "/usr/local/cuda/bin/fatbinary"
#endif

namespace kiln::ptx {

llvm::StringRef defaultPtxasPath() { return KILN_DEFAULT_PTXAS; }
llvm::StringRef defaultFatbinaryPath() { return KILN_DEFAULT_FATBINARY; }

namespace {

/// Runs `program` with `args`; on failure reports its stderr at `loc`.
LogicalResult runTool(Location loc, llvm::StringRef program,
                      llvm::ArrayRef<llvm::StringRef> args,
                      llvm::StringRef errFile) {
  std::string message;
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, std::nullopt,
                                                errFile};
  int rc = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects, 0,
                                     0, &message);
  if (rc == 0)
    return success();
  std::string output;
  if (auto buffer = llvm::MemoryBuffer::getFile(errFile))
    output = (*buffer)->getBuffer().trim().str();
  return emitError(loc) << "kiln: " << llvm::sys::path::filename(program)
                        << " failed" << (message.empty() ? "" : ": " + message)
                        << (output.empty() ? "" : ":\n" + output);
}

} // namespace

int smNumber(llvm::StringRef arch) {
  int number = 0;
  arch.consume_front("sm_");
  arch.consume_front("compute_");
  return arch.take_while([](char c) {
               return c >= '0' && c <= '9';
             }).getAsInteger(10, number)
             ? -1
             : number;
}

FailureOr<std::string>
bundleFatbin(Location loc, llvm::StringRef ptx, llvm::StringRef ptxArch, llvm::StringRef ptx90,
             llvm::ArrayRef<std::string> archs, llvm::StringRef ptxasPath,
             llvm::StringRef fatbinaryPath, int optLevel) {
  if (ptxasPath.empty())
    ptxasPath = defaultPtxasPath();
  if (fatbinaryPath.empty())
    fatbinaryPath = defaultFatbinaryPath();
  for (llvm::StringRef tool : {ptxasPath, fatbinaryPath})
    if ((tool == fatbinaryPath || !archs.empty()) && !llvm::sys::fs::can_execute(tool))
      return emitError(loc) << "kiln: cannot run '" << tool
                            << "' (needed for --cuda-arch cubins)";

  llvm::SmallVector<std::string> temps;
  llvm::scope_exit cleanup([&] {
    for (const std::string &path : temps)
      llvm::sys::fs::remove(path);
  });
  auto temp = [&](llvm::StringRef suffix) -> FailureOr<std::string> {
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createTemporaryFile("kiln", suffix, path)) {
      emitError(loc) << "kiln: cannot create a temporary file";
      return failure();
    }
    temps.push_back(path.str().str());
    return temps.back();
  };

  FailureOr<std::string> ptxFile = temp("ptx"), ptx90File = temp("ptx"), errFile = temp("log"),
                         fatbinFile = temp("fatbin");
  if (failed(ptxFile) || failed(ptx90File) || failed(errFile) || failed(fatbinFile))
    return failure();
  for (auto [file, text] : {std::pair{*ptxFile, ptx}, std::pair{*ptx90File, ptx90}}) {
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec);
    if (ec)
      return emitError(loc)
             << "kiln: cannot write " << file << ": " << ec.message();
    os << text;
  }

  std::vector<std::string> fatbinArgs = {fatbinaryPath.str(), "--64",
                                         "--create=" + *fatbinFile};
  std::string opt = "-O" + std::to_string(std::clamp(optLevel, 0, 3));
  for (const std::string &arch : archs) {
    int sm = smNumber(arch);
    if (sm <= 0)
      return emitError(loc)
             << "kiln: invalid CUDA arch '" << arch << "' (expected sm_XX)";
    FailureOr<std::string> cubin = temp("cubin");
    if (failed(cubin))
      return failure();
    std::string archFlag = "-arch=" + arch;
    const std::string &source = sm >= 90 && !ptx90.empty() ? *ptx90File : *ptxFile;
    if (failed(runTool(loc, ptxasPath,
                       {ptxasPath, archFlag, opt, source, "-o", *cubin},
                       *errFile)))
      return failure();
    fatbinArgs.push_back("--image3=kind=elf,sm=" + std::to_string(sm) +
                         ",file=" + *cubin);
  }
  fatbinArgs.push_back("--image3=kind=ptx,sm=" +
                       std::to_string(smNumber(ptxArch)) + ",file=" + *ptxFile);
  if (!ptx90.empty()) // JIT for GPUs after sm_90 that have no cubin
    fatbinArgs.push_back("--image3=kind=ptx,sm=90,file=" + *ptx90File);
  llvm::SmallVector<llvm::StringRef> argRefs(fatbinArgs.begin(),
                                             fatbinArgs.end());
  if (failed(runTool(loc, fatbinaryPath, argRefs, *errFile)))
    return failure();
  auto buffer = llvm::MemoryBuffer::getFile(*fatbinFile, /*IsText=*/false);
  if (!buffer)
    return emitError(loc) << "kiln: cannot read " << *fatbinFile;
  return (*buffer)->getBuffer().str();
}

} // namespace kiln::ptx
