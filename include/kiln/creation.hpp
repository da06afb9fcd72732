//===- kiln/creation.hpp - Creating arrays -----------------------*- C++
//-*-===//
//
// NumPy's creation functions: empty, zeros, ones, full, arange, linspace,
// asarray (from host data) and the *_like forms. Each makes a C-contiguous
// array on the current device unless a device is passed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln {

/// An array with unspecified contents.
template <element T>
array<T> empty(const shape &s, device dev = current_device()) {
  return array<T>(detail::empty(dtype_of<T>, s, dev));
}

/// An array with every element `value`.
template <element T>
array<T> full(const shape &s, T value, device dev = current_device()) {
  array<T> a = empty<T>(s, dev);
  detail::fill(a, &value, stream::current(dev));
  return a;
}

template <element T>
array<T> zeros(const shape &s, device dev = current_device()) {
  return full<T>(s, T(0), dev);
}

template <element T>
array<T> ones(const shape &s, device dev = current_device()) {
  return full<T>(s, T(1), dev);
}

template <element T> array<T> empty_like(const array<T> &x) {
  return empty<T>(x.shape(), x.device());
}
template <element T> array<T> zeros_like(const array<T> &x) {
  return zeros<T>(x.shape(), x.device());
}
template <element T> array<T> ones_like(const array<T> &x) {
  return ones<T>(x.shape(), x.device());
}
template <element T> array<T> full_like(const array<T> &x, T value) {
  return full<T>(x.shape(), value, x.device());
}

/// An array of shape `s` holding a copy of `data` (C order); shape_error
/// when the sizes differ.
template <element T>
array<T> asarray(std::span<const T> data, const shape &s,
                 device dev = current_device()) {
  if (static_cast<std::int64_t>(data.size()) != s.numel())
    throw shape_error("cannot reshape array of size " +
                      std::to_string(data.size()) + " into shape " +
                      to_string(s));
  array<T> a = empty<T>(s, dev);
  detail::copy_from_host(a, data.data(), stream::current(dev), false);
  return a;
}
/// A 1-d array holding a copy of `data`.
template <element T>
array<T> asarray(std::span<const T> data, device dev = current_device()) {
  return asarray<T>(data, shape{static_cast<std::int64_t>(data.size())}, dev);
}
template <element T>
array<T> asarray(const std::vector<T> &data, const shape &s,
                 device dev = current_device()) {
  if constexpr (std::is_same_v<T, bool>) { // std::vector<bool> has no data()
    std::unique_ptr<bool[]> bytes(new bool[data.size()]);
    std::copy(data.begin(), data.end(), bytes.get());
    return asarray<bool>(std::span<const bool>(bytes.get(), data.size()), s,
                         dev);
  } else {
    return asarray<T>(std::span<const T>(data.data(), data.size()), s, dev);
  }
}
template <element T>
array<T> asarray(const std::vector<T> &data, device dev = current_device()) {
  return asarray<T>(data, shape{static_cast<std::int64_t>(data.size())}, dev);
}
/// asarray({1, 2, 3}) (int32), asarray({1.0, 2.0}) (float64),
/// asarray<float>({...}).
template <element T>
array<T> asarray(std::initializer_list<T> data, device dev = current_device()) {
  return asarray<T>(std::span<const T>(data.begin(), data.size()), dev);
}
template <element T>
array<T> asarray(std::initializer_list<T> data, const shape &s,
                 device dev = current_device()) {
  return asarray<T>(std::span<const T>(data.begin(), data.size()), s, dev);
}

namespace detail {
template <class T>
concept arange_element =
    element<T> && std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
}

/// start, start + step, ... up to (not including) stop, as NumPy's arange:
/// ceil((stop - start) / step) elements; value_error for step 0.
template <detail::arange_element T>
array<T> arange(T start, T stop, T step = T(1), device dev = current_device()) {
  if (step == T(0))
    throw value_error("arange: step must not be zero (division by zero)");
  std::int64_t n;
  if constexpr (std::is_integral_v<T>) {
    std::int64_t a = start, b = stop, d = step;
    n = d > 0 ? (b > a ? (b - a + d - 1) / d : 0)
              : (a > b ? (a - b + (-d) - 1) / (-d) : 0);
  } else {
    double len =
        std::ceil((static_cast<double>(stop) - static_cast<double>(start)) /
                  static_cast<double>(step));
    if (!(len == len))
      throw value_error("arange: cannot compute length");
    n = len > 0 ? static_cast<std::int64_t>(len) : 0;
  }
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>)
      v[static_cast<std::size_t>(i)] = static_cast<T>(start + i * step);
    else
      v[static_cast<std::size_t>(i)] = static_cast<T>(
          static_cast<double>(start) + static_cast<double>(i) * step);
  }
  return asarray<T>(std::span<const T>(v.data(), v.size()), dev);
}
/// 0, 1, ..., stop - 1.
template <detail::arange_element T> array<T> arange(T stop) {
  return arange<T>(T(0), stop);
}

/// `num` evenly spaced numbers from start to stop (inclusive when
/// `endpoint`), as NumPy's linspace; integer T truncates toward zero.
template <detail::arange_element T>
array<T> linspace(double start, double stop, std::int64_t num,
                  bool endpoint = true, device dev = current_device()) {
  if (num < 0)
    throw value_error("Number of samples, " + std::to_string(num) +
                      ", must be non-negative.");
  const std::int64_t div = endpoint ? num - 1 : num;
  const double step = div > 0 ? (stop - start) / static_cast<double>(div) : 0.0;
  std::vector<T> v(static_cast<std::size_t>(num));
  for (std::int64_t i = 0; i < num; ++i)
    v[static_cast<std::size_t>(i)] =
        static_cast<T>(start + static_cast<double>(i) * step);
  if (endpoint && num > 1)
    v.back() = static_cast<T>(stop);
  return asarray<T>(std::span<const T>(v.data(), v.size()), dev);
}

} // namespace kiln
