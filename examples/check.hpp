// Shared by the examples: compare a Kiln result with a float64 reference
// computed on the host, print one line, and give the exit code.
#pragma once

#include <kiln/kiln.hpp>

#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

namespace example {

/// ||got - ref|| / ||ref|| over all elements.
template <class T, class R>
double relative_error(const std::vector<T> &got, const std::vector<R> &ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    num += std::norm(std::complex<double>(got[i]) - std::complex<double>(ref[i]));
    den += std::norm(std::complex<double>(ref[i]));
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}

/// Prints "<name>: OK|FAILED (...)" and returns the process exit code.
inline int report(const char *name, double err, double tol, std::size_t n) {
  bool ok = std::isfinite(err) && err <= tol;
  std::printf("%s: %s (n=%zu, device=%s, relative error %.3g, tolerance %.1g)\n", name, ok ? "OK" : "FAILED", n,
              kiln::current_device().str().c_str(), err, tol);
  return ok ? 0 : 1;
}

} // namespace example
