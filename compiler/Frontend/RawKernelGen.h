//===- Frontend/RawKernelGen.h - KILN_RAWKERNEL functions to MLIR -*- C++ -*-===//
//
// The third kernel family: a KILN_RAWKERNEL function of scalar C++ becomes a
// `func.func` marked `kiln.raw_kernel` (docs/compiler-pipeline.md, "Raw
// kernels"): its control flow as `cf` blocks, locals as `llvm.alloca`,
// memory through `llvm.getelementptr`/`load`/`store`/`atomicrmw` on opaque
// pointers, scalar math in `arith`/`math`, and the thread built-ins as `gpu`
// ops (`gpu.thread_id`, `gpu.barrier`, `gpu.shuffle`) and
// `kiln.shared_memory`, which each target lowers its own way.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_RAWKERNELGEN_H
#define KILN_FRONTEND_RAWKERNELGEN_H

#include "Frontend/Frontend.h"

#include "mlir/IR/BuiltinOps.h"

#include "clang/Basic/SourceLocation.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class CXXMethodDecl;
class FunctionDecl;
class ValueDecl;
} // namespace clang

namespace kiln::frontend {

/// What the kernel table needs of a raw kernel besides its code.
struct RawKernelInfo {
  std::vector<unsigned> paramBytes; ///< bytes of each parameter value, in order
  std::uint32_t staticSharedBytes = 0;
  bool synchronizes = false; ///< calls syncthreads or a warp function
};

using RawErrorFn = std::function<void(clang::SourceLocation, const std::string &)>;

/// Adds `@name` for the KILN_RAWKERNEL function `fd` to `module`. Every
/// construct outside the supported subset is reported through `onError` at
/// its location (what is not supported, and where); returns false then.
bool emitRawKernel(mlir::ModuleOp module, llvm::StringRef name, const clang::FunctionDecl &fd,
                   clang::ASTContext &ast, const RawErrorFn &onError, RawKernelInfo &info);

/// Adds `@name`, the element function of a kiln::elementwise lambda: the
/// body of `callOperator` (the same scalar subset, without thread built-ins,
/// pointers or writes to captures) as a private `func.func` marked
/// `kiln.element_function` that takes the operands (the `captures`' values,
/// then the arguments) in `operandTypes` and returns a `result`. Kernels
/// call it per element; LLVM inlines it on both targets.
bool emitElementFunction(mlir::ModuleOp module, llvm::StringRef name, const clang::CXXMethodDecl &callOperator,
                         llvm::ArrayRef<const clang::ValueDecl *> captures, llvm::ArrayRef<ElementType> operandTypes,
                         ElementType result, clang::ASTContext &ast, const RawErrorFn &onError);

} // namespace kiln::frontend

#endif
