// Issue 27's new ufuncs (two batches) on the host backend, one at a time on
// 2^22 float32 (built with kilnc; KILN_DEVICE=host), beside
// host_ufuncs_numpy.py on the same machine: median milliseconds of 9 runs after
// 2, each result checked against a double reference on a sample first. One JSON
// line each.
#include "bench.hpp"

#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <vector>

using f32 = kiln::array<float>;

namespace {

int failures = 0;

std::vector<float> hu, hw; // the first 4096 elements of u and w

void run(const char *name, const std::function<f32()> &f, const std::function<double(double, double)> &ref) {
  f32 y = f();
  const auto hy = y.slice({kiln::range(0, 4096)}).to_vector();
  double worst = 0;
  for (std::size_t i = 0; i < hy.size(); ++i) {
    const double want = ref(hu[i], hw[i]);
    worst = std::max(worst, std::abs(hy[i] - want) / std::max(1.0, std::abs(want)));
  }
  if (!(worst < 1e-5)) {
    std::printf("{\"suite\": \"host_ufuncs\", \"name\": \"%s\", \"check_failed\": %g}\n", name, worst);
    ++failures;
  }
  std::printf("{\"suite\": \"host_ufuncs\", \"name\": \"%s\", \"impl\": "
              "\"kiln\", \"ms\": %.3f}\n",
              name, bench::host_median_ms([&] { y = f(); }));
}

} // namespace

int main() {
  kiln::set_current_device(kiln::device::host());
  auto rng = kiln::random::default_rng(3);
  const std::int64_t n = std::int64_t(1) << 22;
  const f32 u = rng.random<float>({n}) * 1.8f - 0.9f; // (-0.9, 0.9)
  const f32 w = rng.random<float>({n}) * 20.0f + 1.0f; // (1, 21)
  hu = u.slice({kiln::range(0, 4096)}).to_vector();
  hw = w.slice({kiln::range(0, 4096)}).to_vector();
  run("arcsin", [&] { return f32(kiln::arcsin(u)); }, [](double a, double) { return std::asin(a); });
  run("arctan", [&] { return f32(kiln::arctan(w)); }, [](double, double b) { return std::atan(b); });
  run("sinh", [&] { return f32(kiln::sinh(u)); }, [](double a, double) { return std::sinh(a); });
  run("cosh", [&] { return f32(kiln::cosh(u)); }, [](double a, double) { return std::cosh(a); });
  run("arcsinh", [&] { return f32(kiln::arcsinh(w)); }, [](double, double b) { return std::asinh(b); });
  run("arctanh", [&] { return f32(kiln::arctanh(u)); }, [](double a, double) { return std::atanh(a); });
  run("exp2", [&] { return f32(kiln::exp2(u)); }, [](double a, double) { return std::exp2(a); });
  run("expm1", [&] { return f32(kiln::expm1(u)); }, [](double a, double) { return std::expm1(a); });
  run("log1p", [&] { return f32(kiln::log1p(w)); }, [](double, double b) { return std::log1p(b); });
  run("cbrt", [&] { return f32(kiln::cbrt(w)); }, [](double, double b) { return std::cbrt(b); });
  run("rint", [&] { return f32(kiln::rint(w)); }, [](double, double b) { return std::nearbyint(b); });
  run("square", [&] { return f32(kiln::square(w)); }, [](double, double b) { return b * b; });
  run("deg2rad", [&] { return f32(kiln::deg2rad(w)); }, [](double, double b) { return b * 0.017453292519943295; });
  run("arctan2(u, w)", [&] { return f32(kiln::arctan2(u, w)); }, [](double a, double b) { return std::atan2(a, b); });
  run("hypot(u, w)", [&] { return f32(kiln::hypot(u, w)); }, [](double a, double b) { return std::hypot(a, b); });
  run("logaddexp(u, w)", [&] { return f32(kiln::logaddexp(u, w)); }, [](double a, double b) { return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b))); });
  run("fmax(u, w)", [&] { return f32(kiln::fmax(u, w)); }, [](double a, double b) { return std::fmax(a, b); });
  // The second batch: references in float, as the kernels compute.
  run(
      "fmod(w, u)", [&] { return f32(kiln::fmod(w, u)); },
      [](double a, double b) { return std::fmod(float(b), float(a)); });
  run(
      "floor_divide(w, u)", [&] { return f32(kiln::floor_divide(w, u)); },
      [](double a, double b) {
        const float x = float(b), y = float(a), mod = std::fmod(x, y);
        float div = (x - mod) / y;
        if (mod != 0 && ((y < 0) != (mod < 0)))
          div -= 1;
        const float fl = std::floor(div);
        return double(div - fl > 0.5f ? fl + 1 : fl);
      });
  run(
      "heaviside(u, 0.5)", [&] { return f32(kiln::heaviside(u, 0.5f)); },
      [](double a, double) { return a < 0    ? 0.0
                                    : a == 0 ? 0.5
                                             : 1.0; });
  run(
      "nextafter(u, w)", [&] { return f32(kiln::nextafter(u, w)); },
      [](double a, double b) { return std::nextafter(float(a), float(b)); });
  run(
      "spacing(w)", [&] { return f32(kiln::spacing(w)); },
      [](double, double b) {
        return std::nextafter(float(b), INFINITY) - float(b);
      });
  run(
      "sinc(u)", [&] { return f32(kiln::sinc(u)); },
      [](double a, double) {
        const double y = 3.141592653589793 * (a == 0 ? 1e-20 : a);
        return std::sin(y) / y;
      });
  run(
      "reciprocal(w)", [&] { return f32(kiln::reciprocal(w)); },
      [](double, double b) { return 1 / b; });
  run(
      "round(w, 2)", [&] { return f32(kiln::round(w, 2)); },
      [](double, double b) {
        return std::nearbyint(float(b) * 100.0f) / 100.0f;
      });
  // The third batch: ldexp, nan_to_num, clip with a None bound, gcd.
  const kiln::array<std::int32_t> iw = (w * 1000.0f).astype<std::int32_t>(),
                                  iu = (u * 1000.0f).astype<std::int32_t>();
  run(
      "ldexp(w, 3)", [&] { return f32(kiln::ldexp(w, 3)); },
      [](double, double b) { return std::ldexp(float(b), 3); });
  run(
      "nan_to_num(u)", [&] { return f32(kiln::nan_to_num(u)); },
      [](double a, double) { return a; });
  run(
      "clip(w, None, 5)",
      [&] { return f32(kiln::clip(w, std::nullopt, 5.0f)); },
      [](double, double b) { return std::min(float(b), 5.0f); });
  run(
      "gcd(iw, iu)", [&] { return f32(kiln::gcd(iw, iu).astype<float>()); },
      [](double a, double b) {
        std::int64_t p = std::abs(std::int64_t(float(a) * 1000.0f)),
                     q = std::abs(std::int64_t(float(b) * 1000.0f));
        while (p) {
          const std::int64_t r = q % p;
          q = p;
          p = r;
        }
        return double(q);
      });
  return failures ? 1 : 0;
}
