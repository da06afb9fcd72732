// Checks for kilnc's end-to-end programs: compare a kernel's result with a
// reference computed in double (or complex<double>) on the host from the same
// random inputs; count failures; the program's exit code is the verdict.
#pragma once

#include <kiln/kiln.hpp>

#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace e2e {

inline int failures = 0, checks = 0;

template <class T> std::complex<double> widen(T v) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
    return {double(v.real()), double(v.imag())};
  else
    return {double(v), 0.0};
}

/// Same value up to `tol` relative (NaNs must match NaNs, infinities exactly).
inline bool close(std::complex<double> got, std::complex<double> want, double tol) {
  auto one = [&](double g, double w) {
    if (std::isnan(w)) return std::isnan(g);
    if (std::isinf(w)) return g == w;
    return std::abs(g - w) <= tol * std::max(1.0, std::abs(w));
  };
  return one(got.real(), want.real()) && one(got.imag(), want.imag());
}

/// Compares every element of `got` with ref(i).
template <class R>
void expect(const std::string &what, const kiln::array<R> &got, std::size_t n,
            const std::function<std::complex<double>(std::size_t)> &ref, double tol) {
  ++checks;
  std::vector<R> g = got.to_vector();
  if (g.size() != n) {
    std::printf("FAIL %s: %zu elements, expected %zu\n", what.c_str(), g.size(), n);
    ++failures;
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::complex<double> w = ref(i), v = widen(g[i]);
    if (!close(v, w, tol)) {
      std::printf("FAIL %s [%zu]: got (%g,%g) expected (%g,%g)\n", what.c_str(), i, v.real(), v.imag(), w.real(),
                  w.imag());
      ++failures;
      return;
    }
  }
}

inline int finish(const char *name) {
  std::printf("%s: %d checks, %d failed (device %s)\n", name, checks, failures,
              kiln::current_device().str().c_str());
  return failures ? 1 : 0;
}

} // namespace e2e
