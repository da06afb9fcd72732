//===- runtime/ops/isclose.cpp - np.isclose, eagerly ----------------------===//
//
// isclose on the host with NumPy's formula and types: b is first made
// inexact (result_type(b, 1.0): an integer or bool b becomes float64), then
// both operands are compared in their promoted type as
//
//   (|a - b| <= atol + rtol * |b| and b is finite) or a == b
//
// (or both NaN, with equal_nan), so an infinity is close only to itself.
// Operands broadcast and scalars mix in as in the elementwise operations.
//
//===----------------------------------------------------------------------===//
#include "eager_loop.hpp"
#include "scalar_math.hpp"

#include "kiln/reductions.hpp"

#include <cmath>
#include <complex>

namespace kiln::detail {

namespace {

/// The type isclose(a, b) computes in.
dtype isclose_dtype(const operand &a, const operand &b) {
  if (b.array) {
    const dtype bt = promote_weak(b.array->dtype(), scalar_kind::floating);
    return a.array ? promote_types(a.array->dtype(), bt)
                   : promote_weak(bt, a.scalar.kind);
  }
  // A scalar b is a weak float (a Python int becomes float(b)).
  const scalar_kind bk = b.scalar.kind == scalar_kind::complex
                             ? scalar_kind::complex
                             : scalar_kind::floating;
  return promote_weak(a.array->dtype(), bk);
}

template <class C> bool is_finite(C v) {
  if constexpr (host::is_complex_v<C>)
    return std::isfinite(v.real()) && std::isfinite(v.imag());
  else
    return std::isfinite(v);
}

template <class C>
array_base isclose_typed(const host_operands &in, const operand &a,
                         const operand &b, double rtol, double atol,
                         bool equal_nan) {
  // The tolerances are weak Python floats in NumPy: of C's precision.
  using R = decltype(std::abs(C{}));
  const R rt = static_cast<R>(rtol), at = static_cast<R>(atol);
  return apply(
      in.out,
      [=](C x, C y) {
        return (std::abs(x - y) <= at + rt * std::abs(y) && is_finite(y)) ||
               x == y || (equal_nan && math::has_nan(x) && math::has_nan(y));
      },
      prepare<C>(in.host[0], a.scalar, in.out),
      prepare<C>(in.host[1], b.scalar, in.out));
}

} // namespace

array_base isclose(const operand &a, const operand &b, double rtol, double atol,
                   bool equal_nan) {
  if (!a.array && !b.array)
    throw value_error("isclose: at least one operand must be an array");
  const operand args[] = {a, b};
  const host_operands in(args);
  array_base result = host::dispatch(isclose_dtype(a, b), [&]<class C>() {
    if constexpr (std::is_floating_point_v<C> || host::is_complex_v<C>)
      return isclose_typed<C>(in, a, b, rtol, atol, equal_nan);
    else // isclose_dtype is always inexact
      return array_base();
  });
  return in.to_device(std::move(result));
}

} // namespace kiln::detail
