//===- Driver/CompileDatabase.cpp - Flags from compile_commands.json -----===//
//
// clang::tooling::CompilationDatabase, with commands of files not in the
// database inferred from their neighbours. Commands recorded through kilnc's
// CMake launcher (kilnc --launcher c++ ...) are unwrapped.
//
//===----------------------------------------------------------------------===//
#include "Driver/CompileDatabase.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace kiln::driver {

CompileDatabase::~CompileDatabase() = default;

std::unique_ptr<CompileDatabase>
CompileDatabase::load(const std::string &buildDir, std::string &error) {
  std::unique_ptr<clang::tooling::CompilationDatabase> db =
      clang::tooling::CompilationDatabase::loadFromDirectory(buildDir, error);
  if (!db)
    return nullptr;
  auto result = std::make_unique<CompileDatabase>();
  result->db_ = clang::tooling::inferMissingCompileCommands(std::move(db));
  return result;
}

namespace {

bool isWrapper(llvm::StringRef word) {
  llvm::StringRef name = llvm::sys::path::filename(word);
  return name == "ccache" || name == "sccache" || name == "distcc" ||
         name == "icecc" || name == "buildcache";
}

/// `path` made absolute against `dir` (the command's working directory).
std::string absolute(llvm::StringRef path, llvm::StringRef dir) {
  if (path.empty() || llvm::sys::path::is_absolute(path))
    return path.str();
  llvm::SmallString<256> full(dir);
  llvm::sys::path::append(full, path);
  llvm::sys::path::remove_dots(full, /*remove_dot_dot=*/true);
  return full.str().str();
}

} // namespace

bool CompileDatabase::flagsFor(const std::string &source,
                               std::vector<std::string> &flags) const {
  llvm::SmallString<256> abs(source);
  llvm::sys::fs::make_absolute(abs);
  llvm::sys::path::remove_dots(abs, /*remove_dot_dot=*/true);
  std::vector<clang::tooling::CompileCommand> commands =
      db_->getCompileCommands(abs);
  if (commands.empty())
    return false;
  const clang::tooling::CompileCommand &cmd = commands.front();
  const std::vector<std::string> &line = cmd.CommandLine;

  // Skip the compiler, and a launcher prefix (kilnc --launcher [ccache] c++).
  size_t i = 1;
  if (line.size() > 1 && line[1] == "--launcher") {
    i = 2;
    while (i < line.size() &&
           llvm::StringRef(line[i]).starts_with("--cuda-arch="))
      ++i; // kiln_target()'s KILN_CUDA_ARCHS
    while (i < line.size() && isWrapper(line[i]))
      ++i;
    ++i;
  }
  llvm::StringRef fileName = llvm::sys::path::filename(cmd.Filename);
  for (; i < line.size(); ++i) {
    llvm::StringRef a = line[i];
    bool hasNext = i + 1 < line.size();
    if (a == "-o" || a == "-MF" || a == "-MT" || a == "-MQ") {
      i += hasNext;
      continue;
    }
    // (--driver-mode= is what clang's tooling adds for its own use.)
    if (a == "-c" || a == "--" || a.starts_with("--driver-mode=") ||
        a == "-MD" || a == "-MMD" || a == "-MP" ||
        (a.starts_with("-o") && a.size() > 2) || a.starts_with("-MF") ||
        a.starts_with("-MT") || a.starts_with("-MQ"))
      continue;
    if (!a.starts_with("-") &&
        (a == cmd.Filename || llvm::sys::path::filename(a) == fileName))
      continue;
    // Paths in include flags are relative to the command's directory.
    if ((a == "-I" || a == "-isystem" || a == "-iquote" || a == "-idirafter" ||
         a == "-include") &&
        hasNext) {
      flags.push_back(a.str());
      flags.push_back(absolute(line[++i], cmd.Directory));
      continue;
    }
    if (a.starts_with("-I") && a.size() > 2) {
      flags.push_back("-I" + absolute(a.drop_front(2), cmd.Directory));
      continue;
    }
    flags.push_back(a.str());
  }
  return true;
}

} // namespace kiln::driver
