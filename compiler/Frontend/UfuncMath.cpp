//===- Frontend/UfuncMath.cpp - NumPy's ufuncs as formulas ----------------===//
//
// ScalarBuilder::ufunc: the ufuncs of issue 27 that are formulas over
// `arith`/`math` operations, with NumPy's answers at the edges (docs/
// operations.md, "More ufuncs"): reciprocal, floor_divide (npy_divmod's
// floor of floats; Python's floor division of integers), fmod (C's), sinc
// (np.sinc's pi * x, 1 at 0), spacing and nextafter (on the bits),
// heaviside, float_power (pow in float64 or complex128), bitwise_count, and
// round with decimals (NumPy's rint(x * 10^d) / 10^d).
// Integer division by zero gives 0 and INT_MIN / -1 wraps, never a trap.
//
//===----------------------------------------------------------------------===//
#include "Frontend/ElementMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>
#include <numbers>

using namespace mlir;

namespace kiln::frontend {

namespace {

/// The float type's bits as an integer type of the same width.
IntegerType bitsOf(OpBuilder &b, Value v) {
  return b.getIntegerType(v.getType().getIntOrFloatBitWidth());
}

} // namespace

Value ScalarBuilder::ufunc(OpKind op, Value a, Value x, ElementType t) {
  auto select = [&](Value c, Value p, Value q) {
    return arith::SelectOp::create(b_, loc_, c, p, q).getResult();
  };
  auto cmpf = [&](arith::CmpFPredicate p, Value l, Value r) {
    return arith::CmpFOp::create(b_, loc_, p, l, r).getResult();
  };
  auto cmpi = [&](arith::CmpIPredicate p, Value l, Value r) {
    return arith::CmpIOp::create(b_, loc_, p, l, r).getResult();
  };
  const TypeKind k = kindOf(t);
  const bool u = k == TypeKind::Int && isUnsigned(t);
  switch (op) {
  case OpKind::FloatPower: // float64 or complex128 (the node's type)
    return k == TypeKind::Float || k == TypeKind::Complex
               ? arithmetic(OpKind::Pow, a, x, t)
               : Value();
  case OpKind::Reciprocal:
    if (k == TypeKind::Float || k == TypeKind::Complex)
      return arithmetic(OpKind::Div, one(t), a, t);
    if (k != TypeKind::Int)
      return {};
    // 1 / a truncated: 1 and -1 keep their value, every other integer
    // (0 included: a documented departure) gives 0.
    {
      Value keep = cmpi(arith::CmpIPredicate::eq, a, one(t));
      if (!u)
        keep = arith::OrIOp::create(
            b_, loc_, keep,
            cmpi(arith::CmpIPredicate::eq, a, constant(t, -1.0, -1)));
      return select(keep, a, zero(t));
    }
  case OpKind::Sinc: {
    if (k != TypeKind::Float)
      return {};
    // NumPy: y = pi * where(x == 0, 1e-20, x); sin(y) / y.
    Value tiny = constant(t, 1.0e-20, 0);
    Value y = arith::MulFOp::create(
        b_, loc_, constant(t, std::numbers::pi, 0),
        select(cmpf(arith::CmpFPredicate::OEQ, a, zero(t)), tiny, a));
    return arith::DivFOp::create(b_, loc_, math::SinOp::create(b_, loc_, y), y);
  }
  case OpKind::Spacing: {
    if (k != TypeKind::Float)
      return {};
    // nextafter(x, copysign(inf, x)) - x: one more in the bits' magnitude;
    // NaN for infinities and NaN.
    IntegerType it = bitsOf(b_, a);
    Value bits = arith::BitcastOp::create(b_, loc_, it, a);
    Value next = arith::BitcastOp::create(
        b_, loc_, a.getType(),
        arith::AddIOp::create(
            b_, loc_, bits,
            arith::ConstantOp::create(b_, loc_, b_.getIntegerAttr(it, 1))));
    Value d = arith::SubFOp::create(b_, loc_, next, a);
    Value bad = arith::OrIOp::create(b_, loc_, isNan(a, t), isInf(a, t));
    return select(bad, constant(t, std::numeric_limits<double>::quiet_NaN(), 0),
                  d);
  }
  case OpKind::NextAfter: {
    if (k != TypeKind::Float)
      return {};
    // C's nextafter on the bits: away from zero adds one to them, towards
    // it subtracts one; from zero the smallest subnormal with x's sign.
    IntegerType it = bitsOf(b_, a);
    Value bits = arith::BitcastOp::create(b_, loc_, it, a);
    Value away = cmpi(
        arith::CmpIPredicate::eq,
        arith::ExtUIOp::create(b_, loc_, b_.getI8Type(),
                               cmpf(arith::CmpFPredicate::OGT, x, a)),
        arith::ExtUIOp::create(b_, loc_, b_.getI8Type(),
                               cmpf(arith::CmpFPredicate::OGT, a, zero(t))));
    Value step = select(
        away, arith::ConstantOp::create(b_, loc_, b_.getIntegerAttr(it, 1)),
        arith::ConstantOp::create(b_, loc_, b_.getIntegerAttr(it, -1)));
    Value moved = arith::BitcastOp::create(
        b_, loc_, a.getType(), arith::AddIOp::create(b_, loc_, bits, step));
    Value smallest = arith::BitcastOp::create(
        b_, loc_, a.getType(),
        arith::ConstantOp::create(b_, loc_, b_.getIntegerAttr(it, 1)));
    Value fromZero = math::CopySignOp::create(b_, loc_, smallest, x);
    Value r =
        select(cmpf(arith::CmpFPredicate::OEQ, a, zero(t)), fromZero, moved);
    r = select(cmpf(arith::CmpFPredicate::OEQ, a, x), x, r);
    Value nan = arith::OrIOp::create(b_, loc_, isNan(a, t), isNan(x, t));
    return select(nan, arith::AddFOp::create(b_, loc_, a, x), r);
  }
  case OpKind::Heaviside: {
    if (k != TypeKind::Float)
      return {};
    // 0 below zero, x2 at zero, 1 above, NaN for NaN.
    Value r =
        select(cmpf(arith::CmpFPredicate::OLT, a, zero(t)), zero(t),
               select(cmpf(arith::CmpFPredicate::OEQ, a, zero(t)), x, one(t)));
    return select(isNan(a, t), a, r);
  }
  case OpKind::FMod: {
    if (k == TypeKind::Float)
      return arith::RemFOp::create(b_, loc_, a, x); // C's fmod
    if (k != TypeKind::Int)
      return {};
    // C's %: the sign of a; 0 for a divisor of 0 (and of -1, where
    // INT_MIN % -1 would trap).
    Value special = cmpi(arith::CmpIPredicate::eq, x, zero(t));
    if (!u)
      special = arith::OrIOp::create(
          b_, loc_, special,
          cmpi(arith::CmpIPredicate::eq, x, constant(t, -1.0, -1)));
    Value safe = select(special, one(t), x);
    Value r = u ? Value(arith::RemUIOp::create(b_, loc_, a, safe))
                : Value(arith::RemSIOp::create(b_, loc_, a, safe));
    return select(special, zero(t), r);
  }
  case OpKind::FloorDivide: {
    if (k == TypeKind::Float) {
      // NumPy's npy_floor_divide: a / b for b == 0, else npy_divmod's
      // quotient, (a - fmod(a, b)) / b moved to the floor and rounded.
      Value mod = arith::RemFOp::create(b_, loc_, a, x);
      Value div = arith::DivFOp::create(
          b_, loc_, arith::SubFOp::create(b_, loc_, a, mod), x);
      Value modNonZero = cmpf(arith::CmpFPredicate::UNE, mod, zero(t));
      Value signsDiffer = arith::XOrIOp::create(
          b_, loc_, cmpf(arith::CmpFPredicate::OLT, x, zero(t)),
          cmpf(arith::CmpFPredicate::OLT, mod, zero(t)));
      div = select(arith::AndIOp::create(b_, loc_, modNonZero, signsDiffer),
                   arith::SubFOp::create(b_, loc_, div, one(t)), div);
      Value fl = math::FloorOp::create(b_, loc_, div);
      Value half = constant(t, 0.5, 0);
      fl = select(cmpf(arith::CmpFPredicate::OGT,
                       arith::SubFOp::create(b_, loc_, div, fl), half),
                  arith::AddFOp::create(b_, loc_, fl, one(t)), fl);
      Value quotient = arith::DivFOp::create(b_, loc_, a, x);
      Value signedZero = math::CopySignOp::create(b_, loc_, zero(t), quotient);
      Value r =
          select(cmpf(arith::CmpFPredicate::UNE, div, zero(t)), fl, signedZero);
      return select(cmpf(arith::CmpFPredicate::OEQ, x, zero(t)), quotient, r);
    }
    if (k != TypeKind::Int)
      return {};
    Value bZero = cmpi(arith::CmpIPredicate::eq, x, zero(t));
    if (u) {
      Value q = arith::DivUIOp::create(b_, loc_, a, select(bZero, one(t), x));
      return select(bZero, zero(t), q);
    }
    // Python's //: the truncated quotient, one less when the remainder is
    // non-zero and the signs differ; a // -1 is -a (wrapping at INT_MIN).
    Value minusOne = constant(t, -1.0, -1);
    Value bMinusOne = cmpi(arith::CmpIPredicate::eq, x, minusOne);
    Value special = arith::OrIOp::create(b_, loc_, bZero, bMinusOne);
    Value safe = select(special, one(t), x);
    Value q = arith::DivSIOp::create(b_, loc_, a, safe);
    Value r = arith::RemSIOp::create(b_, loc_, a, safe);
    Value fix = arith::AndIOp::create(
        b_, loc_, cmpi(arith::CmpIPredicate::ne, r, zero(t)),
        arith::XOrIOp::create(b_, loc_,
                              cmpi(arith::CmpIPredicate::slt, r, zero(t)),
                              cmpi(arith::CmpIPredicate::slt, safe, zero(t))));
    q = select(fix, arith::AddIOp::create(b_, loc_, q, minusOne), q);
    Value negated = arith::SubIOp::create(b_, loc_, zero(t), a);
    return select(bZero, zero(t), select(bMinusOne, negated, q));
  }
  default:
    return {};
  }
}

Value ScalarBuilder::bitwiseCount(Value a, ElementType t) {
  TypeKind k = kindOf(t);
  if (k != TypeKind::Int && k != TypeKind::Bool)
    return {};
  // The bits of |a| (NumPy: bitwise_count(-1) is 1), as uint8.
  Value v = a;
  if (k == TypeKind::Bool)
    v = arith::ExtUIOp::create(b_, loc_, b_.getI8Type(), v);
  else if (!isUnsigned(t))
    v = arith::SelectOp::create(
        b_, loc_,
        arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, v, zero(t)),
        arith::SubIOp::create(b_, loc_, zero(t), v), v);
  Value n = math::CtPopOp::create(b_, loc_, v);
  unsigned bits = n.getType().getIntOrFloatBitWidth();
  if (bits > 8)
    return arith::TruncIOp::create(b_, loc_, b_.getI8Type(), n);
  return n;
}

Value ScalarBuilder::roundDecimals(Value a, Value d, ElementType t) {
  TypeKind k = kindOf(t);
  if (k == TypeKind::Complex) {
    ElementType r = realPart(t);
    return complexOf({roundDecimals(complex::ReOp::create(b_, loc_, a), d, r),
                      roundDecimals(complex::ImOp::create(b_, loc_, a), d, r)},
                     t);
  }
  if (k != TypeKind::Float && k != TypeKind::Int)
    return {};
  Type i64 = b_.getI64Type();
  auto c64 = [&](long long v) {
    return arith::ConstantOp::create(b_, loc_, b_.getIntegerAttr(i64, v))
        .getResult();
  };
  auto select = [&](Value c, Value p, Value q) {
    return arith::SelectOp::create(b_, loc_, c, p, q).getResult();
  };
  Value negative =
      arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, d, c64(0));
  Value magnitude =
      select(negative, arith::SubIOp::create(b_, loc_, c64(0), d), d);
  // 10^|d| as the runtime's math::pow10: a product of exact powers of ten
  // chosen by the bits of |d| (exact to 10^22), inf from 512 on.
  auto bit = [&](int b) {
    Value m = arith::AndIOp::create(b_, loc_, magnitude, c64(1ll << b));
    return arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ne, m, c64(0))
        .getResult();
  };
  if (k == TypeKind::Float) {
    Type f64 = b_.getF64Type();
    auto cf = [&](double v) {
      return arith::ConstantOp::create(b_, loc_, b_.getFloatAttr(f64, v))
          .getResult();
    };
    static constexpr double factors[] = {1e1,  1e2,  1e4,   1e8,  1e16,
                                         1e32, 1e64, 1e128, 1e256};
    Value f = cf(1.0);
    for (int b = 0; b < 9; ++b)
      f = select(bit(b), arith::MulFOp::create(b_, loc_, f, cf(factors[b])), f);
    f = select(arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::sge,
                                     magnitude, c64(512)),
               cf(std::numeric_limits<double>::infinity()), f);
    Value ft = cast(f, ElementType::Float64, t);
    Value up = math::RoundEvenOp::create(
        b_, loc_, arith::MulFOp::create(b_, loc_, a, ft));
    Value down = math::RoundEvenOp::create(
        b_, loc_, arith::DivFOp::create(b_, loc_, a, ft));
    return select(negative, arith::MulFOp::create(b_, loc_, down, ft),
                  arith::DivFOp::create(b_, loc_, up, ft));
  }
  // Integers: a for d >= 0; else half to even to a multiple of f = 10^-d,
  // in int64 (0 from 10^19 on: every value rounds to 0 there).
  Value x = a;
  if (a.getType() != i64)
    x = isUnsigned(t) ? arith::ExtUIOp::create(b_, loc_, i64, a).getResult()
                      : arith::ExtSIOp::create(b_, loc_, i64, a).getResult();
  Value f = c64(1);
  long long p = 10;
  for (int b = 0; b < 5; ++b, p = p * p) // 10, 10^2, 10^4, 10^8, 10^16
    f = select(bit(b), arith::MulIOp::create(b_, loc_, f, c64(p)), f);
  Value huge = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::sgt,
                                     magnitude, c64(18));
  Value safe = select(huge, c64(1), f);
  Value q = arith::FloorDivSIOp::create(b_, loc_, x, safe);
  Value r = arith::SubIOp::create(b_, loc_, x,
                                  arith::MulIOp::create(b_, loc_, q, safe));
  Value twice = arith::AddIOp::create(b_, loc_, r, r);
  Value odd =
      arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ne,
                            arith::AndIOp::create(b_, loc_, q, c64(1)), c64(0));
  Value roundUp = arith::OrIOp::create(
      b_, loc_,
      arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::sgt, twice, safe),
      arith::AndIOp::create(b_, loc_,
                            arith::CmpIOp::create(b_, loc_,
                                                  arith::CmpIPredicate::eq,
                                                  twice, safe),
                            odd));
  q = select(roundUp, arith::AddIOp::create(b_, loc_, q, c64(1)), q);
  Value rounded = arith::MulIOp::create(b_, loc_, q, safe);
  rounded = select(huge, c64(0), rounded);
  Value narrow =
      a.getType() == i64
          ? rounded
          : arith::TruncIOp::create(b_, loc_, a.getType(), rounded).getResult();
  return select(negative, narrow, a);
}

} // namespace kiln::frontend
