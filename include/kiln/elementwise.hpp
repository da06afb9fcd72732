//===- kiln/elementwise.hpp - Elementwise kernels from C++ lambdas -*- C++ -*-===//
//
// CuPy's ElementwiseKernel with a C++ lambda (SPEC.md, "Kernels the user
// defines"; docs/user-guide.md, "Elementwise lambdas"):
//
//   auto f = kiln::elementwise([](auto x, auto y) { return x * x + y; }, a, b);
//   kiln::elementwise_into(out, [=](float x) { return std::max(x, lo); }, a);
//
// Array arguments broadcast together as NumPy's do; the lambda runs once per
// element of the broadcast shape and receives each array's element in its
// own C++ type (a generic lambda is CuPy's type placeholder: one kernel per
// combination of argument types) and each scalar argument as it is. The
// result's dtype is the lambda's return type. kilnc compiles the lambda's
// body (the scalar subset of KILN_RAWKERNEL functions, without the thread
// built-ins) into the surrounding fused kernel: `kiln::sum(elementwise(f,
// x, y), -1)` is one kernel, on a GPU or on the host.
//
// Without kilnc (a file an ordinary C++ compiler built), the functions below
// run the lambda eagerly on the host; arrays on a GPU make a round trip.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/creation.hpp"
#include "kiln/error.hpp"
#include "kiln/stream.hpp"

#include <complex>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace kiln {
namespace detail {

template <class A> struct elementwise_value {
  using type = std::decay_t<A>; // a scalar, as it is
};
template <element E> struct elementwise_value<array<E>> {
  using type = E;
};
/// What the lambda receives for an argument of type A.
template <class A> using elementwise_value_t = typename elementwise_value<std::decay_t<A>>::type;

template <class A> inline constexpr bool is_elementwise_array = false;
template <element E> inline constexpr bool is_elementwise_array<array<E>> = true;

template <class A>
inline constexpr bool is_elementwise_scalar =
    std::is_arithmetic_v<std::decay_t<A>> || std::is_same_v<std::decay_t<A>, std::complex<float>> ||
    std::is_same_v<std::decay_t<A>, std::complex<double>>;

/// The lambda's result type for arguments A (decayed).
template <class F, class... A>
using elementwise_result_t = std::decay_t<std::invoke_result_t<F &, elementwise_value_t<A>...>>;

template <class... A>
inline constexpr bool elementwise_arguments =
    (... || is_elementwise_array<std::decay_t<A>>) &&
    (... && (is_elementwise_array<std::decay_t<A>> || is_elementwise_scalar<A>));

/// The broadcast shape and device of the array arguments.
struct elementwise_space {
  kiln::shape shape;
  kiln::device device = device::host();
  bool have = false;
  void add(const array_base &a) {
    if (!have) {
      shape = a.shape(), device = a.device(), have = true;
      return;
    }
    if (a.device() != device)
      throw device_error("kiln::elementwise: arrays on " + device.str() + " and " + a.device().str() +
                         " in one call; move them to one device first");
    shape = broadcast_shapes(shape, a.shape());
  }
};

/// One argument of the eager form: an array as a contiguous host copy of
/// its broadcast view, a scalar as itself.
template <class A> struct elementwise_operand {
  const A &value;
  elementwise_operand(const A &v, const shape &) : value(v) {}
  const A &at(std::size_t) const { return value; }
};
template <element E> struct elementwise_operand<array<E>> {
  array<E> contiguous;
  const E *data;
  elementwise_operand(const array<E> &a, const shape &s)
      : contiguous(on_host(broadcast_to(a, s).copy())), data(contiguous.data()) {}
  E at(std::size_t i) const { return data[i]; }
  static array<E> on_host(array<E> a) { return a.device().is_host() ? a : a.to(device::host()); }
};

/// The eager form: runs `f` on the host over the broadcast shape. Arrays on
/// a GPU make a round trip to the host, as the eager reductions do: this
/// runs only where kilnc did not compile the call (an ordinary C++ compiler,
/// or the eager fallback of a reduction kernel).
template <class R, class F, class... A> array<R> elementwise_eager(F &f, const A &...args) {
  elementwise_space space;
  (..., [&] {
    if constexpr (is_elementwise_array<A>)
      space.add(args);
  }());
  stream::current(space.device).synchronize();
  array<R> out = empty<R>(space.shape, device::host());
  std::tuple<elementwise_operand<A>...> operands{elementwise_operand<A>(args, space.shape)...};
  stream::current(space.device).synchronize();
  R *o = out.data();
  const std::size_t n = static_cast<std::size_t>(out.size());
  std::apply(
      [&](const auto &...op) {
        for (std::size_t i = 0; i < n; ++i)
          o[i] = static_cast<R>(f(op.at(i)...));
      },
      operands);
  return space.device.is_host() ? out : out.to(space.device);
}

} // namespace detail

/// The lambda `f` applied to every element of the broadcast array arguments
/// (scalars passed as they are): CuPy's ElementwiseKernel. kilnc fuses it
/// with the operations around it.
template <class F, class... A>
  requires detail::elementwise_arguments<A...>
array<detail::elementwise_result_t<F, A...>> elementwise(F f, const A &...args) {
  using R = detail::elementwise_result_t<F, A...>;
  static_assert(element<R>, "kiln::elementwise: the lambda must return a Kiln element type (bool, int8_t, uint8_t, "
                            "int32_t, int64_t, float, double, std::complex<float> or std::complex<double>)");
  return detail::elementwise_eager<R>(f, args...);
}

/// kiln::elementwise(f, args...) written into `out` (its shape must take
/// the broadcast result; the values convert to out's dtype), as NumPy's
/// `out[...] = ...`.
template <element O, class F, class... A>
  requires detail::elementwise_arguments<A...>
void elementwise_into(const array<O> &out, F f, const A &...args) {
  detail::assign(out, elementwise(std::move(f), args...), stream::current(out.device()));
}

} // namespace kiln
