//===- Combiner.cpp - What each reduction combiner computes ---------------===//
//
// Identity, lift and merge of every kiln.combine kind (see KilnOps.td for the
// table). NaN rules follow NumPy: max/min propagate NaN, argmax/argmin keep
// the first NaN; complex values order lexicographically. welford merges
// (mean, m2, count) states with Chan et al.'s update, which is Welford's
// update when one side is a single element. logsumexp keeps (max, sum of
// exp(x - max)) and rescales on merge, with NumPy's NaN and infinity
// results of the two-pass form it replaces.
//
//===----------------------------------------------------------------------===//
#include "Dialect/Kiln/IR/Combiner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>

using namespace mlir;

namespace kiln {
namespace {

Type elementOf(Type t) { return getElementTypeOrSelf(t); }

/// A constant of type `t` (scalar or vector splat) holding `value`.
Value splat(OpBuilder &b, Location loc, Type t, TypedAttr value) {
  if (auto vec = dyn_cast<VectorType>(t))
    return arith::ConstantOp::create(b, loc, t, SplatElementsAttr::get(vec, value));
  return arith::ConstantOp::create(b, loc, t, value);
}

Value floatConstant(OpBuilder &b, Location loc, Type t, double v) {
  return splat(b, loc, t, b.getFloatAttr(elementOf(t), v));
}

Value intConstant(OpBuilder &b, Location loc, Type t, const APInt &v) {
  return splat(b, loc, t, b.getIntegerAttr(elementOf(t), v));
}

/// The lowest (`highest` false) or highest value of a scalar type, as the
/// identity of max (min).
Value extreme(OpBuilder &b, Location loc, Type t, bool highest) {
  Type e = elementOf(t);
  if (auto c = dyn_cast<ComplexType>(e)) {
    double inf = highest ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    auto part = b.getFloatAttr(c.getElementType(), inf);
    return complex::ConstantOp::create(b, loc, c, b.getArrayAttr({part, part}));
  }
  if (isa<FloatType>(e))
    return floatConstant(b, loc, t,
                         highest ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
  unsigned w = e.getIntOrFloatBitWidth();
  if (w == 1)
    return intConstant(b, loc, t, APInt(1, highest ? 1 : 0));
  return intConstant(b, loc, t, highest ? APInt::getSignedMaxValue(w) : APInt::getSignedMinValue(w));
}

Value zeroOf(OpBuilder &b, Location loc, Type t) {
  Type e = elementOf(t);
  if (auto c = dyn_cast<ComplexType>(e)) {
    auto part = b.getFloatAttr(c.getElementType(), 0.0);
    return complex::ConstantOp::create(b, loc, c, b.getArrayAttr({part, part}));
  }
  if (isa<FloatType>(e))
    return floatConstant(b, loc, t, 0.0);
  return intConstant(b, loc, t, APInt(e.getIntOrFloatBitWidth(), 0));
}

Value oneOf(OpBuilder &b, Location loc, Type t) {
  Type e = elementOf(t);
  if (auto c = dyn_cast<ComplexType>(e)) {
    auto one = b.getFloatAttr(c.getElementType(), 1.0), zero = b.getFloatAttr(c.getElementType(), 0.0);
    return complex::ConstantOp::create(b, loc, c, b.getArrayAttr({one, zero}));
  }
  if (isa<FloatType>(e))
    return floatConstant(b, loc, t, 1.0);
  return intConstant(b, loc, t, APInt(e.getIntOrFloatBitWidth(), 1));
}

Value isNaN(OpBuilder &b, Location loc, Value v) {
  if (auto c = dyn_cast<ComplexType>(v.getType())) {
    Value re = complex::ReOp::create(b, loc, v), im = complex::ImOp::create(b, loc, v);
    return arith::OrIOp::create(b, loc, isNaN(b, loc, re), isNaN(b, loc, im));
  }
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
}

/// x > y (`greater`) or x < y for non-NaN values: signed for integers,
/// ordered for floats, lexicographic for complex.
Value ordered(OpBuilder &b, Location loc, Value x, Value y, bool greater) {
  Type e = elementOf(x.getType());
  if (isa<ComplexType>(e)) {
    Value xr = complex::ReOp::create(b, loc, x), xi = complex::ImOp::create(b, loc, x);
    Value yr = complex::ReOp::create(b, loc, y), yi = complex::ImOp::create(b, loc, y);
    Value first = ordered(b, loc, xr, yr, greater);
    Value tie = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, xr, yr);
    Value second = ordered(b, loc, xi, yi, greater);
    return arith::OrIOp::create(b, loc, first, arith::AndIOp::create(b, loc, tie, second));
  }
  if (isa<FloatType>(e))
    return arith::CmpFOp::create(b, loc, greater ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, x, y);
  if (e.isInteger(1))
    return arith::CmpIOp::create(b, loc, greater ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::ult, x, y);
  return arith::CmpIOp::create(b, loc, greater ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt, x, y);
}

Value equalValues(OpBuilder &b, Location loc, Value x, Value y) {
  Type e = elementOf(x.getType());
  if (isa<ComplexType>(e))
    return complex::EqualOp::create(b, loc, x, y);
  if (isa<FloatType>(e))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
}

bool isFloatLike(Type e) { return isa<FloatType, ComplexType>(e); }

/// max/min of two values with NumPy's NaN propagation.
Value extremum(OpBuilder &b, Location loc, Value x, Value y, bool max) {
  Type e = elementOf(x.getType());
  if (isa<FloatType>(e))
    return max ? Value(arith::MaximumFOp::create(b, loc, x, y)) : Value(arith::MinimumFOp::create(b, loc, x, y));
  if (e.isInteger(1))
    return max ? Value(arith::OrIOp::create(b, loc, x, y)) : Value(arith::AndIOp::create(b, loc, x, y));
  if (isa<IntegerType>(e))
    return max ? Value(arith::MaxSIOp::create(b, loc, x, y)) : Value(arith::MinSIOp::create(b, loc, x, y));
  // Complex: a NaN first wins, then the lexicographic extreme (x on ties).
  Value nanX = isNaN(b, loc, x), nanY = isNaN(b, loc, y);
  Value yBetter = ordered(b, loc, y, x, max);
  Value notNanX = arith::XOrIOp::create(b, loc, nanX, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
  Value takeY = arith::OrIOp::create(b, loc, arith::AndIOp::create(b, loc, nanY, notNanX),
                                     arith::AndIOp::create(b, loc, notNanX, yBetter));
  return arith::SelectOp::create(b, loc, takeY, y, x);
}

/// Whether state (vb, ib) beats (va, ia) for argmax (`max`) or argmin.
Value argBetter(OpBuilder &b, Location loc, Value va, Value ia, Value vb, Value ib, bool max) {
  Value smallerIndex = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, ib, ia);
  Value strictly = ordered(b, loc, vb, va, max);
  Value tie = equalValues(b, loc, va, vb);
  if (!isFloatLike(elementOf(va.getType())))
    return arith::OrIOp::create(b, loc, strictly, arith::AndIOp::create(b, loc, tie, smallerIndex));
  Type i1 = b.getI1Type();
  Type cmpType = i1;
  if (auto vec = dyn_cast<VectorType>(va.getType()))
    cmpType = VectorType::get(vec.getShape(), i1);
  Value allOnes = splat(b, loc, cmpType, b.getIntegerAttr(i1, 1));
  Value nanA = isNaN(b, loc, va), nanB = isNaN(b, loc, vb);
  Value notNanA = arith::XOrIOp::create(b, loc, nanA, allOnes);
  Value notNanB = arith::XOrIOp::create(b, loc, nanB, allOnes);
  // NaN beats a number; between numbers the extreme; equal values (or two
  // NaNs) go to the smaller index.
  Value nanWins = arith::AndIOp::create(b, loc, nanB, notNanA);
  Value numbers = arith::AndIOp::create(b, loc, notNanA, notNanB);
  Value bothNaN = arith::AndIOp::create(b, loc, nanA, nanB);
  Value tieWins = arith::AndIOp::create(b, loc, arith::OrIOp::create(b, loc, tie, bothNaN), smallerIndex);
  return arith::OrIOp::create(b, loc, nanWins,
                              arith::OrIOp::create(b, loc, arith::AndIOp::create(b, loc, numbers, strictly), tieWins));
}

/// f(x, y) of a custom combiner; lane by lane for vectors (host lanes).
Value customMerge(OpBuilder &b, Location loc, FlatSymbolRefAttr f, Value x, Value y) {
  auto vec = dyn_cast<VectorType>(x.getType());
  if (!vec)
    return func::CallOp::create(b, loc, f, TypeRange{x.getType()}, ValueRange{x, y}).getResult(0);
  Value out = x;
  for (int64_t lane = 0; lane < vec.getNumElements(); ++lane) {
    Value xi = vector::ExtractOp::create(b, loc, x, lane), yi = vector::ExtractOp::create(b, loc, y, lane);
    Value r = func::CallOp::create(b, loc, f, TypeRange{xi.getType()}, ValueRange{xi, yi}).getResult(0);
    out = vector::InsertOp::create(b, loc, r, out, lane);
  }
  return out;
}

Value toFloat(OpBuilder &b, Location loc, Value count, Type floatType) {
  return arith::SIToFPOp::create(b, loc, floatType, count);
}

Value equalTo(OpBuilder &b, Location loc, Value x, double c) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, floatConstant(b, loc, x.getType(), c));
}

/// logsumexp: the scaled sum that `s` (with maximum `m`) adds to a state
/// whose maximum is `top`: s itself at the same maximum, 0 from a side of
/// -inf elements only (exp(-inf - top) = 0), else s * exp(m - top).
Value rescaled(OpBuilder &b, Location loc, Value m, Value s, Value top) {
  const double inf = std::numeric_limits<double>::infinity();
  Value scaled = arith::MulFOp::create(b, loc, s, math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, m, top)));
  Value lowest = arith::SelectOp::create(b, loc, equalTo(b, loc, m, -inf), zeroOf(b, loc, s.getType()), scaled);
  Value same = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, top);
  return arith::SelectOp::create(b, loc, same, s, lowest);
}

/// logsumexp: the scaled sum of one element x: 1, or NaN for an infinite x
/// (exp(inf - inf) is NaN; a -inf element's NaN is dropped by `rescaled`
/// once a larger element comes).
Value liftedSum(OpBuilder &b, Location loc, Value x) {
  const double inf = std::numeric_limits<double>::infinity();
  Value absX = math::AbsFOp::create(b, loc, x);
  return arith::SelectOp::create(b, loc, equalTo(b, loc, absX, inf),
                                 floatConstant(b, loc, x.getType(), std::numeric_limits<double>::quiet_NaN()),
                                 oneOf(b, loc, x.getType()));
}

} // namespace

Combiner Combiner::of(CombineOp op) {
  return Combiner(op.getKind(), op.getCombinerAttr(), op.getIdentityAttr());
}

FailureOr<SmallVector<Type>> combinerStateTypes(const Combiner &c, TypeRange valueTypes) {
  CombinerKind kind = c.kind;
  if (valueTypes.size() != combinerValueArity(kind))
    return failure();
  Type t = valueTypes.front();
  Type e = elementOf(t);
  bool isComplex = isa<ComplexType>(e), isFloat = isa<FloatType>(e), isInt = isa<IntegerType>(e);
  if (isComplex && isa<VectorType>(t))
    return failure();
  auto sameShape = [&](Type element) -> Type {
    if (auto vec = dyn_cast<VectorType>(t))
      return VectorType::get(vec.getShape(), element);
    return element;
  };
  switch (kind) {
  case CombinerKind::Sum:
  case CombinerKind::Prod:
    if (e.isInteger(1) || !(isComplex || isFloat || isInt))
      return failure();
    return SmallVector<Type>{t};
  case CombinerKind::Max:
  case CombinerKind::Min:
    if (!(isComplex || isFloat || isInt))
      return failure();
    return SmallVector<Type>{t};
  case CombinerKind::All:
  case CombinerKind::Any:
    if (!e.isInteger(1))
      return failure();
    return SmallVector<Type>{t};
  case CombinerKind::ArgMax:
  case CombinerKind::ArgMin: {
    if (!(isComplex || isFloat || isInt) || elementOf(valueTypes[1]) != IntegerType::get(t.getContext(), 64))
      return failure();
    return SmallVector<Type>{t, valueTypes[1]};
  }
  case CombinerKind::Welford:
    if (!isFloat)
      return failure();
    return SmallVector<Type>{t, t, sameShape(IntegerType::get(t.getContext(), 64))};
  case CombinerKind::Custom:
    if (isComplex || !c.function || !c.identity || c.identity.getType() != e)
      return failure();
    return SmallVector<Type>{t};
  case CombinerKind::LogSumExp:
    if (!isFloat)
      return failure();
    return SmallVector<Type>{t, t};
  }
  return failure();
}

SmallVector<Value> buildCombinerIdentity(OpBuilder &b, Location loc, const Combiner &c, TypeRange stateTypes) {
  CombinerKind kind = c.kind;
  Type t = stateTypes.front();
  switch (kind) {
  case CombinerKind::Sum:
    return {zeroOf(b, loc, t)};
  case CombinerKind::Prod:
    return {oneOf(b, loc, t)};
  case CombinerKind::Max:
    return {extreme(b, loc, t, /*highest=*/false)};
  case CombinerKind::Min:
    return {extreme(b, loc, t, /*highest=*/true)};
  case CombinerKind::All:
    return {intConstant(b, loc, t, APInt(1, 1))};
  case CombinerKind::Any:
    return {intConstant(b, loc, t, APInt(1, 0))};
  case CombinerKind::ArgMax:
  case CombinerKind::ArgMin:
    return {extreme(b, loc, t, kind == CombinerKind::ArgMin), intConstant(b, loc, stateTypes[1], APInt::getSignedMaxValue(64))};
  case CombinerKind::Welford:
    return {zeroOf(b, loc, t), zeroOf(b, loc, t), zeroOf(b, loc, stateTypes[2])};
  case CombinerKind::Custom:
    return {splat(b, loc, t, c.identity)};
  case CombinerKind::LogSumExp:
    return {extreme(b, loc, t, /*highest=*/false), zeroOf(b, loc, t)};
  }
  return {};
}

SmallVector<Value> buildCombinerLift(OpBuilder &b, Location loc, const Combiner &c, ValueRange values) {
  if (c.kind == CombinerKind::LogSumExp)
    return {values.front(), liftedSum(b, loc, values.front())};
  if (c.kind != CombinerKind::Welford)
    return SmallVector<Value>(values);
  Value x = values.front();
  Type countType = IntegerType::get(b.getContext(), 64);
  if (auto vec = dyn_cast<VectorType>(x.getType()))
    countType = VectorType::get(vec.getShape(), countType);
  return {x, zeroOf(b, loc, x.getType()), oneOf(b, loc, countType)};
}

SmallVector<Value> buildCombinerMerge(OpBuilder &b, Location loc, const Combiner &c, ValueRange a, ValueRange s) {
  CombinerKind kind = c.kind;
  Value x = a.front(), y = s.front();
  Type e = elementOf(x.getType());
  switch (kind) {
  case CombinerKind::Sum:
    if (isa<ComplexType>(e))
      return {complex::AddOp::create(b, loc, x, y)};
    if (isa<FloatType>(e))
      return {arith::AddFOp::create(b, loc, x, y)};
    return {arith::AddIOp::create(b, loc, x, y)};
  case CombinerKind::Prod:
    if (isa<ComplexType>(e))
      return {complex::MulOp::create(b, loc, x, y)};
    if (isa<FloatType>(e))
      return {arith::MulFOp::create(b, loc, x, y)};
    return {arith::MulIOp::create(b, loc, x, y)};
  case CombinerKind::Max:
  case CombinerKind::Min:
    return {extremum(b, loc, x, y, kind == CombinerKind::Max)};
  case CombinerKind::All:
    return {arith::AndIOp::create(b, loc, x, y)};
  case CombinerKind::Any:
    return {arith::OrIOp::create(b, loc, x, y)};
  case CombinerKind::ArgMax:
  case CombinerKind::ArgMin: {
    Value better = argBetter(b, loc, x, a[1], y, s[1], kind == CombinerKind::ArgMax);
    return {arith::SelectOp::create(b, loc, better, y, x), arith::SelectOp::create(b, loc, better, s[1], a[1])};
  }
  case CombinerKind::Welford: {
    // Chan et al.: n = na + nb, delta = mb - ma, mean = ma + delta * nb / n,
    // m2 = m2a + m2b + delta^2 * na * nb / n (n = 0 divides by 1: all zero).
    Type ft = x.getType();
    Value na = a[2], nb = s[2];
    Value n = arith::AddIOp::create(b, loc, na, nb);
    Value one = oneOf(b, loc, n.getType());
    Value divisor = toFloat(b, loc, arith::MaxSIOp::create(b, loc, n, one), ft);
    Value naF = toFloat(b, loc, na, ft), nbF = toFloat(b, loc, nb, ft);
    Value delta = arith::SubFOp::create(b, loc, y, x);
    Value mean = arith::AddFOp::create(b, loc, x,
                                       arith::MulFOp::create(b, loc, delta, arith::DivFOp::create(b, loc, nbF, divisor)));
    Value weight = arith::DivFOp::create(b, loc, arith::MulFOp::create(b, loc, naF, nbF), divisor);
    Value m2 = arith::AddFOp::create(
        b, loc, arith::AddFOp::create(b, loc, a[1], s[1]),
        arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, delta, delta), weight));
    return {mean, m2, n};
  }
  case CombinerKind::Custom:
    return {customMerge(b, loc, c.function, x, y)};
  case CombinerKind::LogSumExp: {
    Value top = arith::MaximumFOp::create(b, loc, x, y);
    return {top, arith::AddFOp::create(b, loc, rescaled(b, loc, x, a[1], top), rescaled(b, loc, y, s[1], top))};
  }
  }
  return {};
}

SmallVector<Value> buildCombinerUpdate(OpBuilder &b, Location loc, const Combiner &c, ValueRange acc,
                                       ValueRange values) {
  CombinerKind kind = c.kind;
  if (kind == CombinerKind::ArgMax || kind == CombinerKind::ArgMin) {
    // Elements are folded in increasing index order, so an equal value wins
    // only over the identity (index INT64_MAX); a NaN held stays.
    bool max = kind == CombinerKind::ArgMax;
    Value va = acc[0], ia = acc[1], x = values[0], i = values[1];
    Value strictly = ordered(b, loc, x, va, max);
    Value tie = arith::AndIOp::create(b, loc, equalValues(b, loc, x, va),
                                      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, ia));
    Value wins = arith::OrIOp::create(b, loc, strictly, tie);
    if (isFloatLike(elementOf(x.getType()))) {
      Type cmpType = b.getI1Type();
      if (auto vec = dyn_cast<VectorType>(x.getType()))
        cmpType = VectorType::get(vec.getShape(), cmpType);
      Value allOnes = splat(b, loc, cmpType, b.getIntegerAttr(b.getI1Type(), 1));
      Value notNanA = arith::XOrIOp::create(b, loc, isNaN(b, loc, va), allOnes);
      wins = arith::AndIOp::create(b, loc, notNanA, arith::OrIOp::create(b, loc, isNaN(b, loc, x), wins));
    }
    return {arith::SelectOp::create(b, loc, wins, x, va), arith::SelectOp::create(b, loc, wins, i, ia)};
  }
  if (kind == CombinerKind::LogSumExp) {
    // merge(acc, lift(x)) with one exp, not two: exp(-|x - m|) is the
    // scale of the old sum when x is the new maximum, else x's own term.
    const double inf = std::numeric_limits<double>::infinity();
    Value m = acc[0], s = acc[1], x = values[0];
    Value zero = zeroOf(b, loc, x.getType());
    Value top = arith::MaximumFOp::create(b, loc, m, x);
    Value greater = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, m);
    Value d = arith::SubFOp::create(b, loc, x, m);
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, d)));
    Value sx = liftedSum(b, loc, x);
    // x above m: the old sum scaled (nothing from -inf elements), plus x's.
    Value oldScaled = arith::SelectOp::create(b, loc, equalTo(b, loc, m, -inf), zero, arith::MulFOp::create(b, loc, s, e));
    Value above = arith::AddFOp::create(b, loc, oldScaled, sx);
    // Else: x's term at the maximum m (its own at a tie, 0 for a -inf x).
    Value term = arith::SelectOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, top), sx,
        arith::SelectOp::create(b, loc, equalTo(b, loc, x, -inf), zero, arith::MulFOp::create(b, loc, sx, e)));
    Value below = arith::AddFOp::create(b, loc, s, term);
    return {top, arith::SelectOp::create(b, loc, greater, above, below)};
  }
  SmallVector<Value> lifted = buildCombinerLift(b, loc, c, values);
  return buildCombinerMerge(b, loc, c, acc, lifted);
}

bool combinerFoldsBatches(const Combiner &c) {
  return c.kind == CombinerKind::Welford || c.kind == CombinerKind::LogSumExp;
}

SmallVector<Value> buildCombinerUpdateMany(OpBuilder &b, Location loc, const Combiner &c, ValueRange acc,
                                           ArrayRef<Value> xs) {
  if (c.kind == CombinerKind::Welford) {
    // The exact moments of xs (mean, sum of squared deviations, count), merged.
    Type ft = xs[0].getType();
    Value sum = xs[0];
    for (size_t l = 1; l < xs.size(); ++l)
      sum = arith::AddFOp::create(b, loc, sum, xs[l]);
    Value inv = arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, 1.0 / double(xs.size())));
    Value mean = arith::MulFOp::create(b, loc, sum, inv);
    Value m2;
    for (Value x : xs) {
      Value d = arith::SubFOp::create(b, loc, x, mean);
      Value sq = arith::MulFOp::create(b, loc, d, d);
      m2 = m2 ? Value(arith::AddFOp::create(b, loc, m2, sq)) : sq;
    }
    Value count = arith::ConstantIntOp::create(b, loc, b.getI64Type(), int64_t(xs.size()));
    return buildCombinerMerge(b, loc, c, acc, {mean, m2, count});
  }
  if (c.kind == CombinerKind::LogSumExp) {
    Value top = acc[0];
    for (Value x : xs)
      top = arith::MaximumFOp::create(b, loc, top, x);
    Value s = rescaled(b, loc, acc[0], acc[1], top);
    for (Value x : xs)
      s = arith::AddFOp::create(b, loc, s, math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, x, top)));
    return {top, s};
  }
  SmallVector<Value> state(acc);
  for (Value x : xs)
    state = buildCombinerUpdate(b, loc, c, state, ValueRange{x});
  return state;
}

} // namespace kiln
