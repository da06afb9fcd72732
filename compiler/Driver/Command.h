//===- Driver/Command.h - Running the tools kilnc calls ---------*- C++ -*-===//
//
// Runs an external command (host compiler, ld) and waits for it; with -v the
// command line is printed first, shell-quoted, like `clang -v` does.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_COMMAND_H
#define KILN_DRIVER_COMMAND_H

#include <string>
#include <vector>

namespace kiln::driver {

/// Runs `argv` (argv[0] is looked up on PATH when it has no '/'). Returns the
/// exit code, or -1 when it could not start (a message is printed).
int runCommand(const std::vector<std::string> &argv, bool verbose);

/// runCommand with the command's stdout and stderr kept in `output`
/// instead of printed.
int runCommandCapturing(const std::vector<std::string> &argv, bool verbose, std::string &output);

/// The command line as a shell would need it written.
std::string quoteCommand(const std::vector<std::string> &argv);

/// Prints "kilnc: error: <message>" to stderr.
void reportError(const std::string &message);
/// Prints "kilnc: warning: <message>" to stderr.
void reportWarning(const std::string &message);
/// With -v: prints "kilnc: <message>" to stderr.
void reportStage(bool verbose, const std::string &message);

} // namespace kiln::driver

#endif
