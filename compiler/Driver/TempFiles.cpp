//===- Driver/TempFiles.cpp - kilnc's intermediate files ------------------===//
//
// Temporary files through llvm::sys::fs, removed by the destructor, or by
// LLVM's signal handlers when kilnc is killed or crashes.
//
//===----------------------------------------------------------------------===//
#include "Driver/TempFiles.h"
#include "Driver/Command.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln::driver {

TempFiles::~TempFiles() {
  if (keep_)
    return;
  for (const std::string &path : paths_) {
    llvm::sys::fs::remove(path);
    llvm::sys::DontRemoveFileOnSignal(path);
  }
}

std::string TempFiles::create(const std::string &source,
                              const std::string &suffix) {
  std::string stem = llvm::sys::path::stem(source).str();
  if (keep_) {
    std::string path = stem + "." + suffix;
    paths_.push_back(path);
    return path;
  }
  llvm::SmallString<128> path;
  std::error_code ec =
      llvm::sys::fs::createTemporaryFile("kilnc-" + stem, suffix, path);
  if (ec) {
    reportError("cannot create a temporary file: " + ec.message());
    return "";
  }
  paths_.push_back(path.str().str());
  // Killed (SIGINT, SIGTERM: ninja interrupted, a timeout) or crashed, kilnc
  // still removes its temporaries: LLVM's signal handlers (InitLLVM) do.
  llvm::sys::RemoveFileOnSignal(paths_.back());
  return paths_.back();
}

bool TempFiles::write(const std::string &path, const std::string &contents) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec) {
    os << contents;
    os.close();
    if (os.has_error())
      ec = os.error();
  }
  if (ec) {
    reportError("cannot write '" + path + "': " + ec.message());
    os.clear_error();
    return false;
  }
  return true;
}

} // namespace kiln::driver
