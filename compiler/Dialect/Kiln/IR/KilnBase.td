//===- KilnBase.td - The Kiln dialect ----------------------*- tablegen -*-===//
//
// The `kiln` dialect: what Kiln's kernel form needs beyond linalg, arith,
// math and complex. Today that is the combiner of a reduction (kiln.combine),
// which names the associative operation a reduction linalg.generic folds its
// mapped values with, so that the variant generator can build per-thread
// accumulation, warp trees and cross-block combines from it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_KILN_BASE
#define KILN_DIALECT_KILN_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let cppNamespace = "::kiln";
  let summary = "Kiln's kernel form: reduction combiners";
  let description = [{
    Kiln kernels are func.func ops marked `kiln.kernel` (elementwise family,
    rank-1 linalg.generic) or `kiln.reduction_kernel` (reduction family,
    linalg.generic over the canonical (kept, reduced) iteration space). The
    dialect adds the one thing linalg does not say: which associative
    operation a reduction folds with (`kiln.combine`). docs/compiler-pipeline.md
    describes the kernel forms.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, traits>;

#endif // KILN_DIALECT_KILN_BASE
