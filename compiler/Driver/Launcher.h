//===- Driver/Launcher.h - kilnc as CMake's compiler launcher ----*- C++
//-*-===//
//
// `kilnc --launcher <compiler> <args...>`: the form CMake's
// CXX_COMPILER_LAUNCHER produces. A single-source compile (-c) runs through
// kilnc's stages and then the given compiler; any other command (and a source
// that never mentions kiln) runs unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_LAUNCHER_H
#define KILN_DRIVER_LAUNCHER_H

#include "Driver/Options.h"
#include "Driver/Toolchain.h"

#include <string>
#include <vector>

namespace kiln::driver {

/// `args` is the command line after `--launcher` (compiler first).
int runLauncher(const DriverOptions &opts, const std::vector<std::string> &args,
                const Toolchain &tc);

} // namespace kiln::driver

#endif
