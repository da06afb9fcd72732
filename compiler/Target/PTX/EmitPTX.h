//===- Target/PTX/EmitPTX.h - gpu.module to PTX text ------------*- C++ -*-===//
//
// Lowers the `gpu.module @kiln_kernels` of a module to NVVM and PTX text
// (MLIR's NVVM target, format isa); no CUDA toolkit needed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace kiln::ptx {

struct PTXOptions {
  std::string chip = "sm_80";
  std::string features = "+ptx80";
  int optLevel = 3;
  /// libdevice bitcode for math functions; empty: the configured default.
  std::string libdevicePath;
  /// The gpu.module to compile; empty: @kiln_kernels.
  std::string moduleName;
  /// Runs kiln-programmatic-launch first (needs sm_90 or later).
  bool programmaticLaunch = false;
};

/// PTX of the gpu.module @kiln_kernels (or options.moduleName) in `module`
/// (which is not modified).
mlir::FailureOr<std::string> emitPTX(mlir::ModuleOp module,
                                     const PTXOptions &options);

} // namespace kiln::ptx
