// Issue 27's ufuncs in fused chains on a GPU, beside the device copy of the
// same array (and gpu_ufuncs_cupy.py: CuPy's ufunc calls and cupy.fuse, same
// run): 2^28 float32 through light new ufuncs (copysign, fmax, square,
// deg2rad: memory-bound), through transcendental ones (arcsinh, cosh,
// logaddexp, hypot), through the third batch (ldexp, nan_to_num, clip with a
// None bound, maximum), and 2^28 int32 through the bitwise operators and
// gcd/lcm (Euclid's loop: not memory-bound); each
// result checked on a sample against a double reference first. One JSON line
// each: bandwidth (one read, one write) over the copy's.
#include "bench.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

namespace {

KILN_FUSE kiln::array<float> light(const kiln::array<float> &x) {
  return kiln::fmax(kiln::copysign(x, x - 0.5f), 0.25f) + kiln::square(x) * kiln::deg2rad(x);
}

KILN_FUSE kiln::array<float> heavy(const kiln::array<float> &x) {
  return kiln::logaddexp(kiln::arcsinh(x), kiln::cosh(x * 0.5f)) + kiln::hypot(x, 1.5f);
}

KILN_FUSE kiln::array<std::int32_t> bits(const kiln::array<std::int32_t> &a) {
  return ((a & 0xff) ^ (a >> 3)) | (a << 2);
}

KILN_FUSE kiln::array<float> third(const kiln::array<float> &x) {
  return kiln::nan_to_num(kiln::ldexp(x, 3) / x) +
         kiln::clip(x, std::nullopt, 1.0f) - kiln::maximum(x, 0.5f);
}

KILN_FUSE kiln::array<std::int32_t>
divisors(const kiln::array<std::int32_t> &a) {
  return kiln::gcd(a, 360) + kiln::lcm(a & 0xff, 12);
}

int failures = 0;

template <class T, class F> void check(const char *name, const kiln::array<T> &in, const kiln::array<T> &out, F ref) {
  const auto hi = in.slice({kiln::range(0, 4096)}).to_vector(), ho = out.slice({kiln::range(0, 4096)}).to_vector();
  double worst = 0;
  for (std::size_t i = 0; i < hi.size(); ++i)
    worst = std::max(worst, std::abs(double(ho[i]) - ref(double(hi[i]))) / std::max(1.0, std::abs(ref(double(hi[i])))));
  if (!(worst < 1e-5)) {
    std::printf("{\"suite\": \"gpu_ufuncs\", \"name\": \"%s\", \"check_failed\": %g}\n", name, worst);
    ++failures;
  }
}

} // namespace

int main() {
  if (kiln::cuda_device_count() == 0) {
    std::printf("{\"suite\": \"gpu_ufuncs\", \"skipped\": \"no CUDA GPU\"}\n");
    return 0;
  }
  const kiln::device gpu = kiln::device::cuda(0);
  kiln::set_current_device(gpu);
  const std::int64_t n = std::int64_t(1) << 28;
  auto rng = kiln::random::default_rng(5);
  const kiln::array<float> x = rng.random<float>({n}, gpu) * 4.0f - 2.0f;
  kiln::array<float> copy_out = kiln::empty<float>({n}, gpu), y;
  const double bytes = 2.0 * double(x.nbytes());
  const double copy_ms = bench::median_ms([&] { kiln::copyto(copy_out, x); });
  bench::emit("gpu_ufuncs", "copy 2^28 f32", copy_ms, bytes);
  const auto row = [&](const char *name, double ms) {
    char extra[64];
    std::snprintf(extra, sizeof extra, ", \"impl\": \"kiln\", \"of_copy\": %.3f", copy_ms / ms);
    bench::emit("gpu_ufuncs", name, ms, bytes, extra);
  };
  y = light(x);
  check("light", x, y, [](double v) {
    return std::max(std::copysign(v, v - 0.5), 0.25) + v * v * (v * 3.14159265358979323846 / 180);
  });
  row("light chain f32 (copysign fmax square deg2rad)", bench::median_ms([&] { y = light(x); }));
  y = heavy(x);
  check("heavy", x, y, [](double v) {
    const double a = std::asinh(v), b = std::cosh(v * 0.5);
    return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b))) + std::hypot(v, 1.5);
  });
  row("transcendental chain f32 (arcsinh cosh logaddexp hypot)", bench::median_ms([&] { y = heavy(x); }));
  const kiln::array<std::int32_t> a = rng.integers<std::int32_t>(-1000000, 1000000, {n}, gpu);
  kiln::array<std::int32_t> z = bits(a);
  {
    const auto ha = a.slice({kiln::range(0, 4096)}).to_vector(), hz = z.slice({kiln::range(0, 4096)}).to_vector();
    for (std::size_t i = 0; i < ha.size(); ++i)
      if (hz[i] != (((ha[i] & 0xff) ^ (ha[i] >> 3)) | std::int32_t(std::uint32_t(ha[i]) << 2))) {
        std::printf("{\"suite\": \"gpu_ufuncs\", \"name\": \"bits\", \"check_failed\": %zu}\n", i);
        ++failures;
        break;
      }
  }
  row("bitwise chain i32 (& ^ >> | <<)", bench::median_ms([&] { z = bits(a); }));
  y = third(x);
  check("third", x, y, [](double v) {
    return (v == 0 ? 0.0 : 8.0) + std::min(v, 1.0) - std::max(v, 0.5);
  });
  row("third batch f32 (ldexp / nan_to_num clip(None) maximum)",
      bench::median_ms([&] { y = third(x); }));
  z = divisors(a);
  {
    const auto ha = a.slice({kiln::range(0, 4096)}).to_vector(),
               hz = z.slice({kiln::range(0, 4096)}).to_vector();
    const auto gcd = [](std::int64_t p, std::int64_t q) {
      p = std::abs(p), q = std::abs(q);
      while (p) {
        const std::int64_t r = q % p;
        q = p;
        p = r;
      }
      return q;
    };
    for (std::size_t i = 0; i < ha.size(); ++i) {
      const std::int64_t low = ha[i] & 0xff, g = gcd(low, 12);
      if (hz[i] != gcd(ha[i], 360) + (g ? low / g * 12 : 0)) {
        std::printf("{\"suite\": \"gpu_ufuncs\", \"name\": \"divisors\", "
                    "\"check_failed\": %zu}\n",
                    i);
        ++failures;
        break;
      }
    }
  }
  row("gcd lcm i32 (Euclid's loop)",
      bench::median_ms([&] { z = divisors(a); }));
  return failures ? 1 : 0;
}
