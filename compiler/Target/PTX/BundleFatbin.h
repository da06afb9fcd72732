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

/// The number of an arch name: 90 for "sm_90", "sm_90a" or "compute_90";
/// -1 when it is not one.
int smNumber(llvm::StringRef arch);

/// Compiles `ptx` (whose .target is `ptxArch`) for each of `archs` and
/// returns the fatbin bytes with `ptx` inside for JIT. `ptx90`, when not
/// empty, is the same kernels for sm_90 (with programmatic dependent launch):
/// the cubins of sm_90 and later come from it, and it is embedded too. With
/// no `archs` the fatbin holds the PTX only (ptxas is not needed). Errors are
/// reported at `loc`.
mlir::FailureOr<std::string>
bundleFatbin(mlir::Location loc, llvm::StringRef ptx, llvm::StringRef ptxArch, llvm::StringRef ptx90,
             llvm::ArrayRef<std::string> archs, llvm::StringRef ptxasPath,
             llvm::StringRef fatbinaryPath, int optLevel);

} // namespace kiln::ptx
