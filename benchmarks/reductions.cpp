// Fused reductions on the GPU (built with kilnc): the workloads of the
// reductions issue, float32, timed with events. Each workload is checked
// once against a float64 host reference on random data (into a poisoned
// output) before it is timed. Bandwidth counts each input read once and the
// output written once; report.py divides by the device copy of the same run.
// Also the host time of one small reduction call (sum(x, -1) of 1000
// elements). Prints "skipped" without a GPU; exits 1 if a check failed.
#include "bench.hpp"

#include <cmath>
#include "reduction_refs.hpp"

#include <chrono>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

using f32 = kiln::array<float>;
using i64 = std::int64_t;

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
// Issue 24's rows, written as a new user would.
KILN_FUSE f32 center_cols(const f32 &x) { return x - kiln::mean(x, 0); }
KILN_FUSE f32 logsumexp_rows(const f32 &x) {
  auto m = kiln::max(x, -1, true);
  return kiln::log(kiln::sum(kiln::exp(x - m), -1)) + kiln::max(x, -1);
}
KILN_FUSE f32 std_axis0(const f32 &x) { return kiln::std(x, 0); }

namespace {

int failures = 0;

/// KILN_BENCH_ONLY=a|b: only the workloads whose names contain a or b (the
/// device copy always runs).
bool want(const char *workload) {
  const char *only = std::getenv("KILN_BENCH_ONLY");
  if (!only || !*only)
    return true;
  std::string list = only;
  for (std::size_t at = 0; at <= list.size();) {
    std::size_t bar = list.find('|', at);
    std::string part = list.substr(at, bar == std::string::npos ? std::string::npos : bar - at);
    if (!part.empty() && std::string(workload).find(part) != std::string::npos)
      return true;
    if (bar == std::string::npos)
      break;
    at = bar + 1;
  }
  return false;
}

/// One timing line; `workload` and `impl` let report.py line Kiln up with
/// the peers of peers_reductions.py.
void emit(const std::string &workload, double ms, double bytes, const std::string &more = "",
          const std::string &impl = "kiln") {
  const std::string extra = ", \"workload\": \"" + workload + "\", \"impl\": \"" + impl + "\"" + more;
  bench::emit("reductions", (impl + " " + workload).c_str(), ms, bytes, extra.c_str());
}

void check(const std::string &workload, double worst) {
  if (!refs::verdict(workload.c_str(), worst))
    ++failures;
}

/// Leaves a block of `s` filled with `v` in the pool's cache, so that the
/// next output of that size most likely lands on it (unwritten elements
/// then fail the check).
template <class T> void poison(const kiln::shape &s, T v) {
  kiln::array<T> p = kiln::full<T>(s, v);
  kiln::synchronize();
}

void free_cached() {
  kiln::synchronize();
  kiln::get_default_memory_pool(kiln::current_device()).free_all_blocks();
}

constexpr float poison_nan = std::numeric_limits<float>::quiet_NaN();

} // namespace

int main() {
  if (!kiln::current_device().is_cuda()) {
    std::printf("{\"suite\": \"reductions\", \"skipped\": \"no GPU\"}\n");
    return 0;
  }
  auto rng = kiln::random::default_rng(0);
  const i64 k16 = i64(1) << 14;
  const double sq = double(k16) * double(k16);

  { // The device copy of this run, 1 GiB (as elementwise.cpp).
    const i64 n = i64(1) << 28;
    f32 x = rng.random<float>({n}), out;
    emit("d2d copy", bench::median_ms([&] { out = x.copy(); }), 2.0 * n * 4);
  }
  free_cached();

  if (want("sum(x*y")) { // sum(x * y, -1)
    f32 x = rng.random<float>({k16, k16}), y = rng.random<float>({k16, k16});
    poison<float>({k16}, poison_nan);
    f32 out = sum_xy(x, y);
    check("sum(x*y,-1) 16k x 16k",
          refs::check_sum_xy(x.to_vector().data(), y.to_vector().data(), k16, k16, out.to_vector().data()));
    emit("sum(x*y,-1) 16k x 16k", bench::median_ms([&] { out = sum_xy(x, y); }), 2 * sq * 4 + k16 * 4.0);
  }
  free_cached();

  if (want("mean(axis=0)")) { // mean(x, 0)
    f32 x = rng.random<float>({k16, k16});
    poison<float>({k16}, poison_nan);
    f32 out = mean_axis0(x);
    check("mean(axis=0) 16k x 16k", refs::check_mean0(x.to_vector().data(), k16, k16, out.to_vector().data()));
    emit("mean(axis=0) 16k x 16k", bench::median_ms([&] { out = mean_axis0(x); }), sq * 4 + k16 * 4.0);
  }
  free_cached();

  if (want("x - mean(x,0)")) { // x - mean(x, 0): a column reduction broadcast back over its input.
    f32 x = rng.random<float>({k16, k16});
    poison<float>({k16, k16}, poison_nan);
    f32 out = center_cols(x);
    check("x - mean(x,0) 16k x 16k",
          refs::check_center_cols(x.to_vector().data(), k16, k16, out.to_vector().data()));
    emit("x - mean(x,0) 16k x 16k", bench::median_ms([&] { out = center_cols(x); }), 2 * sq * 4);
  }
  free_cached();

  if (want("std(axis=0)")) { // std(x, 0): Welford merges along columns.
    f32 x = rng.normal<float>({k16, k16}, 100.0f, 3.0f);
    poison<float>({k16}, poison_nan);
    f32 out = std_axis0(x);
    check("std(axis=0) 16k x 16k", refs::check_std0(x.to_vector().data(), k16, k16, out.to_vector().data()));
    emit("std(axis=0) 16k x 16k", bench::median_ms([&] { out = std_axis0(x); }), sq * 4 + k16 * 4.0);
  }
  free_cached();

  if (want("sum() 2^28")) { // sum(x) of 2^28: read only (the 4-byte result is not counted).
    const i64 n = i64(1) << 28;
    f32 x = rng.random<float>({n});
    poison<float>({}, poison_nan);
    f32 out = full_sum(x);
    check("sum() 2^28", refs::check_full_sum(x.to_vector().data(), n, out.item()));
    emit("sum() 2^28", bench::median_ms([&] { out = full_sum(x); }), n * 4.0);
  }
  free_cached();

  if (want("rows 16k x 16k")) { // The 2-norm of each row, argmax of each row, var of each row.
    f32 x = rng.normal<float>({k16, k16}, 0.5f, 2.0f);
    const std::vector<float> hx = x.to_vector();
    poison<float>({k16}, poison_nan);
    f32 norm = l2_rows(x);
    check("L2 norm rows 16k x 16k", refs::check_l2_rows(hx.data(), k16, k16, norm.to_vector().data()));
    emit("L2 norm rows 16k x 16k", bench::median_ms([&] { norm = l2_rows(x); }), sq * 4 + k16 * 4.0);
    // The same norm as CuPy's ReductionKernel is written: kiln::reduce with
    // map, combine, identity and post lambdas.
    auto l2_reduce = [&] {
      return kiln::reduce(x, [](float v) { return v * v; }, [](float a, float b) { return a + b; }, 0.0f,
                          [](float a) { return std::sqrt(a); }, -1);
    };
    norm = l2_reduce();
    check("L2 norm rows 16k x 16k (kiln::reduce)", refs::check_l2_rows(hx.data(), k16, k16, norm.to_vector().data()));
    emit("L2 norm rows 16k x 16k", bench::median_ms([&] { norm = l2_reduce(); }), sq * 4 + k16 * 4.0, "",
         "kiln::reduce");

    poison<i64>({k16}, -1);
    kiln::array<i64> idx = argmax_rows(x);
    check("argmax rows 16k x 16k", refs::check_argmax_rows(hx.data(), k16, k16, idx.to_vector().data()));
    emit("argmax rows 16k x 16k", bench::median_ms([&] { idx = argmax_rows(x); }), sq * 4 + k16 * 8.0);

    // var on data with a mean far from 0 (a one-pass E[x^2]-E[x]^2 would fail).
    f32 v = rng.normal<float>({k16, k16}, 100.0f, 3.0f);
    const std::vector<float> hv = v.to_vector();
    poison<float>({k16}, poison_nan);
    f32 out = var_rows(v);
    check("var rows 16k x 16k", refs::check_var_rows(hv.data(), k16, k16, out.to_vector().data()));
    emit("var rows 16k x 16k", bench::median_ms([&] { out = var_rows(v); }), sq * 4 + k16 * 4.0);
  }
  free_cached();

  { // softmax and layer norm over rows of 4096, 64k rows (1 GiB each array).
    const i64 R = i64(1) << 16, C = 4096;
    const double n = double(R) * double(C);
    if (want("softmax rows 64k")) {
      f32 x = rng.normal<float>({R, C}, 0.0f, 3.0f);
      poison<float>({R, C}, poison_nan);
      f32 out = softmax_rows(x);
      check("softmax rows 64k x 4k",
            refs::check_softmax_rows(x.to_vector().data(), R, C, out.to_vector().data()));
      emit("softmax rows 64k x 4k", bench::median_ms([&] { out = softmax_rows(x); }), 2 * n * 4);
    }
    free_cached();
    if (want("logsumexp")) { // logsumexp of rows: a keepdims max and a plain max of the same rows, one kernel.
      f32 x = rng.normal<float>({R, C}, 0.0f, 3.0f);
      poison<float>({R}, poison_nan);
      f32 out = logsumexp_rows(x);
      check("logsumexp rows 64k x 4k",
            refs::check_logsumexp_rows(x.to_vector().data(), R, C, out.to_vector().data()));
      emit("logsumexp rows 64k x 4k", bench::median_ms([&] { out = logsumexp_rows(x); }), n * 4 + R * 4.0);
    }
    free_cached();
    if (want("layer norm")) {
      f32 x = rng.normal<float>({R, C}, 1.0f, 2.0f);
      f32 gamma = rng.normal<float>({C}, 1.0f, 0.5f), beta = rng.normal<float>({C}, 0.0f, 1.0f);
      poison<float>({R, C}, poison_nan);
      f32 out = layer_norm_rows(x, gamma, beta);
      check("layer norm rows 64k x 4k",
            refs::check_layer_norm_rows(x.to_vector().data(), gamma.to_vector().data(), beta.to_vector().data(), R,
                                        C, 1e-5, out.to_vector().data()));
      emit("layer norm rows 64k x 4k", bench::median_ms([&] { out = layer_norm_rows(x, gamma, beta); }),
           2 * n * 4 + 2 * C * 4.0);
    }
  }
  free_cached();

  if (want("softmax rows 16k x 2^17")) { // softmax over rows of 2^17 (512 KiB), 16k rows: 8 GiB each array.
    // Checked on three blocks of 64 rows (first, middle, last); fewer runs.
    const i64 R = k16, C = i64(1) << 17;
    const double n = double(R) * double(C);
    f32 x = rng.normal<float>({R, C}, 0.0f, 3.0f);
    poison<float>({R, C}, poison_nan);
    f32 out = softmax_rows(x);
    double worst = 0;
    for (i64 r0 : {i64(0), R / 2, R - 64}) {
      const std::vector<float> hx = x.slice({kiln::range(r0, r0 + 64), kiln::all}).to_vector();
      const std::vector<float> ho = out.slice({kiln::range(r0, r0 + 64), kiln::all}).to_vector();
      worst = std::max(worst, refs::check_softmax_rows(hx.data(), 64, C, ho.data()));
    }
    check("softmax rows 16k x 2^17", worst);
    emit("softmax rows 16k x 2^17", bench::median_ms([&] { out = softmax_rows(x); }, 10, 2), 2 * n * 4);
  }
  free_cached();

  if (want("host cost")) { // Host time of one small reduction call: sum(x, -1) of 1000 float32
    // (checks, output allocation, launch), as launch_overhead.cpp measures
    // an elementwise call.
    const i64 n = 1000;
    f32 x = rng.random<float>({n});
    {
      poison<float>({}, poison_nan);
      const float got = small_sum(x).item();
      const std::vector<float> hx = x.to_vector();
      check("sum(x,-1) 1000", refs::check_full_sum(hx.data(), n, got));
    }
    for (int i = 0; i < 1000; ++i) // warm up: module load, pool, caches
      f32 r = small_sum(x);
    kiln::synchronize();
    constexpr int batch = 100, batches = 300;
    std::vector<double> us;
    for (int b = 0; b < batches; ++b) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < batch; ++i)
        f32 r = small_sum(x);
      const auto t1 = std::chrono::steady_clock::now();
      kiln::synchronize(); // outside the timed region: host time per call only
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
    }
    std::sort(us.begin(), us.end());
    char more[128];
    std::snprintf(more, sizeof more, ", \"us\": %.3f, \"us_min\": %.3f, \"us_p90\": %.3f", us[batches / 2], us.front(),
                  us[batches * 9 / 10]);
    emit("host cost sum(x,-1) 1000 f32", us[batches / 2] * 1e-3, 0, more);
  }

  if (failures)
    std::printf("reductions: %d check(s) FAILED\n", failures);
  return failures ? 1 : 0;
}
