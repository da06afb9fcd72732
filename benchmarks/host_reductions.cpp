// Fused reductions on the host backend (built with kilnc; always runs on
// kiln::device::host(), whatever KILN_DEVICE says), beside NumPy on the same
// machine (host_peers.py, same workloads and sizes): float32, median
// milliseconds of several runs with a host timer, one JSON line each (suite
// "host"). Each workload is checked once against a float64 reference on
// random data (into a poisoned output) before it is timed; exits 1 if a
// check failed. Kiln uses its thread pool (KILN_NUM_THREADS, default: every
// core); NumPy's reductions run on one thread.
#include "bench.hpp"
#include "reduction_refs.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>
#include <vector>

using f32 = kiln::array<float>;
using i64 = std::int64_t;

// The same functions as reductions.cpp.
KILN_FUSE f32 sum_xy(const f32 &x, const f32 &y) { return kiln::sum(x * y, -1); }
KILN_FUSE f32 mean_axis0(const f32 &x) { return kiln::mean(x, 0); }
KILN_FUSE f32 full_sum(const f32 &x) { return kiln::sum(x); }
KILN_FUSE f32 l2_rows(const f32 &x) { return kiln::linalg::norm(x, 2, -1); }
KILN_FUSE kiln::array<i64> argmax_rows(const f32 &x) { return kiln::argmax(x, -1); }
KILN_FUSE f32 var_rows(const f32 &x) { return kiln::var(x, -1); }
KILN_FUSE f32 softmax_rows(const f32 &x) {
  auto e = kiln::exp(x - kiln::max(x, -1, true));
  return e / kiln::sum(e, -1, true);
}
KILN_FUSE f32 layer_norm_rows(const f32 &x, const f32 &gamma, const f32 &beta) {
  auto mu = kiln::mean(x, -1, true);
  auto vr = kiln::var(x, -1, true);
  return (x - mu) / kiln::sqrt(vr + 1e-5f) * gamma + beta;
}
KILN_FUSE f32 small_sum(const f32 &x) { return kiln::sum(x, -1); }

namespace {

int failures = 0;

void check(const std::string &workload, double worst) {
  if (!refs::verdict(workload.c_str(), worst))
    ++failures;
}

template <class T> void poison(const kiln::shape &s, T v) {
  kiln::array<T> p = kiln::full<T>(s, v);
  kiln::synchronize();
}

constexpr float poison_nan = std::numeric_limits<float>::quiet_NaN();

} // namespace

int main() {
  kiln::device_scope on_host{kiln::device::host()};

  auto rng = kiln::random::default_rng(1);
  const i64 R = 4096, C = 4096;
  const double n = double(R) * double(C);

  {
    f32 x = rng.random<float>({R, C}), y = rng.random<float>({R, C});
    poison<float>({R}, poison_nan);
    f32 out = sum_xy(x, y);
    check("sum(x*y,-1) 4k x 4k",
          refs::check_sum_xy(x.to_vector().data(), y.to_vector().data(), R, C, out.to_vector().data()));
    bench::emit_host("sum(x*y,-1) 4k x 4k", bench::median_host_ms([&] { out = sum_xy(x, y); }), 2 * n * 4 + R * 4.0);

    poison<float>({C}, poison_nan);
    out = mean_axis0(x);
    check("mean(axis=0) 4k x 4k", refs::check_mean0(x.to_vector().data(), R, C, out.to_vector().data()));
    bench::emit_host("mean(axis=0) 4k x 4k", bench::median_host_ms([&] { out = mean_axis0(x); }), n * 4 + C * 4.0);
  }
  {
    const i64 m = i64(1) << 24;
    f32 x = rng.random<float>({m});
    poison<float>({}, poison_nan);
    f32 out = full_sum(x);
    check("sum() 2^24", refs::check_full_sum(x.to_vector().data(), m, out.item()));
    bench::emit_host("sum() 2^24", bench::median_host_ms([&] { out = full_sum(x); }), m * 4.0);
  }
  {
    f32 x = rng.normal<float>({R, C}, 0.5f, 2.0f);
    const std::vector<float> hx = x.to_vector();
    poison<i64>({R}, -1);
    kiln::array<i64> idx = argmax_rows(x);
    check("argmax rows 4k x 4k", refs::check_argmax_rows(hx.data(), R, C, idx.to_vector().data()));
    bench::emit_host("argmax rows 4k x 4k", bench::median_host_ms([&] { idx = argmax_rows(x); }), n * 4 + R * 8.0);

    poison<float>({R}, poison_nan);
    f32 norm = l2_rows(x);
    check("L2 norm rows 4k x 4k", refs::check_l2_rows(hx.data(), R, C, norm.to_vector().data()));
    bench::emit_host("L2 norm rows 4k x 4k", bench::median_host_ms([&] { norm = l2_rows(x); }), n * 4 + R * 4.0);

    f32 v = rng.normal<float>({R, C}, 100.0f, 3.0f);
    poison<float>({R}, poison_nan);
    f32 out = var_rows(v);
    check("var rows 4k x 4k", refs::check_var_rows(v.to_vector().data(), R, C, out.to_vector().data()));
    bench::emit_host("var rows 4k x 4k", bench::median_host_ms([&] { out = var_rows(v); }), n * 4 + R * 4.0);
  }
  {
    f32 x = rng.normal<float>({R, C}, 0.0f, 3.0f);
    poison<float>({R, C}, poison_nan);
    f32 out = softmax_rows(x);
    check("softmax rows 4k x 4k", refs::check_softmax_rows(x.to_vector().data(), R, C, out.to_vector().data()));
    bench::emit_host("softmax rows 4k x 4k", bench::median_host_ms([&] { out = softmax_rows(x); }), 2 * n * 4);

    f32 g = rng.normal<float>({C}, 1.0f, 0.5f), b = rng.normal<float>({C}, 0.0f, 1.0f);
    f32 xl = rng.normal<float>({R, C}, 1.0f, 2.0f);
    poison<float>({R, C}, poison_nan);
    out = layer_norm_rows(xl, g, b);
    check("layer norm rows 4k x 4k",
          refs::check_layer_norm_rows(xl.to_vector().data(), g.to_vector().data(), b.to_vector().data(), R, C, 1e-5,
                                      out.to_vector().data()));
    bench::emit_host("layer norm rows 4k x 4k", bench::median_host_ms([&] { out = layer_norm_rows(xl, g, b); }),
         2 * n * 4 + 2 * C * 4.0);
  }
  { // Host time of one small call on the host device (the work is 1000 adds).
    f32 x = rng.random<float>({1000});
    check("sum(x,-1) 1000", refs::check_full_sum(x.to_vector().data(), 1000, small_sum(x).item()));
    for (int i = 0; i < 1000; ++i)
      f32 r = small_sum(x);
    constexpr int batch = 100, batches = 300;
    std::vector<double> us;
    for (int b = 0; b < batches; ++b) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < batch; ++i)
        f32 r = small_sum(x);
      const auto t1 = std::chrono::steady_clock::now();
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
    }
    std::sort(us.begin(), us.end());
    char more[96];
    std::snprintf(more, sizeof more, ", \"us\": %.3f", us[batches / 2]);
    bench::emit_host("call cost sum(x,-1) 1000 f32", us[batches / 2] * 1e-3, 0, more);
  }
  if (failures)
    std::printf("host_reductions: %d check(s) FAILED\n", failures);
  return failures ? 1 : 0;
}
