//===- Transforms/KernelSignature.h - A fused kernel's operands -*- C++ -*-===//
//
// Analyses a fused kiln.kernel function: which function arguments are array
// inputs and scalars, what each output is computed from, and the element
// layout facts (storage bytes, vector width) the kernel ABI is built from.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Support/LLVM.h"

namespace kiln {

/// Where a kernel output's value comes from.
struct OutputSource {
  bool fromGeneric; ///< true: result `index` of the generic; false: input
                    ///< `index`
  unsigned index;
};

/// The operands of a fused kiln.kernel function, in kernel ABI order.
struct FusedKernel {
  mlir::func::FuncOp func;
  mlir::linalg::GenericOp generic;          ///< null when outputs copy inputs
  llvm::SmallVector<unsigned> inputArgs;    ///< function argument of each input
  llvm::SmallVector<mlir::Type> inputTypes; ///< element type of each input
  llvm::SmallVector<unsigned> scalarArgs; ///< function argument of each scalar
  llvm::SmallVector<mlir::Type> scalarTypes;
  llvm::SmallVector<mlir::Type> outputTypes; ///< element type of each output
  llvm::SmallVector<OutputSource> outputs;
  llvm::SmallVector<unsigned>
      genericInputs; ///< input index of each generic `ins`

  unsigned numOperands() const {
    return inputTypes.size() + outputTypes.size();
  }
  /// Element types of inputs then outputs.
  llvm::SmallVector<mlir::Type> operandTypes() const;
};

/// Analyses `func` (a kiln.kernel function in the fused form). Emits an error
/// on `func` and fails when it is not in that form.
mlir::FailureOr<FusedKernel> analyzeFusedKernel(mlir::func::FuncOp func);

/// Bytes of one array element in memory (i1 is stored as one byte).
unsigned storageBytes(mlir::Type elementType);

/// Elements per vector access in `_contig`: 16 bytes over the widest operand
/// element; 1 when an operand is complex.
unsigned vectorWidth(const FusedKernel &kernel);

/// The type an element of `elementType` has in memory and in a kernel
/// parameter: i1 becomes i8, everything else is itself.
mlir::Type storageType(mlir::Type elementType);

/// True when `type` is an element type Kiln kernels support.
bool isSupportedElementType(mlir::Type type);

} // namespace kiln
