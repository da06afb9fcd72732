//===- runtime/ops/eager.cpp - Eager evaluation of elementwise operations -===//
//
// The reference implementation of kiln/ops.hpp for code not compiled by
// kilnc: checks devices and broadcasting, converts the operands to the
// computation dtype and runs a strided loop on the host. Operands on a CUDA
// device are copied to the host and the result copied back (the eager
// fallback: correct, not fast).
//
//===----------------------------------------------------------------------===//
#include "eager_loop.hpp"
#include "eager_types.hpp"
#include "host_loop.hpp"
#include "scalar_math.hpp"

#include "kiln/error.hpp"

#include <string>

namespace kiln::detail {

namespace {

using host::is_complex_v;

template <class T>
inline constexpr bool is_floatlike_v =
    std::is_floating_point_v<T> || is_complex_v<T>;
template <class T> inline constexpr bool is_real_v = !is_complex_v<T>;

[[noreturn]] void internal_type_error(op o, dtype t) {
  throw value_error(std::string("internal error: no eager loop for ") +
                    op_name(o) + " on " + std::string(name(t)));
}

/// Runs `o` with all value operands of type T.
template <class T>
array_base run_typed(op o, const shape &out,
                     std::span<const array_base *const> host,
                     std::span<const operand> args) {
  namespace m = math;
  auto in = [&](std::size_t k) {
    return prepare<T>(host[k], args[k].scalar, out);
  };
  switch (o) {
  case op::add:
    return apply(
        out, [](T a, T b) { return m::add(a, b); }, in(0), in(1));
  case op::subtract:
    return apply(
        out, [](T a, T b) { return m::subtract(a, b); }, in(0), in(1));
  case op::multiply:
    return apply(
        out, [](T a, T b) { return m::multiply(a, b); }, in(0), in(1));
  case op::true_divide:
    if constexpr (is_floatlike_v<T>)
      return apply(
          out, [](T a, T b) { return m::true_divide(a, b); }, in(0), in(1));
    break;
  case op::remainder:
    if constexpr (is_real_v<T> && !std::is_same_v<T, bool>)
      return apply(
          out, [](T a, T b) { return m::remainder(a, b); }, in(0), in(1));
    break;
  case op::power:
    if constexpr (!std::is_same_v<T, bool>)
      return apply(
          out, [](T a, T b) { return m::power(a, b); }, in(0), in(1));
    break;
  case op::maximum:
    return apply(
        out, [](T a, T b) { return m::maximum(a, b); }, in(0), in(1));
  case op::minimum:
    return apply(
        out, [](T a, T b) { return m::minimum(a, b); }, in(0), in(1));
  case op::equal:
    return apply(
        out, [](T a, T b) { return a == b; }, in(0), in(1));
  case op::not_equal:
    return apply(
        out, [](T a, T b) { return a != b; }, in(0), in(1));
  case op::less:
    return apply(
        out, [](T a, T b) { return m::less(a, b); }, in(0), in(1));
  case op::less_equal:
    return apply(
        out, [](T a, T b) { return m::less_equal(a, b); }, in(0), in(1));
  case op::greater:
    return apply(
        out, [](T a, T b) { return m::less(b, a); }, in(0), in(1));
  case op::greater_equal:
    return apply(
        out, [](T a, T b) { return m::less_equal(b, a); }, in(0), in(1));
  case op::logical_and:
    if constexpr (std::is_same_v<T, bool>)
      return apply(
          out, [](T a, T b) { return a && b; }, in(0), in(1));
    break;
  case op::logical_or:
    if constexpr (std::is_same_v<T, bool>)
      return apply(
          out, [](T a, T b) { return a || b; }, in(0), in(1));
    break;
  case op::logical_not:
    if constexpr (std::is_same_v<T, bool>)
      return apply(
          out, [](T a) { return !a; }, in(0));
    break;
  case op::negative:
    if constexpr (!std::is_same_v<T, bool>)
      return apply(
          out, [](T a) { return m::negative(a); }, in(0));
    break;
#define KILN_FLOAT_CASE(NAME, EXPR)                                            \
  case op::NAME:                                                               \
    if constexpr (is_floatlike_v<T>)                                           \
      return apply(                                                            \
          out, [](T a) -> T { return EXPR; }, in(0));                          \
    break;
    KILN_FLOAT_CASE(exp, std::exp(a))
    KILN_FLOAT_CASE(log, std::log(a))
    KILN_FLOAT_CASE(log2, m::log2(a))
    KILN_FLOAT_CASE(log10, std::log10(a))
    KILN_FLOAT_CASE(sqrt, std::sqrt(a))
    KILN_FLOAT_CASE(sin, std::sin(a))
    KILN_FLOAT_CASE(cos, std::cos(a))
    KILN_FLOAT_CASE(tan, std::tan(a))
    KILN_FLOAT_CASE(tanh, std::tanh(a))
#undef KILN_FLOAT_CASE
  case op::abs:
    return apply(
        out, [](T a) { return m::abs(a); }, in(0));
  case op::sign:
    if constexpr (!std::is_same_v<T, bool>)
      return apply(
          out, [](T a) { return m::sign(a); }, in(0));
    break;
  case op::floor:
    if constexpr (is_real_v<T>)
      return apply(
          out, [](T a) { return m::floor(a); }, in(0));
    break;
  case op::ceil:
    if constexpr (is_real_v<T>)
      return apply(
          out, [](T a) { return m::ceil(a); }, in(0));
    break;
  case op::round:
    return apply(
        out, [](T a) { return m::round(a); }, in(0));
  case op::real:
    return apply(
        out, [](T a) { return m::real(a); }, in(0));
  case op::imag:
    return apply(
        out, [](T a) { return m::imag(a); }, in(0));
  case op::conj:
    return apply(
        out, [](T a) { return m::conj(a); }, in(0));
  case op::arg:
    if constexpr (is_floatlike_v<T>)
      return apply(
          out, [](T a) { return m::arg(a); }, in(0));
    break;
  case op::isnan:
    return apply(
        out, [](T a) { return m::isnan(a); }, in(0));
  case op::isinf:
    return apply(
        out, [](T a) { return m::isinf(a); }, in(0));
  case op::where: {
    typed_input<bool> cond = prepare<bool>(host[0], args[0].scalar, out);
    return apply(
        out, [](bool c, T a, T b) { return c ? a : b; }, cond, in(1), in(2));
  }
  case op::clip:
    return apply(
        out, [](T x, T lo, T hi) { return m::minimum(m::maximum(x, lo), hi); },
        in(0), in(1), in(2));
  }
  internal_type_error(o, dtype_of<T>);
}

} // namespace

array_base eager(op o, std::span<const operand> args) {
  const op_types types = resolve_types(o, args);
  const host_operands in(args);
  array_base result = host::dispatch(types.compute, [&]<class T>() {
    return run_typed<T>(o, in.out, in.host, args);
  });
  if (result.dtype() != types.result)
    throw value_error(std::string("internal error: ") + op_name(o) +
                      " computed " + std::string(name(result.dtype())) +
                      ", expected " + std::string(name(types.result)));
  return in.to_device(std::move(result));
}

} // namespace kiln::detail
