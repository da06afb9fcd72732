//===- Frontend/UfuncMath.cpp - NumPy's ufuncs as formulas ----------------===//
//
// ScalarBuilder::ufunc: the ufuncs of issue 27 that are formulas over
// `arith`/`math` operations, with NumPy's answers at the edges (docs/
// operations.md, "More ufuncs"): reciprocal, floor_divide (npy_divmod's
// floor of floats; Python's floor division of integers), fmod (C's), sinc
// (np.sinc's pi * x, 1 at 0), spacing and nextafter (on the bits),
// heaviside, float_power (pow in float64 or complex128), bitwise_count, and
// round with decimals (NumPy's rint(x * 10^d) / 10^d); npy_divmod, clip,
// gcd and lcm (Euclid's loop), ldexp (musl's scalbn) and nan_to_num.
// Integer division by zero gives 0 and INT_MIN / -1 wraps, never a trap.
//
//===----------------------------------------------------------------------===//
#include "Frontend/ElementMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>
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
    SafeDivisor d = safeDivisor(x, t);
    Value r = u ? Value(arith::RemUIOp::create(b_, loc_, a, d.divisor))
                : Value(arith::RemSIOp::create(b_, loc_, a, d.divisor));
    return select(d.special, zero(t), r);
  }
  case OpKind::FloorDivide: {
    if (k == TypeKind::Float)
      return floatDivmod(a, x, t).quotient;
    if (k != TypeKind::Int)
      return {};
    SafeDivisor d = safeDivisor(x, t);
    if (u)
      return select(d.isZero, zero(t),
                    arith::DivUIOp::create(b_, loc_, a, d.divisor));
    // Python's //: the truncated quotient, one less when the remainder is
    // non-zero and the signs differ; a // -1 is -a (wrapping at INT_MIN).
    Value q = arith::DivSIOp::create(b_, loc_, a, d.divisor);
    Value r = arith::RemSIOp::create(b_, loc_, a, d.divisor);
    Value fix = arith::AndIOp::create(
        b_, loc_, cmpi(arith::CmpIPredicate::ne, r, zero(t)),
        arith::XOrIOp::create(
            b_, loc_, cmpi(arith::CmpIPredicate::slt, r, zero(t)),
            cmpi(arith::CmpIPredicate::slt, d.divisor, zero(t))));
    q = select(fix, arith::SubIOp::create(b_, loc_, q, one(t)), q);
    Value negated = arith::SubIOp::create(b_, loc_, zero(t), a);
    return select(d.isZero, zero(t), select(d.isMinusOne, negated, q));
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

ScalarBuilder::FloatDivmod ScalarBuilder::floatDivmod(Value a, Value x,
                                                      ElementType t) {
  auto select = [&](Value c, Value p, Value q) {
    return arith::SelectOp::create(b_, loc_, c, p, q).getResult();
  };
  auto cmpf = [&](arith::CmpFPredicate p, Value l, Value r) {
    return arith::CmpFOp::create(b_, loc_, p, l, r).getResult();
  };
  // npy_divmod: mod = fmod(a, b); div = (a - mod) / b; where mod != 0 and
  // its sign differs from b's, mod += b and div -= 1; a zero mod takes b's
  // sign. The quotient is div moved to the nearest integer below (floor,
  // plus one past .5), copysign(0, a / b) where div is 0, a / b for b == 0.
  Value mod = arith::RemFOp::create(b_, loc_, a, x);
  Value div = arith::DivFOp::create(b_, loc_,
                                    arith::SubFOp::create(b_, loc_, a, mod), x);
  Value fix = arith::AndIOp::create(
      b_, loc_, cmpf(arith::CmpFPredicate::ONE, mod, zero(t)),
      arith::XOrIOp::create(b_, loc_,
                            cmpf(arith::CmpFPredicate::OLT, x, zero(t)),
                            cmpf(arith::CmpFPredicate::OLT, mod, zero(t))));
  Value remainder =
      select(fix, arith::AddFOp::create(b_, loc_, mod, x),
             select(cmpf(arith::CmpFPredicate::OEQ, mod, zero(t)),
                    math::CopySignOp::create(b_, loc_, zero(t), x), mod));
  div = select(fix, arith::SubFOp::create(b_, loc_, div, one(t)), div);
  Value fl = math::FloorOp::create(b_, loc_, div);
  fl = select(cmpf(arith::CmpFPredicate::OGT,
                   arith::SubFOp::create(b_, loc_, div, fl),
                   constant(t, 0.5, 0)),
              arith::AddFOp::create(b_, loc_, fl, one(t)), fl);
  Value quotient = arith::DivFOp::create(b_, loc_, a, x);
  Value q = select(cmpf(arith::CmpFPredicate::UNE, div, zero(t)), fl,
                   math::CopySignOp::create(b_, loc_, zero(t), quotient));
  q = select(cmpf(arith::CmpFPredicate::OEQ, x, zero(t)), quotient, q);
  return {q, remainder};
}

ScalarBuilder::SafeDivisor ScalarBuilder::safeDivisor(Value x, ElementType t) {
  SafeDivisor d;
  d.isZero =
      arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, x, zero(t));
  d.isMinusOne =
      isUnsigned(t)
          ? constant(ElementType::Bool, 0.0, 0)
          : Value(arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, x,
                                        constant(t, -1.0, -1)));
  d.special = arith::OrIOp::create(b_, loc_, d.isZero, d.isMinusOne);
  d.divisor = arith::SelectOp::create(b_, loc_, d.special, one(t), x);
  return d;
}

Value ScalarBuilder::clip(Value x, Value lo, Value hi, ElementType t,
                          bool scalarBounds) {
  auto select = [&](Value c, Value p, Value q) {
    return arith::SelectOp::create(b_, loc_, c, p, q).getResult();
  };
  switch (kindOf(t)) {
  case TypeKind::Float: {
    // m = (x > lo || isnan(x)) ? x : lo, then (m < hi || isnan(m)) ? m : hi
    // (NumPy's _NPY_CLIP); >= and <= for two scalar bounds.
    Value keep = arith::OrIOp::create(
        b_, loc_,
        arith::CmpFOp::create(b_, loc_,
                              scalarBounds ? arith::CmpFPredicate::OGE
                                           : arith::CmpFPredicate::OGT,
                              x, lo),
        isNan(x, t));
    Value m = select(keep, x, lo);
    keep = arith::OrIOp::create(
        b_, loc_,
        arith::CmpFOp::create(b_, loc_,
                              scalarBounds ? arith::CmpFPredicate::OLE
                                           : arith::CmpFPredicate::OLT,
                              m, hi),
        isNan(m, t));
    return select(keep, m, hi);
  }
  case TypeKind::Int:
  case TypeKind::Bool: {
    const bool u = kindOf(t) == TypeKind::Bool || isUnsigned(t);
    Value m = select(arith::CmpIOp::create(b_, loc_,
                                           u ? arith::CmpIPredicate::uge
                                             : arith::CmpIPredicate::sge,
                                           x, lo),
                     x, lo);
    return select(arith::CmpIOp::create(b_, loc_,
                                        u ? arith::CmpIPredicate::ule
                                          : arith::CmpIPredicate::sle,
                                        m, hi),
                  m, hi);
  }
  case TypeKind::Complex:
    break;
  }
  return {};
}

Value ScalarBuilder::gcdOrLcm(bool lcm, Value a, Value x, ElementType t) {
  auto magnitude = [&](Value v) -> Value {
    if (isUnsigned(t))
      return v;
    Value negative =
        arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, v, zero(t));
    return arith::SelectOp::create(
        b_, loc_, negative, arith::SubIOp::create(b_, loc_, zero(t), v), v);
  };
  Value ua = magnitude(a), ub = magnitude(x);
  // while (p != 0) (p, q) = (q % p, p); gcd = q.
  Type it = ua.getType();
  auto loop = scf::WhileOp::create(
      b_, loc_, TypeRange{it, it}, ValueRange{ua, ub},
      [&](OpBuilder &b, Location l, ValueRange v) {
        Value more = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, v[0],
                                           zero(t));
        scf::ConditionOp::create(b, l, more, v);
      },
      [&](OpBuilder &b, Location l, ValueRange v) {
        Value r = arith::RemUIOp::create(b, l, v[1], v[0]);
        scf::YieldOp::create(b, l, ValueRange{r, v[0]});
      });
  Value g = loop.getResult(1);
  if (!lcm)
    return g;
  Value gZero =
      arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, g, zero(t));
  Value safe = arith::SelectOp::create(b_, loc_, gZero, one(t), g);
  Value l = arith::MulIOp::create(
      b_, loc_, arith::DivUIOp::create(b_, loc_, ua, safe), ub);
  return arith::SelectOp::create(b_, loc_, gZero, zero(t), l);
}

Value ScalarBuilder::ldexp(Value x, Value e, ElementType t) {
  auto select = [&](Value c, Value p, Value q) {
    return arith::SelectOp::create(b_, loc_, c, p, q).getResult();
  };
  const bool f32 = t == ElementType::Float32;
  const int mantissa = f32 ? 23 : 52, bias = f32 ? 127 : 1023;
  const int maxExp = bias, minExp = 1 - bias;
  Type i64 = b_.getI64Type();
  auto i64c = [&](long long v) {
    return arith::ConstantOp::create(b_, loc_, b_.getIntegerAttr(i64, v))
        .getResult();
  };
  auto pow2 = [&](int k) { return constant(t, std::ldexp(1.0, k), 0); };
  // musl's scalbn: at most two exact steps of 2^maxExp up, or of
  // 2^(minExp + mantissa + 1) down (leaving n < -mantissa - 1 so that the
  // last product rounds once in the subnormal range), then one product by
  // 2^n built from its bits.
  Value y = x, n = e;
  // Twice: where n is past `limit` (sgt or slt), y *= 2^k and n -= k; then
  // n clamped to the limit.
  auto steps = [&](arith::CmpIPredicate past, int limit, int k) {
    for (int step = 0; step < 2; ++step) {
      Value move = arith::CmpIOp::create(b_, loc_, past, n, i64c(limit));
      y = select(move, arith::MulFOp::create(b_, loc_, y, pow2(k)), y);
      n = select(move, arith::SubIOp::create(b_, loc_, n, i64c(k)), n);
    }
  };
  steps(arith::CmpIPredicate::sgt, maxExp, maxExp);
  n = arith::MinSIOp::create(b_, loc_, n, i64c(maxExp));
  steps(arith::CmpIPredicate::slt, minExp, minExp + mantissa + 1);
  n = arith::MaxSIOp::create(b_, loc_, n, i64c(minExp));
  Value bits = arith::ShLIOp::create(
      b_, loc_, arith::AddIOp::create(b_, loc_, n, i64c(bias)), i64c(mantissa));
  IntegerType wt = b_.getIntegerType(f32 ? 32 : 64);
  if (f32)
    bits = arith::TruncIOp::create(b_, loc_, wt, bits);
  Value scale = arith::BitcastOp::create(b_, loc_, x.getType(), bits);
  return arith::MulFOp::create(b_, loc_, y, scale);
}

Value ScalarBuilder::nanToNum(Value x, Value nan, Value posinf, Value neginf,
                              ElementType t) {
  switch (kindOf(t)) {
  case TypeKind::Float: {
    auto select = [&](Value c, Value p, Value q) {
      return arith::SelectOp::create(b_, loc_, c, p, q).getResult();
    };
    Value inf = constant(t, std::numeric_limits<double>::infinity(), 0);
    Value r = select(
        arith::CmpFOp::create(b_, loc_, arith::CmpFPredicate::OEQ, x, inf),
        posinf, x);
    r = select(arith::CmpFOp::create(b_, loc_, arith::CmpFPredicate::OEQ, x,
                                     arith::NegFOp::create(b_, loc_, inf)),
               neginf, r);
    return select(isNan(x, t), nan, r);
  }
  case TypeKind::Complex: {
    ElementType rt = realPart(t);
    auto re = [&](Value v) {
      return complex::ReOp::create(b_, loc_, v).getResult();
    };
    Value n = re(nan), p = re(posinf), m = re(neginf);
    return complexOf(
        {nanToNum(re(x), n, p, m, rt),
         nanToNum(complex::ImOp::create(b_, loc_, x), n, p, m, rt)},
        t);
  }
  case TypeKind::Int:
  case TypeKind::Bool:
    break;
  }
  return x;
}

} // namespace kiln::frontend
