//===- Transforms/KernelSignature.cpp - A fused kernel's operands ---------===//
//
// Finds the inputs, scalars and outputs of a fused kiln.kernel function and
// checks that it has the form the variant generator handles.
//
//===----------------------------------------------------------------------===//
#include "Transforms/KernelSignature.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace kiln {

SmallVector<Type> FusedKernel::operandTypes() const {
  SmallVector<Type> types(inputTypes);
  types.append(outputTypes.begin(), outputTypes.end());
  return types;
}

bool isSupportedElementType(Type type) {
  if (type.isInteger(1) || type.isInteger(8) || type.isInteger(32) ||
      type.isInteger(64) || type.isF32() || type.isF64())
    return true;
  if (auto complex = dyn_cast<ComplexType>(type))
    return complex.getElementType().isF32() || complex.getElementType().isF64();
  return false;
}

unsigned storageBytes(Type elementType) {
  if (auto complex = dyn_cast<ComplexType>(elementType))
    return 2 * storageBytes(complex.getElementType());
  unsigned bits = elementType.getIntOrFloatBitWidth();
  return bits < 8 ? 1 : bits / 8;
}

Type storageType(Type elementType) {
  if (elementType.isInteger(1))
    return IntegerType::get(elementType.getContext(), 8);
  return elementType;
}

unsigned vectorWidth(const FusedKernel &kernel) {
  unsigned widest = 1;
  for (Type type : kernel.operandTypes()) {
    if (isa<ComplexType>(type))
      return 1;
    widest = std::max(widest, storageBytes(type));
  }
  return 16 / widest;
}

/// Checks one rank-1 tensor type of a kernel signature.
static LogicalResult checkArrayType(func::FuncOp func, Type type,
                                    StringRef what, unsigned index) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != 1 || !tensor.isDynamicDim(0))
    return func.emitError()
           << "kiln.kernel @" << func.getSymName() << ": " << what << " #"
           << index << " must be tensor<?xT>, got " << type;
  if (!isSupportedElementType(tensor.getElementType()))
    return func.emitError()
           << "kiln.kernel @" << func.getSymName() << ": " << what << " #"
           << index << " has unsupported element type "
           << tensor.getElementType();
  return success();
}

FailureOr<FusedKernel> analyzeFusedKernel(func::FuncOp func) {
  FusedKernel kernel;
  kernel.func = func;
  StringRef name = func.getSymName();
  if (func.isExternal())
    return func.emitError() << "kiln.kernel @" << name << " has no body";

  // Arguments: arrays are inputs, everything else is a scalar.
  DenseMap<unsigned, unsigned> inputOfArg;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    if (isa<TensorType>(type)) {
      if (failed(checkArrayType(func, type, "argument", i)))
        return failure();
      inputOfArg[i] = kernel.inputArgs.size();
      kernel.inputArgs.push_back(i);
      kernel.inputTypes.push_back(
          cast<RankedTensorType>(type).getElementType());
    } else {
      if (!isSupportedElementType(type))
        return func.emitError()
               << "kiln.kernel @" << name << ": scalar argument #" << i
               << " has unsupported type " << type;
      kernel.scalarArgs.push_back(i);
      kernel.scalarTypes.push_back(type);
    }
  }
  if (func.getNumResults() == 0)
    return func.emitError() << "kiln.kernel @" << name << " has no results";
  for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
    if (failed(checkArrayType(func, type, "result", i)))
      return failure();
    kernel.outputTypes.push_back(cast<RankedTensorType>(type).getElementType());
  }

  // Body: at most one linalg.generic; everything else is shape plumbing.
  Block &body = func.getBody().front();
  for (Operation &op : body) {
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      if (kernel.generic)
        return func.emitError()
               << "kiln.kernel @" << name
               << " is not fused: it holds more than one linalg.generic";
      kernel.generic = generic;
      continue;
    }
    if (isa<tensor::EmptyOp, tensor::DimOp, func::ReturnOp>(op) ||
        op.hasTrait<OpTrait::ConstantLike>())
      continue;
    return op.emitError() << "kiln.kernel @" << name
                          << ": unsupported operation '" << op.getName()
                          << "' outside the fused linalg.generic";
  }

  if (linalg::GenericOp generic = kernel.generic) {
    if (generic.getNumLoops() != 1 || generic.getNumParallelLoops() != 1)
      return generic.emitError()
             << "kiln.kernel @" << name
             << ": the fused linalg.generic must be rank 1 and parallel";
    for (AffineMap map : generic.getIndexingMapsArray())
      if (!map.isIdentity())
        return generic.emitError()
               << "kiln.kernel @" << name
               << ": the fused linalg.generic must use identity maps";
    for (auto [i, operand] : llvm::enumerate(generic.getDpsInputs())) {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg || arg.getOwner() != &body ||
          !inputOfArg.count(arg.getArgNumber()))
        return generic.emitError()
               << "kiln.kernel @" << name << ": input #" << i
               << " of the fused linalg.generic is not a function argument";
      kernel.genericInputs.push_back(inputOfArg[arg.getArgNumber()]);
    }
    Block &region = generic.getRegion().front();
    for (BlockArgument out : generic.getRegionOutputArgs())
      if (!out.use_empty())
        return generic.emitError()
               << "kiln.kernel @" << name
               << ": the fused linalg.generic reads its outputs";
    bool badOp = false;
    region.walk([&](Operation *op) {
      // Element code is straight-line but for scf.while (gcd's Euclid loop),
      // which every variant clones as a whole and lowers to branches.
      if (isa<linalg::IndexOp>(op) ||
          (op->getNumRegions() != 0 && !isa<scf::WhileOp>(op))) {
        op->emitError() << "kiln.kernel @" << name << ": '" << op->getName()
                        << "' is not supported in a fused elementwise kernel";
        badOp = true;
      }
    });
    if (badOp)
      return failure();
    // Values from outside the region: scalar arguments or constants.
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(generic.getRegion(), captured);
    for (Value value : captured) {
      if (auto arg = dyn_cast<BlockArgument>(value))
        if (arg.getOwner() == &body && !inputOfArg.count(arg.getArgNumber()))
          continue;
      if (Operation *def = value.getDefiningOp())
        if (def->hasTrait<OpTrait::ConstantLike>())
          continue;
      return generic.emitError()
             << "kiln.kernel @" << name
             << ": the fused linalg.generic captures a value that is "
                "neither a scalar argument nor a constant";
    }
  }

  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    if (kernel.generic &&
        value.getDefiningOp() == kernel.generic.getOperation()) {
      kernel.outputs.push_back({true, cast<OpResult>(value).getResultNumber()});
      continue;
    }
    auto arg = dyn_cast<BlockArgument>(value);
    if (arg && arg.getOwner() == &body &&
        inputOfArg.count(arg.getArgNumber())) {
      kernel.outputs.push_back({false, inputOfArg[arg.getArgNumber()]});
      continue;
    }
    return ret.emitError() << "kiln.kernel @" << name << ": result #" << i
                           << " is not computed by the fused linalg.generic";
  }
  for (auto [i, source] : llvm::enumerate(kernel.outputs)) {
    Type from =
        source.fromGeneric
            ? cast<ShapedType>(kernel.generic.getResult(source.index).getType())
                  .getElementType()
            : kernel.inputTypes[source.index];
    if (from != kernel.outputTypes[i])
      return ret.emitError() << "kiln.kernel @" << name << ": result #" << i
                             << " has element type " << kernel.outputTypes[i]
                             << " but its value has " << from;
  }
  return kernel;
}

} // namespace kiln
