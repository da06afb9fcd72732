// Linear algebra on the host backend beside NumPy on the same machine
// (host_linalg_numpy.py): matrix products (kiln::matmul: the CPU BLAS, or
// Kiln's loop with KILN_BLAS=none) of square float32 1024 and 2048, float64
// and complex64 1024, in GFLOP/s (a complex multiply-add counts 8 flops);
// then kiln::linalg::solve of a float32 and a float64 1024 x 1024 system with
// one right-hand side, and det of 1000 batched 32 x 32 float64 matrices;
// the decompositions of a float64 512 x 512 matrix (svd with vectors,
// svdvals, eigh, qr, inv, cholesky of a positive-definite one) and svd of
// 1000 batched 16 x 16.
// Median wall time of 9 runs after 2. One JSON line each.
#include "bench.hpp"

#include <kiln/kiln.hpp>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

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
  const double ms = bench::host_median_ms([&] { (void)kiln::matmul(a, b); });
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
  // Well-conditioned systems: random entries plus n on the diagonal.
  auto system = [](auto zero, std::int64_t count, std::int64_t n) {
    using T = decltype(zero);
    std::vector<T> v(static_cast<std::size_t>(count * n * n));
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = T((i * 2654435761u % 1000) / 1000.0) + ((i % (n * n)) % (n + 1) == 0 ? T(n) : T(0));
    kiln::array<T> a = kiln::asarray<T>(v, kiln::device::host());
    return count == 1 ? a.reshape({n, n}) : a.reshape({count, n, n});
  };
  auto emit = [](const char *what, double ms) {
    std::printf("{\"suite\": \"host_linalg\", \"name\": \"kiln %s\", \"impl\": \"kiln\", \"ms\": %.3f}\n", what, ms);
  };
  auto rng = kiln::random::default_rng(12);
  {
    const kiln::array<float> a = system(0.0f, 1, 1024), b = rng.random<float>({1024});
    emit("solve float32 1024",
         bench::host_median_ms([&] { (void)kiln::linalg::solve(a, b); }));
  }
  {
    const kiln::array<double> a = system(0.0, 1, 1024), b = rng.random<double>({1024});
    emit("solve float64 1024",
         bench::host_median_ms([&] { (void)kiln::linalg::solve(a, b); }));
  }
  {
    const kiln::array<double> a = system(0.0, 1000, 32);
    emit("det float64 1000x32x32",
         bench::host_median_ms([&] { (void)kiln::linalg::det(a); }));
  }
  {
    const kiln::array<double> a = rng.random<double>({512, 512}), spd = system(0.0, 1, 512);
    emit("svd float64 512",
         bench::host_median_ms([&] { (void)kiln::linalg::svd(a); }));
    emit("svdvals float64 512",
         bench::host_median_ms([&] { (void)kiln::linalg::svdvals(a); }));
    emit("eigh float64 512",
         bench::host_median_ms([&] { (void)kiln::linalg::eigh(a); }));
    emit("qr float64 512",
         bench::host_median_ms([&] { (void)kiln::linalg::qr(a); }));
    emit("inv float64 512",
         bench::host_median_ms([&] { (void)kiln::linalg::inv(a); }));
    const kiln::array<double> gram = kiln::matmul(spd, spd.T());
    emit("cholesky float64 512",
         bench::host_median_ms([&] { (void)kiln::linalg::cholesky(gram); }));
    const kiln::array<double> small = rng.random<double>({1000, 16, 16});
    emit("svd float64 1000x16x16",
         bench::host_median_ms([&] { (void)kiln::linalg::svd(small); }));
  }
  return 0;
}
