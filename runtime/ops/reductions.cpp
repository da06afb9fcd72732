//===- runtime/ops/reductions.cpp - Eager evaluation of reductions --------===//
//
// The reference implementation of kiln/reductions.hpp for code not compiled
// by kilnc: checks the axes, picks the reducer of (reduction, dtype) and
// runs it through the loop engine of reduction_loop.hpp on the host. Arrays
// on a CUDA device are copied to the host and the result copied back (the
// eager fallback), as the elementwise operations do.
//
//===----------------------------------------------------------------------===//
#include "reducers.hpp"
#include "reduction_loop.hpp"

#include "kiln/error.hpp"
#include "kiln/reductions.hpp"

#include <string>

namespace kiln::detail {

const char *reduction_name(reduction r) noexcept {
  switch (r) {
  case reduction::sum:
    return "sum";
  case reduction::prod:
    return "prod";
  case reduction::mean:
    return "mean";
  case reduction::max:
    return "maximum";
  case reduction::min:
    return "minimum";
  case reduction::argmax:
    return "argmax";
  case reduction::argmin:
    return "argmin";
  case reduction::all:
    return "all";
  case reduction::any:
    return "any";
  case reduction::var:
    return "var";
  case reduction::std:
    return "std";
  case reduction::count_nonzero:
    return "count_nonzero";
  }
  return "unknown";
}

dtype reduction_result_dtype(reduction r, dtype t) noexcept {
  switch (r) {
  case reduction::sum:
  case reduction::prod:
    return sum_type(t);
  case reduction::mean:
    return mean_type(t);
  case reduction::max:
  case reduction::min:
    return t;
  case reduction::argmax:
  case reduction::argmin:
  case reduction::count_nonzero:
    return dtype::int64;
  case reduction::all:
  case reduction::any:
    return dtype::bool_;
  case reduction::var:
  case reduction::std:
    return var_type(t);
  }
  return t;
}

namespace {

using namespace reducers;

/// The number of elements reduced into each output.
std::int64_t reduced_count(const shape &s, std::uint64_t mask) {
  std::int64_t n = 1;
  for (std::size_t d = 0; d < s.size(); ++d)
    if (mask >> d & 1)
      n *= s[d];
  return n;
}

/// Runs reduction `r` on the host array `x` of element type T.
template <class T>
array_base reduce_typed(reduction r, const array_base &x, std::uint64_t mask,
                        bool keepdims, std::int64_t ddof) {
  using sum_t = element_t<sum_type(dtype_of<T>)>;
  using mean_t = element_t<mean_type(dtype_of<T>)>;
  using var_t = element_t<var_type(dtype_of<T>)>;
  using moment_t =
      std::conditional_t<is_complex_v<T>, std::complex<double>, double>;
  auto run = [&](const auto &red) {
    return host::reduce_host(red, x, mask, keepdims);
  };
  switch (r) {
  case reduction::sum:
    if constexpr (std::is_same_v<T, bool>) // counts the true elements
      return run(count_of<convert_load<bool, bool>>{});
    else
      return run(sum_of<convert_load<T, sum_t>>{});
  case reduction::prod:
    return run(product_of<convert_load<T, sum_t>>{});
  case reduction::mean: {
    mean_of<convert_load<T, mean_t>> red;
    red.count = reduced_count(x.shape(), mask);
    return run(red);
  }
  case reduction::max:
    return run(extreme_of<convert_load<T, T>, true>{});
  case reduction::min:
    return run(extreme_of<convert_load<T, T>, false>{});
  case reduction::argmax:
    return run(arg_extreme_of<convert_load<T, T>, true>{});
  case reduction::argmin:
    return run(arg_extreme_of<convert_load<T, T>, false>{});
  case reduction::all:
    return run(truth_of<convert_load<T, bool>, true>{});
  case reduction::any:
    return run(truth_of<convert_load<T, bool>, false>{});
  case reduction::count_nonzero:
    return run(count_of<convert_load<T, bool>>{});
  case reduction::var: {
    moments_of<convert_load<T, moment_t>, false, var_t> red;
    red.ddof = ddof;
    return run(red);
  }
  case reduction::std: {
    moments_of<convert_load<T, moment_t>, true, var_t> red;
    red.ddof = ddof;
    return run(red);
  }
  }
  throw value_error("unknown reduction");
}

} // namespace

array_base reduce(reduction r, const array_base &x, const axes &ax,
                  bool keepdims, std::int64_t ddof) {
  // NumPy's argmax takes an integer axis or None (a tuple is a TypeError,
  // before the axis is checked).
  if ((r == reduction::argmax || r == reduction::argmin) && !ax.is_all() &&
      ax.list().size() != 1)
    throw value_error(std::string(reduction_name(r)) +
                      " takes a single axis or kiln::all, not a list of " +
                      std::to_string(ax.list().size()) + " axes");
  const std::uint64_t mask = normalize_axes(ax, x.ndim());
  return host::on_host(x, [&](const array_base &h) {
    array_base result = host::dispatch(h.dtype(), [&]<class T>() {
      return reduce_typed<T>(r, h, mask, keepdims, ddof);
    });
    if (result.dtype() != reduction_result_dtype(r, x.dtype()))
      throw value_error(
          std::string("internal error: ") + reduction_name(r) + " computed " +
          std::string(name(result.dtype())) + ", expected " +
          std::string(name(reduction_result_dtype(r, x.dtype()))));
    return result;
  });
}

} // namespace kiln::detail
