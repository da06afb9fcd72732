// CUDA graphs (built with kilnc; docs/runtime-graphs.md): 100 small fused
// calls on 2^16 float32, issued one by one and captured once with
// kiln::capture then replayed with one graph::launch. Two workloads: the
// in-place update `y += a * x` (one fused kernel a call, no allocation) and
// `y = a * x + y` (a new array a call: inside the capture each one is a block
// the graph owns). Times are wall-clock milliseconds per 100 calls, issue
// and completion (f(); kiln::synchronize()), medians; the graph line carries the
// speedup over one by one (goal >= 3x). Each replay is checked against the
// one-by-one result (bitwise: the same kernels in the same order); a
// mismatch exits 1.
#include "bench.hpp"

#include <kiln/graph.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>

using f32 = kiln::array<float>;

namespace {

constexpr int calls = 100;

/// Median wall-clock milliseconds of f() and its completion.
double median_wall_ms(const std::function<void()> &f) { return bench::median_host_ms(f, 50, 5); }

/// Captures `step`, times one graph::launch against `one_by_one` and emits
/// both lines of a workload; `check` replays the graph once more and says
/// whether it gave the one-by-one result.
bool report(const char *workload, const kiln::stream &s, const std::function<void()> &step, double one_by_one,
            double bytes, const std::function<bool(const kiln::graph &)> &check) {
  const auto t0 = std::chrono::steady_clock::now();
  kiln::graph g = kiln::capture(s, step);
  const double capture_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const double graph = median_wall_ms([&] { g.launch(s); });
  const bool good = check(g);
  const std::string extra = ", \"calls\": " + std::to_string(calls) + ", \"nodes\": " + std::to_string(g.num_nodes()) +
                            ", \"capture_ms\": " + std::to_string(capture_ms) +
                            ", \"graph_owned_bytes\": " + std::to_string(g.owned_bytes()) +
                            ", \"one_by_one_ms\": " + std::to_string(one_by_one) +
                            ", \"speedup\": " + std::to_string(one_by_one / graph) +
                            ", \"goal_met\": " + (one_by_one / graph >= 3 ? "true" : "false") +
                            ", \"check\": \"" + (good ? "ok" : "MISMATCH") + "\"";
  // With KILN_PROGRAMMATIC_LAUNCH=0 (docs/runtime-launch.md) the rows say
  // so; KILN_BENCH_BUILD names another build of this file (device-build.sh's
  // copy without --cuda-arch).
  const char *pdl = std::getenv("KILN_PROGRAMMATIC_LAUNCH");
  const char *build = std::getenv("KILN_BENCH_BUILD");
  const std::string name = std::string("kiln ") + (build ? "(" + std::string(build) + ") " : "") +
                           (pdl && std::string(pdl) == "0" ? "(no PDL) " : "") + "100 x (" + workload + ") 2^16 f32, ";
  bench::emit("graphs", (name + "one by one").c_str(), one_by_one, bytes);
  bench::emit("graphs", (name + "one graph launch").c_str(), graph, bytes, extra.c_str());
  return good;
}

bool same(const std::vector<float> &a, const std::vector<float> &b) { return a == b; }

} // namespace

int main() {
  if (!kiln::current_device().is_cuda()) {
    std::printf("{\"suite\": \"graphs\", \"skipped\": \"no GPU\"}\n");
    return 0;
  }
  const std::int64_t n = std::int64_t(1) << 16;
  const double bytes = double(calls) * 12.0 * double(n); // x and y read, y written, per call
  kiln::stream s;
  kiln::stream_scope on_s(s); // everything below runs on s
  auto rng = kiln::random::default_rng(0);
  const f32 x = rng.random<float>({n}), y0 = rng.random<float>({n});
  const float a = 1e-3f; // keeps y bounded over the repetitions
  bool ok = true;

  // In place: y += a * x, one fused kernel a call.
  {
    f32 y = y0.copy();
    auto step = [&] {
      for (int i = 0; i < calls; ++i)
        y += a * x;
    };
    const double one_by_one = median_wall_ms(step);
    y.assign(y0);
    step();
    const std::vector<float> want = y.to_vector();
    ok &= report("y += a*x", s, step, one_by_one, bytes, [&](const kiln::graph &g) {
      y.assign(y0);
      g.launch(s);
      return same(y.to_vector(), want);
    });
  }

  // A new array a call: y = a * x + y. The graph reads the y of before the
  // capture and writes the array y names after it.
  {
    f32 y = y0.copy();
    auto step = [&] {
      for (int i = 0; i < calls; ++i)
        y = a * x + y;
    };
    const double one_by_one = median_wall_ms(step);
    y = y0.copy();
    step();
    const std::vector<float> want = y.to_vector();

    const f32 input = y0.copy();
    y = input; // the array the first captured call reads
    ok &= report("y = a*x + y", s, step, one_by_one, bytes, [&](const kiln::graph &g) {
      g.launch(s); // input still holds y0: each replay computes the same result
      return same(y.to_vector(), want);
    });
  }
  return ok ? 0 : 1;
}
