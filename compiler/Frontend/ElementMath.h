//===- Frontend/ElementMath.h - One element of an array operation -*- C++ -*-===//
//
// The scalar computation of Kiln's elementwise operations inside a linalg
// region, with NumPy's semantics: casts (astype), promotion to the
// computation type, Python-style remainder, integer division by zero giving
// 0, NaN-propagating maximum/minimum, round half to even (docs/operations.md
// lists them). Both kernel families build their regions from it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ELEMENTMATH_H
#define KILN_FRONTEND_ELEMENTMATH_H

#include "Frontend/ArrayExpr.h"

#include "mlir/IR/Builders.h"

#include <complex>
#include <functional>
#include <string>

namespace kiln::frontend {

/// Reports a problem with a node of the tree (the frontend shows it as a
/// clang diagnostic at the node's source location).
using NodeErrorFn = std::function<void(const Node &, const std::string &)>;

/// Builds the scalar computation of one element inside a linalg region.
class ScalarBuilder {
public:
  ScalarBuilder(mlir::OpBuilder &b, mlir::Location loc) : b_(b), loc_(loc), ctx_(*b.getContext()) {}
  mlir::Type type(ElementType t) { return valueType(ctx_, t); }
  mlir::OpBuilder &builder() { return b_; }
  mlir::Location loc() const { return loc_; }
  mlir::Value constant(ElementType t, std::complex<double> v, long long iv);
  mlir::Value zero(ElementType t) { return constant(t, 0.0, 0); }
  mlir::Value one(ElementType t) { return constant(t, 1.0, 1); }
  /// NumPy's cast (astype) from `from` to `to`.
  mlir::Value cast(mlir::Value v, ElementType from, ElementType to);
  mlir::Value isNonZero(mlir::Value v, ElementType t);
  /// A binary arithmetic operation in type `t`.
  mlir::Value arithmetic(OpKind op, mlir::Value a, mlir::Value x, ElementType t);
  /// a ** b on integers by square-and-multiply, wrapping like NumPy. A
  /// constant exponent becomes a chain of multiplications; a variable one an
  /// unrolled, branch-free loop over its bits. Negative exponents give
  /// math.ipowi's answer (1 for a == 1, +-1 for a == -1, else 0); the eager
  /// runtime raises NumPy's error instead.
  mlir::Value intPow(mlir::Value a, mlir::Value e, ElementType t);
  /// NumPy's npy_divmod of floats: the floor quotient a // b and Python's
  /// remainder a % b (fmod moved to the sign of b), each with NumPy's
  /// signed zeros and a / b, fmod's NaN for b == 0. Unused halves fold away.
  struct FloatDivmod {
    mlir::Value quotient, remainder;
  };
  FloatDivmod floatDivmod(mlir::Value a, mlir::Value x, ElementType t);
  /// An integer divisor made safe: 1 where it is 0 (and -1 for signed
  /// types, where INT_MIN / -1 traps); `isZero`, `isMinusOne` (false for
  /// unsigned) and `special` (either) say where.
  struct SafeDivisor {
    mlir::Value divisor, isZero, isMinusOne, special;
  };
  SafeDivisor safeDivisor(mlir::Value x, ElementType t);
  /// Python's a % b for integers; b == 0 gives 0 (NumPy), never a trap.
  mlir::Value intRemainder(mlir::Value a, mlir::Value x, ElementType t);
  /// np.clip(x, lo, hi) in type `t` (reals): lo where x < lo, then hi where
  /// that is > hi, NaN from any operand. Ties (the sign of a zero) as
  /// NumPy's two loops: x with two scalar bounds, else the bound.
  mlir::Value clip(mlir::Value x, mlir::Value lo, mlir::Value hi, ElementType t,
                   bool scalarBounds);
  /// np.gcd (or np.lcm) of integers: Euclid's loop (scf.while) on the
  /// magnitudes as unsigned integers, as NumPy; lcm = |a| / gcd * |b|,
  /// wrapping, 0 when both are 0.
  mlir::Value gcdOrLcm(bool lcm, mlir::Value a, mlir::Value x, ElementType t);
  /// np.ldexp: x * 2^e (e an i64), rounded once: musl's scalbn, exact
  /// powers of two applied in up to three steps.
  mlir::Value ldexp(mlir::Value x, mlir::Value e, ElementType t);
  /// np.nan_to_num: NaN, +inf, -inf replaced (complex: in each part, by the
  /// real parts of the replacements); integers unchanged.
  mlir::Value nanToNum(mlir::Value x, mlir::Value nan, mlir::Value posinf,
                       mlir::Value neginf, ElementType t);
  mlir::Value compare(OpKind op, mlir::Value a, mlir::Value x, ElementType t);
  /// A binary function in type `t` (operands cast to `t`): arctan2, hypot,
  /// copysign, logaddexp(2), fmax, fmin, the bitwise operations and shifts;
  /// null where NumPy has no loop for `t`.
  mlir::Value binaryFunction(OpKind op, mlir::Value a, mlir::Value x,
                             ElementType t);
  /// A unary function in type `t` (the operand already cast to `t`).
  mlir::Value unary(OpKind op, mlir::Value v, ElementType t);
  /// The ufuncs of UfuncMath.cpp in type `t` (operands cast to `t`; `x`
  /// null for the unary ones): reciprocal, sinc, spacing, nextafter,
  /// heaviside, fmod, floor_divide, float_power. Null where NumPy has no
  /// loop for `t`.
  mlir::Value ufunc(OpKind op, mlir::Value a, mlir::Value x, ElementType t);
  /// np.round(a, d) of `a` of type `t` (d an i64): rint(a * 10^d) / 10^d
  /// (a / 10^-d, rounded, times 10^-d for negative d), complex parts each;
  /// integers round half to even to a multiple of 10^-d.
  mlir::Value roundDecimals(mlir::Value a, mlir::Value d, ElementType t);
  /// np.bitwise_count of an integer or bool `a` of type `t`, as uint8.
  mlir::Value bitwiseCount(mlir::Value a, ElementType t);
  mlir::Value isNan(mlir::Value v, ElementType t);
  mlir::Value isInf(mlir::Value v, ElementType t);

  /// Complex functions on the parts, with NumPy's answers for infinite, NaN
  /// and zero parts (ComplexMath.cpp): NumPy's Smith division, and C99
  /// Annex G for exp, log, sin, cos, tan (`op`) and tanh.
  mlir::Value complexDivide(mlir::Value a, mlir::Value x, ElementType t);
  /// a ** x as NumPy's npy_cpow (exact for small integer exponents).
  mlir::Value complexPow(mlir::Value a, mlir::Value x, ElementType t);
  mlir::Value complexExp(mlir::Value z, ElementType t);
  mlir::Value complexLog(mlir::Value z, ElementType t);
  mlir::Value complexTrig(OpKind op, mlir::Value z, ElementType t);
  mlir::Value complexHyperbolicTanh(mlir::Value z, ElementType t);

private:
  /// A complex value as its real and imaginary parts.
  struct Parts {
    mlir::Value re, im;
  };
  Parts parts(mlir::Value z);
  mlir::Value complexOf(Parts p, ElementType t);
  /// NumPy's cmul (no recovery of infinities); `r` is the part type.
  Parts complexMultiply(Parts a, Parts x, ElementType r);
  /// C99 Annex G's multiply (__muldc3), which glibc's cpow uses.
  Parts c99Multiply(Parts a, Parts x, ElementType r);
  Parts complexSinh(Parts z, ElementType r);
  Parts complexCosh(Parts z, ElementType r);
  Parts complexTanh(Parts z, ElementType r);

  mlir::OpBuilder &b_;
  mlir::Location loc_;
  mlir::MLIRContext &ctx_;
};

/// The type an operation computes in, from its operands (NumPy promotion,
/// weak scalars) and its result type.
ElementType computeType(const Node &n);

/// The value of elementwise node `n` (an Op) on one element, from the values
/// of its operands (each in its node's type; bool as i1). The result has
/// n.type (bool as i1). Reports an operation Kiln cannot compile on these
/// types through `onError` and returns null.
mlir::Value emitElementwise(ScalarBuilder &sb, const Node &n, llvm::ArrayRef<mlir::Value> operands,
                            const NodeErrorFn &onError);

} // namespace kiln::frontend

#endif
