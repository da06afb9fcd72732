// The accuracy of float32 transcendental functions, in ulps of the correctly
// rounded answer (computed in double), over each function's useful range:
// on the host these are MLIR's polynomial approximations (docs/operations.md,
// "Accuracy"), on a GPU libdevice. Each function's worst error over 200,000
// random arguments must stay within the bound docs/operations.md states; the
// program prints the measured worst case per function.
#include "e2e.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace {

int failures = 0;

/// |got - want| in units of the float spacing at `want`.
double ulps(float got, double want) {
  if (std::isnan(want))
    return std::isnan(got) ? 0 : std::numeric_limits<double>::infinity();
  if (std::isinf(want))
    return got == want ? 0 : std::numeric_limits<double>::infinity();
  const float w = static_cast<float>(want);
  const double spacing = std::max<double>(std::nextafter(std::fabs(w), std::numeric_limits<float>::infinity()) -
                                              std::fabs(w),
                                          std::numeric_limits<float>::denorm_min());
  return std::fabs(double(got) - want) / spacing;
}

std::vector<float> uniform(std::mt19937 &g, std::size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<float> v(n);
  for (float &x : v) x = static_cast<float>(d(g));
  return v;
}

/// Magnitudes spread evenly over [2^lo, 2^hi] (log-uniform), positive.
std::vector<float> log_uniform(std::mt19937 &g, std::size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<float> v(n);
  for (float &x : v) x = static_cast<float>(std::exp2(d(g)));
  return v;
}

template <class F>
void measure(const char *name, const std::vector<float> &args, const kiln::array<float> &got, F reference,
             double bound) {
  std::vector<float> g = got.to_vector();
  double worst = 0;
  float at = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const double e = ulps(g[i], reference(double(args[i])));
    if (e > worst) worst = e, at = args[i];
  }
  const bool ok = worst <= bound;
  failures += !ok;
  std::printf("%s %-6s worst %6.2f ulps at %-14.9g (bound %g)\n", ok ? "ok  " : "FAIL", name, worst, double(at),
              bound);
}

} // namespace

int main() {
  std::mt19937 g(123);
  const std::size_t n = 200000;
  auto on = [&](const std::vector<float> &v) {
    return kiln::asarray<float>(std::span<const float>(v), {std::int64_t(v.size())});
  };
  // Bounds: docs/operations.md, "Accuracy of float32 functions".
  {
    auto a = uniform(g, n, -87, 88);
    measure("exp", a, kiln::exp(on(a)), [](double x) { return std::exp(x); }, 4);
  }
  {
    auto a = log_uniform(g, n, -120, 120);
    measure("log", a, kiln::log(on(a)), [](double x) { return std::log(x); }, 4);
    measure("log2", a, kiln::log2(on(a)), [](double x) { return std::log2(x); }, 4);
  }
  {
    auto a = uniform(g, n, -12, 12);
    measure("tanh", a, kiln::tanh(on(a)), [](double x) { return std::tanh(x); }, 6);
  }
  {
    // Near multiples of pi/2 too, where a float32 range reduction fails.
    auto a = uniform(g, n, -100, 100);
    measure("sin", a, kiln::sin(on(a)), [](double x) { return std::sin(x); }, 2);
    measure("cos", a, kiln::cos(on(a)), [](double x) { return std::cos(x); }, 2);
  }
  std::printf("math_accuracy: %d functions outside their bound (device %s)\n", failures,
              kiln::current_device().str().c_str());
  return failures ? 1 : 0;
}
