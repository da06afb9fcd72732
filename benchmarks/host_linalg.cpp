// Matrix products on the host backend (kiln::matmul: the CPU BLAS, or Kiln's
// loop with KILN_BLAS=none) beside NumPy on the same machine
// (host_linalg_numpy.py): square float32 1024 and 2048, float64 and
// complex64 1024, median wall time of 9 runs after 2, GFLOP/s (a complex
// multiply-add counts 8 flops). One JSON line each.
#include <kiln/kiln.hpp>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

template <class F> double median_ms(F &&f) {
  for (int i = 0; i < 2; ++i)
    f();
  std::vector<double> ts;
  for (int i = 0; i < 9; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ts.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(ts.begin(), ts.begin() + ts.size() / 2, ts.end());
  return ts[ts.size() / 2];
}

template <class T> void run(const char *type, std::int64_t n) {
  auto rng = kiln::random::default_rng(11);
  kiln::array<T> a, b;
  if constexpr (std::is_same_v<T, std::complex<float>>) {
    a = rng.random<float>({n, n}).astype<T>() + rng.random<float>({n, n}).astype<T>() * T(0, 1);
    b = rng.random<float>({n, n}).astype<T>() + rng.random<float>({n, n}).astype<T>() * T(0, 1);
  } else {
    a = rng.random<T>({n, n});
    b = rng.random<T>({n, n});
  }
  const double ms = median_ms([&] { (void)kiln::matmul(a, b); });
  const double flops = (std::is_same_v<T, std::complex<float>> ? 8.0 : 2.0) * double(n) * n * n;
  const char *blas = std::getenv("KILN_BLAS");
  std::printf("{\"suite\": \"host_linalg\", \"name\": \"kiln matmul %s %lld\", \"impl\": \"kiln%s\", \"ms\": %.3f, "
              "\"gflops\": %.1f}\n",
              type, static_cast<long long>(n), blas && std::string(blas) == "none" ? " (no BLAS)" : "", ms,
              flops / (ms * 1e-3) / 1e9);
}

} // namespace

int main() {
  if (!kiln::current_device().is_host()) {
    std::printf("{\"suite\": \"host_linalg\", \"skipped\": \"runs on the host device (KILN_DEVICE=host)\"}\n");
    return 0;
  }
  run<float>("float32", 1024);
  run<float>("float32", 2048);
  run<double>("float64", 1024);
  run<std::complex<float>>("complex64", 1024);
  return 0;
}
