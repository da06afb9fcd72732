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
#include "llvm/ADT/StringRef.h"

#include <string>

namespace kiln::host {

/// The float32 functions the host computes with MLIR's polynomial
/// approximations (mlir/lib/Dialect/Math/Transforms/PolynomialApproximation):
/// branch-free arithmetic that vectorizes, within a few ulps of the correctly
/// rounded result over their whole range (test/e2e/math_accuracy.cpp
/// measures each one against float64 and docs/operations.md states the
/// bounds). Others are libm calls, most of them vectorized through libmvec
/// (CpuVariants.h: sin, cos, tan, asin, atan, ...), and so are scalar log1p
/// and expm1 where libmvec has them (EmitHostObject.cpp,
/// callLibmForVectorMath); float64 functions stay libm's.
/// (MLIR's sin and cos reduce their argument in float32: thousands of ulps
/// near multiples of pi/2, so they stay libm's.)
/// Measured and left out (2026-11-29): MLIR's atan and atan2 (40 ulps), cbrt
/// (12 ulps) and asin (7 ulps near 1) against glibc's 1.
inline constexpr llvm::StringLiteral kApproximatedF32[] = {
    "exp", "log", "log2", "tanh", "acos", "log1p", "expm1"};

enum class HostOutput { Object, LLVMIR };

/// Object file bytes (or textual LLVM IR) for the host variants of `module`
/// (which is not modified).
mlir::FailureOr<std::string>
emitHostObject(mlir::ModuleOp module, int optLevel,
               HostOutput output = HostOutput::Object);

} // namespace kiln::host
