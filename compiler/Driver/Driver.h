//===- Driver/Driver.h - kilnc's entry point --------------------*- C++ -*-===//
//
// Runs kilnc on a command line: link, -c, --emit, --fusion-report and
// --launcher modes (SPEC.md section 2). Returns the process exit code:
// 0 success, 1 compile error, 2 usage error.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_DRIVER_H
#define KILN_DRIVER_DRIVER_H

namespace kiln::driver {

int runKilnc(int argc, const char **argv);

} // namespace kiln::driver

#endif
