//===- kiln/indexing.hpp - Boolean masks and integer indices ------*- C++ -*-===//
//
// NumPy's advanced indexing. `x[mask]` (an array<bool> of x's shape, or of
// its leading dimensions) and `x[idx]` (an integer array: rows along axis 0)
// are proxies: converted to an array they gather (a new C-contiguous array,
// the selected elements in C order); `= v` and `op= v` scatter into x.
// Out-of-range indices raise index_error (CuPy wraps them; Kiln follows
// NumPy), negative ones count from the end, and duplicate indices keep the
// value of their last occurrence, deterministically (CuPy leaves it
// undefined). `x[idx] op= v` is NumPy's buffered update: each destination
// changes once. In a file kilnc compiles, `x[m] = f(w[m], ...)` with one
// mask m is one fused kernel writing where(m, f(w, ...), x) into x
// (docs/user-guide.md, "Masks and integer indexing").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/compound.hpp"
#include "kiln/creation.hpp"
#include "kiln/ops.hpp"
#include "kiln/reductions.hpp"

#include <optional>
#include <vector>

namespace kiln {
namespace detail {
// Untyped (runtime/kernels/indexing.cpp); NumPy's checks and messages.
array_base mask_gather(const array_base &x, const array_base &mask);
void mask_scatter(const array_base &x, const array_base &mask, const array_base &values);
/// np.take(x, idx, axis) (mode 'raise'); no axis: over the flattened x.
array_base take(const array_base &x, const array_base &idx, std::optional<std::int64_t> axis);
/// x[idx] = values along axis 0 (flat: x.flat[idx] = values, np.put).
void index_scatter(const array_base &x, const array_base &idx, const array_base &values, bool flat);
std::vector<array_base> nonzero(const array_base &x);

/// `v` as an array of E on `dev` (a scalar becomes 0-d).
template <element E, class V> array_base value_array(const V &v, device dev) {
  if constexpr (std::is_base_of_v<array_base, V>)
    return v;
  else
    return full<E>(shape{}, static_cast<E>(v), dev);
}
} // namespace detail

/// `x[mask]`: a gather when read, a scatter when assigned.
template <element E> class mask_proxy {
public:
  mask_proxy(array<E> x, array<bool> mask) : x_(std::move(x)), mask_(std::move(mask)) {}
  mask_proxy(const mask_proxy &) = default;

  /// The selected elements (rows), a new array.
  array<E> get() const { return array<E>(detail::mask_gather(x_, mask_)); }
  operator array<E>() const { return get(); }
  /// The gather converted to U.
  template <element U> array<U> astype() const { return get().template astype<U>(); }

  /// x[mask] = v: v (an array of one value, or one per selected element,
  /// or a scalar) converted to E.
  template <class V>
    requires std::is_base_of_v<array_base, V> || scalar<V>
  const mask_proxy &operator=(const V &v) const {
    detail::mask_scatter(x_, mask_, detail::value_array<E>(v, x_.device()));
    return *this;
  }
  template <element U> const mask_proxy &operator=(const mask_proxy<U> &v) const { return *this = v.get(); }
  const mask_proxy &operator=(const mask_proxy &v) const { return *this = v.get(); }

#define KILN_MASK_UPDATE(OP, UFUNC)                                                                            \
  template <class V>                                                                                             \
    requires requires(const array<E> &a, const V &v) { a OP v; }                                                \
  const mask_proxy &operator OP##=(const V &v) const {                                                          \
    auto result = get() OP v;                                                                                    \
    detail::check_same_kind(UFUNC, result.dtype(), dtype_of<E>);                                                 \
    return *this = result;                                                                                       \
  }
  KILN_MASK_UPDATE(+, "add")
  KILN_MASK_UPDATE(-, "subtract")
  KILN_MASK_UPDATE(*, "multiply")
  KILN_MASK_UPDATE(/, "divide")
#undef KILN_MASK_UPDATE

private:
  array<E> x_;
  array<bool> mask_;
};

/// `x[idx]` with an integer array: rows of x along axis 0.
template <element E> class index_proxy {
public:
  index_proxy(array<E> x, array_base idx) : x_(std::move(x)), idx_(std::move(idx)) {}
  index_proxy(const index_proxy &) = default;

  array<E> get() const { return array<E>(detail::take(x_, idx_, 0)); }
  operator array<E>() const { return get(); }
  /// The gather converted to U.
  template <element U> array<U> astype() const { return get().template astype<U>(); }

  /// x[idx] = v: v broadcast to the gathered shape and converted to E; with
  /// duplicate indices the last occurrence's value stays.
  template <class V>
    requires std::is_base_of_v<array_base, V> || scalar<V>
  const index_proxy &operator=(const V &v) const {
    detail::index_scatter(x_, idx_, detail::value_array<E>(v, x_.device()), false);
    return *this;
  }
  const index_proxy &operator=(const index_proxy &v) const { return *this = v.get(); }

#define KILN_INDEX_UPDATE(OP, UFUNC)                                                                           \
  template <class V>                                                                                             \
    requires requires(const array<E> &a, const V &v) { a OP v; }                                                \
  const index_proxy &operator OP##=(const V &v) const {                                                         \
    auto result = get() OP v;                                                                                    \
    detail::check_same_kind(UFUNC, result.dtype(), dtype_of<E>);                                                 \
    return *this = result;                                                                                       \
  }
  KILN_INDEX_UPDATE(+, "add")
  KILN_INDEX_UPDATE(-, "subtract")
  KILN_INDEX_UPDATE(*, "multiply")
  KILN_INDEX_UPDATE(/, "divide")
#undef KILN_INDEX_UPDATE

private:
  array<E> x_;
  array_base idx_;
};

template <element E> mask_proxy<E> array<E>::operator[](const array<bool> &mask) const { return {*this, mask}; }
template <element E>
template <element I>
  requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
index_proxy<E> array<E>::operator[](const array<I> &idx) const {
  return {*this, idx};
}

namespace detail {
// The proxies are array operands of the eager operations (a gather).
template <element E> struct operand_traits<mask_proxy<E>> : operand_traits<array<E>> {};
template <element E> struct operand_traits<index_proxy<E>> : operand_traits<array<E>> {};
} // namespace detail

// The unary functions take the proxies too (on their gather), as NumPy's do.
#define KILN_PROXY_UNARY(F)                                                                                    \
  template <element E> auto F(const mask_proxy<E> &p) { return F(p.get()); }                                  \
  template <element E> auto F(const index_proxy<E> &p) { return F(p.get()); }
KILN_PROXY_UNARY(exp)
KILN_PROXY_UNARY(log)
KILN_PROXY_UNARY(log2)
KILN_PROXY_UNARY(log10)
KILN_PROXY_UNARY(sqrt)
KILN_PROXY_UNARY(sin)
KILN_PROXY_UNARY(cos)
KILN_PROXY_UNARY(tan)
KILN_PROXY_UNARY(tanh)
KILN_PROXY_UNARY(abs)
KILN_PROXY_UNARY(sign)
KILN_PROXY_UNARY(floor)
KILN_PROXY_UNARY(ceil)
KILN_PROXY_UNARY(round)
KILN_PROXY_UNARY(isnan)
KILN_PROXY_UNARY(isinf)
KILN_PROXY_UNARY(real)
KILN_PROXY_UNARY(imag)
KILN_PROXY_UNARY(conj)
KILN_PROXY_UNARY(arg)
KILN_PROXY_UNARY(operator-)
KILN_PROXY_UNARY(operator!)
KILN_PROXY_UNARY(operator~)
KILN_PROXY_UNARY(sinh)
KILN_PROXY_UNARY(cosh)
KILN_PROXY_UNARY(exp2)
KILN_PROXY_UNARY(arcsin)
KILN_PROXY_UNARY(arccos)
KILN_PROXY_UNARY(arctan)
KILN_PROXY_UNARY(arcsinh)
KILN_PROXY_UNARY(arccosh)
KILN_PROXY_UNARY(arctanh)
KILN_PROXY_UNARY(expm1)
KILN_PROXY_UNARY(log1p)
KILN_PROXY_UNARY(cbrt)
KILN_PROXY_UNARY(deg2rad)
KILN_PROXY_UNARY(rad2deg)
KILN_PROXY_UNARY(radians)
KILN_PROXY_UNARY(degrees)
KILN_PROXY_UNARY(fabs)
KILN_PROXY_UNARY(rint)
KILN_PROXY_UNARY(trunc)
KILN_PROXY_UNARY(fix)
KILN_PROXY_UNARY(square)
KILN_PROXY_UNARY(positive)
KILN_PROXY_UNARY(negative)
KILN_PROXY_UNARY(absolute)
KILN_PROXY_UNARY(isfinite)
KILN_PROXY_UNARY(signbit)
KILN_PROXY_UNARY(invert)
#undef KILN_PROXY_UNARY

// clip and the reductions take them too.
template <element E, class L, class H> auto clip(const mask_proxy<E> &p, const L &lo, const H &hi) {
  return clip(p.get(), lo, hi);
}
template <element E, class L, class H> auto clip(const index_proxy<E> &p, const L &lo, const H &hi) {
  return clip(p.get(), lo, hi);
}
#define KILN_PROXY_REDUCTION(F)                                                                                \
  template <element E> auto F(const mask_proxy<E> &p, const axes &ax = all, bool keepdims = false) {           \
    return F(p.get(), ax, keepdims);                                                                           \
  }                                                                                                            \
  template <element E> auto F(const index_proxy<E> &p, const axes &ax = all, bool keepdims = false) {          \
    return F(p.get(), ax, keepdims);                                                                           \
  }
KILN_PROXY_REDUCTION(sum)
KILN_PROXY_REDUCTION(prod)
KILN_PROXY_REDUCTION(mean)
KILN_PROXY_REDUCTION(count_nonzero)
KILN_PROXY_REDUCTION(max)
KILN_PROXY_REDUCTION(min)
KILN_PROXY_REDUCTION(argmax)
KILN_PROXY_REDUCTION(argmin)
KILN_PROXY_REDUCTION(any)
KILN_PROXY_REDUCTION(var)
KILN_PROXY_REDUCTION(std)
#undef KILN_PROXY_REDUCTION
template <element E> auto var(const mask_proxy<E> &p, const axes &ax, kiln::ddof d, bool keepdims = false) {
  return var(p.get(), ax, d, keepdims);
}
template <element E> auto var(const index_proxy<E> &p, const axes &ax, kiln::ddof d, bool keepdims = false) {
  return var(p.get(), ax, d, keepdims);
}
template <element E> auto std(const mask_proxy<E> &p, const axes &ax, kiln::ddof d, bool keepdims = false) {
  return std(p.get(), ax, d, keepdims);
}
template <element E> auto std(const index_proxy<E> &p, const axes &ax, kiln::ddof d, bool keepdims = false) {
  return std(p.get(), ax, d, keepdims);
}

/// np.take(x, idx, axis): the elements of x at idx along `axis` (result
/// shape x.shape[:axis] + idx.shape + x.shape[axis+1:]).
template <element E, element I> array<E> take(const array<E> &x, const array<I> &idx, std::int64_t axis) {
  return array<E>(detail::take(x, idx, axis));
}
/// np.take(x, idx): over the flattened x (result shape idx.shape).
template <element E, element I> array<E> take(const array<E> &x, const array<I> &idx) {
  return array<E>(detail::take(x, idx, std::nullopt));
}
/// np.put(x, idx, v): x.flat[idx] = v (one value, or one per index).
template <element E, element I, class V>
  requires std::is_base_of_v<array_base, V> || scalar<V>
void put(const array<E> &x, const array<I> &idx, const V &v) {
  detail::index_scatter(x, idx, detail::value_array<E>(v, x.device()), true);
}
/// np.nonzero(x): the indices of the nonzero elements, one int64 array per
/// dimension (C order).
template <element E> std::vector<array<std::int64_t>> nonzero(const array<E> &x) {
  std::vector<array<std::int64_t>> out;
  for (array_base &a : detail::nonzero(x))
    out.emplace_back(std::move(a));
  return out;
}

} // namespace kiln
