//===- kiln/axes.hpp - Which axes a reduction runs over ----------*- C++ -*-===//
//
// kiln::axes is NumPy's `axis` argument of a reduction: every axis
// (`kiln::all`, NumPy's axis=None), one axis (`0`, `-1`) or a list (`{0, 2}`);
// negative axes count from the end. kiln::ddof is var/std's `ddof`, a type of
// its own so that it cannot be mistaken for `keepdims`.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/dtype.hpp"
#include "kiln/shape.hpp"

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <type_traits>

namespace kiln {

template <element E> class array;
class axes;

/// `kiln::all` is three things, as NumPy's spellings are: the whole axis
/// (`:`) in x.slice({...}), every axis (axis=None) as a reduction's axes,
/// and the reduction `kiln::all(x)` (np.all: true where every element is
/// non-zero; defined in kiln/reductions.hpp).
struct all_t {
  template <element T> array<bool> operator()(const array<T> &x) const;
  template <element T> array<bool> operator()(const array<T> &x, const axes &ax, bool keepdims = false) const;
  /// x[mask] and x[idx] (kiln/indexing.hpp): over the elements they gather.
  template <class P>
    requires requires(const P &p) { p.get(); }
  array<bool> operator()(const P &p) const;
  template <class P>
    requires requires(const P &p) { p.get(); }
  array<bool> operator()(const P &p, const axes &ax, bool keepdims = false) const;
};
inline constexpr all_t all{};

class axes {
public:
  /// Every axis (NumPy's axis=None).
  axes(all_t) noexcept : all_(true) {}
  /// One axis; negative counts from the end.
  template <std::integral I>
    requires(!std::is_same_v<I, bool>)
  axes(I axis) : list_{static_cast<std::int64_t>(axis)} {}
  /// Several axes, in any order (NumPy's tuple); `{}` is no axis at all.
  axes(std::initializer_list<std::int64_t> list) : list_(list) {}
  explicit axes(std::span<const std::int64_t> list) : list_(list) {}

  /// True for kiln::all.
  bool is_all() const noexcept { return all_; }
  /// The axes as given (empty for kiln::all).
  std::span<const std::int64_t> list() const noexcept { return list_; }

private:
  bool all_ = false;
  shape list_;
};

/// var/std's "delta degrees of freedom": the divisor is N - ddof.
struct ddof {
  std::int64_t value = 0;
  constexpr explicit ddof(std::int64_t v) noexcept : value(v) {}
};

namespace detail {
/// The axes of a rank-`ndim` array that `ax` names, sorted, as a bit mask
/// (bit d = axis d). Throws index_error for an axis out of range ("axis 2 is
/// out of bounds for array of dimension 2", NumPy's AxisError) and
/// value_error for a repeated axis ("duplicate value in 'axis'").
std::uint64_t normalize_axes(const axes &ax, std::int64_t ndim);
} // namespace detail

} // namespace kiln
