// Fused elementwise kernels on the GPU (built with kilnc): the workloads of
// issue 4, float32, timed with events. Bandwidth counts each input read once
// and the output written once; report.py divides by the device copy of the
// same run.
#include "bench.hpp"

#include <kiln/graph.hpp>

using f32 = kiln::array<float>;

KILN_FUSE f32 saxpy(float a, const f32 &x, const f32 &y) { return a * x + y; }
KILN_FUSE f32 squared_diff(const f32 &x, const f32 &y) { return (x - y) * (x - y); }
KILN_FUSE f32 leaky_relu(const f32 &x) { return kiln::where(x > 0.0f, x, 0.01f * x); }
KILN_FUSE f32 chain8(const f32 &x, const f32 &y) {
  auto t = x * y + x;      // 2
  auto u = t * 0.5f - y;   // 2
  auto v = u * u + 1.0f;   // 2
  return v / (x + 2.0f);   // 2
}
KILN_FUSE f32 add_row(const f32 &m, const f32 &row) { return m + row; }
KILN_FUSE f32 scale_shift(const f32 &m) { return m * 2.0f + 1.0f; }
KILN_FUSE f32 times_column(const f32 &m, const f32 &col) { return m * col + 1.0f; }
KILN_FUSE f32 gelu(const f32 &x) {
  return 0.5f * x * (1.0f + kiln::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
}
// Issue 11: three dependent plain statements, no KILN_FUSE: kilnc fuses the
// chain into one kernel (compiler/Frontend/StatementChain.h).
f32 three_statements(float a, const f32 &x, const f32 &y) {
  auto t = a * x;
  auto u = t + y;
  return u * u;
}

int main() {
  if (!kiln::current_device().is_cuda()) {
    std::printf("{\"suite\": \"elementwise\", \"skipped\": \"no GPU\"}\n");
    return 0;
  }
  const std::int64_t n = std::int64_t(1) << 28;
  const double B = double(n) * 4;
  auto rng = kiln::random::default_rng(0);
  f32 x = rng.random<float>({n}), y = rng.random<float>({n});
  f32 out = kiln::empty<float>({n});

  bench::emit("elementwise", "kiln d2d copy (read+write)", bench::median_ms([&] { out = x.copy(); }), 2 * B);
  bench::emit("elementwise", "kiln a*x+y", bench::median_ms([&] { out = saxpy(2.5f, x, y); }), 3 * B);
  bench::emit("elementwise", "kiln (x-y)*(x-y)", bench::median_ms([&] { out = squared_diff(x, y); }), 3 * B);
  bench::emit("elementwise", "kiln leaky_relu", bench::median_ms([&] { out = leaky_relu(x); }), 2 * B);
  bench::emit("elementwise", "kiln chain of 8 ops", bench::median_ms([&] { out = chain8(x, y); }), 3 * B);
  bench::emit("elementwise", "kiln 3 plain statements (a*x; +y; squared)",
              bench::median_ms([&] { out = three_statements(2.5f, x, y); }), 3 * B);
  // kiln::elementwise with a lambda (CuPy's ElementwiseKernel): the same
  // saxpy, and a lambda with a branch and a loop (a clipped polynomial).
  bench::emit("elementwise", "kiln elementwise(lambda) a*x+y", bench::median_ms([&] {
                out = kiln::elementwise([](float a, float p, float q) { return a * p + q; }, 2.5f, x, y);
              }), 3 * B);
  bench::emit("elementwise", "kiln elementwise(lambda) clipped poly", bench::median_ms([&] {
                out = kiln::elementwise(
                    [](float p, float q) {
                      if (p > 0.9f)
                        return q;
                      float r = 0.0f;
                      for (int k = 0; k < 4; ++k)
                        r = r * p + q;
                      return r;
                    },
                    x, y);
              }), 3 * B);

  const std::int64_t m = std::int64_t(1) << 14;
  f32 X = x.reshape({m, m});
  f32 row = rng.random<float>({m});
  bench::emit("elementwise", "kiln x + row (16k x 16k)", bench::median_ms([&] { out = add_row(X, row); }),
              2 * B + m * 4.0);
  f32 XT = X.T();
  bench::emit("elementwise", "kiln x.T()*2+1 (16k x 16k)", bench::median_ms([&] { out = scale_shift(XT); }), 2 * B);
  // The same into an existing array: one kernel writing it (kilnc fuses the assign).
  f32 into = kiln::empty<float>({m, m});
  bench::emit("elementwise", "kiln into.assign(x.T()*2+1) (16k x 16k)",
              bench::median_ms([&] { into.assign(XT * 2.0f + 1.0f); }), 2 * B);
  // Issue 11: a column broadcast, a permuted 3-d view, a small array.
  f32 col = rng.random<float>({m, 1});
  bench::emit("elementwise", "kiln m*col+1 (16k x 16k)", bench::median_ms([&] { out = times_column(X, col); }),
              2 * B + m * 4.0);
  f32 P = x.reshape({512, 512, 1024}).transpose({2, 0, 1});
  bench::emit("elementwise", "kiln permuted 3-d (2,0,1) *2+1", bench::median_ms([&] { out = scale_shift(P); }), 2 * B);
  const std::int64_t small = std::int64_t(1) << 20;
  f32 xs = rng.random<float>({small}), outs = kiln::empty<float>({small});
  bench::emit("elementwise", "kiln GELU 2^20", bench::median_ms([&] { outs = gelu(xs); }), 2.0 * small * 4);
  // The same small call where its launch is amortized: 100 calls back to back
  // on the stream (a loop over small arrays), and 100 captured once in a graph
  // and replayed (docs/runtime-graphs.md); per call.
  constexpr int calls = 100;
  bench::emit("elementwise", "kiln GELU 2^20, 100 calls back to back (per call)",
              bench::median_ms([&] {
                for (int i = 0; i < calls; ++i)
                  outs = gelu(xs);
              }, 10) / calls,
              2.0 * small * 4);
  {
    kiln::stream s;
    kiln::stream_scope on_s(s);
    kiln::graph g = kiln::capture(s, [&] {
      for (int i = 0; i < calls; ++i)
        outs = gelu(xs);
    });
    bench::emit("elementwise", "kiln GELU 2^20, graph of 100 calls (per call)",
                bench::median_ms([&] { g.launch(s); }, 10) / calls, 2.0 * small * 4);
  }
  return 0;
}
