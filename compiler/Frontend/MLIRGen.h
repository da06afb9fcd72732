//===- Frontend/MLIRGen.h - Fused groups to MLIR ---------------*- C++ -*-===//
//
// Translates a FusedGroup into a `kiln.kernel` func.func: rank-1 tensors for
// the array operands, scalars by value, one linalg.generic per elementwise
// operation (MLIR's elementwise fusion then merges them: --emit=fused-mlir).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_MLIRGEN_H
#define KILN_FRONTEND_MLIRGEN_H

#include "Frontend/ArrayExpr.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>

namespace clang {
class SourceManager;
}

namespace kiln::frontend {

/// Reports a problem with a node of the tree (the frontend shows it as a
/// clang diagnostic at the node's source location).
using NodeErrorFn = std::function<void(const Node &, const std::string &)>;

/// Adds `@name` for `group` to `module`. Returns false (after reporting
/// through `onError`) for an operation Kiln cannot compile on these types.
bool emitKernel(mlir::ModuleOp module, llvm::StringRef name, const FusedGroup &group,
                const clang::SourceManager &sm, const NodeErrorFn &onError);

} // namespace kiln::frontend

#endif
