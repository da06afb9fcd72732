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
    KILN_FLOAT_CASE(sinh, std::sinh(a))
    KILN_FLOAT_CASE(cosh, std::cosh(a))
    KILN_FLOAT_CASE(exp2, m::exp2(a))
    KILN_FLOAT_CASE(rint, m::round(a))
#undef KILN_FLOAT_CASE
#define KILN_REAL_FLOAT_CASE(NAME, EXPR)                                       \
  case op::NAME:                                                               \
    if constexpr (std::is_floating_point_v<T>)                                 \
      return apply(                                                            \
          out, [](T a) -> T { return EXPR; }, in(0));                          \
    break;
    KILN_REAL_FLOAT_CASE(arcsin, std::asin(a))
    KILN_REAL_FLOAT_CASE(arccos, std::acos(a))
    KILN_REAL_FLOAT_CASE(arctan, std::atan(a))
    KILN_REAL_FLOAT_CASE(arcsinh, std::asinh(a))
    KILN_REAL_FLOAT_CASE(arccosh, std::acosh(a))
    KILN_REAL_FLOAT_CASE(arctanh, std::atanh(a))
    KILN_REAL_FLOAT_CASE(expm1, std::expm1(a))
    KILN_REAL_FLOAT_CASE(log1p, std::log1p(a))
    KILN_REAL_FLOAT_CASE(cbrt, std::cbrt(a))
    KILN_REAL_FLOAT_CASE(deg2rad, m::deg2rad(a))
    KILN_REAL_FLOAT_CASE(rad2deg, m::rad2deg(a))
#undef KILN_REAL_FLOAT_CASE
#define KILN_REAL_FLOAT_BINARY_CASE(NAME, EXPR)                                \
  case op::NAME:                                                               \
    if constexpr (std::is_floating_point_v<T>)                                 \
      return apply(                                                            \
          out, [](T a, T b) -> T { return EXPR; }, in(0), in(1));              \
    break;
    KILN_REAL_FLOAT_BINARY_CASE(arctan2, std::atan2(a, b))
    KILN_REAL_FLOAT_BINARY_CASE(hypot, std::hypot(a, b))
    KILN_REAL_FLOAT_BINARY_CASE(copysign, std::copysign(a, b))
    KILN_REAL_FLOAT_BINARY_CASE(logaddexp, m::logaddexp(a, b))
    KILN_REAL_FLOAT_BINARY_CASE(logaddexp2, m::logaddexp2(a, b))
#undef KILN_REAL_FLOAT_BINARY_CASE
  case op::fmax:
  case op::fmin:
    if constexpr (is_real_v<T>) {
      if (o == op::fmax)
        return apply(
            out, [](T a, T b) -> T { return m::fmax(a, b); }, in(0), in(1));
      return apply(
          out, [](T a, T b) -> T { return m::fmin(a, b); }, in(0), in(1));
    }
    break;
  case op::trunc:
    if constexpr (is_real_v<T>)
      return apply(
          out, [](T a) -> T { return m::trunc(a); }, in(0));
    break;
  case op::square:
    if constexpr (!std::is_same_v<T, bool>)
      return apply(
          out, [](T a) -> T { return m::multiply(a, a); }, in(0));
    break;
  case op::positive:
    if constexpr (!std::is_same_v<T, bool>)
      return apply(
          out, [](T a) -> T { return a; }, in(0));
    break;
  case op::isfinite:
    return apply(
        out, [](T a) { return m::isfinite(a); }, in(0));
  case op::signbit:
    if constexpr (is_real_v<T>)
      return apply(
          out, [](T a) { return m::signbit(a); }, in(0));
    break;
  case op::invert:
    if constexpr (std::is_same_v<T, bool>)
      return apply(
          out, [](T a) -> T { return !a; }, in(0));
    else if constexpr (std::is_integral_v<T>)
      return apply(
          out, [](T a) -> T { return static_cast<T>(~a); }, in(0));
    break;
  case op::bitwise_and:
  case op::bitwise_or:
  case op::bitwise_xor:
    if constexpr (std::is_integral_v<T>) {
      if (o == op::bitwise_and)
        return apply(
            out, [](T a, T b) -> T { return static_cast<T>(a & b); }, in(0),
            in(1));
      if (o == op::bitwise_or)
        return apply(
            out, [](T a, T b) -> T { return static_cast<T>(a | b); }, in(0),
            in(1));
      return apply(
          out, [](T a, T b) -> T { return static_cast<T>(a ^ b); }, in(0),
          in(1));
    }
    break;
  case op::left_shift:
  case op::right_shift:
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (o == op::left_shift)
        return apply(
            out, [](T a, T b) -> T { return m::left_shift(a, b); }, in(0),
            in(1));
      return apply(
          out, [](T a, T b) -> T { return m::right_shift(a, b); }, in(0),
          in(1));
    }
    break;
  case op::logical_xor:
    if constexpr (std::is_same_v<T, bool>)
      return apply(
          out, [](T a, T b) { return a != b; }, in(0), in(1));
    break;
  case op::angle: {
    if constexpr (is_floatlike_v<T>) {
      const bool deg = args[1].scalar.b;
      return apply(
          out,
          [deg](T a) {
            const auto r = m::arg(a);
            return deg ? static_cast<decltype(r)>(r * (180 / std::numbers::pi))
                       : r;
          },
          in(0));
    }
    break;
  }
  case op::round_decimals: {
    if constexpr (!std::is_same_v<T, bool>) {
      const std::int64_t d = args[1].scalar.i;
      return apply(
          out, [d](T a) -> T { return m::round_decimals(a, d); }, in(0));
    }
    break;
  }
  case op::reciprocal:
    if constexpr (!std::is_same_v<T, bool>)
      return apply(
          out, [](T a) -> T { return m::reciprocal(a); }, in(0));
    break;
  case op::sinc:
    if constexpr (std::is_floating_point_v<T>)
      return apply(
          out, [](T a) -> T { return m::sinc(a); }, in(0));
    break;
  case op::spacing:
    if constexpr (std::is_floating_point_v<T>)
      return apply(
          out, [](T a) -> T { return m::spacing(a); }, in(0));
    break;
  case op::bitwise_count:
    if constexpr (std::is_integral_v<T>)
      return apply(
          out, [](T a) { return m::bitwise_count(a); }, in(0));
    break;
  case op::floor_divide:
    if constexpr (is_real_v<T> && !std::is_same_v<T, bool>)
      return apply(
          out, [](T a, T b) -> T { return m::floor_divide(a, b); }, in(0),
          in(1));
    break;
  case op::fmod:
    if constexpr (is_real_v<T> && !std::is_same_v<T, bool>)
      return apply(
          out, [](T a, T b) -> T { return m::fmod(a, b); }, in(0), in(1));
    break;
  case op::float_power:
    if constexpr (std::is_same_v<T, double> ||
                  std::is_same_v<T, std::complex<double>>)
      return apply(
          out, [](T a, T b) -> T { return m::power(a, b); }, in(0), in(1));
    break;
  case op::heaviside:
    if constexpr (std::is_floating_point_v<T>)
      return apply(
          out, [](T a, T b) -> T { return m::heaviside(a, b); }, in(0), in(1));
    break;
  case op::nextafter:
    if constexpr (std::is_floating_point_v<T>)
      return apply(
          out, [](T a, T b) -> T { return std::nextafter(a, b); }, in(0),
          in(1));
    break;
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
  case op::clip: {
    const bool scalar_bounds = !args[1].array && !args[2].array;
    return apply(
        out,
        [scalar_bounds](T x, T lo, T hi) {
          return m::clip(x, lo, hi, scalar_bounds);
        },
        in(0), in(1), in(2));
  }
  case op::nan_to_num:
    return apply(
        out,
        [](T x, T nan, T posinf, T neginf) {
          return m::nan_to_num(x, nan, posinf, neginf);
        },
        in(0), in(1), in(2), in(3));
  case op::gcd:
  case op::lcm:
    if constexpr (m::is_int_v<T>) {
      if (o == op::gcd)
        return apply(
            out, [](T a, T b) -> T { return m::gcd(a, b); }, in(0), in(1));
      return apply(
          out, [](T a, T b) -> T { return m::lcm(a, b); }, in(0), in(1));
    }
    break;
  case op::ldexp:
    if constexpr (std::is_floating_point_v<T>) {
      typed_input<std::int64_t> e =
          prepare<std::int64_t>(host[1], args[1].scalar, out);
      return apply(
          out, [](T x, std::int64_t k) -> T { return m::ldexp(x, k); }, in(0),
          e);
    }
    break;
  case op::frexp_mantissa:
    if constexpr (std::is_floating_point_v<T>)
      return apply(
          out, [](T x) -> T { return m::frexp_mantissa(x); }, in(0));
    break;
  case op::frexp_exponent:
    if constexpr (std::is_floating_point_v<T>)
      return apply(
          out, [](T x) -> std::int32_t { return m::frexp_exponent(x); }, in(0));
    break;
  case op::modf_fraction:
    if constexpr (std::is_floating_point_v<T>)
      return apply(
          out, [](T x) -> T { return m::modf_fraction(x); }, in(0));
    break;
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
