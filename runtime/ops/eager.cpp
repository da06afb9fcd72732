//===- runtime/ops/eager.cpp - Eager evaluation of elementwise operations -===//
//
// The reference implementation of kiln/ops.hpp for code not compiled by
// kilnc: checks devices and broadcasting, converts the operands to the
// computation dtype and runs a strided loop on the host. Operands on a CUDA
// device are copied to the host and the result copied back (the eager
// fallback: correct, not fast).
//
//===----------------------------------------------------------------------===//
#include "eager_types.hpp"
#include "host_loop.hpp"
#include "scalar_math.hpp"

#include "kiln/error.hpp"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::detail {

namespace {

using host::is_complex_v;

/// The broadcast of all array operands' shapes; shape_error with NumPy's
/// message listing every shape.
shape broadcast_all(std::span<const array_base *const> arrays) {
  shape out;
  bool ok = true;
  for (const array_base *a : arrays) {
    const shape &s = a->shape();
    std::size_t n = std::max(out.size(), s.size());
    shape next = shape::filled(n, 1);
    for (std::size_t i = 0; i < n; ++i) {
      std::int64_t da = i < n - out.size() ? 1 : out[i - (n - out.size())];
      std::int64_t db = i < n - s.size() ? 1 : s[i - (n - s.size())];
      if (da != db && da != 1 && db != 1)
        ok = false;
      next[i] = da == 1 ? db : da;
    }
    out = std::move(next);
  }
  if (!ok) {
    std::string msg = "operands could not be broadcast together with shapes";
    for (const array_base *a : arrays)
      msg += " " + to_string(a->shape());
    throw shape_error(msg);
  }
  return out;
}

/// One operand converted to the computation type T, ready for the loop.
template <class T> struct typed_input {
  std::unique_ptr<T[]> buffer; // owns converted data or the scalar
  const T *ptr = nullptr;
  shape strides; // aligned to the output shape
};

template <class T> T scalar_as(const scalar_value &s) {
  switch (s.kind) {
  case scalar_kind::boolean:
    return host::convert<T>(s.b);
  case scalar_kind::integer:
    return host::convert<T>(s.i);
  case scalar_kind::floating:
    return host::convert<T>(s.d);
  case scalar_kind::complex:
    return host::convert<T>(s.c);
  }
  return T{};
}

/// `x` is the host copy of an array operand (or null for a scalar `s`).
template <class T>
typed_input<T> prepare(const array_base *x, const scalar_value &s,
                       const shape &out) {
  typed_input<T> in;
  if (!x) {
    in.buffer = std::make_unique<T[]>(1);
    in.buffer[0] = scalar_as<T>(s);
    in.ptr = in.buffer.get();
    in.strides = shape::filled(out.size(), 0);
  } else if (x->dtype() == dtype_of<T>) {
    in.ptr = static_cast<const T *>(x->data());
    in.strides = host::broadcast_strides(x->shape(), x->strides(), out);
  } else {
    in.buffer = std::make_unique<T[]>(static_cast<std::size_t>(x->size()));
    host::convert_into<T>(*x, in.buffer.get());
    in.ptr = in.buffer.get();
    in.strides = host::broadcast_strides(x->shape(),
                                         contiguous_strides(x->shape()), out);
  }
  return in;
}

/// out[i] = f(in0[i], ...) over the broadcast shape, into a new host array
/// of f's result type.
template <class... Ts, class F>
array_base apply(const shape &out, F f, const typed_input<Ts> &...in) {
  constexpr std::size_t N = sizeof...(Ts);
  using R = decltype(f(std::declval<Ts>()...));
  array_base result = detail::empty(dtype_of<R>, out, device::host());
  R *o = static_cast<R *>(result.data());
  std::array<shape, N + 1> st{contiguous_strides(out), in.strides...};
  std::array<const void *, N> ptrs{in.ptr...};
  host::for_each_run<N + 1>(
      out, st, [&](std::int64_t n, const auto &off, const auto &step) {
        [&]<std::size_t... K>(std::index_sequence<K...>) {
          const std::tuple<const Ts *...> p{static_cast<const Ts *>(ptrs[K]) +
                                            off[K + 1]...};
          R *q = o + off[0];
          for (std::int64_t i = 0; i < n; ++i)
            q[i * step[0]] = f(std::get<K>(p)[i * step[K + 1]]...);
        }
        (std::index_sequence_for<Ts...>{});
      });
  return result;
}

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
          out, [](T a, T b) { return a / b; }, in(0), in(1));
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

  // All arrays on one device.
  std::optional<device> dev;
  std::vector<const array_base *> arrays;
  for (const operand &x : args) {
    if (!x.array)
      continue;
    if (dev && !(x.array->device() == *dev))
      throw device_error("arrays are on different devices: " + dev->str() +
                         " and " + x.array->device().str());
    dev = x.array->device();
    arrays.push_back(x.array);
  }
  const shape out = broadcast_all(arrays);

  // The eager fallback computes on the host: copy device operands there.
  std::vector<array_base> host_copies;
  host_copies.reserve(args.size());
  std::vector<const array_base *> host(args.size(), nullptr);
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (!args[k].array)
      continue;
    if (dev->is_host()) {
      host[k] = args[k].array;
    } else {
      host_copies.push_back(detail::to_device(*args[k].array, device::host(),
                                              stream::current(*dev)));
      host[k] = &host_copies.back();
    }
  }

  array_base result = host::dispatch(types.compute, [&]<class T>() {
    return run_typed<T>(o, out, host, args);
  });
  if (result.dtype() != types.result)
    throw value_error(std::string("internal error: ") + op_name(o) +
                      " computed " + std::string(name(result.dtype())) +
                      ", expected " + std::string(name(types.result)));
  if (!dev->is_host())
    result = detail::to_device(result, *dev, stream::current(*dev));
  return result;
}

} // namespace kiln::detail
