//===- runtime/ops/reducers.hpp - What each eager reduction computes ------===//
//
// The reducers that reduction_loop.hpp runs, one a family: sums, products,
// means, extremes, arg-extremes, truth tests, counts and moments. Each is
// parameterized by a load policy, how an element enters the reduction:
// converted to the type the reduction computes in (convert_load), or mapped
// first (|x|, |x|^2 for linalg::norm). NumPy's semantics: integer sums and
// products wrap, extremes propagate NaN and order complex numbers
// lexicographically, arg-extremes give the first index (of a NaN if there
// is one), moments are Welford's and Chan's updates.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "host_loop.hpp"
#include "reduction_loop.hpp"
#include "scalar_math.hpp"

#include "kiln/reductions.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

namespace kiln::detail::reducers {

using host::is_complex_v;

/// Loads an element of T converted to In (NumPy's cast); in place when In
/// is T.
template <class T, class In> struct convert_load {
  using element = T;
  using input = In;
  static constexpr bool loads_in_place = std::is_same_v<T, In>;
  In load(T v) const { return host::convert<In>(v); }
};

/// Folds v[0..n) with `op` into eight interleaved accumulators, combined as
/// ((0 1) (2 3)) ((4 5) (6 7)), then the tail: the leaf of NumPy's pairwise
/// sum. The eight independent chains let the compiler vectorize.
template <class A, class Op> A fold8(const A *v, std::int64_t n, Op op) {
  if (n < 8) {
    A r = v[0];
    for (std::int64_t i = 1; i < n; ++i)
      r = op(r, v[i]);
    return r;
  }
  A acc[8];
  for (int j = 0; j < 8; ++j)
    acc[j] = v[j];
  std::int64_t i = 8;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j)
      acc[j] = op(acc[j], v[i + j]);
  A r = op(op(op(acc[0], acc[1]), op(acc[2], acc[3])),
           op(op(acc[4], acc[5]), op(acc[6], acc[7])));
  for (; i < n; ++i)
    r = op(r, v[i]);
  return r;
}

//===----------------------------------------------------------------------===//
// Sums, products, means
//===----------------------------------------------------------------------===//

/// The sum of the loaded elements; wrapping for integers.
template <class Load> struct sum_of : Load {
  using typename Load::input;
  using state = input;
  using result = input;
  static constexpr bool ordered = false;
  static constexpr bool pairwise = !std::is_integral_v<input>;

  state identity() const { return input(0); }
  state leaf(const input *v, std::int64_t n, std::int64_t) const {
    return fold8(v, n, [](input a, input b) { return math::add(a, b); });
  }
  void step(state &s, input v, std::int64_t) const { s = math::add(s, v); }
  state combine(state a, state b) const { return math::add(a, b); }
  result finish(state s) const { return s; }
};

/// The product of the loaded elements; wrapping for integers.
template <class Load> struct product_of : Load {
  using typename Load::input;
  using state = input;
  using result = input;
  static constexpr bool ordered = false;
  // Each product rounds once, in whatever order.
  static constexpr bool pairwise = false;

  state identity() const { return input(1); }
  state leaf(const input *v, std::int64_t n, std::int64_t) const {
    return fold8(v, n, [](input a, input b) { return math::multiply(a, b); });
  }
  void step(state &s, input v, std::int64_t) const { s = math::multiply(s, v); }
  state combine(state a, state b) const { return math::multiply(a, b); }
  result finish(state s) const { return s; }
};

/// The sum divided by `count`, the number of elements (NaN for none).
template <class Load> struct mean_of : sum_of<Load> {
  using typename Load::input;
  std::int64_t count = 0;

  input finish(input s) const {
    if constexpr (is_complex_v<input>) // NumPy divides by count + 0j: an infinite part gives a NaN beside it
      return math::true_divide(s, input(static_cast<typename input::value_type>(count), 0));
    else
      return s / static_cast<input>(count);
  }
};

//===----------------------------------------------------------------------===//
// Extremes
//===----------------------------------------------------------------------===//

/// a > b (Max) or a < b, in NumPy's order (lexicographic for complex).
template <bool Max, class T> bool beats(T a, T b) {
  return Max ? math::less(b, a) : math::less(a, b);
}

/// NumPy's maximum (Max) or minimum: the first operand with a NaN, else
/// the larger (smaller).
template <bool Max, class T> T extreme(T a, T b) {
  return Max ? math::maximum(a, b) : math::minimum(a, b);
}

/// The extreme of v[0..n), n >= 1: a NaN if there is one.
template <bool Max, class T> T fold_extreme(const T *v, std::int64_t n) {
  if constexpr (is_complex_v<T>) {
    // The first element with a NaN part, as NumPy's loop.
    T r = v[0];
    for (std::int64_t i = 1; i < n; ++i)
      r = extreme<Max>(r, v[i]);
    return r;
  } else {
    // Two loops the compiler vectorizes: is there a NaN, then a select.
    if constexpr (std::is_floating_point_v<T>) {
      unsigned char nan = 0;
      for (std::int64_t i = 0; i < n; ++i)
        nan |= v[i] != v[i];
      if (nan)
        return *std::find_if(v, v + n, [](T x) { return x != x; });
    }
    return fold8(v, n, [](T a, T b) { return beats<Max>(b, a) ? b : a; });
  }
}

[[noreturn]] inline void no_identity_error(reduction r) {
  throw value_error(std::string("zero-size array to reduction operation ") +
                    reduction_name(r) + " which has no identity");
}

/// The largest (Max) or smallest loaded element; the first NaN if any.
template <class Load, bool Max> struct extreme_of : Load {
  using typename Load::input;
  using state = input;
  using result = input;
  static constexpr bool ordered = false;
  static constexpr bool pairwise = false;

  [[noreturn]] void no_identity() const {
    no_identity_error(Max ? reduction::max : reduction::min);
  }
  state leaf(const input *v, std::int64_t n, std::int64_t) const {
    return fold_extreme<Max>(v, n);
  }
  void step(state &s, input v, std::int64_t) const { s = extreme<Max>(s, v); }
  state combine(state a, state b) const { return extreme<Max>(a, b); }
  result finish(state s) const { return s; }
};

/// An element and its index.
template <class T> struct indexed {
  T value{};
  std::int64_t index = 0;
};

/// The index of the largest (Max) or smallest loaded element: the first of
/// equal ones, the first NaN if there is one.
template <class Load, bool Max> struct arg_extreme_of : Load {
  using typename Load::input;
  using state = indexed<input>;
  using result = std::int64_t;
  static constexpr bool ordered = true;
  static constexpr bool pairwise = false;

  [[noreturn]] void no_identity() const {
    throw value_error(
        std::string("attempt to get ") +
        reduction_name(Max ? reduction::argmax : reduction::argmin) +
        " of an empty sequence");
  }
  state leaf(const input *v, std::int64_t n, std::int64_t first) const {
    if constexpr (is_complex_v<input>) {
      state s{v[0], first};
      for (std::int64_t i = 1; i < n; ++i)
        step(s, v[i], first + i);
      return s;
    } else {
      // The extreme (vectorized), then its first position.
      const input m = fold_extreme<Max>(v, n);
      std::int64_t i = 0;
      if (math::has_nan(m))
        while (!math::has_nan(v[i]))
          ++i;
      else
        while (v[i] != m)
          ++i;
      return {v[i], first + i};
    }
  }
  void step(state &s, input v, std::int64_t index) const {
    if (beats<Max>(v, s.value) || (math::has_nan(v) && !math::has_nan(s.value)))
      s = {v, index};
  }
  state combine(const state &a, const state &b) const {
    if (math::has_nan(a.value))
      return a;
    return math::has_nan(b.value) || beats<Max>(b.value, a.value) ? b : a;
  }
  result finish(const state &s) const { return s.index; }
};

//===----------------------------------------------------------------------===//
// Truth and counts (elements loaded as bool: non-zero)
//===----------------------------------------------------------------------===//

/// True when every (All) or some loaded element is true.
template <class Load, bool All> struct truth_of : Load {
  static_assert(std::is_same_v<typename Load::input, bool>);
  using state = bool;
  using result = bool;
  static constexpr bool ordered = false;
  static constexpr bool pairwise = false;

  state identity() const { return All; }
  state leaf(const bool *v, std::int64_t n, std::int64_t) const {
    unsigned char r = All;
    for (std::int64_t i = 0; i < n; ++i)
      r = All ? (r & v[i]) : (r | v[i]);
    return r;
  }
  void step(state &s, bool v, std::int64_t) const {
    s = All ? (s && v) : (s || v);
  }
  state combine(state a, state b) const { return All ? a && b : a || b; }
  result finish(state s) const { return s; }
};

/// The number of true loaded elements.
template <class Load> struct count_of : Load {
  static_assert(std::is_same_v<typename Load::input, bool>);
  using state = std::int64_t;
  using result = std::int64_t;
  static constexpr bool ordered = false;
  static constexpr bool pairwise = false;

  state identity() const { return 0; }
  state leaf(const bool *v, std::int64_t n, std::int64_t) const {
    // A leaf counts at most 128: in a byte, which vectorizes best.
    static_assert(host::leaf_size < 256);
    unsigned char c = 0;
    for (std::int64_t i = 0; i < n; ++i)
      c = static_cast<unsigned char>(c + v[i]);
    return c;
  }
  void step(state &s, bool v, std::int64_t) const { s += v; }
  state combine(state a, state b) const { return a + b; }
  result finish(state s) const { return s; }
};

//===----------------------------------------------------------------------===//
// Moments
//===----------------------------------------------------------------------===//

/// Count, mean and sum of squared deviations |x - mean|^2 of some elements.
template <class V> struct moments {
  std::int64_t n = 0;
  V mean{};
  double m2 = 0;
};

/// Re(a * conj(b)); a * b for reals.
template <class V> double real_dot(V a, V b) {
  if constexpr (is_complex_v<V>)
    return a.real() * b.real() + a.imag() * b.imag();
  else
    return a * b;
}

/// The variance (or with Sqrt the standard deviation) of the loaded
/// elements, m2 / max(n - ddof, 0), computed in double (complex<double>).
/// A leaf (in cache) is reduced in two passes, mean then squared
/// deviations; a lane appends with Welford's update; partial results merge
/// with Chan et al.'s parallel formula. R is the result type.
template <class Load, bool Sqrt, class R> struct moments_of : Load {
  using typename Load::input;
  static_assert(std::is_same_v<input, double> ||
                std::is_same_v<input, std::complex<double>>);
  using state = moments<input>;
  using result = R;
  static constexpr bool ordered = false;
  static constexpr bool pairwise = true;
  std::int64_t ddof = 0;

  state identity() const { return {}; }
  state leaf(const input *v, std::int64_t n, std::int64_t) const {
    const double count = static_cast<double>(n);
    const input mean =
        fold8(v, n, [](input a, input b) { return a + b; }) / count;
    double acc[8] = {};
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int j = 0; j < 8; ++j)
        acc[j] += real_dot(v[i + j] - mean, v[i + j] - mean);
    for (; i < n; ++i)
      acc[0] += real_dot(v[i] - mean, v[i] - mean);
    const double m2 = ((acc[0] + acc[1]) + (acc[2] + acc[3])) +
                      ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    return {n, mean, m2};
  }
  void step(state &s, input v, std::int64_t) const {
    ++s.n;
    const input d = v - s.mean;
    s.mean += d / static_cast<double>(s.n);
    s.m2 += real_dot(d, v - s.mean);
  }
  /// step() on `width` lanes that have seen the same number of elements:
  /// one division a row.
  void step_lanes(state *s, const input *v, std::int64_t width,
                  std::int64_t) const {
    const std::int64_t n = s[0].n + 1;
    const double inverse = 1 / static_cast<double>(n);
    for (std::int64_t w = 0; w < width; ++w) {
      s[w].n = n;
      const input d = v[w] - s[w].mean;
      s[w].mean += d * inverse;
      s[w].m2 += real_dot(d, v[w] - s[w].mean);
    }
  }
  state combine(const state &a, const state &b) const {
    const std::int64_t n = a.n + b.n;
    const double fb = static_cast<double>(b.n) / static_cast<double>(n);
    const input d = b.mean - a.mean;
    return {n, a.mean + d * fb,
            a.m2 + b.m2 + real_dot(d, d) * static_cast<double>(a.n) * fb};
  }
  result finish(const state &s) const {
    const double dof =
        std::max(static_cast<double>(s.n) - static_cast<double>(ddof), 0.0);
    const double var = s.m2 / dof;
    return static_cast<R>(Sqrt ? std::sqrt(var) : var);
  }
};

} // namespace kiln::detail::reducers
