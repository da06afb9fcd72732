//===- runtime/ops/eager_loop.hpp - Operands and loop of eager operations -===//
//
// What the eager elementwise operations (eager.cpp) and isclose share: the
// operands' device check and host copies (the eager fallback), NumPy
// broadcasting of every operand, each operand converted to the computation
// type, and the strided loop that applies a function over the broadcast
// shape into a new host array. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "host_loop.hpp"

#include "kiln/error.hpp"
#include "kiln/ops.hpp"

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kiln::detail {

/// The broadcast of all array operands' shapes; shape_error with NumPy's
/// message listing every shape.
inline shape broadcast_all(std::span<const array_base *const> arrays) {
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

/// The array operands of an eager operation, on the host: checks that all
/// are on one device (device_error otherwise) and that their shapes
/// broadcast (shape_error), and copies CUDA operands to the host.
struct host_operands {
  device dev;
  shape out;                            ///< the broadcast shape
  std::vector<const array_base *> host; ///< per operand; null for scalars
  std::vector<array_base> copies;       ///< the host copies of CUDA operands

  explicit host_operands(std::span<const operand> args) {
    std::optional<device> common;
    std::vector<const array_base *> arrays;
    for (const operand &x : args) {
      if (!x.array)
        continue;
      if (common && !(x.array->device() == *common))
        throw device_error("arrays are on different devices: " + common->str() +
                           " and " + x.array->device().str());
      common = x.array->device();
      arrays.push_back(x.array);
    }
    dev = common.value_or(device::host());
    out = broadcast_all(arrays);
    copies.reserve(args.size());
    host.assign(args.size(), nullptr);
    for (std::size_t k = 0; k < args.size(); ++k) {
      if (!args[k].array)
        continue;
      if (dev.is_host()) {
        host[k] = args[k].array;
      } else {
        copies.push_back(detail::to_device(*args[k].array, device::host(),
                                           stream::current(dev)));
        host[k] = &copies.back();
      }
    }
  }

  // `host` points into `copies`.
  host_operands(const host_operands &) = delete;
  host_operands &operator=(const host_operands &) = delete;

  /// A host result moved to the operands' device.
  array_base to_device(array_base result) const {
    if (dev.is_host())
      return result;
    return detail::to_device(result, dev, stream::current(dev));
  }
};

} // namespace kiln::detail
