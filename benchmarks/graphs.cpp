// CUDA graphs (built with kilnc; docs/runtime-graphs.md): 100 small fused
// calls on 2^16 float32, issued one by one and captured once with
// kiln::capture then replayed with one graph::launch. Two workloads: the
// in-place update `y += a * x` (one fused kernel a call, no allocation) and
// `y = a * x + y` (a new array a call: inside the capture each one is a block
// the graph owns). Times are wall-clock milliseconds per 100 calls, issue
// and completion (f(); s.synchronize()), medians; the graph line carries the
// speedup over one by one (goal >= 3x). Each replay is checked against the
// one-by-one result (bitwise: the same kernels in the same order); a
// mismatch exits 1.
#include "bench.hpp"

#include <kiln/graph.hpp>

#include <chrono>
#include <cstdint>
#include <string>

using f32 = kiln::array<float>;

namespace {

constexpr int calls = 100;

/// Median wall-clock milliseconds of f(); s.synchronize().
double median_wall_ms(const std::function<void()> &f, const kiln::stream &s, int reps = 50, int warmup = 5) {
  for (int i = 0; i < warmup; ++i)
    f();
  s.synchronize();
  std::vector<double> ts;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    s.synchronize();
    ts.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(ts.begin(), ts.begin() + ts.size() / 2, ts.end());
  return ts[ts.size() / 2];
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
    const double one_by_one = median_wall_ms(step, s);
    y.assign(y0);
    step();
    const std::vector<float> want = y.to_vector();

    auto t0 = std::chrono::steady_clock::now();
    kiln::graph g = kiln::capture(s, step);
    const double capture_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double graph = median_wall_ms([&] { g.launch(s); }, s);
    y.assign(y0);
    g.launch(s);
    const bool good = same(y.to_vector(), want);
    ok = ok && good;
    const std::string extra = ", \"calls\": " + std::to_string(calls) + ", \"nodes\": " +
                              std::to_string(g.num_nodes()) + ", \"capture_ms\": " + std::to_string(capture_ms) +
                              ", \"one_by_one_ms\": " + std::to_string(one_by_one) +
                              ", \"speedup\": " + std::to_string(one_by_one / graph) +
                              ", \"goal_met\": " + (one_by_one / graph >= 3 ? "true" : "false") +
                              ", \"check\": \"" + (good ? "ok" : "MISMATCH") + "\"";
    bench::emit("graphs", "kiln 100 x (y += a*x) 2^16 f32, one by one", one_by_one, bytes);
    bench::emit("graphs", "kiln 100 x (y += a*x) 2^16 f32, one graph launch", graph, bytes, extra.c_str());
  }

  // A new array a call: y = a * x + y. The graph reads the y of before the
  // capture and writes the array y names after it.
  {
    f32 y = y0.copy();
    auto step = [&] {
      for (int i = 0; i < calls; ++i)
        y = a * x + y;
    };
    const double one_by_one = median_wall_ms(step, s);
    y = y0.copy();
    step();
    const std::vector<float> want = y.to_vector();

    const f32 input = y0.copy();
    y = input; // the array the first captured call reads
    auto t0 = std::chrono::steady_clock::now();
    kiln::graph g = kiln::capture(s, step);
    const double capture_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double graph = median_wall_ms([&] { g.launch(s); }, s);
    g.launch(s); // input still holds y0: each replay computes the same result
    const bool good = same(y.to_vector(), want);
    ok = ok && good;
    const std::string extra = ", \"calls\": " + std::to_string(calls) + ", \"nodes\": " +
                              std::to_string(g.num_nodes()) + ", \"capture_ms\": " + std::to_string(capture_ms) +
                              ", \"graph_owned_bytes\": " + std::to_string(g.owned_bytes()) +
                              ", \"one_by_one_ms\": " + std::to_string(one_by_one) +
                              ", \"speedup\": " + std::to_string(one_by_one / graph) +
                              ", \"goal_met\": " + (one_by_one / graph >= 3 ? "true" : "false") +
                              ", \"check\": \"" + (good ? "ok" : "MISMATCH") + "\"";
    bench::emit("graphs", "kiln 100 x (y = a*x + y) 2^16 f32, one by one", one_by_one, bytes);
    bench::emit("graphs", "kiln 100 x (y = a*x + y) 2^16 f32, one graph launch", graph, bytes, extra.c_str());
  }
  return ok ? 0 : 1;
}
