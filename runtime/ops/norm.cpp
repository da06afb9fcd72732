//===- runtime/ops/norm.cpp - np.linalg.norm, eagerly ---------------------===//
//
// linalg::norm on the host. NumPy's rules choose the norm: the 2-norm of the
// flattened array (kiln::all with the default order), a vector norm (one
// axis, or a 1-d array) or a matrix norm (two axes, or a 2-d array). Each
// is a reduction of the engine in reduction_loop.hpp whose load maps an
// element first (|x|, |x|^2, |x|^p, x != 0), in the result's real type:
// float64 for bool and integers, the real type of complex (var_type).
// Matrix norms 2, -2 and the nuclear norm reduce the singular values
// (kiln::linalg's svd, on the array's device).
//
//===----------------------------------------------------------------------===//
#include "reducers.hpp"
#include "reduction_loop.hpp"

#include "kiln/error.hpp"
#include "kiln/linalg.hpp"
#include "kiln/reductions.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace kiln::detail {

namespace {

using namespace reducers;

/// The real type norm computes in and returns for elements of T.
template <class T> using norm_t = element_t<var_type(dtype_of<T>)>;

/// Loads |x| (the modulus for complex).
template <class T> struct abs_load {
  using element = T;
  using input = norm_t<T>;
  static constexpr bool loads_in_place = false;
  input load(T v) const {
    if constexpr (is_complex_v<T>)
      return std::abs(v);
    else
      return std::abs(static_cast<input>(v));
  }
};

/// Loads |x|^2 (re^2 + im^2 for complex, as NumPy's (x.conj() * x).real).
template <class T> struct square_load {
  using element = T;
  using input = norm_t<T>;
  static constexpr bool loads_in_place = false;
  input load(T v) const {
    if constexpr (is_complex_v<T>) {
      return v.real() * v.real() + v.imag() * v.imag();
    } else {
      const input r = static_cast<input>(v);
      return r * r;
    }
  }
};

/// Loads |x|^p.
template <class T> struct power_load {
  using element = T;
  using input = norm_t<T>;
  static constexpr bool loads_in_place = false;
  input p{};
  input load(T v) const { return std::pow(abs_load<T>{}.load(v), p); }
};

/// Loads 1 for a non-zero element, else 0.
template <class T> struct nonzero_load {
  using element = T;
  using input = norm_t<T>;
  static constexpr bool loads_in_place = false;
  input load(T v) const { return v != T(0) ? input(1) : input(0); }
};

/// f applied to every element of the contiguous host array `a` of R.
template <class R, class F> void map_in_place(array_base &a, F f) {
  R *p = static_cast<R *>(a.data());
  for (std::int64_t i = 0; i < a.size(); ++i)
    p[i] = f(p[i]);
}

/// The vector norm of order `ord` over the axes of `mask`.
template <class T>
array_base vector_norm(const array_base &x, const norm_ord &ord,
                       std::uint64_t mask, bool keepdims) {
  using R = norm_t<T>;
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double p = ord.k == norm_ord::kind::number ? ord.p : 2;
  if (p == 2) {
    array_base s =
        host::reduce_host(sum_of<square_load<T>>{}, x, mask, keepdims);
    map_in_place<R>(s, [](R v) { return std::sqrt(v); });
    return s;
  }
  if (p == inf)
    return host::reduce_host(extreme_of<abs_load<T>, true>{}, x, mask,
                             keepdims);
  if (p == -inf)
    return host::reduce_host(extreme_of<abs_load<T>, false>{}, x, mask,
                             keepdims);
  if (p == 0)
    return host::reduce_host(sum_of<nonzero_load<T>>{}, x, mask, keepdims);
  if (p == 1)
    return host::reduce_host(sum_of<abs_load<T>>{}, x, mask, keepdims);
  sum_of<power_load<T>> red;
  red.p = static_cast<R>(p);
  array_base s = host::reduce_host(red, x, mask, keepdims);
  const R inverse = R(1) / static_cast<R>(p);
  map_in_place<R>(s, [inverse](R v) { return std::pow(v, inverse); });
  return s;
}

/// The matrix norm over rows `row` and columns `col`: Frobenius (`fro`), or
/// the largest (p = 1) or smallest (-1) column sum of |x|, or the largest
/// (inf) or smallest (-inf) row sum.
template <class T>
array_base matrix_norm(const array_base &x, bool fro, double p,
                       std::int64_t row, std::int64_t col, bool keepdims) {
  using R = norm_t<T>;
  const std::uint64_t rows = std::uint64_t{1} << row,
                      cols = std::uint64_t{1} << col;
  if (fro) {
    array_base s =
        host::reduce_host(sum_of<square_load<T>>{}, x, rows | cols, keepdims);
    map_in_place<R>(s, [](R v) { return std::sqrt(v); });
    return s;
  }
  // Sum |x| over one axis, then the extreme over the other, which moved
  // down by one if it came after the summed axis.
  const bool over_rows = p == 1 || p == -1;
  const std::int64_t summed = over_rows ? row : col;
  std::int64_t other = over_rows ? col : row;
  if (other > summed)
    --other;
  const array_base sums = host::reduce_host(sum_of<abs_load<T>>{}, x,
                                            std::uint64_t{1} << summed, false);
  const std::uint64_t mask = std::uint64_t{1} << other;
  array_base result =
      p > 0 ? host::reduce_host(extreme_of<convert_load<R, R>, true>{}, sums,
                                mask, false)
            : host::reduce_host(extreme_of<convert_load<R, R>, false>{}, sums,
                                mask, false);
  if (!keepdims)
    return result;
  shape kept = x.shape();
  kept[static_cast<std::size_t>(row)] = 1;
  kept[static_cast<std::size_t>(col)] = 1;
  return detail::reshape(result, kept);
}

/// The matrix norms of the singular values (linalg's svd, on x's device):
/// their max (order 2), min (-2) or sum (nuclear) over the matrices of axes
/// (row, col).
array_base singular_value_norm(const array_base &x, reduction r, std::int64_t row, std::int64_t col, bool keepdims) {
  std::vector<std::int64_t> order;
  for (std::int64_t d = 0; d < x.ndim(); ++d)
    if (d != row && d != col)
      order.push_back(d);
  order.push_back(row);
  order.push_back(col);
  const array_base s = std::get<1>(svd(transpose(x, order), false, false));
  array_base result = reduce(r, s, axes(-1), false);
  if (!keepdims)
    return result;
  shape kept = x.shape();
  kept[static_cast<std::size_t>(row)] = 1;
  kept[static_cast<std::size_t>(col)] = 1;
  return reshape(result, kept);
}

/// The index of a single axis `a` of a rank-`ndim` array (index_error when
/// out of range).
std::int64_t normalize_axis(std::int64_t a, std::int64_t ndim) {
  return std::countr_zero(normalize_axes(axes(a), ndim));
}

} // namespace

array_base norm(const array_base &x, const norm_ord &ord, const axes &ax,
                bool keepdims) {
  using kind = norm_ord::kind;
  constexpr double inf = std::numeric_limits<double>::infinity();
  const std::int64_t nd = x.ndim();
  const bool fro = ord.k == kind::fro, none = ord.k == kind::none;
  const double p = ord.p;

  auto compute = [&](auto norm_of) {
    return host::on_host(x, [&](const array_base &h) {
      return host::dispatch(h.dtype(), [&]<class T>() {
        return norm_of.template operator()<T>(h);
      });
    });
  };

  // NumPy's fast path: the 2-norm of the flattened array.
  if (ax.is_all() && (none || (fro && nd == 2) ||
                      (ord.k == kind::number && p == 2 && nd == 1))) {
    const std::uint64_t mask = normalize_axes(ax, nd);
    return compute([&]<class T>(const array_base &h) {
      return vector_norm<T>(h, norm_ord(2), mask, keepdims);
    });
  }

  std::vector<std::int64_t> list;
  if (ax.is_all())
    for (std::int64_t d = 0; d < nd; ++d)
      list.push_back(d);
  else
    list.assign(ax.list().begin(), ax.list().end());

  if (list.size() == 1) {
    if (fro || ord.k == kind::nuc)
      throw value_error(std::string("Invalid norm order '") + (fro ? "fro" : "nuc") + "' for vectors");
    const std::uint64_t mask = normalize_axes(axes(list[0]), nd);
    return compute([&]<class T>(const array_base &h) {
      return vector_norm<T>(h, ord, mask, keepdims);
    });
  }
  if (list.size() != 2)
    throw value_error("Improper number of dimensions to norm.");

  const std::int64_t row = normalize_axis(list[0], nd),
                     col = normalize_axis(list[1], nd);
  if (row == col)
    throw value_error("Duplicate axes given.");
  if (ord.k == kind::nuc || (ord.k == kind::number && (p == 2 || p == -2)))
    return singular_value_norm(x, ord.k == kind::nuc ? reduction::sum : p > 0 ? reduction::max : reduction::min, row,
                               col, keepdims);
  if (!none && !fro && p != 1 && p != -1 && p != inf && p != -inf)
    throw value_error("Invalid norm order for matrices.");
  return compute([&]<class T>(const array_base &h) {
    return matrix_norm<T>(h, none || fro, p, row, col, keepdims);
  });
}

} // namespace kiln::detail
