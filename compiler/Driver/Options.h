//===- Driver/Options.h - kilnc's command line ------------------*- C++ -*-===//
//
// Parses kilnc's command line (SPEC.md section 2) into DriverOptions: the
// inputs, the mode (link, -c, --emit), kilnc's own options, and the flags
// that go on to clang's frontend, the host compiler and the linker.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_OPTIONS_H
#define KILN_DRIVER_OPTIONS_H

#include <optional>
#include <string>
#include <vector>

namespace kiln::driver {

/// Exit codes of kilnc.
enum ExitCode : int {
  ExitSuccess = 0,
  ExitCompileError = 1,
  ExitUsageError = 2
};

/// The stage --emit prints.
enum class EmitKind { None, MLIR, FusedMLIR, PTX, Cpp };

/// One input or linker flag, in command-line order (link order matters).
struct LinkItem {
  enum Kind { Source, Object, Flag } kind;
  std::string value; ///< the path, or the flag (with its value for -Xlinker)
};

struct DriverOptions {
  // Modes.
  bool compileOnly = false;       ///< -c
  EmitKind emit = EmitKind::None; ///< --emit=
  bool fusionReport = false;      ///< --fusion-report
  bool verbose = false;           ///< -v
  bool saveTemps = false;         ///< -save-temps
  bool showHelp = false, showVersion = false;
  /// --launcher: the rest of the line is a host compiler command (CMake's
  /// compiler launcher); `hostCompiler` holds the compiler words.
  bool launcher = false;

  std::optional<std::string> output;   ///< -o ("-" = stdout)
  std::vector<std::string> sources;    ///< C++ sources, in order
  std::vector<LinkItem> linkItems;     ///< sources, objects and linker flags
  std::vector<std::string> cudaArchs;  ///< --cuda-arch, e.g. "sm_90"
  bool cudaHostOnly = false;           ///< --cuda-host-only: no GPU code
  std::optional<std::string> buildDir; ///< -p
  int optLevel = -1;                   ///< -O<n>; -1 when not given

  /// Flags clang's frontend needs to parse the source like the host compiler
  /// does (-I -D -U -std= -include -O -pthread ...), in order.
  std::vector<std::string> frontendFlags;
  /// Every flag for the host compiler's compile step, in order.
  std::vector<std::string> compileFlags;
  /// Compile flags that matter when linking too (-pthread, -fsanitize=...,
  /// -O, -g, -m64 ...): everything but preprocessor and dependency flags.
  std::vector<std::string> linkDriverFlags;
  bool hasStd = false; ///< a -std= was given

  // Dependency files (-MD/-MMD, -MF, -MT/-MQ): kilnc fixes the rewritten
  // source's path in the file the host compiler writes.
  bool writesDepFile = false;
  std::optional<std::string> depFile; ///< -MF
  bool hasDepTarget = false;          ///< -MT or -MQ given

  /// Launcher mode: why the command runs unchanged (e.g. "-E"), if it must.
  std::string passthroughReason;

  /// Words of the host compiler in launcher mode (e.g. {"ccache", "c++"}).
  std::vector<std::string> hostCompiler;
};

/// What parsing produced: options, or a usage error message.
struct ParseResult {
  DriverOptions options;
  std::string error; ///< non-empty: a usage error (exit 2)
};

/// Parses `args` (without argv[0]); response files must already be expanded.
ParseResult parseCommandLine(const std::vector<std::string> &args);

/// True for the file extensions kilnc compiles as C++ (.cpp .cc .cxx ...).
bool isCxxSource(const std::string &path);

/// The text of --help.
const char *helpText();

} // namespace kiln::driver

#endif
