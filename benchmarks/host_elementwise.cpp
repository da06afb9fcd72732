// Fused elementwise kernels on the host backend (built with kilnc; always on
// kiln::device::host(), whatever KILN_DEVICE says), beside NumPy on the same
// machine (host_peers.py, same workloads and sizes; issue 11's host rows):
// float32, median milliseconds of several runs with a host timer, one JSON
// line each (suite "host"). Each workload is checked once against a float64
// reference on random data before it is timed; exits 1 if a check failed.
// Kiln uses its thread pool (KILN_NUM_THREADS, default: every core).
#include "bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using f32 = kiln::array<float>;
using i64 = std::int64_t;

KILN_FUSE f32 copy_of(const f32 &x) { return x + 0.0f; }
KILN_FUSE f32 saxpy(float a, const f32 &x, const f32 &y) { return a * x + y; }
// Eight operations, six of them transcendental.
KILN_FUSE f32 transcendental8(const f32 &x, const f32 &y) {
  return kiln::tanh(kiln::exp(x) * kiln::sin(y) + kiln::log(y) * kiln::cos(x));
}
KILN_FUSE f32 scale_shift(const f32 &m) { return m * 2.0f + 1.0f; }
KILN_FUSE f32 times_column(const f32 &m, const f32 &col) { return m * col + 1.0f; }

namespace {

int failures = 0;

/// Worst relative error of `got` against ref(i) (relative to max(1, |ref|)).
template <class R> void check(const std::string &workload, const f32 &got, R ref, double tol) {
  std::vector<float> g = got.to_vector();
  double worst = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double w = ref(i);
    worst = std::max(worst, std::fabs(double(g[i]) - w) / std::max(1.0, std::fabs(w)));
  }
  if (!(worst <= tol)) {
    std::printf("{\"suite\": \"host\", \"check\": \"%s\", \"worst\": %g, \"failed\": true}\n", workload.c_str(), worst);
    ++failures;
  }
}

} // namespace

int main() {
  kiln::device_scope on_host{kiln::device::host()};
  auto rng = kiln::random::default_rng(3);
  const i64 n = i64(1) << 24;
  const double B = double(n) * 4;
  {
    f32 x = rng.random<float>({n}), y = rng.random<float>({n});
    std::vector<float> hx = x.to_vector(), hy = y.to_vector();
    f32 out = copy_of(x);
    check("copy 2^24", out, [&](std::size_t i) { return double(hx[i]); }, 0);
    bench::emit_host("copy 2^24", bench::median_host_ms([&] { out = copy_of(x); }), 2 * B);
    out = saxpy(2.5f, x, y);
    check("a*x+y 2^24", out, [&](std::size_t i) { return 2.5 * hx[i] + hy[i]; }, 1e-6);
    bench::emit_host("a*x+y 2^24", bench::median_host_ms([&] { out = saxpy(2.5f, x, y); }), 3 * B);
    out = transcendental8(x, y);
    check("transcendental chain of 8 ops 2^24", out, [&](std::size_t i) {
      const double a = hx[i], b = hy[i];
      return std::tanh(std::exp(a) * std::sin(b) + std::log(b) * std::cos(a));
    }, 1e-5);
    bench::emit_host("transcendental chain of 8 ops 2^24", bench::median_host_ms([&] { out = transcendental8(x, y); }), 3 * B);
  }
  {
    const i64 m = 4096;
    f32 x = rng.random<float>({m, m}), col = rng.random<float>({m, 1});
    std::vector<float> hx = x.to_vector(), hcol = col.to_vector();
    f32 out = scale_shift(x.T());
    check("m.T()*2+1 4k x 4k", out, [&](std::size_t i) { return 2.0 * hx[(i % m) * m + i / m] + 1; }, 1e-6);
    bench::emit_host("m.T()*2+1 4k x 4k", bench::median_host_ms([&] { out = scale_shift(x.T()); }), 2.0 * m * m * 4);
    f32 into = kiln::empty<float>({m, m}); // the same into an existing array (one fused kernel)
    into.assign(x.T() * 2.0f + 1.0f);
    check("into.assign(m.T()*2+1) 4k x 4k", into, [&](std::size_t i) { return 2.0 * hx[(i % m) * m + i / m] + 1; }, 1e-6);
    bench::emit_host("into.assign(m.T()*2+1) 4k x 4k", bench::median_host_ms([&] { into.assign(x.T() * 2.0f + 1.0f); }),
                     2.0 * m * m * 4);
    out = times_column(x, col);
    check("m*col+1 4k x 4k", out, [&](std::size_t i) { return double(hx[i]) * hcol[i / m] + 1; }, 1e-6);
    bench::emit_host("m*col+1 4k x 4k", bench::median_host_ms([&] { out = times_column(x, col); }), 2.0 * m * m * 4 + m * 4.0);
  }
  return failures ? 1 : 0;
}
