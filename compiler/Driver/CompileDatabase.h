//===- Driver/CompileDatabase.h - Flags from compile_commands.json -*- C++
//-*-===//
//
// For `-p BUILD_DIR`: loads the compilation database with clang's tooling
// library and returns a source's compile flags, stripped of the compiler, the
// output, the input and dependency-file flags, with relative paths made
// absolute.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_COMPILEDATABASE_H
#define KILN_DRIVER_COMPILEDATABASE_H

#include <memory>
#include <string>
#include <vector>

namespace clang::tooling {
class CompilationDatabase;
}

namespace kiln::driver {

class CompileDatabase {
public:
  ~CompileDatabase();
  /// Loads <buildDir>/compile_commands.json (or what clang finds there);
  /// null with `error` set when there is none.
  static std::unique_ptr<CompileDatabase> load(const std::string &buildDir,
                                               std::string &error);

  /// The flags `source` was compiled with (interpolated from a similar file
  /// when it has no entry); false when the database knows nothing close.
  bool flagsFor(const std::string &source,
                std::vector<std::string> &flags) const;

private:
  std::unique_ptr<clang::tooling::CompilationDatabase> db_;
};

} // namespace kiln::driver

#endif
