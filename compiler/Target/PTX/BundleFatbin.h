//===- Target/PTX/BundleFatbin.h - cubins + PTX into a fatbin ---*- C++ -*-===//
//
// Runs ptxas for each requested arch and fatbinary to bundle the cubins with
// the PTX (JIT fallback) into one fatbin image.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace kiln::ptx {

/// Path of the configured default tools (from CMake).
llvm::StringRef defaultPtxasPath();
llvm::StringRef defaultFatbinaryPath();

/// Compiles `ptx` (whose .target is `ptxArch`) for each of `archs` and
/// returns the fatbin bytes. Errors are reported at `loc`.
mlir::FailureOr<std::string>
bundleFatbin(mlir::Location loc, llvm::StringRef ptx, llvm::StringRef ptxArch,
             llvm::ArrayRef<std::string> archs, llvm::StringRef ptxasPath,
             llvm::StringRef fatbinaryPath, int optLevel);

} // namespace kiln::ptx
