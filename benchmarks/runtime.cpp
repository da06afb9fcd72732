// kiln_runtime on the GPU: cached pool allocation, host<->device transfers
// (pinned and pageable), device copy, and cuBLAS fp32 matmul. Compared with
// CuPy's figures from peers.py in the same device run.
#include "bench.hpp"

#include <chrono>

using clk = std::chrono::steady_clock;

static double seconds(clk::time_point a, clk::time_point b) { return std::chrono::duration<double>(b - a).count(); }

int main() {
  if (!kiln::current_device().is_cuda()) {
    std::printf("{\"suite\": \"runtime\", \"skipped\": \"no GPU\"}\n");
    return 0;
  }
  kiln::device dev = kiln::current_device();
  kiln::memory_pool &pool = kiln::get_default_memory_pool(dev);

  // Pool: allocate + free of a cached 1 MiB block.
  { auto warm = pool.allocate(1 << 20); }
  const int reps = 200000;
  auto t0 = clk::now();
  for (int i = 0; i < reps; ++i) {
    auto a = pool.allocate(1 << 20);
  }
  auto t1 = clk::now();
  char us[64];
  std::snprintf(us, sizeof us, ", \"us\": %.4f", seconds(t0, t1) / reps * 1e6);
  bench::emit("runtime", "kiln pool alloc+free 1 MiB", seconds(t0, t1) / reps * 1e3, 0, us);

  // Transfers of 1 GiB.
  const std::int64_t n = std::int64_t(1) << 28;
  const double B = double(n) * 4;
  std::vector<float> pageable(n);
  for (std::int64_t i = 0; i < n; ++i) pageable[i] = float(i % 1000) * 0.001f;
  kiln::pinned_buffer<float> pinned(n);
  std::copy(pageable.begin(), pageable.end(), pinned.begin());
  kiln::array<float> d = kiln::empty<float>({n});
  kiln::stream s = kiln::stream::current();

  auto time_host = [&](const std::function<void()> &f) {
    f(); // warm-up
    kiln::synchronize();
    std::vector<double> ts;
    for (int i = 0; i < 5; ++i) {
      auto a = clk::now();
      f();
      kiln::synchronize();
      ts.push_back(seconds(a, clk::now()) * 1e3);
    }
    std::sort(ts.begin(), ts.end());
    return ts[ts.size() / 2];
  };
  // Pageable: the whole synchronous call (staged through the pinned pool in
  // chunks, docs/runtime-arrays.md; KILN_STAGING_CHUNK_MIB=0 gives the
  // driver's own path for comparison), then synchronize.
  bench::emit("runtime", "kiln H2D pageable 1 GiB", time_host([&] { d.copy_from_host(pageable); }), B);
  bench::emit("runtime", "kiln H2D pinned 1 GiB",
              time_host([&] { d.copy_from_host_async(std::span<const float>(pinned.data(), n), s); }), B);
  bench::emit("runtime", "kiln D2H pageable 1 GiB", time_host([&] { d.copy_to_host(pageable); }), B);
  bench::emit("runtime", "kiln D2H pinned 1 GiB", time_host([&] { d.copy_to_host_async(pinned.span(), s); }), B);
  kiln::array<float> e = kiln::empty<float>({n});
  bench::emit("runtime", "kiln d2d copy 1 GiB (read+write)", bench::median_ms([&] { e = d.copy(); }), 2 * B);

  // cuBLAS fp32 matmul 8192^3.
  const std::int64_t m = 8192;
  auto rng = kiln::random::default_rng(1);
  kiln::array<float> A = rng.random<float>({m, m}), Bm = rng.random<float>({m, m});
  double ms = bench::median_ms([&] { auto C = kiln::matmul(A, Bm); }, 10, 2);
  char extra[64];
  std::snprintf(extra, sizeof extra, ", \"tflops\": %.2f", 2.0 * m * m * m / (ms * 1e-3) / 1e12);
  bench::emit("runtime", "kiln matmul fp32 8192^3", ms, 0, extra);
  return 0;
}
