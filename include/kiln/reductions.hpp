//===- kiln/reductions.hpp - Reductions over axes ----------------*- C++ -*-===//
//
// sum, prod, mean, max, min, argmax, argmin, all, any, var, std and
// count_nonzero over all axes (a 0-d array), one axis or several, with
// NumPy's result dtypes, NaN rules, empty-array rules and errors; isclose and
// allclose. In a file compiled by kilnc these calls become (fused) reduction
// kernels; elsewhere they run eagerly through the runtime
// (runtime/ops/reductions). docs/operations.md lists every rule and each
// departure from NumPy.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/axes.hpp"
#include "kiln/ops.hpp"
#include "kiln/promote.hpp"

#include <cstdint>

namespace kiln {

namespace detail {

/// Every reduction the runtime evaluates eagerly.
enum class reduction : std::uint8_t {
  sum,
  prod,
  mean,
  max,
  min,
  argmax,
  argmin,
  all,
  any,
  var,
  std,
  count_nonzero,
};

/// NumPy's name of a reduction ("sum", "maximum" for max, "argmax", ...), as
/// NumPy's error messages spell it.
const char *reduction_name(reduction r) noexcept;

/// The dtype reduction `r` gives on an array of dtype `t`.
dtype reduction_result_dtype(reduction r, dtype t) noexcept;

/// Evaluates a reduction on the host (CUDA arrays are copied to the host and
/// the result back, as the other eager operations). Errors: index_error for
/// an axis out of range, value_error for a repeated axis, for max, min,
/// argmax and argmin of an empty axis, and for argmax/argmin over a list of
/// axes. `ddof` is used by var and std only.
array_base reduce(reduction r, const array_base &x, const axes &ax, bool keepdims, std::int64_t ddof = 0);

/// np.isclose on two operands (arrays or scalars), broadcast.
array_base isclose(const operand &a, const operand &b, double rtol, double atol, bool equal_nan);

template <element R, element T>
array<R> run_reduction(reduction r, const array<T> &x, const axes &ax, bool keepdims, std::int64_t ddof = 0) {
  return array<R>(reduce(r, x, ax, keepdims, ddof));
}

} // namespace detail

//===----------------------------------------------------------------------===//
// Sums and products
//===----------------------------------------------------------------------===//

/// The sum over `ax` (every axis by default). bool and integers sum in
/// int64, wrapping on overflow as NumPy; floats are summed pairwise (a tree),
/// the same bits from run to run. An empty sum is 0.
template <element T>
array<sum_result_t<T>> sum(const array<T> &x, const axes &ax = all, bool keepdims = false) {
  return detail::run_reduction<sum_result_t<T>>(detail::reduction::sum, x, ax, keepdims);
}

/// The product over `ax`, in the dtype sum uses. An empty product is 1.
template <element T>
array<sum_result_t<T>> prod(const array<T> &x, const axes &ax = all, bool keepdims = false) {
  return detail::run_reduction<sum_result_t<T>>(detail::reduction::prod, x, ax, keepdims);
}

/// The arithmetic mean over `ax`; bool and integers give float64. The mean
/// of an empty axis is NaN (NumPy warns).
template <element T>
array<mean_result_t<T>> mean(const array<T> &x, const axes &ax = all, bool keepdims = false) {
  return detail::run_reduction<mean_result_t<T>>(detail::reduction::mean, x, ax, keepdims);
}

/// The number of elements that are not zero (not false), as int64.
template <element T>
array<std::int64_t> count_nonzero(const array<T> &x, const axes &ax = all, bool keepdims = false) {
  return detail::run_reduction<std::int64_t>(detail::reduction::count_nonzero, x, ax, keepdims);
}

//===----------------------------------------------------------------------===//
// Extremes
//===----------------------------------------------------------------------===//

/// The largest element over `ax` (NumPy's max/amax); NaN if any element is
/// NaN. Complex numbers are ordered lexicographically (real part, then
/// imaginary part), as NumPy. An empty axis is a value_error.
template <element T> array<T> max(const array<T> &x, const axes &ax = all, bool keepdims = false) {
  return detail::run_reduction<T>(detail::reduction::max, x, ax, keepdims);
}

/// The smallest element over `ax`; the rules of max.
template <element T> array<T> min(const array<T> &x, const axes &ax = all, bool keepdims = false) {
  return detail::run_reduction<T>(detail::reduction::min, x, ax, keepdims);
}

/// The index of the largest element along one axis (or in the flattened
/// array for kiln::all), the first one on ties and the first NaN if there is
/// one. `ax` must be kiln::all or a single axis.
template <element T>
array<std::int64_t> argmax(const array<T> &x, const axes &ax = all, bool keepdims = false) {
  return detail::run_reduction<std::int64_t>(detail::reduction::argmax, x, ax, keepdims);
}

/// The index of the smallest element; the rules of argmax.
template <element T>
array<std::int64_t> argmin(const array<T> &x, const axes &ax = all, bool keepdims = false) {
  return detail::run_reduction<std::int64_t>(detail::reduction::argmin, x, ax, keepdims);
}

//===----------------------------------------------------------------------===//
// Truth
//===----------------------------------------------------------------------===//

/// kiln::all(x, ax, keepdims): true where every element over `ax` is
/// non-zero (true for an empty axis). `kiln::all` is also the whole-axis and
/// every-axis marker (kiln/axes.hpp).
template <element T> array<bool> all_t::operator()(const array<T> &x, const axes &ax, bool keepdims) const {
  return detail::run_reduction<bool>(detail::reduction::all, x, ax, keepdims);
}
template <element T> array<bool> all_t::operator()(const array<T> &x) const { return (*this)(x, *this, false); }
template <class P>
  requires requires(const P &p) { p.get(); }
array<bool> all_t::operator()(const P &p) const {
  return (*this)(p.get());
}
template <class P>
  requires requires(const P &p) { p.get(); }
array<bool> all_t::operator()(const P &p, const axes &ax, bool keepdims) const {
  return (*this)(p.get(), ax, keepdims);
}

/// True where some element over `ax` is non-zero (false for an empty axis).
template <element T> array<bool> any(const array<T> &x, const axes &ax = all, bool keepdims = false) {
  return detail::run_reduction<bool>(detail::reduction::any, x, ax, keepdims);
}

//===----------------------------------------------------------------------===//
// Moments
//===----------------------------------------------------------------------===//

/// The variance over `ax`: mean(|x - mean(x)|^2) * N / (N - ddof), computed
/// in one pass (Welford/Chan). bool and integers give float64, complex its
/// real type. N - ddof <= 0 gives inf (or NaN for an all-equal or empty axis)
/// as NumPy, which also warns.
template <element T>
array<var_result_t<T>> var(const array<T> &x, const axes &ax, kiln::ddof d, bool keepdims = false) {
  return detail::run_reduction<var_result_t<T>>(detail::reduction::var, x, ax, keepdims, d.value);
}
template <element T>
array<var_result_t<T>> var(const array<T> &x, const axes &ax = all, bool keepdims = false) {
  return var(x, ax, kiln::ddof(0), keepdims);
}

/// The standard deviation: sqrt(var(x, ax, ddof)).
template <element T>
array<var_result_t<T>> std(const array<T> &x, const axes &ax, kiln::ddof d, bool keepdims = false) {
  return detail::run_reduction<var_result_t<T>>(detail::reduction::std, x, ax, keepdims, d.value);
}
template <element T>
array<var_result_t<T>> std(const array<T> &x, const axes &ax = all, bool keepdims = false) {
  return kiln::std(x, ax, kiln::ddof(0), keepdims);
}

//===----------------------------------------------------------------------===//
// Closeness
//===----------------------------------------------------------------------===//

/// np.isclose: |a - b| <= atol + rtol * |b| elementwise (not symmetric, as
/// NumPy), infinities close only to themselves, NaN close to NaN only with
/// `equal_nan`. Operands broadcast; scalars mix in.
template <class A, class B>
  requires binary_operands<A, B>
array<bool> isclose(const A &a, const B &b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) {
  return array<bool>(detail::isclose(detail::operand(a), detail::operand(b), rtol, atol, equal_nan));
}

/// np.allclose: all(isclose(a, b, ...)), as a C++ bool (synchronizes).
template <class A, class B>
  requires binary_operands<A, B>
bool allclose(const A &a, const B &b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) {
  return kiln::all(isclose(a, b, rtol, atol, equal_nan)).item();
}

//===----------------------------------------------------------------------===//
// Methods of array<E>
//===----------------------------------------------------------------------===//

template <element E> array<sum_result_t<E>> array<E>::sum(const kiln::axes &ax, bool keepdims) const {
  return kiln::sum(*this, ax, keepdims);
}
template <element E> array<sum_result_t<E>> array<E>::prod(const kiln::axes &ax, bool keepdims) const {
  return kiln::prod(*this, ax, keepdims);
}
template <element E> array<mean_result_t<E>> array<E>::mean(const kiln::axes &ax, bool keepdims) const {
  return kiln::mean(*this, ax, keepdims);
}
template <element E> array<E> array<E>::max(const kiln::axes &ax, bool keepdims) const {
  return kiln::max(*this, ax, keepdims);
}
template <element E> array<E> array<E>::min(const kiln::axes &ax, bool keepdims) const {
  return kiln::min(*this, ax, keepdims);
}
template <element E> array<std::int64_t> array<E>::argmax(const kiln::axes &ax, bool keepdims) const {
  return kiln::argmax(*this, ax, keepdims);
}
template <element E> array<std::int64_t> array<E>::argmin(const kiln::axes &ax, bool keepdims) const {
  return kiln::argmin(*this, ax, keepdims);
}
template <element E> array<bool> array<E>::all(const kiln::axes &ax, bool keepdims) const {
  return kiln::all(*this, ax, keepdims);
}
template <element E> array<bool> array<E>::any(const kiln::axes &ax, bool keepdims) const {
  return kiln::any(*this, ax, keepdims);
}
template <element E> array<var_result_t<E>> array<E>::var(const kiln::axes &ax, bool keepdims) const {
  return kiln::var(*this, ax, keepdims);
}
template <element E>
array<var_result_t<E>> array<E>::var(const kiln::axes &ax, kiln::ddof d, bool keepdims) const {
  return kiln::var(*this, ax, d, keepdims);
}
template <element E> array<var_result_t<E>> array<E>::std(const kiln::axes &ax, bool keepdims) const {
  return kiln::std(*this, ax, keepdims);
}
template <element E>
array<var_result_t<E>> array<E>::std(const kiln::axes &ax, kiln::ddof d, bool keepdims) const {
  return kiln::std(*this, ax, d, keepdims);
}

} // namespace kiln
