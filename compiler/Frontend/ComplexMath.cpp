//===- Frontend/ComplexMath.cpp - Complex functions with NumPy's answers --===//
//
// Complex division and the complex elementary functions, written out on
// the real and imaginary parts so that infinite and NaN parts give NumPy's
// answers: NumPy's Smith division (npy's complex divide loop) and C99 Annex
// G for exp, log, sin, cos, tan and tanh (NumPy calls the C library's
// cexp, clog, csin, ...). MLIR's complex-to-standard expansions are the
// textbook formulas, which turn inf * 0 into NaN parts (sin(nan + 0j) is
// nan + nan j there, NumPy's is nan + 0j).
//
// Each function computes the formula for finite parts, then selects the
// Annex G value where a part is infinite, NaN or zero: branch-free, so the
// same code serves the GPU and the host vector loops.
//
//===----------------------------------------------------------------------===//
#include "Frontend/ElementMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace kiln::frontend {

namespace {

/// Real-part helpers on one float type, for the expansions below.
class PartMath {
public:
  PartMath(ScalarBuilder &sb, ElementType r) : sb_(sb), b_(sb.builder()), loc_(sb.loc()), r_(r) {}

  Value c(double v) { return sb_.constant(r_, v, 0); }
  Value nan() { return c(std::numeric_limits<double>::quiet_NaN()); }
  Value add(Value a, Value x) { return arith::AddFOp::create(b_, loc_, a, x); }
  Value sub(Value a, Value x) { return arith::SubFOp::create(b_, loc_, a, x); }
  Value mul(Value a, Value x) { return arith::MulFOp::create(b_, loc_, a, x); }
  Value div(Value a, Value x) { return arith::DivFOp::create(b_, loc_, a, x); }
  Value neg(Value a) { return arith::NegFOp::create(b_, loc_, a); }
  Value abs(Value a) { return math::AbsFOp::create(b_, loc_, a); }
  Value copysign(Value mag, Value sign) { return math::CopySignOp::create(b_, loc_, mag, sign); }
  Value exp(Value a) { return math::ExpOp::create(b_, loc_, a); }
  Value log(Value a) { return math::LogOp::create(b_, loc_, a); }
  Value sin(Value a) { return math::SinOp::create(b_, loc_, a); }
  Value cos(Value a) { return math::CosOp::create(b_, loc_, a); }
  Value sinh(Value a) { return math::SinhOp::create(b_, loc_, a); }
  Value cosh(Value a) { return math::CoshOp::create(b_, loc_, a); }
  Value atan2(Value y, Value x) { return math::Atan2Op::create(b_, loc_, y, x); }
  Value cmp(arith::CmpFPredicate p, Value a, Value x) { return arith::CmpFOp::create(b_, loc_, p, a, x); }
  Value isZero(Value a) { return cmp(arith::CmpFPredicate::OEQ, a, c(0)); }
  Value isNan(Value a) { return cmp(arith::CmpFPredicate::UNO, a, a); }
  Value isInf(Value a) { return cmp(arith::CmpFPredicate::OEQ, abs(a), c(INFINITY)); }
  /// Neither infinite nor NaN.
  Value isFinite(Value a) { return cmp(arith::CmpFPredicate::OLT, abs(a), c(INFINITY)); }
  Value pick(Value cond, Value a, Value x) { return arith::SelectOp::create(b_, loc_, cond, a, x); }
  Value both(Value a, Value x) { return arith::AndIOp::create(b_, loc_, a, x); }
  Value either(Value a, Value x) { return arith::OrIOp::create(b_, loc_, a, x); }
  Value no(Value a) { return arith::XOrIOp::create(b_, loc_, a, arith::ConstantOp::create(b_, loc_, b_.getBoolAttr(true))); }

  /// glibc's cexp/csinh/ccosh beyond exp's range: e^ax * (a, b) for a
  /// finite ax > t (t = 709 in double, 88 in float), with e^t multiplied
  /// into a and b step by step (halved first for sinh and cosh), so that a
  /// product that fits is not lost to an overflowing e^ax. `inRange` is set
  /// to whether the scaled form applies (ax > t and finite).
  std::pair<Value, Value> scaledExp(Value ax, Value a, Value bv, bool half, Value &inRange) {
    const bool f32 = r_ == ElementType::Float32;
    const double t = f32 ? 88.0 : 709.0;
    const double et = f32 ? static_cast<double>(std::exp(88.0f)) : std::exp(709.0);
    const double max = f32 ? static_cast<double>(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
    inRange = both(cmp(arith::CmpFPredicate::OGT, ax, c(t)), isFinite(ax));
    Value f = c(half ? et / 2 : et);
    a = mul(a, f);
    bv = mul(bv, f);
    Value x = sub(ax, c(t));
    Value again = cmp(arith::CmpFPredicate::OGT, x, c(t));
    a = pick(again, mul(a, c(et)), a);
    bv = pick(again, mul(bv, c(et)), bv);
    x = pick(again, sub(x, c(t)), x);
    // Beyond 3t the result overflows whatever a and b are: DBL_MAX * (a, b).
    Value e = pick(cmp(arith::CmpFPredicate::OGT, x, c(t)), c(max), exp(x));
    return {mul(e, a), mul(e, bv)};
  }

private:
  ScalarBuilder &sb_;
  OpBuilder &b_;
  Location loc_;
  ElementType r_;
};

} // namespace

ScalarBuilder::Parts ScalarBuilder::parts(Value z) {
  return {complex::ReOp::create(b_, loc_, z), complex::ImOp::create(b_, loc_, z)};
}

Value ScalarBuilder::complexOf(Parts p, ElementType t) { return complex::CreateOp::create(b_, loc_, type(t), p.re, p.im); }

Value ScalarBuilder::complexDivide(Value a, Value x, ElementType t) {
  // NumPy's loop: Smith's algorithm on the larger part of the divisor; a
  // zero divisor divides each part by |0| (inf or NaN parts).
  PartMath m(*this, realPart(t));
  auto [ar, ai] = parts(a);
  auto [br, bi] = parts(x);
  Value absR = m.abs(br), absI = m.abs(bi);
  Value realLarger = m.cmp(arith::CmpFPredicate::OGE, absR, absI);
  Value zero = m.both(m.isZero(br), m.isZero(bi));
  // |br| >= |bi|: rat = bi / br.
  Value rat1 = m.div(bi, br), scl1 = m.div(m.c(1), m.add(br, m.mul(bi, rat1)));
  Value re1 = m.mul(m.add(ar, m.mul(ai, rat1)), scl1), im1 = m.mul(m.sub(ai, m.mul(ar, rat1)), scl1);
  // |br| < |bi| (or a NaN part): rat = br / bi.
  Value rat2 = m.div(br, bi), scl2 = m.div(m.c(1), m.add(bi, m.mul(br, rat2)));
  Value re2 = m.mul(m.add(m.mul(ar, rat2), ai), scl2), im2 = m.mul(m.sub(m.mul(ai, rat2), ar), scl2);
  Value re = m.pick(zero, m.div(ar, absR), m.pick(realLarger, re1, re2));
  Value im = m.pick(zero, m.div(ai, absR), m.pick(realLarger, im1, im2));
  return complexOf({re, im}, t);
}

ScalarBuilder::Parts ScalarBuilder::complexMultiply(Parts a, Parts x, ElementType r) {
  // NumPy's cmul: the textbook formula, no recovery of infinities.
  PartMath m(*this, r);
  return {m.sub(m.mul(a.re, x.re), m.mul(a.im, x.im)), m.add(m.mul(a.re, x.im), m.mul(a.im, x.re))};
}

ScalarBuilder::Parts ScalarBuilder::c99Multiply(Parts p, Parts q, ElementType r) {
  // C99 Annex G's multiply (__muldc3): the textbook product, and where both
  // parts come out NaN, infinite operands are taken as unit directions
  // (NaN parts beside them as signed zeros) and the product scaled to inf.
  PartMath m(*this, r);
  auto [a, b] = p;
  auto [c, d] = q;
  Parts product = complexMultiply(p, q, r);
  auto unit = [&](Value v) { return m.copysign(m.pick(m.isInf(v), m.c(1), m.c(0)), v); };
  auto zeroIfNan = [&](Value v) { return m.pick(m.isNan(v), m.copysign(m.c(0), v), v); };
  Value infP = m.either(m.isInf(a), m.isInf(b)), infQ = m.either(m.isInf(c), m.isInf(d));
  Value overflow = m.either(m.either(m.isInf(m.mul(a, c)), m.isInf(m.mul(b, d))),
                            m.either(m.isInf(m.mul(a, d)), m.isInf(m.mul(b, c))));
  // Neither operand infinite but a partial product overflowed: every NaN
  // part becomes a signed zero.
  Value viaOverflow = m.both(m.no(m.either(infP, infQ)), overflow);
  auto recover = [&](Value v, Value infHere, Value infThere) {
    return m.pick(infHere, unit(v), m.pick(m.either(infThere, viaOverflow), zeroIfNan(v), v));
  };
  Parts p1{recover(a, infP, infQ), recover(b, infP, infQ)}, q1{recover(c, infQ, infP), recover(d, infQ, infP)};
  Parts scaled = complexMultiply(p1, q1, r);
  Value inf = m.c(INFINITY);
  Value recalc = m.both(m.both(m.isNan(product.re), m.isNan(product.im)), m.either(m.either(infP, infQ), overflow));
  return {m.pick(recalc, m.mul(inf, scaled.re), product.re), m.pick(recalc, m.mul(inf, scaled.im), product.im)};
}

Value ScalarBuilder::complexPow(Value a, Value x, ElementType t) {
  // NumPy's npy_cpow: x == 0 gives 1; a == 0 gives 0 for x with a positive real part,
  // else NaN; an integer x in (-100, 100) multiplies exactly (1, 2 and 3
  // unrolled, so a = inf + 1j ** 1 stays a; a negative one divides 1 by the
  // product); anything else is exp(x log a).
  ElementType r = realPart(t);
  PartMath m(*this, r);
  auto [ar, ai] = parts(a);
  auto [br, bi] = parts(x);
  auto mul = [&](Value p, Value q) { return complexOf(complexMultiply(parts(p), parts(q), r), t); };
  // glibc's cpow is cexp(x * clog(a)) with C's complex multiply, which
  // recovers infinities from NaN products (__muldc3).
  Value general = complexExp(complexOf(c99Multiply(parts(x), parts(complexLog(a, t)), r), t), t);
  // The integer exponent, made safe to convert where it is not one.
  Value mag = m.abs(br);
  Value isInt = m.both(m.both(m.isZero(bi), m.cmp(arith::CmpFPredicate::OEQ, math::FloorOp::create(b_, loc_, mag), mag)),
                       m.cmp(arith::CmpFPredicate::OLT, mag, m.c(100)));
  Value safe = m.pick(isInt, mag, m.c(0));
  Type i32 = b_.getI32Type();
  Value n = arith::FPToSIOp::create(b_, loc_, i32, safe);
  Value one = complexOf({m.c(1), m.c(0)}, t);
  Value acc = one, p = a;
  for (int bit = 0; bit < 7; ++bit) { // |n| < 128
    Value mask = arith::ConstantOp::create(b_, loc_, b_.getI32IntegerAttr(1 << bit));
    Value set = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ne, arith::AndIOp::create(b_, loc_, n, mask),
                                      arith::ConstantOp::create(b_, loc_, b_.getI32IntegerAttr(0)));
    acc = arith::SelectOp::create(b_, loc_, set, mul(acc, p), acc);
    if (bit < 6)
      p = mul(p, p);
  }
  Value negative = m.cmp(arith::CmpFPredicate::OLT, br, m.c(0));
  Value integer = arith::SelectOp::create(b_, loc_, negative, complexDivide(one, acc, t), acc);
  Value sq = mul(a, a);
  auto isN = [&](double v) { return m.cmp(arith::CmpFPredicate::OEQ, br, m.c(v)); };
  integer = arith::SelectOp::create(b_, loc_, isN(3), mul(a, sq), integer);
  integer = arith::SelectOp::create(b_, loc_, isN(2), sq, integer);
  integer = arith::SelectOp::create(b_, loc_, isN(1), a, integer);
  Value result = arith::SelectOp::create(b_, loc_, isInt, integer, general);
  Value zeroA = m.both(m.isZero(ar), m.isZero(ai));
  Value positiveReal = m.cmp(arith::CmpFPredicate::OGT, br, m.c(0));
  Value nanC = complexOf({m.nan(), m.nan()}, t);
  Value zeroC = complexOf({m.c(0), m.c(0)}, t);
  result = arith::SelectOp::create(b_, loc_, zeroA, arith::SelectOp::create(b_, loc_, positiveReal, zeroC, nanC), result);
  return arith::SelectOp::create(b_, loc_, m.both(m.isZero(br), m.isZero(bi)), one, result);
}

Value ScalarBuilder::complexExp(Value z, ElementType t) {
  PartMath m(*this, realPart(t));
  auto [x, y] = parts(z);
  Value e = m.exp(x);
  Value cy = m.cos(y), sy = m.sin(y);
  Value re = m.mul(e, cy), im = m.mul(e, sy);
  Value scaled;
  auto [sre, sim] = m.scaledExp(x, cy, sy, /*half=*/false, scaled);
  re = m.pick(scaled, sre, re);
  im = m.pick(scaled, sim, im);
  // exp(x + 0j) = exp(x) + 0j for every x; an infinite x with a non-finite
  // y: inf + nan j, or 0 + 0j for -inf.
  Value yNotFinite = m.no(m.isFinite(y)), xInf = m.isInf(x);
  Value xNegative = m.cmp(arith::CmpFPredicate::OLT, x, m.c(0));
  Value infCase = m.both(xInf, yNotFinite);
  re = m.pick(infCase, m.pick(xNegative, m.c(0), x), re);
  im = m.pick(infCase, m.pick(xNegative, m.copysign(m.c(0), y), m.nan()), im);
  re = m.pick(m.both(m.isZero(y), m.no(scaled)), e, re);
  im = m.pick(m.isZero(y), y, im);
  return complexOf({re, im}, t);
}

Value ScalarBuilder::complexLog(Value z, ElementType t) {
  // log|z| + i arg z, with |z| = inf when either part is (even with a NaN
  // other part), as C99's clog.
  PartMath m(*this, realPart(t));
  auto [x, y] = parts(z);
  Value re = m.log(unary(OpKind::Abs, z, t));
  return complexOf({re, m.atan2(y, x)}, t);
}

ScalarBuilder::Parts ScalarBuilder::complexSinh(Parts z, ElementType r) {
  PartMath m(*this, r);
  auto [x, y] = z;
  Value cy = m.cos(y), sy = m.sin(y);
  Value re = m.mul(m.sinh(x), cy), im = m.mul(m.cosh(x), sy);
  Value scaled;
  auto [sre, sim] = m.scaledExp(m.abs(x), m.pick(m.cmp(arith::CmpFPredicate::OLT, x, m.c(0)), m.neg(cy), cy), sy,
                                /*half=*/true, scaled);
  re = m.pick(scaled, sre, re);
  im = m.pick(scaled, sim, im);
  // csinh(x + 0j) = sinh(x) + 0j; a zero or infinite x with a non-finite y
  // keeps x as the real part (the imaginary part is NaN).
  Value yNotFinite = m.no(m.isFinite(y));
  re = m.pick(m.both(yNotFinite, m.either(m.isZero(x), m.isInf(x))), x, re);
  im = m.pick(m.isZero(y), y, im);
  return {re, im};
}

ScalarBuilder::Parts ScalarBuilder::complexCosh(Parts z, ElementType r) {
  PartMath m(*this, r);
  auto [x, y] = z;
  Value cy = m.cos(y), sy = m.sin(y);
  Value re = m.mul(m.cosh(x), cy), im = m.mul(m.sinh(x), sy);
  Value scaled;
  auto [sre, sim] = m.scaledExp(m.abs(x), cy, m.pick(m.cmp(arith::CmpFPredicate::OLT, x, m.c(0)), m.neg(sy), sy),
                                /*half=*/true, scaled);
  re = m.pick(scaled, sre, re);
  im = m.pick(scaled, sim, im);
  // ccosh(x + 0j) = cosh(x) + 0j (signed as sinh(x) * 0); an infinite x with
  // a non-finite y: inf + nan j; a zero x with a non-finite y: nan + 0j.
  Value yNotFinite = m.no(m.isFinite(y));
  re = m.pick(m.both(yNotFinite, m.isInf(x)), m.c(INFINITY), re);
  im = m.pick(m.both(yNotFinite, m.isZero(x)), x, im);
  im = m.pick(m.isZero(y), m.mul(y, m.copysign(m.c(1), x)), im);
  return {re, im};
}

ScalarBuilder::Parts ScalarBuilder::complexTanh(Parts z, ElementType r) {
  PartMath m(*this, r);
  auto [x, y] = z;
  // Finite parts: (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y);
  // beyond |x| = 20, tanh x rounds to +-1 in double and the imaginary part
  // is 4 sin y cos y e^-2|x| (no overflow of sinh^2).
  Value s = m.sinh(x), ch = m.cosh(x), sy = m.sin(y), cy = m.cos(y);
  Value den = m.add(m.mul(s, s), m.mul(cy, cy));
  Value re = m.div(m.mul(s, ch), den), im = m.div(m.mul(sy, cy), den);
  Value large = m.cmp(arith::CmpFPredicate::OGT, m.abs(x), m.c(20));
  Value unit = m.copysign(m.c(1), x);
  Value tail = m.mul(m.mul(m.c(4), m.mul(sy, cy)), m.exp(m.mul(m.c(-2), m.abs(x))));
  re = m.pick(large, unit, re);
  im = m.pick(large, tail, im);
  // Annex G: an infinite x gives +-1 + 0j (the zero signed as sin 2y for a
  // finite y beyond 1, else as y); a zero x with a non-finite y: x + nan j;
  // NaN + 0j stays; any other non-finite part: nan + nan j.
  Value yFinite = m.isFinite(y), xInf = m.isInf(x);
  Value finite = m.both(m.isFinite(x), yFinite);
  Value signedBy = m.pick(m.both(yFinite, m.cmp(arith::CmpFPredicate::OGT, m.abs(y), m.c(1))), m.mul(sy, cy), y);
  Value nf = m.no(finite);
  re = m.pick(nf, m.nan(), re);
  im = m.pick(nf, m.nan(), im);
  Value nanReal = m.both(nf, m.isZero(y));
  im = m.pick(nanReal, y, im);
  Value zeroReal = m.both(nf, m.isZero(x));
  re = m.pick(zeroReal, x, re);
  re = m.pick(xInf, unit, re);
  im = m.pick(xInf, m.copysign(m.c(0), signedBy), im);
  return {re, im};
}

Value ScalarBuilder::complexTrig(OpKind op, Value z, ElementType t) {
  // sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz), with
  // iz = -y + ix (C99 defines them so, special values included).
  ElementType r = realPart(t);
  auto [x, y] = parts(z);
  Parts iz{arith::NegFOp::create(b_, loc_, y), x};
  if (op == OpKind::Cos)
    return complexOf(complexCosh(iz, r), t);
  Parts h = op == OpKind::Sin ? complexSinh(iz, r) : complexTanh(iz, r);
  Parts w{h.im, arith::NegFOp::create(b_, loc_, h.re)}; // -i (a + ib) = b - ia
  if (op == OpKind::Sin) {
    // Annex G leaves the sign of the infinite part unspecified for a
    // non-finite x and an infinite y; glibc's csin (NumPy's) gives +inf.
    PartMath m(*this, r);
    w.im = m.pick(m.both(m.no(m.isFinite(x)), m.isInf(y)), m.c(INFINITY), w.im);
  }
  return complexOf(w, t);
}

Value ScalarBuilder::complexHyperbolicTanh(Value z, ElementType t) {
  return complexOf(complexTanh(parts(z), realPart(t)), t);
}

} // namespace kiln::frontend
