//===- KilnOps.td - Operations of the Kiln dialect ---------*- tablegen -*-===//
#ifndef KILN_DIALECT_KILN_OPS
#define KILN_DIALECT_KILN_OPS

include "KilnBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Kiln_CombinerSum : I32EnumAttrCase<"Sum", 0, "sum">;
def Kiln_CombinerProd : I32EnumAttrCase<"Prod", 1, "prod">;
def Kiln_CombinerMax : I32EnumAttrCase<"Max", 2, "max">;
def Kiln_CombinerMin : I32EnumAttrCase<"Min", 3, "min">;
def Kiln_CombinerAll : I32EnumAttrCase<"All", 4, "all">;
def Kiln_CombinerAny : I32EnumAttrCase<"Any", 5, "any">;
def Kiln_CombinerArgMax : I32EnumAttrCase<"ArgMax", 6, "argmax">;
def Kiln_CombinerArgMin : I32EnumAttrCase<"ArgMin", 7, "argmin">;
def Kiln_CombinerWelford : I32EnumAttrCase<"Welford", 8, "welford">;
def Kiln_CombinerCustom : I32EnumAttrCase<"Custom", 9, "custom">;
def Kiln_CombinerLogSumExp : I32EnumAttrCase<"LogSumExp", 10, "logsumexp">;

def Kiln_CombinerKind : I32EnumAttr<"CombinerKind",
    "the associative operation of a reduction",
    [Kiln_CombinerSum, Kiln_CombinerProd, Kiln_CombinerMax, Kiln_CombinerMin,
     Kiln_CombinerAll, Kiln_CombinerAny, Kiln_CombinerArgMax,
     Kiln_CombinerArgMin, Kiln_CombinerWelford, Kiln_CombinerCustom,
     Kiln_CombinerLogSumExp]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::kiln";
}

def Kiln_CombinerKindAttr : EnumAttr<Kiln_Dialect, Kiln_CombinerKind, "combiner"> {
  let assemblyFormat = "`<` $value `>`";
}

def Kiln_CombineOp : Kiln_Op<"combine", [Pure, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "folds values into a reduction's accumulator state";
  let description = [{
    `kiln.combine` is the body of a reduction: in a linalg.generic with a
    reduction iterator it returns the new accumulator state from the current
    state (`accumulator`, the generic's output block arguments) and the mapped
    values of one element (`values`). Its result is the state,
    `combine(accumulator, lift(values))`, where `combine` is associative and
    commutative up to floating-point rounding, so a reduction may be
    evaluated in any tree order. Kinds and their state:

    | kind | values | state | identity |
    |---|---|---|---|
    | sum, prod | x: T | T | 0, 1 |
    | max, min | x: T (int, float, complex) | T | lowest, highest |
    | all, any | x: i1 | i1 | true, false |
    | argmax, argmin | x: T, index: i64 | (T, i64) | (lowest/highest, INT64_MAX) |
    | welford | x: F (float) | (mean: F, m2: F, count: i64) | (0, 0, 0) |
    | custom | x: T (bool, int, float) | T | `identity` |
    | logsumexp | x: F (float) | (max: F, scaled sum: F) | (-inf, 0) |

    Integers compare as signed (the frontend widens unsigned and bool values
    first). max/min propagate NaN; complex values order lexicographically
    (real part, then imaginary part), a NaN in either part propagating.
    argmax/argmin keep the first NaN, else the extreme value with the
    smallest index. welford merges with Chan et al.'s parallel update.
    custom (kiln::reduce) merges two states with `combiner`, a function
    `(T, T) -> T` the user declared associative and commutative (the
    element function of a lambda), starting from the constant `identity`.
    logsumexp is the online form of `m = max(x)` and `s = sum(exp(x - m))`
    in one pass (kiln-online-logsumexp makes it from such a pair): the state
    (m, s) holds the largest element so far and the sum of exp(x - m) over
    the elements so far; merging rescales the side with the smaller maximum
    by exp(its m - the new m). Its results are NumPy's max and sum of the
    pair, NaN and infinities included (an infinite element makes s NaN, as
    exp(inf - inf) does; a -inf element adds 0 unless every element is -inf).

    ```mlir
    %s = kiln.combine <sum> (%acc), (%x) : (f32), (f32)
    %v, %i = kiln.combine <argmax> (%av, %ai), (%x, %idx) : (f32, i64), (f32, i64)
    %m = kiln.combine <custom> (%acc), (%x) {combiner = @f, identity = 0.0 : f32} : (f32), (f32)
    ```
  }];
  let arguments = (ins Kiln_CombinerKindAttr:$kind,
                       Variadic<AnyType>:$accumulator,
                       Variadic<AnyType>:$values,
                       OptionalAttr<FlatSymbolRefAttr>:$combiner,
                       OptionalAttr<TypedAttrInterface>:$identity);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $kind `(` $accumulator `)` `,` `(` $values `)` attr-dict `:`
    `(` type($accumulator) `)` `,` `(` type($values) `)`
  }];
  let hasVerifier = 1;
}

def Kiln_SharedMemoryOp : Kiln_Op<"shared_memory", [Pure]> {
  let summary = "the address of a byte of the block's shared memory";
  let description = [{
    In a raw kernel (`kiln.raw_kernel`), the generic address (`!llvm.ptr`)
    of byte `offset` of the block's shared memory: the kernel's
    `shared_array<T, N>()`s at offsets the frontend chose, then (`dynamic`)
    the launch's dynamic shared memory. The PTX lowering addresses a
    workgroup global; the host lowering the buffer its thread context holds.

    ```mlir
    %p = kiln.shared_memory {offset = 1024 : i64} : !llvm.ptr
    ```
  }];
  let arguments = (ins I64Attr:$offset, UnitAttr:$dynamic);
  let results = (outs AnyType:$address);
  let assemblyFormat = "attr-dict `:` type($address)";
}

def Kiln_BallotOp : Kiln_Op<"ballot"> {
  let summary = "the warp's predicates as a bit mask";
  let description = [{
    In a raw kernel, CUDA's `__ballot_sync(0xffffffff, predicate)`: bit i of
    the result is lane i's predicate, every lane of the warp taking part.
    The PTX lowering is `vote.sync.ballot`; the host lowering calls the
    runtime, which exchanges the predicates between the warp's threads.

    ```mlir
    %mask = kiln.ballot %p : i32
    ```
  }];
  let arguments = (ins I1:$predicate);
  let results = (outs I32:$mask);
  let assemblyFormat = "$predicate attr-dict `:` type($mask)";
}

#endif // KILN_DIALECT_KILN_OPS
