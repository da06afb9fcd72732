//===- Driver/TempFiles.h - kilnc's intermediate files ----------*- C++ -*-===//
//
// Creates the intermediate files of a compile (rewritten source, objects) and
// removes them at the end, unless -save-temps keeps them in the current
// directory under predictable names.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_TEMPFILES_H
#define KILN_DRIVER_TEMPFILES_H

#include <string>
#include <vector>

namespace kiln::driver {

class TempFiles {
public:
  explicit TempFiles(bool keep) : keep_(keep) {}
  ~TempFiles();
  TempFiles(const TempFiles &) = delete;
  TempFiles &operator=(const TempFiles &) = delete;

  /// A new file for `source` with `suffix` (e.g. "kiln.cpp"): with -save-temps
  /// ./<stem>.<suffix>, else a unique file in the temp directory. Returns ""
  /// (after printing an error) when it cannot be created.
  std::string create(const std::string &source, const std::string &suffix);

  /// Writes `contents` to `path`; false (after printing an error) on failure.
  static bool write(const std::string &path, const std::string &contents);

private:
  bool keep_;
  std::vector<std::string> paths_;
};

} // namespace kiln::driver

#endif
