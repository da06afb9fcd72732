//===- Target/Host/EmitHostObject.h - host variants to an object -*- C++
//-*-===//
//
// Lowers the host variants (func.func with kiln.host_variant) to LLVM, adds
// the exported `<variant>_host(void **args)` wrappers, optimizes for a
// baseline host CPU and emits an object file.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace kiln::host {

enum class HostOutput { Object, LLVMIR };

/// Object file bytes (or textual LLVM IR) for the host variants of `module`
/// (which is not modified).
mlir::FailureOr<std::string>
emitHostObject(mlir::ModuleOp module, int optLevel,
               HostOutput output = HostOutput::Object);

} // namespace kiln::host
