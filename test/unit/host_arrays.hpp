// Test helpers: host arrays made from vectors (the runtime's own wrap(), so a
// test does not depend on the creation functions it may be testing).
#pragma once

#include <kiln/kiln.hpp>

#include <memory>
#include <vector>

template <class T>
inline constexpr bool is_cplx = kiln::is_std_complex<T>::value;

/// A host array of shape `s` holding a copy of `v`.
template <class T>
kiln::array<T> make(const std::vector<T> &v, const kiln::shape &s) {
  std::shared_ptr<T[]> buf(new T[v.size() ? v.size() : 1]);
  for (std::size_t i = 0; i < v.size(); ++i)
    buf[i] = v[i];
  return kiln::wrap<T>(buf.get(), s, kiln::device::host(), buf);
}

/// A 1-d host array holding a copy of `v`.
template <class T> kiln::array<T> make(const std::vector<T> &v) {
  return make(v, kiln::shape{static_cast<std::int64_t>(v.size())});
}
