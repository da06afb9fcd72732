//===- runtime/ops/eager_types.cpp - Result dtypes of the eager operations ===//
//
// Which dtype each elementwise operation computes in and returns, given its
// operands: NumPy's result_type with C++ scalars as weak scalars (NEP 50),
// then the operation's own rule (true division of integers gives float64,
// comparisons bool, ...). Mirrors the compile-time traits of kiln/ops.hpp.
//
//===----------------------------------------------------------------------===//
#include "eager_types.hpp"

#include "kiln/error.hpp"

#include <string>

namespace kiln::detail {

const char *op_name(op o) noexcept {
  switch (o) {
  case op::add:
    return "add";
  case op::subtract:
    return "subtract";
  case op::multiply:
    return "multiply";
  case op::true_divide:
    return "true_divide";
  case op::remainder:
    return "remainder";
  case op::power:
    return "power";
  case op::maximum:
    return "maximum";
  case op::minimum:
    return "minimum";
  case op::equal:
    return "equal";
  case op::not_equal:
    return "not_equal";
  case op::less:
    return "less";
  case op::less_equal:
    return "less_equal";
  case op::greater:
    return "greater";
  case op::greater_equal:
    return "greater_equal";
  case op::logical_and:
    return "logical_and";
  case op::logical_or:
    return "logical_or";
  case op::logical_not:
    return "logical_not";
  case op::negative:
    return "negative";
  case op::exp:
    return "exp";
  case op::log:
    return "log";
  case op::log2:
    return "log2";
  case op::log10:
    return "log10";
  case op::sqrt:
    return "sqrt";
  case op::sin:
    return "sin";
  case op::cos:
    return "cos";
  case op::tan:
    return "tan";
  case op::tanh:
    return "tanh";
  case op::abs:
    return "absolute";
  case op::sign:
    return "sign";
  case op::floor:
    return "floor";
  case op::ceil:
    return "ceil";
  case op::round:
    return "round";
  case op::real:
    return "real";
  case op::imag:
    return "imag";
  case op::conj:
    return "conjugate";
  case op::arg:
    return "angle";
  case op::isnan:
    return "isnan";
  case op::isinf:
    return "isinf";
  case op::where:
    return "where";
  case op::clip:
    return "clip";
  case op::arcsin:
    return "arcsin";
  case op::arccos:
    return "arccos";
  case op::arctan:
    return "arctan";
  case op::sinh:
    return "sinh";
  case op::cosh:
    return "cosh";
  case op::arcsinh:
    return "arcsinh";
  case op::arccosh:
    return "arccosh";
  case op::arctanh:
    return "arctanh";
  case op::exp2:
    return "exp2";
  case op::expm1:
    return "expm1";
  case op::log1p:
    return "log1p";
  case op::cbrt:
    return "cbrt";
  case op::deg2rad:
    return "deg2rad";
  case op::rad2deg:
    return "rad2deg";
  case op::rint:
    return "rint";
  case op::trunc:
    return "trunc";
  case op::square:
    return "square";
  case op::positive:
    return "positive";
  case op::isfinite:
    return "isfinite";
  case op::signbit:
    return "signbit";
  case op::invert:
    return "invert";
  case op::arctan2:
    return "arctan2";
  case op::hypot:
    return "hypot";
  case op::copysign:
    return "copysign";
  case op::logaddexp:
    return "logaddexp";
  case op::logaddexp2:
    return "logaddexp2";
  case op::fmax:
    return "fmax";
  case op::fmin:
    return "fmin";
  case op::bitwise_and:
    return "bitwise_and";
  case op::bitwise_or:
    return "bitwise_or";
  case op::bitwise_xor:
    return "bitwise_xor";
  case op::left_shift:
    return "left_shift";
  case op::right_shift:
    return "right_shift";
  case op::logical_xor:
    return "logical_xor";
  case op::reciprocal:
    return "reciprocal";
  case op::sinc:
    return "sinc";
  case op::spacing:
    return "spacing";
  case op::bitwise_count:
    return "bitwise_count";
  case op::floor_divide:
    return "floor_divide";
  case op::fmod:
    return "fmod";
  case op::float_power:
    return "float_power";
  case op::heaviside:
    return "heaviside";
  case op::nextafter:
    return "nextafter";
  case op::angle:
    return "angle";
  case op::round_decimals:
    return "round";
  case op::gcd:
    return "gcd";
  case op::lcm:
    return "lcm";
  case op::ldexp:
    return "ldexp";
  case op::nan_to_num:
    return "nan_to_num";
  case op::frexp_mantissa:
  case op::frexp_exponent:
    return "frexp";
  case op::modf_fraction:
    return "modf";
  }
  return "unknown";
}

int op_arity(op o) noexcept {
  switch (o) {
  case op::nan_to_num:
    return 4;
  case op::where:
  case op::clip:
    return 3;
  case op::logical_not:
  case op::negative:
  case op::exp:
  case op::log:
  case op::log2:
  case op::log10:
  case op::sqrt:
  case op::sin:
  case op::cos:
  case op::tan:
  case op::tanh:
  case op::abs:
  case op::sign:
  case op::floor:
  case op::ceil:
  case op::round:
  case op::real:
  case op::imag:
  case op::conj:
  case op::arg:
  case op::isnan:
  case op::isinf:
  case op::arcsin:
  case op::arccos:
  case op::arctan:
  case op::sinh:
  case op::cosh:
  case op::arcsinh:
  case op::arccosh:
  case op::arctanh:
  case op::exp2:
  case op::expm1:
  case op::log1p:
  case op::cbrt:
  case op::deg2rad:
  case op::rad2deg:
  case op::rint:
  case op::trunc:
  case op::square:
  case op::positive:
  case op::isfinite:
  case op::signbit:
  case op::invert:
  case op::reciprocal:
  case op::sinc:
  case op::spacing:
  case op::bitwise_count:
  case op::frexp_mantissa:
  case op::frexp_exponent:
  case op::modf_fraction:
    return 1;
  default:
    return 2;
  }
}

bool is_comparison(op o) noexcept {
  return o == op::equal || o == op::not_equal || o == op::less ||
         o == op::less_equal || o == op::greater || o == op::greater_equal;
}

namespace {

dtype array_dtype(const operand &x) { return x.array->dtype(); }

/// NumPy's result_type of the value operands (all but where's condition).
dtype common_dtype(std::span<const operand> values) {
  bool any_array = false;
  dtype acc = dtype::bool_;
  for (const operand &x : values)
    if (x.array) {
      acc = any_array ? promote_types(acc, array_dtype(x)) : array_dtype(x);
      any_array = true;
    }
  if (any_array) {
    for (const operand &x : values)
      if (!x.array)
        acc = promote_weak(acc, x.scalar.kind);
    return acc;
  }
  bool first = true;
  for (const operand &x : values) {
    acc = first ? x.scalar.natural : promote_types(acc, x.scalar.natural);
    first = false;
  }
  return acc;
}

[[noreturn]] void no_loop(op o, dtype t) {
  throw type_error(std::string("ufunc '") + op_name(o) +
                   "' not supported for the input type " +
                   std::string(name(t)));
}

} // namespace

op_types resolve_types(op o, std::span<const operand> args) {
  if (static_cast<int>(args.size()) != op_arity(o))
    throw value_error(std::string(op_name(o)) + " takes " +
                      std::to_string(op_arity(o)) + " operands, got " +
                      std::to_string(args.size()));
  std::span<const operand> values = o == op::where ? args.subspan(1) : args;
  if (o == op::where && !args[0].array)
    throw value_error("where: the condition must be an array");
  bool any_array = false;
  for (const operand &x : args)
    any_array |= x.array != nullptr;
  if (!any_array)
    throw value_error(std::string(op_name(o)) +
                      ": at least one operand must be an array");

  const dtype c = common_dtype(values);
  switch (o) {
  case op::add:
  case op::multiply:
  case op::maximum:
  case op::minimum:
  case op::clip:
  case op::where:
  case op::round:
  case op::conj:
    return {c, c};
  case op::subtract:
    if (c == dtype::bool_)
      throw type_error("numpy boolean subtract, the `-` operator, is not "
                       "supported, use the bitwise_xor, the `^` "
                       "operator, or the logical_xor function instead.");
    return {c, c};
  case op::negative:
    if (c == dtype::bool_)
      throw type_error("The numpy boolean negative, the `-` operator, is not "
                       "supported, use the `~` operator or "
                       "the logical_not function instead.");
    return {c, c};
  case op::true_divide:
    return {true_divide_type(c), true_divide_type(c)};
  case op::remainder:
    if (is_complex(c))
      no_loop(o, c);
    return {no_bool_type(c), no_bool_type(c)};
  case op::power:
  case op::sign:
    return {no_bool_type(c), no_bool_type(c)};
  case op::equal:
  case op::not_equal:
  case op::less:
  case op::less_equal:
  case op::greater:
  case op::greater_equal: {
    // An integer array against an integer scalar compares in int64, so that
    // a scalar out of the array's range compares correctly (as NumPy 2).
    dtype compute = c;
    if (kind_of(c) == scalar_kind::integer)
      for (const operand &x : values)
        if (!x.array && x.scalar.kind == scalar_kind::integer)
          compute = promote_types(c, dtype::int64);
    return {compute, dtype::bool_};
  }
  case op::logical_and:
  case op::logical_or:
  case op::logical_not:
    return {dtype::bool_, dtype::bool_};
  case op::exp:
  case op::log:
  case op::log2:
  case op::log10:
  case op::sqrt:
  case op::sin:
  case op::cos:
  case op::tan:
  case op::tanh:
    return {float_type(c), float_type(c)};
  case op::abs:
  case op::real:
  case op::imag:
    return {c, real_type(c)};
  case op::floor:
  case op::ceil:
    if (is_complex(c))
      no_loop(o, c);
    return {c, c};
  case op::arg:
    return {float_type(c), real_type(float_type(c))};
  case op::isnan:
  case op::isinf:
  case op::isfinite:
    return {c, dtype::bool_};
  case op::sinh:
  case op::cosh:
  case op::exp2:
  case op::rint:
    return {float_type(c), float_type(c)};
  case op::arcsin:
  case op::arccos:
  case op::arctan:
  case op::arcsinh:
  case op::arccosh:
  case op::arctanh:
  case op::expm1:
  case op::log1p:
  case op::cbrt:
  case op::deg2rad:
  case op::rad2deg:
  case op::arctan2:
  case op::hypot:
  case op::copysign:
  case op::logaddexp:
  case op::logaddexp2:
    if (is_complex(c))
      no_loop(o, c);
    return {float_type(c), float_type(c)};
  case op::trunc:
  case op::fmax:
  case op::fmin:
    if (is_complex(c))
      no_loop(o, c);
    return {c, c};
  case op::signbit:
    if (is_complex(c))
      no_loop(o, c);
    return {c, dtype::bool_};
  case op::square:
    return {no_bool_type(c), no_bool_type(c)};
  case op::positive:
    if (c == dtype::bool_)
      no_loop(o, c);
    return {c, c};
  case op::invert:
  case op::bitwise_and:
  case op::bitwise_or:
  case op::bitwise_xor:
    if (kind_of(c) != scalar_kind::boolean &&
        kind_of(c) != scalar_kind::integer)
      no_loop(o, c);
    return {c, c};
  case op::left_shift:
  case op::right_shift:
    if (kind_of(c) != scalar_kind::boolean &&
        kind_of(c) != scalar_kind::integer)
      no_loop(o, c);
    return {no_bool_type(c), no_bool_type(c)};
  case op::logical_xor:
    return {dtype::bool_, dtype::bool_};
  case op::reciprocal:
    return {no_bool_type(c), no_bool_type(c)};
  case op::sinc:
    if (is_complex(c))
      no_loop(o, c);
    return {sinc_type(c), sinc_type(c)};
  case op::spacing:
  case op::heaviside:
  case op::nextafter:
    if (is_complex(c))
      no_loop(o, c);
    return {float_type(c), float_type(c)};
  case op::bitwise_count:
    if (kind_of(c) != scalar_kind::boolean &&
        kind_of(c) != scalar_kind::integer)
      no_loop(o, c);
    return {c, dtype::uint8};
  case op::floor_divide:
  case op::fmod:
    if (is_complex(c))
      no_loop(o, c);
    return {no_bool_type(c), no_bool_type(c)};
  case op::float_power:
    return {float_power_type(c), float_power_type(c)};
  case op::angle: {
    const dtype x = array_dtype(args[0]);
    return {float_type(x), real_type(float_type(x))};
  }
  case op::round_decimals: {
    const dtype x = array_dtype(args[0]);
    if (x == dtype::bool_)
      no_loop(o, x);
    return {x, x};
  }
  case op::gcd:
  case op::lcm:
    if (kind_of(c) != scalar_kind::integer)
      no_loop(o, c);
    return {c, c};
  case op::ldexp: {
    const dtype x = array_dtype(args[0]);
    if (is_complex(x))
      no_loop(o, x);
    if (args[1].array
            ? kind_of(array_dtype(args[1])) == scalar_kind::floating ||
                  kind_of(array_dtype(args[1])) == scalar_kind::complex
            : args[1].scalar.kind == scalar_kind::floating ||
                  args[1].scalar.kind == scalar_kind::complex)
      throw type_error("ufunc 'ldexp' not supported for the input types, and "
                       "the inputs could not be safely coerced to any "
                       "supported types according to the casting rule "
                       "''safe''");
    return {float_type(x), float_type(x)};
  }
  case op::nan_to_num: {
    const dtype x = array_dtype(args[0]);
    return {x, x};
  }
  case op::frexp_mantissa:
  case op::modf_fraction:
  case op::frexp_exponent: {
    const dtype x = array_dtype(args[0]);
    if (is_complex(x))
      no_loop(o, x);
    return {float_type(x),
            o == op::frexp_exponent ? dtype::int32 : float_type(x)};
  }
  }
  throw value_error("unknown elementwise operation");
}

dtype eager_result_dtype(op o, std::span<const operand> args) {
  return resolve_types(o, args).result;
}

} // namespace kiln::detail
