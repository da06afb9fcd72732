//===- KilnDialect.cpp - The Kiln dialect and kiln.combine ----------------===//
//
// Registers the dialect, and verifies kiln.combine: the number and types of
// its accumulator and value operands for each combiner kind, and infers its
// result types (the accumulator's).
//
//===----------------------------------------------------------------------===//
#include "Dialect/Kiln/IR/KilnDialect.h"
#include "Dialect/Kiln/IR/Combiner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

#include "Dialect/Kiln/IR/KilnDialect.cpp.inc"
#include "Dialect/Kiln/IR/KilnEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Dialect/Kiln/IR/KilnAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "Dialect/Kiln/IR/KilnOps.cpp.inc"

namespace kiln {

void KilnDialect::initialize() {
  // Expanding a kiln.combine (Combiner.h) builds arith, complex and math ops
  // (logsumexp's exp), wherever it runs.
  getContext()->loadDialect<arith::ArithDialect, complex::ComplexDialect, math::MathDialect>();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Dialect/Kiln/IR/KilnAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "Dialect/Kiln/IR/KilnOps.cpp.inc"
      >();
}

unsigned combinerValueArity(CombinerKind kind) {
  return kind == CombinerKind::ArgMax || kind == CombinerKind::ArgMin ? 2 : 1;
}

LogicalResult CombineOp::inferReturnTypes(MLIRContext *, std::optional<Location>, ValueRange operands,
                                          DictionaryAttr attributes, OpaqueProperties properties, RegionRange,
                                          SmallVectorImpl<Type> &inferred) {
  CombineOp::Adaptor adaptor(operands, attributes, properties);
  for (Value acc : adaptor.getAccumulator())
    inferred.push_back(acc.getType());
  return success();
}

LogicalResult CombineOp::verify() {
  CombinerKind kind = getKind();
  if ((kind == CombinerKind::Custom) != (getCombiner().has_value() && getIdentity().has_value()))
    return emitOpError() << (kind == CombinerKind::Custom ? "'custom' needs a combiner function and an identity"
                                                          : "only 'custom' takes a combiner function and an identity");
  SmallVector<Type> values(getValues().getTypes());
  if (values.size() != combinerValueArity(kind))
    return emitOpError() << "'" << stringifyCombinerKind(kind) << "' takes " << combinerValueArity(kind)
                         << " value(s), got " << values.size();
  FailureOr<SmallVector<Type>> state = combinerStateTypes(Combiner::of(*this), values);
  if (failed(state))
    return emitOpError() << "'" << stringifyCombinerKind(kind) << "' does not reduce values of type "
                         << values.front();
  if (TypeRange(getAccumulator().getTypes()) != TypeRange(*state)) {
    InFlightDiagnostic d = emitOpError() << "'" << stringifyCombinerKind(kind) << "' of " << values.front()
                                         << " has state (";
    llvm::interleaveComma(*state, d);
    return d << "), but the accumulator is (" << getAccumulator().getTypes() << ")";
  }
  return success();
}

} // namespace kiln
