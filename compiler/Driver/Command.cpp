//===- Driver/Command.cpp - Running the tools kilnc calls -----------------===//
//
// Process execution through llvm::sys::ExecuteAndWait, and kilnc's own
// "kilnc: error:" style messages.
//
//===----------------------------------------------------------------------===//
#include "Driver/Command.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace kiln::driver {

std::string quoteCommand(const std::vector<std::string> &argv) {
  std::string line;
  for (const std::string &word : argv) {
    if (!line.empty())
      line += ' ';
    bool plain = !word.empty() &&
                 word.find_first_not_of(
                     "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789-_./=+,:@%") == std::string::npos;
    if (plain) {
      line += word;
      continue;
    }
    line += '\'';
    for (char c : word) {
      if (c == '\'')
        line += "'\\''";
      else
        line += c;
    }
    line += '\'';
  }
  return line;
}

namespace {

int execute(const std::vector<std::string> &argv, bool verbose, const std::optional<llvm::StringRef> &outputFile) {
  if (argv.empty())
    return -1;
  std::string program = argv[0];
  if (llvm::StringRef(program).find('/') == llvm::StringRef::npos) {
    auto found = llvm::sys::findProgramByName(program);
    if (!found) {
      reportError("cannot find '" + program + "' on PATH");
      return -1;
    }
    program = *found;
  }
  if (verbose)
    llvm::errs() << " " << quoteCommand(argv) << "\n";
  llvm::errs().flush();
  llvm::outs().flush();
  llvm::SmallVector<llvm::StringRef> args(argv.begin(), argv.end());
  std::string message;
  bool failed = false;
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, outputFile, outputFile};
  int code = llvm::sys::ExecuteAndWait(
      program, args, /*Env=*/std::nullopt,
      outputFile ? llvm::ArrayRef<std::optional<llvm::StringRef>>(redirects)
                 : llvm::ArrayRef<std::optional<llvm::StringRef>>(),
      /*SecondsToWait=*/0, /*MemoryLimit=*/0, &message, &failed);
  if (failed || code < 0) {
    reportError("'" + argv[0] + "' failed" +
                (message.empty() ? "" : ": " + message));
    return code < 0 ? -1 : (code == 0 ? 1 : code);
  }
  return code;
}

} // namespace

int runCommand(const std::vector<std::string> &argv, bool verbose) { return execute(argv, verbose, std::nullopt); }

int runCommandCapturing(const std::vector<std::string> &argv, bool verbose, std::string &output) {
  llvm::SmallString<128> path;
  if (llvm::sys::fs::createTemporaryFile("kilnc", "log", path)) {
    output.clear();
    return execute(argv, verbose, std::nullopt);
  }
  int code = execute(argv, verbose, path.str());
  auto buffer = llvm::MemoryBuffer::getFile(path);
  output = buffer ? (*buffer)->getBuffer().str() : std::string();
  llvm::sys::fs::remove(path);
  return code;
}

void reportError(const std::string &message) {
  llvm::errs() << "kilnc: ";
  llvm::WithColor(llvm::errs(), llvm::HighlightColor::Error) << "error: ";
  llvm::errs() << message << "\n";
}

void reportWarning(const std::string &message) {
  llvm::errs() << "kilnc: ";
  llvm::WithColor(llvm::errs(), llvm::HighlightColor::Warning) << "warning: ";
  llvm::errs() << message << "\n";
}

void reportStage(bool verbose, const std::string &message) {
  if (verbose)
    llvm::errs() << "kilnc: " << message << "\n";
}

} // namespace kiln::driver
