//===- KilnDialect.h - The Kiln dialect -------------------------*- C++ -*-===//
//
// Declares the `kiln` dialect and its operations (KilnOps.td): today the
// reduction combiner kiln.combine. The attributes that mark kernel functions
// (`kiln.kernel`, `kiln.reduction_kernel`) are named here too.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Dialect/Kiln/IR/KilnDialect.h.inc"
#include "Dialect/Kiln/IR/KilnEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Dialect/Kiln/IR/KilnAttrs.h.inc"

#define GET_OP_CLASSES
#include "Dialect/Kiln/IR/KilnOps.h.inc"

namespace kiln {

/// Unit attribute on a func.func of the elementwise family (rank-1 form).
inline constexpr llvm::StringLiteral kKernelAttr = "kiln.kernel";
/// Unit attribute on a func.func of the reduction family: full-space
/// operands tensor<?x?xT> over (kept, reduced), kept-space operands
/// tensor<?xT> (docs/compiler-pipeline.md, "Reduction kernels").
inline constexpr llvm::StringLiteral kReductionKernelAttr = "kiln.reduction_kernel";
/// Unit attribute of the private func.func a kiln::elementwise lambda
/// becomes: element values in, the result out; kernels of both families
/// call it per element (Frontend/RawKernelGen.h, emitElementFunction).
inline constexpr llvm::StringLiteral kElementFunctionAttr = "kiln.element_function";
/// On a reduction's kiln.combine: the full inputs (bit i: argument i) that
/// its operand is computed from, as the frontend wrote it. NumPy's operand
/// shape is their broadcast even after fusion folds some of them away
/// (`mean(imag(i - f))` reads nothing once imag of a real is folded to 0).
inline constexpr llvm::StringLiteral kShapeInputsAttr = "kiln.shape_inputs";
/// On a reduction kernel function: bit i set when full input i is a leaf of
/// the source's output map (outside its reductions), read or folded.
inline constexpr llvm::StringLiteral kMapShapeInputsAttr = "kiln.map_shape_inputs";

/// The number of `values` operands kiln.combine of `kind` takes.
unsigned combinerValueArity(CombinerKind kind);

} // namespace kiln
