//===- Frontend/ElementMath.cpp - One element of an array operation -------===//
//
// ScalarBuilder's NumPy semantics on single elements, and the dispatch from
// an elementwise node to them (emitElementwise).
//
//===----------------------------------------------------------------------===//
#include "Frontend/ElementMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

#include <limits>
#include <numbers>

using namespace mlir;

namespace kiln::frontend {

Value ScalarBuilder::constant(ElementType t, std::complex<double> v, long long iv) {
  switch (kindOf(t)) {
  case TypeKind::Bool: return arith::ConstantOp::create(b_, loc_, b_.getBoolAttr(iv != 0 || v.real() != 0));
  case TypeKind::Int: return arith::ConstantOp::create(b_, loc_, b_.getIntegerAttr(type(t), iv));
  case TypeKind::Float: return arith::ConstantOp::create(b_, loc_, b_.getFloatAttr(type(t), v.real()));
  case TypeKind::Complex: {
    Type ft = type(realPart(t));
    auto attr = b_.getArrayAttr({b_.getFloatAttr(ft, v.real()), b_.getFloatAttr(ft, v.imag())});
    return complex::ConstantOp::create(b_, loc_, type(t), attr);
  }
  }
  return {};
}

Value ScalarBuilder::cast(Value v, ElementType from, ElementType to) {
  if (from == to) return v;
  TypeKind kf = kindOf(from), kt = kindOf(to);
  Type tt = type(to);
  if (kt == TypeKind::Bool) return isNonZero(v, from);
  if (kf == TypeKind::Complex) {
    if (kt == TypeKind::Complex) {
      Value re = cast(complex::ReOp::create(b_, loc_, v), realPart(from), realPart(to));
      Value im = cast(complex::ImOp::create(b_, loc_, v), realPart(from), realPart(to));
      return complex::CreateOp::create(b_, loc_, tt, re, im);
    }
    return cast(complex::ReOp::create(b_, loc_, v), realPart(from), to); // discards imag, as NumPy
  }
  if (kt == TypeKind::Complex) {
    Value re = cast(v, from, realPart(to));
    return complex::CreateOp::create(b_, loc_, tt, re, zero(realPart(to)));
  }
  bool srcUnsigned = isUnsigned(from);
  if (kf != TypeKind::Float && kt != TypeKind::Float) { // integer (or bool) to integer
    unsigned wf = v.getType().getIntOrFloatBitWidth(), wt = tt.getIntOrFloatBitWidth();
    if (wf == wt) return v;
    if (wf > wt) return arith::TruncIOp::create(b_, loc_, tt, v);
    return srcUnsigned ? Value(arith::ExtUIOp::create(b_, loc_, tt, v)) : Value(arith::ExtSIOp::create(b_, loc_, tt, v));
  }
  if (kf != TypeKind::Float) // integer to float
    return srcUnsigned ? Value(arith::UIToFPOp::create(b_, loc_, tt, v)) : Value(arith::SIToFPOp::create(b_, loc_, tt, v));
  if (kt != TypeKind::Float) // float to integer
    return isUnsigned(to) ? Value(arith::FPToUIOp::create(b_, loc_, tt, v)) : Value(arith::FPToSIOp::create(b_, loc_, tt, v));
  if (byteSize(from) < byteSize(to)) return arith::ExtFOp::create(b_, loc_, tt, v);
  return arith::TruncFOp::create(b_, loc_, tt, v);
}

Value ScalarBuilder::isNonZero(Value v, ElementType t) {
  switch (kindOf(t)) {
  case TypeKind::Bool: return v;
  case TypeKind::Int: return arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ne, v, zero(t));
  case TypeKind::Float: return arith::CmpFOp::create(b_, loc_, arith::CmpFPredicate::UNE, v, zero(t));
  case TypeKind::Complex: {
    ElementType r = realPart(t);
    Value re = isNonZero(complex::ReOp::create(b_, loc_, v), r);
    Value im = isNonZero(complex::ImOp::create(b_, loc_, v), r);
    return arith::OrIOp::create(b_, loc_, re, im);
  }
  }
  return v;
}

Value ScalarBuilder::arithmetic(OpKind op, Value a, Value x, ElementType t) {
  Value bv = x;
  switch (kindOf(t)) {
  case TypeKind::Float:
    switch (op) {
    case OpKind::Add: return arith::AddFOp::create(b_, loc_, a, bv);
    case OpKind::Sub: return arith::SubFOp::create(b_, loc_, a, bv);
    case OpKind::Mul: return arith::MulFOp::create(b_, loc_, a, bv);
    case OpKind::Div: return arith::DivFOp::create(b_, loc_, a, bv);
    case OpKind::Rem:
      return floatDivmod(a, bv, t).remainder;
    case OpKind::Pow: return math::PowFOp::create(b_, loc_, a, bv);
    case OpKind::Maximum:
    case OpKind::Minimum: {
      // NumPy's loops: (a > b || isnan(a)) ? a : b (and <), so that b wins
      // a tie (maximum(0.0, -0.0) is -0.0) and a NaN in either propagates.
      Value wins = arith::CmpFOp::create(b_, loc_,
                                         op == OpKind::Maximum
                                             ? arith::CmpFPredicate::OGT
                                             : arith::CmpFPredicate::OLT,
                                         a, bv);
      wins = arith::OrIOp::create(b_, loc_, wins, isNan(a, t));
      return arith::SelectOp::create(b_, loc_, wins, a, bv);
    }
    default: break;
    }
    break;
  case TypeKind::Int: {
    bool u = isUnsigned(t);
    switch (op) {
    case OpKind::Add: return arith::AddIOp::create(b_, loc_, a, bv);
    case OpKind::Sub: return arith::SubIOp::create(b_, loc_, a, bv);
    case OpKind::Mul: return arith::MulIOp::create(b_, loc_, a, bv);
    case OpKind::Rem: return intRemainder(a, bv, t);
    case OpKind::Pow: return intPow(a, bv, t);
    case OpKind::Maximum: return u ? Value(arith::MaxUIOp::create(b_, loc_, a, bv)) : Value(arith::MaxSIOp::create(b_, loc_, a, bv));
    case OpKind::Minimum: return u ? Value(arith::MinUIOp::create(b_, loc_, a, bv)) : Value(arith::MinSIOp::create(b_, loc_, a, bv));
    default: break;
    }
    break;
  }
  case TypeKind::Bool:
    switch (op) {
    case OpKind::Add:
    case OpKind::Maximum: return arith::OrIOp::create(b_, loc_, a, bv);
    case OpKind::Mul:
    case OpKind::Minimum: return arith::AndIOp::create(b_, loc_, a, bv);
    default: break;
    }
    break;
  case TypeKind::Complex:
    switch (op) {
    // Written on the parts, not as complex.add/sub/mul: MLIR folds those
    // algebraically ((a - b) + b to a, a * 1 to a), which is wrong for
    // infinite and NaN parts (NumPy: (-2.25 - inf j) + inf j has a NaN).
    case OpKind::Add:
    case OpKind::Sub: {
      Parts x = parts(a), y = parts(bv);
      if (op == OpKind::Add)
        return complexOf({arith::AddFOp::create(b_, loc_, x.re, y.re), arith::AddFOp::create(b_, loc_, x.im, y.im)}, t);
      return complexOf({arith::SubFOp::create(b_, loc_, x.re, y.re), arith::SubFOp::create(b_, loc_, x.im, y.im)}, t);
    }
    case OpKind::Mul: return complexOf(complexMultiply(parts(a), parts(bv), realPart(t)), t);
    case OpKind::Div: return complexDivide(a, bv, t);
    case OpKind::Pow: return complexPow(a, bv, t);
    case OpKind::Maximum:
    case OpKind::Minimum: {
      // NumPy: a NaN (in either part) operand wins, the first if both;
      // else the lexicographic extreme, `a` on ties.
      Value nanA = isNan(a, t), nanB = isNan(bv, t);
      Value keepA = op == OpKind::Maximum ? compare(OpKind::Le, bv, a, t) : compare(OpKind::Le, a, bv, t);
      Value pick = arith::SelectOp::create(b_, loc_, keepA, a, bv);
      Value nanPick = arith::SelectOp::create(b_, loc_, nanB, bv, pick);
      return arith::SelectOp::create(b_, loc_, nanA, a, nanPick);
    }
    default: break;
    }
    break;
  }
  return {};
}

Value ScalarBuilder::intPow(Value a, Value e, ElementType t) {
  unsigned bits = a.getType().getIntOrFloatBitWidth();
  llvm::APInt c;
  if (matchPattern(e, m_ConstantInt(&c)) && !c.isNegative() && c.getZExtValue() < (1u << 16)) {
    uint64_t n = c.getZExtValue();
    Value result = one(t), base = a;
    bool first = true;
    while (n) {
      if (n & 1) {
        result = first ? base : Value(arith::MulIOp::create(b_, loc_, result, base));
        first = false;
      }
      n >>= 1;
      if (n) base = arith::MulIOp::create(b_, loc_, base, base);
    }
    return result;
  }
  Value z = zero(t), o = one(t), result = o, base = a, exp = e;
  for (unsigned i = 0; i < bits; ++i) {
    Value bit = arith::TruncIOp::create(b_, loc_, b_.getI1Type(), exp);
    Value prod = arith::MulIOp::create(b_, loc_, result, base);
    result = arith::SelectOp::create(b_, loc_, bit, prod, result);
    base = arith::MulIOp::create(b_, loc_, base, base);
    exp = arith::ShRUIOp::create(b_, loc_, exp, o);
  }
  if (isUnsigned(t))
    return result; // (an unsigned exponent of 128 or more is not negative)
  Value negative = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, e, z);
  Value aIsOne = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, a, o);
  Value aIsMinusOne = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, a, constant(t, -1.0, -1));
  Value odd = arith::TruncIOp::create(b_, loc_, b_.getI1Type(), e);
  Value minusOnePow = arith::SelectOp::create(b_, loc_, odd, constant(t, -1.0, -1), o);
  Value negResult = arith::SelectOp::create(b_, loc_, aIsOne, o,
                                            arith::SelectOp::create(b_, loc_, aIsMinusOne, minusOnePow, z));
  return arith::SelectOp::create(b_, loc_, negative, negResult, result);
}

Value ScalarBuilder::intRemainder(Value a, Value x, ElementType t) {
  Value z = zero(t);
  SafeDivisor d = safeDivisor(x, t);
  if (isUnsigned(t))
    return arith::SelectOp::create(
        b_, loc_, d.special, z, arith::RemUIOp::create(b_, loc_, a, d.divisor));
  // Python's sign: a non-zero remainder moves to the divisor's sign.
  Value r = arith::RemSIOp::create(b_, loc_, a, d.divisor);
  Value rNonZero = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ne, r, z);
  Value rNeg = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, r, z);
  Value bNeg =
      arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, d.divisor, z);
  Value fix = arith::AndIOp::create(b_, loc_, rNonZero, arith::XOrIOp::create(b_, loc_, rNeg, bNeg));
  Value moved = arith::SelectOp::create(
      b_, loc_, fix, arith::AddIOp::create(b_, loc_, r, d.divisor), r);
  return arith::SelectOp::create(b_, loc_, d.special, z,
                                 moved); // x % -1 is 0 too
}

Value ScalarBuilder::compare(OpKind op, Value a, Value x, ElementType t) {
  switch (kindOf(t)) {
  case TypeKind::Float: {
    // NumPy: every comparison with NaN is false except != (unordered-or-not-equal).
    arith::CmpFPredicate p = op == OpKind::Eq ? arith::CmpFPredicate::OEQ
                            : op == OpKind::Ne ? arith::CmpFPredicate::UNE
                            : op == OpKind::Lt ? arith::CmpFPredicate::OLT
                            : op == OpKind::Le ? arith::CmpFPredicate::OLE
                            : op == OpKind::Gt ? arith::CmpFPredicate::OGT
                                               : arith::CmpFPredicate::OGE;
    return arith::CmpFOp::create(b_, loc_, p, a, x);
  }
  case TypeKind::Int:
  case TypeKind::Bool: {
    bool u = isUnsigned(t);
    arith::CmpIPredicate p = op == OpKind::Eq ? arith::CmpIPredicate::eq
                            : op == OpKind::Ne ? arith::CmpIPredicate::ne
                            : op == OpKind::Lt ? (u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt)
                            : op == OpKind::Le ? (u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle)
                            : op == OpKind::Gt ? (u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
                                               : (u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge);
    return arith::CmpIOp::create(b_, loc_, p, a, x);
  }
  case TypeKind::Complex: {
    if (op == OpKind::Eq) return complex::EqualOp::create(b_, loc_, a, x);
    if (op == OpKind::Ne) return complex::NotEqualOp::create(b_, loc_, a, x);
    // Lexicographic, as NumPy's CLT/CLE: (ar < xr and neither imaginary
    // part NaN) or (ar == xr and ai < xi (<=)); a > x is x < a.
    if (op == OpKind::Gt || op == OpKind::Ge) {
      std::swap(a, x);
      op = op == OpKind::Gt ? OpKind::Lt : OpKind::Le;
    }
    ElementType r = realPart(t);
    Value ar = complex::ReOp::create(b_, loc_, a), ai = complex::ImOp::create(b_, loc_, a);
    Value xr = complex::ReOp::create(b_, loc_, x), xi = complex::ImOp::create(b_, loc_, x);
    Value noNan = arith::CmpFOp::create(b_, loc_, arith::CmpFPredicate::ORD, ai, xi);
    Value realLess = arith::AndIOp::create(b_, loc_, compare(OpKind::Lt, ar, xr, r), noNan);
    Value tie = arith::AndIOp::create(b_, loc_, compare(OpKind::Eq, ar, xr, r), compare(op, ai, xi, r));
    return arith::OrIOp::create(b_, loc_, realLess, tie);
  }
  }
  return {};
}

Value ScalarBuilder::unary(OpKind op, Value v, ElementType t) {
  TypeKind k = kindOf(t);
  if (k == TypeKind::Float) {
    switch (op) {
    case OpKind::Neg: return arith::NegFOp::create(b_, loc_, v);
    case OpKind::Exp: return math::ExpOp::create(b_, loc_, v);
    case OpKind::Log: return math::LogOp::create(b_, loc_, v);
    case OpKind::Log2: return math::Log2Op::create(b_, loc_, v);
    case OpKind::Log10: return math::Log10Op::create(b_, loc_, v);
    case OpKind::Sqrt: return math::SqrtOp::create(b_, loc_, v);
    case OpKind::Sin: return math::SinOp::create(b_, loc_, v);
    case OpKind::Cos: return math::CosOp::create(b_, loc_, v);
    case OpKind::Tan: return math::TanOp::create(b_, loc_, v);
    case OpKind::Tanh: return math::TanhOp::create(b_, loc_, v);
    case OpKind::Abs: return math::AbsFOp::create(b_, loc_, v);
    case OpKind::Floor: return math::FloorOp::create(b_, loc_, v);
    case OpKind::Ceil: return math::CeilOp::create(b_, loc_, v);
    case OpKind::Round:
    case OpKind::Rint:
      return math::RoundEvenOp::create(b_, loc_, v);
    case OpKind::ArcSin:
      return math::AsinOp::create(b_, loc_, v);
    case OpKind::ArcCos:
      return math::AcosOp::create(b_, loc_, v);
    case OpKind::ArcTan:
      return math::AtanOp::create(b_, loc_, v);
    case OpKind::Sinh:
      return math::SinhOp::create(b_, loc_, v);
    case OpKind::Cosh:
      return math::CoshOp::create(b_, loc_, v);
    case OpKind::ArcSinh:
      return math::AsinhOp::create(b_, loc_, v);
    case OpKind::ArcCosh:
      return math::AcoshOp::create(b_, loc_, v);
    case OpKind::ArcTanh:
      return math::AtanhOp::create(b_, loc_, v);
    case OpKind::Exp2:
      return math::Exp2Op::create(b_, loc_, v);
    case OpKind::Expm1:
      return math::ExpM1Op::create(b_, loc_, v);
    case OpKind::Log1p:
      return math::Log1pOp::create(b_, loc_, v);
    case OpKind::Cbrt:
      return math::CbrtOp::create(b_, loc_, v);
    case OpKind::Trunc:
      return math::TruncOp::create(b_, loc_, v);
    // One multiplication by the constant in t, as NumPy's loops.
    case OpKind::Deg2Rad:
      return arith::MulFOp::create(b_, loc_, v,
                                   constant(t, std::numbers::pi / 180.0, 0));
    case OpKind::Rad2Deg:
      return arith::MulFOp::create(b_, loc_, v,
                                   constant(t, 180.0 / std::numbers::pi, 0));
    case OpKind::Square:
      return arith::MulFOp::create(b_, loc_, v, v);
    case OpKind::Positive:
      return v;
    case OpKind::Sign: {
      // 1, -1, NaN for NaN, and +0 for both zeros (NumPy: sign(-0.0) is 0.0).
      Value z = zero(t);
      Value pos = arith::CmpFOp::create(b_, loc_, arith::CmpFPredicate::OGT, v, z);
      Value neg = arith::CmpFOp::create(b_, loc_, arith::CmpFPredicate::OLT, v, z);
      Value r = arith::SelectOp::create(b_, loc_, isNan(v, t), v, z);
      r = arith::SelectOp::create(b_, loc_, neg, constant(t, -1.0, -1), r);
      return arith::SelectOp::create(b_, loc_, pos, one(t), r);
    }
    case OpKind::Conj:
    case OpKind::Real: return v;
    case OpKind::Imag: return zero(t);
    case OpKind::Arg: {
      // pi for a negative sign bit (-0.0 included), 0 otherwise, NaN for
      // NaN. (Not atan2(0, x): MLIR folds atan2(0, 0) to NaN.)
      Value sign = math::CopySignOp::create(b_, loc_, one(t), v);
      Value negative = arith::CmpFOp::create(b_, loc_, arith::CmpFPredicate::OLT, sign, zero(t));
      Value r = arith::SelectOp::create(b_, loc_, negative, constant(t, std::numbers::pi, 0), zero(t));
      return arith::SelectOp::create(b_, loc_, isNan(v, t), v, r);
    }
    default: return {};
    }
  }
  if (k == TypeKind::Int) {
    switch (op) {
    case OpKind::Neg: return arith::SubIOp::create(b_, loc_, zero(t), v);
    case OpKind::Abs: {
      // (math.absi has no LLVM translation at every width.) INT_MIN stays
      // INT_MIN, as NumPy's wrap-around.
      if (isUnsigned(t)) return v;
      Value neg = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, v, zero(t));
      return arith::SelectOp::create(b_, loc_, neg, arith::SubIOp::create(b_, loc_, zero(t), v), v);
    }
    case OpKind::Floor:
    case OpKind::Ceil:
    case OpKind::Round:
    case OpKind::Trunc:
    case OpKind::Positive:
    case OpKind::Conj:
    case OpKind::Real: return v;
    case OpKind::Square:
      return arith::MulIOp::create(b_, loc_, v, v); // wraps, as NumPy
    case OpKind::Invert:
      return arith::XOrIOp::create(b_, loc_, v, constant(t, -1.0, -1));
    case OpKind::Imag: return zero(t);
    case OpKind::Sign: {
      Value z = zero(t);
      Value pos = arith::CmpIOp::create(b_, loc_, isUnsigned(t) ? arith::CmpIPredicate::ne : arith::CmpIPredicate::sgt,
                                        v, z);
      Value neg = arith::CmpIOp::create(b_, loc_, isUnsigned(t) ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt, v, z);
      Value r = arith::SelectOp::create(b_, loc_, neg, constant(t, -1.0, -1), z);
      return arith::SelectOp::create(b_, loc_, pos, one(t), r);
    }
    default: return {};
    }
  }
  if (k == TypeKind::Bool) {
    switch (op) {
    case OpKind::Not:
    case OpKind::Invert:
      return arith::XOrIOp::create(b_, loc_, v, one(t));
    case OpKind::Trunc:
    case OpKind::Abs:
    case OpKind::Conj:
    case OpKind::Real:
    case OpKind::Floor: // keep the dtype, as for integers
    case OpKind::Ceil:
    case OpKind::Round:
    case OpKind::Sign: return v;
    case OpKind::Imag: return zero(t);
    default: return {};
    }
  }
  // Complex.
  switch (op) {
  case OpKind::Neg: {
    Parts x = parts(v);
    return complexOf({arith::NegFOp::create(b_, loc_, x.re), arith::NegFOp::create(b_, loc_, x.im)}, t);
  }
  case OpKind::Exp: return complexExp(v, t);
  case OpKind::Log: return complexLog(v, t);
  case OpKind::Log2:
  case OpKind::Log10: {
    // log(z) / ln(base), dividing each part by the real constant (a complex
    // division would turn log(0) = -inf + 0j into NaNs).
    ElementType r = realPart(t);
    double base = op == OpKind::Log2 ? std::numbers::ln2 : std::numbers::ln10;
    Value l = complexLog(v, t), c = constant(r, base, 0);
    Value re = arith::DivFOp::create(b_, loc_, complex::ReOp::create(b_, loc_, l), c);
    Value im = arith::DivFOp::create(b_, loc_, complex::ImOp::create(b_, loc_, l), c);
    return complex::CreateOp::create(b_, loc_, type(t), re, im);
  }
  case OpKind::Round: {
    Value re = math::RoundEvenOp::create(b_, loc_, complex::ReOp::create(b_, loc_, v));
    Value im = math::RoundEvenOp::create(b_, loc_, complex::ImOp::create(b_, loc_, v));
    return complex::CreateOp::create(b_, loc_, type(t), re, im);
  }
  case OpKind::Sqrt: return complex::SqrtOp::create(b_, loc_, v);
  case OpKind::Rint:
    return unary(OpKind::Round, v, t);
  case OpKind::Sinh:
    return complexOf(complexSinh(parts(v), realPart(t)), t);
  case OpKind::Cosh:
    return complexOf(complexCosh(parts(v), realPart(t)), t);
  case OpKind::Exp2: {
    // exp(z ln 2), scaling each part (NumPy's nc_exp2).
    ElementType r = realPart(t);
    Value ln2 = constant(r, std::numbers::ln2, 0);
    Parts z = parts(v);
    return complexExp(complexOf({arith::MulFOp::create(b_, loc_, z.re, ln2),
                                 arith::MulFOp::create(b_, loc_, z.im, ln2)},
                                t),
                      t);
  }
  case OpKind::Square:
    return complexOf(complexMultiply(parts(v), parts(v), realPart(t)), t);
  case OpKind::Positive:
    return v;
  case OpKind::Sin:
  case OpKind::Cos:
  case OpKind::Tan: return complexTrig(op, v, t);
  case OpKind::Tanh: return complexHyperbolicTanh(v, t);
  case OpKind::Conj: return complex::ConjOp::create(b_, loc_, v);
  case OpKind::Abs: {
    // |z| is inf when either part is, even if the other is NaN (hypot).
    ElementType r = realPart(t);
    Value inf = constant(r, std::numeric_limits<double>::infinity(), 0);
    return arith::SelectOp::create(b_, loc_, isInf(v, t), inf, complex::AbsOp::create(b_, loc_, v));
  }
  case OpKind::Real: return complex::ReOp::create(b_, loc_, v);
  case OpKind::Imag: return complex::ImOp::create(b_, loc_, v);
  case OpKind::Arg: return complex::AngleOp::create(b_, loc_, v);
  case OpKind::Sign: {
    // NumPy 2: z / |z| and 0 for 0; one infinite part: its unit direction,
    // even if the other part is NaN; both infinite: NaN; else NaN in: NaN out.
    ElementType r = realPart(t);
    Value re = complex::ReOp::create(b_, loc_, v), im = complex::ImOp::create(b_, loc_, v);
    Value mag = complex::AbsOp::create(b_, loc_, v);
    Value isZero = arith::CmpFOp::create(b_, loc_, arith::CmpFPredicate::OEQ, mag, zero(r));
    Value q = complex::CreateOp::create(b_, loc_, type(t), arith::DivFOp::create(b_, loc_, re, mag),
                                        arith::DivFOp::create(b_, loc_, im, mag));
    Value infRe = isInf(re, r), infIm = isInf(im, r);
    Value nanC = constant(t, std::complex<double>(std::nan(""), std::nan("")), 0);
    Value unitRe = complex::CreateOp::create(b_, loc_, type(t), unary(OpKind::Sign, re, r), zero(r));
    Value unitIm = complex::CreateOp::create(b_, loc_, type(t), zero(r), unary(OpKind::Sign, im, r));
    Value finite = arith::SelectOp::create(b_, loc_, isZero, zero(t), q);
    Value oneInf = arith::SelectOp::create(b_, loc_, infRe, unitRe, arith::SelectOp::create(b_, loc_, infIm, unitIm, finite));
    // (A NaN part without an infinite one gives NaN through |z|.)
    Value bothInf = arith::AndIOp::create(b_, loc_, infRe, infIm);
    return arith::SelectOp::create(b_, loc_, bothInf, nanC, oneInf);
  }
  default: return {};
  }
}

Value ScalarBuilder::binaryFunction(OpKind op, Value a, Value x,
                                    ElementType t) {
  TypeKind k = kindOf(t);
  auto select = [&](Value c, Value p, Value q) {
    return arith::SelectOp::create(b_, loc_, c, p, q).getResult();
  };
  auto cmpf = [&](arith::CmpFPredicate p, Value l, Value r) {
    return arith::CmpFOp::create(b_, loc_, p, l, r).getResult();
  };
  if (k == TypeKind::Float) {
    switch (op) {
    case OpKind::ArcTan2:
      return math::Atan2Op::create(b_, loc_, a, x);
    case OpKind::CopySign:
      return math::CopySignOp::create(b_, loc_, a, x);
    case OpKind::Hypot: {
      // max * sqrt(1 + (min / max)^2): no overflow or underflow in between;
      // an infinite operand gives inf even beside a NaN (C's hypot).
      Value fa = math::AbsFOp::create(b_, loc_, a),
            fx = math::AbsFOp::create(b_, loc_, x);
      Value hi = arith::MaximumFOp::create(b_, loc_, fa, fx),
            lo = arith::MinimumFOp::create(b_, loc_, fa, fx);
      Value q = arith::DivFOp::create(b_, loc_, lo, hi);
      Value r = arith::MulFOp::create(
          b_, loc_, hi,
          math::SqrtOp::create(
              b_, loc_,
              arith::AddFOp::create(b_, loc_, one(t),
                                    arith::MulFOp::create(b_, loc_, q, q))));
      r = select(cmpf(arith::CmpFPredicate::OEQ, hi, zero(t)), zero(t), r);
      Value inf = constant(t, std::numeric_limits<double>::infinity(), 0);
      Value anyInf = arith::OrIOp::create(b_, loc_, isInf(a, t), isInf(x, t));
      return select(anyInf, inf, r);
    }
    case OpKind::LogAddExp:
    case OpKind::LogAddExp2: {
      // NumPy's npy_logaddexp(2): equal operands (infinities too) give
      // a + log(2) (a + 1); else the larger plus log1p(exp(-|a - b|)).
      const bool two = op == OpKind::LogAddExp2;
      Value d = arith::SubFOp::create(b_, loc_, a, x);
      Value pos = cmpf(arith::CmpFPredicate::OGT, d, zero(t));
      Value big = select(pos, a, x);
      Value negAbs = select(pos, arith::NegFOp::create(b_, loc_, d), d);
      Value e = two ? Value(math::Exp2Op::create(b_, loc_, negAbs))
                    : Value(math::ExpOp::create(b_, loc_, negAbs));
      Value l = math::Log1pOp::create(b_, loc_, e);
      if (two)
        l = arith::MulFOp::create(b_, loc_, l,
                                  constant(t, std::numbers::log2e, 0));
      Value r = arith::AddFOp::create(b_, loc_, big, l);
      r = select(isNan(d, t), d, r);
      Value same = arith::AddFOp::create(
          b_, loc_, a, two ? one(t) : constant(t, std::numbers::ln2, 0));
      return select(cmpf(arith::CmpFPredicate::OEQ, a, x), same, r);
    }
    case OpKind::FMax:
    case OpKind::FMin: {
      // NumPy: (a > b || isnan(b)) ? a : b, and (a < b || isnan(b)) ? a : b
      // (b on ties, as maximum).
      Value keep = cmpf(op == OpKind::FMax ? arith::CmpFPredicate::OGT
                                           : arith::CmpFPredicate::OLT,
                        a, x);
      return select(arith::OrIOp::create(b_, loc_, keep, isNan(x, t)), a, x);
    }
    default:
      return {};
    }
  }
  if (k == TypeKind::Int || k == TypeKind::Bool) {
    const bool u = k == TypeKind::Bool || isUnsigned(t);
    switch (op) {
    case OpKind::BitAnd:
      return arith::AndIOp::create(b_, loc_, a, x);
    case OpKind::BitOr:
      return arith::OrIOp::create(b_, loc_, a, x);
    case OpKind::BitXor:
      return arith::XOrIOp::create(b_, loc_, a, x);
    case OpKind::FMax:
    case OpKind::FMin: {
      arith::CmpIPredicate p =
          op == OpKind::FMax
              ? (u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge)
              : (u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle);
      return select(arith::CmpIOp::create(b_, loc_, p, a, x), a, x);
    }
    case OpKind::LeftShift:
    case OpKind::RightShift: {
      if (k == TypeKind::Bool)
        return {};
      // NumPy: a count at or past the width, or negative (a huge unsigned
      // count to NumPy), gives 0, or -1 for a negative a shifted right.
      unsigned bits = a.getType().getIntOrFloatBitWidth();
      Value width = arith::ConstantOp::create(
          b_, loc_, b_.getIntegerAttr(a.getType(), bits));
      Value inRange =
          arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ult, x, width);
      Value count = select(inRange, x, zero(t));
      if (op == OpKind::LeftShift)
        return select(inRange, arith::ShLIOp::create(b_, loc_, a, count),
                      zero(t));
      if (u)
        return select(inRange, arith::ShRUIOp::create(b_, loc_, a, count),
                      zero(t));
      Value negative = arith::CmpIOp::create(
          b_, loc_, arith::CmpIPredicate::slt, a, zero(t));
      Value past = select(negative, constant(t, -1.0, -1), zero(t));
      return select(inRange, arith::ShRSIOp::create(b_, loc_, a, count), past);
    }
    default:
      return {};
    }
  }
  return {};
}

Value ScalarBuilder::isNan(Value v, ElementType t) {
  switch (kindOf(t)) {
  case TypeKind::Float: return arith::CmpFOp::create(b_, loc_, arith::CmpFPredicate::UNO, v, v);
  case TypeKind::Complex: {
    ElementType r = realPart(t);
    return arith::OrIOp::create(b_, loc_, isNan(complex::ReOp::create(b_, loc_, v), r),
                                isNan(complex::ImOp::create(b_, loc_, v), r));
  }
  default: return arith::ConstantOp::create(b_, loc_, b_.getBoolAttr(false));
  }
}

Value ScalarBuilder::isInf(Value v, ElementType t) {
  switch (kindOf(t)) {
  case TypeKind::Float: {
    Value a = math::AbsFOp::create(b_, loc_, v);
    Value inf = constant(t, std::numeric_limits<double>::infinity(), 0);
    return arith::CmpFOp::create(b_, loc_, arith::CmpFPredicate::OEQ, a, inf);
  }
  case TypeKind::Complex: {
    ElementType r = realPart(t);
    return arith::OrIOp::create(b_, loc_, isInf(complex::ReOp::create(b_, loc_, v), r),
                                isInf(complex::ImOp::create(b_, loc_, v), r));
  }
  default: return arith::ConstantOp::create(b_, loc_, b_.getBoolAttr(false));
  }
}

static bool isComparison(OpKind k) {
  return k == OpKind::Eq || k == OpKind::Ne || k == OpKind::Lt || k == OpKind::Le || k == OpKind::Gt ||
         k == OpKind::Ge;
}

/// The type an operation computes in, from its operands (NumPy promotion,
/// weak scalars) and its result type.
ElementType computeType(const Node &n) {
  if (isComparison(n.op) || n.op == OpKind::IsNan || n.op == OpKind::IsInf ||
      n.op == OpKind::IsFinite || n.op == OpKind::SignBit ||
      n.op == OpKind::Real || n.op == OpKind::Imag || n.op == OpKind::Arg ||
      n.op == OpKind::Abs || n.op == OpKind::Cast) {
    if (n.op == OpKind::Cast || n.operands.size() == 1) {
      ElementType t = n.operands[0]->type;
      // abs/real/imag/arg of an integer give a float result in NumPy only for arg.
      if (n.op == OpKind::Arg && kindOf(t) != TypeKind::Complex) return n.type;
      return t;
    }
    const Node &a = *n.operands[0], &b = *n.operands[1];
    if (a.isArray() && b.isArray()) return promote(a.type, b.type);
    // An integer array compared with an integer scalar compares in int64, so
    // a scalar outside the array's range compares by value (uint8 200 > -2),
    // not wrapped into the array's dtype (docs/operations.md).
    auto intScalar = [](const Node &o) {
      return !o.isArray() && (kindOf(o.type) == TypeKind::Int || kindOf(o.type) == TypeKind::Bool);
    };
    ElementType t = a.isArray()   ? promoteWithScalar(a.type, b.type)
                    : b.isArray() ? promoteWithScalar(b.type, a.type)
                                  : promote(a.type, b.type);
    if (isComparison(n.op) && kindOf(t) == TypeKind::Int && (intScalar(a) || intScalar(b))) return ElementType::Int64;
    return t;
  }
  if (n.op == OpKind::And || n.op == OpKind::Or || n.op == OpKind::Not ||
      n.op == OpKind::LogicalXor)
    return ElementType::Bool;
  return n.type;
}

Value emitElementwise(ScalarBuilder &sb, const Node &n, ArrayRef<Value> vals, const NodeErrorFn &onError) {
  auto typeOf = [&](unsigned i) { return n.operands[i]->type; };
  auto fail = [&](const std::string &why) {
    onError(n, why);
    return Value();
  };
  ElementType ct = computeType(n);
  auto castAll = [&](ElementType to) {
    SmallVector<Value> out;
    for (unsigned i = 0; i < vals.size(); ++i) out.push_back(sb.cast(vals[i], typeOf(i), to));
    return out;
  };
  switch (n.op) {
  case OpKind::Lambda: {
    // The lambda's element function (RawKernelGen.h) takes the operands in
    // their own types and returns the node's; LLVM inlines it.
    if (n.lambdaSymbol.empty())
      return fail("kilnc: internal error: no element function for this lambda");
    Type result = sb.type(n.type);
    return func::CallOp::create(sb.builder(), sb.loc(), n.lambdaSymbol, TypeRange{result}, vals).getResult(0);
  }
  case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div: case OpKind::Rem:
  case OpKind::Pow: case OpKind::Maximum: case OpKind::Minimum: {
    auto v = castAll(ct);
    Value r = sb.arithmetic(n.op, v[0], v[1], ct);
    if (!r) return fail(std::string("operation '") + opName(n.op) + "' is not supported on " +
                        runtimeDTypeName(ct) + " arrays");
    return r;
  }
  case OpKind::Eq: case OpKind::Ne: case OpKind::Lt: case OpKind::Le: case OpKind::Gt: case OpKind::Ge: {
    auto v = castAll(ct);
    Value r = sb.compare(n.op, v[0], v[1], ct);
    if (!r) return fail(std::string("ordering comparison '") + opName(n.op) + "' of complex arrays is not supported");
    return r;
  }
  case OpKind::And: case OpKind::Or: {
    auto v = castAll(ElementType::Bool);
    return n.op == OpKind::And ? Value(arith::AndIOp::create(sb.builder(), sb.loc(), v[0], v[1]))
                               : Value(arith::OrIOp::create(sb.builder(), sb.loc(), v[0], v[1]));
  }
  case OpKind::Where: {
    Value c = sb.cast(vals[0], typeOf(0), ElementType::Bool);
    Value a = sb.cast(vals[1], typeOf(1), n.type), x = sb.cast(vals[2], typeOf(2), n.type);
    return arith::SelectOp::create(sb.builder(), sb.loc(), c, a, x);
  }
  case OpKind::Clip: {
    auto v = castAll(n.type);
    if (kindOf(n.type) == TypeKind::Complex) return fail("clip of complex arrays is not supported");
    return sb.clip(v[0], v[1], v[2], n.type,
                   !n.operands[1]->isArray() && !n.operands[2]->isArray());
  }
  case OpKind::IsClose: {
  // np.isclose: (|a - b| <= atol + rtol * |b| & isfinite(b)) | (a == b),
  // | isnan(a) & isnan(b) with equal_nan; computed in result_type(b, 1.0).
  const Node &a = *n.operands[0], &b = *n.operands[1];
  ElementType pt = a.isArray() && b.isArray() ? promote(a.type, b.type)
                   : a.isArray()             ? promoteWithScalar(a.type, b.type)
                                             : promoteWithScalar(b.type, a.type);
  ElementType ft = kindOf(pt) == TypeKind::Bool || kindOf(pt) == TypeKind::Int ? ElementType::Float64 : pt;
  ElementType rt = realPart(ft);
  OpBuilder &ob = sb.builder();
  Location l = sb.loc();
  Value x = sb.cast(vals[0], typeOf(0), ft), y = sb.cast(vals[1], typeOf(1), ft);
  Value rtol = sb.cast(vals[2], typeOf(2), rt), atol = sb.cast(vals[3], typeOf(3), rt);
  Value equalNan = sb.cast(vals[4], typeOf(4), ElementType::Bool);
  Value diff = sb.arithmetic(OpKind::Sub, x, y, ft);
  Value absDiff = sb.unary(OpKind::Abs, diff, ft), absY = sb.unary(OpKind::Abs, y, ft);
  Value bound = arith::AddFOp::create(ob, l, atol, arith::MulFOp::create(ob, l, rtol, absY));
  Value close = arith::CmpFOp::create(ob, l, arith::CmpFPredicate::OLE, absDiff, bound);
  Value finiteY = arith::XOrIOp::create(ob, l, arith::OrIOp::create(ob, l, sb.isNan(y, ft), sb.isInf(y, ft)),
                                        sb.constant(ElementType::Bool, 1.0, 1));
  Value equal = sb.compare(OpKind::Eq, x, y, ft);
  Value r = arith::OrIOp::create(ob, l, arith::AndIOp::create(ob, l, close, finiteY), equal);
  Value bothNan = arith::AndIOp::create(ob, l, sb.isNan(x, ft), sb.isNan(y, ft));
  return arith::OrIOp::create(ob, l, r, arith::AndIOp::create(ob, l, equalNan, bothNan));
}
case OpKind::IsFinite: {
  Value bad =
      arith::OrIOp::create(sb.builder(), sb.loc(), sb.isNan(vals[0], typeOf(0)),
                           sb.isInf(vals[0], typeOf(0)));
  return arith::XOrIOp::create(sb.builder(), sb.loc(), bad,
                               sb.constant(ElementType::Bool, 1.0, 1));
}
case OpKind::SignBit: {
  ElementType t = typeOf(0);
  OpBuilder &ob = sb.builder();
  Location l = sb.loc();
  switch (kindOf(t)) {
  case TypeKind::Float: { // the sign bit itself: -0.0 and a NaN with it set too
    unsigned bits = t == ElementType::Float32 ? 32 : 64;
    Value i = arith::BitcastOp::create(ob, l, ob.getIntegerType(bits), vals[0]);
    Value z = arith::ConstantOp::create(
        ob, l, ob.getIntegerAttr(ob.getIntegerType(bits), 0));
    return arith::CmpIOp::create(ob, l, arith::CmpIPredicate::slt, i, z);
  }
  case TypeKind::Int:
    if (!isUnsigned(t))
      return arith::CmpIOp::create(ob, l, arith::CmpIPredicate::slt, vals[0],
                                   sb.constant(t, 0.0, 0));
    [[fallthrough]];
  case TypeKind::Bool:
    return sb.constant(ElementType::Bool, 0.0, 0);
  case TypeKind::Complex:
    return fail("'signbit' is not supported on complex arrays");
  }
  return Value();
}
case OpKind::LogicalXor: {
  auto v = castAll(ElementType::Bool);
  return arith::XOrIOp::create(sb.builder(), sb.loc(), v[0], v[1]);
}
case OpKind::ArcTan2:
case OpKind::Hypot:
case OpKind::CopySign:
case OpKind::LogAddExp:
case OpKind::LogAddExp2:
case OpKind::FMax:
case OpKind::FMin:
case OpKind::BitAnd:
case OpKind::BitOr:
case OpKind::BitXor:
case OpKind::LeftShift:
case OpKind::RightShift: {
  auto v = castAll(n.type);
  Value r = sb.binaryFunction(n.op, v[0], v[1], n.type);
  if (!r)
    return fail(std::string("'") + opName(n.op) + "' is not supported on " +
                runtimeDTypeName(n.type) + " arrays");
  return r;
}
case OpKind::Gcd:
case OpKind::Lcm: {
  auto v = castAll(n.type);
  if (kindOf(n.type) != TypeKind::Int)
    return fail(std::string("'") + opName(n.op) + "' is not supported on " +
                runtimeDTypeName(n.type) + " arrays");
  return sb.gcdOrLcm(n.op == OpKind::Lcm, v[0], v[1], n.type);
}
case OpKind::Ldexp: {
  if (kindOf(n.type) != TypeKind::Float ||
      !(kindOf(typeOf(1)) == TypeKind::Int ||
        kindOf(typeOf(1)) == TypeKind::Bool))
    return fail("'ldexp' takes a real array and an integer exponent");
  return sb.ldexp(sb.cast(vals[0], typeOf(0), n.type),
                  sb.cast(vals[1], typeOf(1), ElementType::Int64), n.type);
}
case OpKind::NanToNum: {
  auto v = castAll(n.type);
  return sb.nanToNum(v[0], v[1], v[2], v[3], n.type);
}
case OpKind::Reciprocal:
case OpKind::Sinc:
case OpKind::Spacing:
case OpKind::NextAfter:
case OpKind::Heaviside:
case OpKind::FMod:
case OpKind::FloorDivide:
case OpKind::FloatPower: {
  auto v = castAll(n.type);
  Value r = sb.ufunc(n.op, v[0], v.size() > 1 ? v[1] : Value(), n.type);
  if (!r)
    return fail(std::string("'") + opName(n.op) + "' is not supported on " +
                runtimeDTypeName(n.type) + " arrays");
  return r;
}
case OpKind::Angle: {
  // arg(x), times 180 / pi (in the result's type) when deg.
  ElementType in = kindOf(typeOf(0)) == TypeKind::Complex ? typeOf(0) : n.type;
  Value r =
      sb.cast(sb.unary(OpKind::Arg, sb.cast(vals[0], typeOf(0), in), in),
              kindOf(in) == TypeKind::Complex ? realPart(in) : in, n.type);
  Value degrees =
      arith::MulFOp::create(sb.builder(), sb.loc(), r,
                            sb.constant(n.type, 180 / std::numbers::pi, 0));
  return arith::SelectOp::create(sb.builder(), sb.loc(),
                                 sb.cast(vals[1], typeOf(1), ElementType::Bool),
                                 degrees, r);
}
case OpKind::RoundDecimals: {
  Value d = sb.cast(vals[1], typeOf(1), ElementType::Int64);
  Value r = sb.roundDecimals(sb.cast(vals[0], typeOf(0), n.type), d, n.type);
  if (!r)
    return fail(std::string("'round' with decimals is not supported on ") +
                runtimeDTypeName(n.type) + " arrays");
  return r;
}
case OpKind::BitwiseCount: {
  Value r = sb.bitwiseCount(vals[0], typeOf(0));
  if (!r)
    return fail(std::string("'bitwise_count' is not supported on ") +
                runtimeDTypeName(typeOf(0)) + " arrays");
  return r;
}
case OpKind::IsNan:
  return sb.isNan(vals[0], typeOf(0));
case OpKind::IsInf:
  return sb.isInf(vals[0], typeOf(0));
case OpKind::Cast:
  return sb.cast(vals[0], typeOf(0), n.type);
case OpKind::Abs:
case OpKind::Real:
case OpKind::Imag:
case OpKind::Arg: {
  // The operation runs in the operand's type; the result may be real.
  ElementType in = kindOf(typeOf(0)) == TypeKind::Complex ? typeOf(0) : n.type;
  Value v = sb.cast(vals[0], typeOf(0), in);
  Value r = sb.unary(n.op, v, in);
  if (!r)
    return fail(std::string("'") + opName(n.op) + "' is not supported on " +
                runtimeDTypeName(in) + " arrays");
  return sb.cast(r, kindOf(in) == TypeKind::Complex ? realPart(in) : in,
                 n.type);
  }
  default: {
    Value v = sb.cast(vals[0], typeOf(0), n.type);
    Value r = sb.unary(n.op, v, n.type);
    if (!r) return fail(std::string("'") + opName(n.op) + "' is not supported on " + runtimeDTypeName(n.type) + " arrays");
    return r;
  }
  }
}


} // namespace kiln::frontend
