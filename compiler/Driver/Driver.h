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

/// The stack kilnc compiles on (address space; pages are touched as used).
/// Deeply nested expressions -- a sum of 20,000 arrays is a tree 20,000 deep
/// -- recurse through clang's parser and CFG builder, Kiln's frontend and
/// MLIR, and would overflow a main thread's usual 8 MiB.
constexpr unsigned CompileStackSize = 1024u << 20;

/// Runs `fn` on a thread with a CompileStackSize stack and waits for it.
void runOnCompileStack(void (*fn)(void *), void *arg);

} // namespace kiln::driver

#endif
