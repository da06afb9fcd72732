// kiln::linalg on a GPU beside CuPy (gpu_linalg_cupy.py, same shapes and
// dtypes, same run): one float32 1024 x 1024 solve with one right-hand side,
// 10,000 batched 32 x 32 solves (cuBLAS's batched LU), batched 32 x 32 svd
// and eigh of 10,000 matrices (cuSOLVER's batched Jacobi routines), and
// float32 1024 x 1024 eigh, svd and qr (cuSOLVER's 64-bit API). Median time
// of 7 runs after 2 warm-ups, each synchronized. Each result is checked
// (residual, reconstruction) before it is timed; a failed check exits 1.
// One JSON line each.
#include <kiln/kiln.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <span>
#include <vector>

namespace {

template <class F> double median_ms(F &&f) {
  for (int i = 0; i < 2; ++i)
    f();
  kiln::synchronize();
  std::vector<double> ts;
  for (int i = 0; i < 7; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    kiln::synchronize();
    ts.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(ts.begin(), ts.begin() + ts.size() / 2, ts.end());
  return ts[ts.size() / 2];
}

int failures = 0;

void report(const char *name, double ms, double error, double tolerance) {
  const bool ok = error <= tolerance;
  failures += !ok;
  std::printf("{\"suite\": \"gpu_linalg\", \"name\": \"%s\", \"impl\": \"kiln\", \"ms\": %.3f, \"check\": %.3g, "
              "\"ok\": %s}\n",
              name, ms, error, ok ? "true" : "false");
  std::fflush(stdout);
}

/// max |x| of an array, on the host.
template <class T> double max_abs(const kiln::array<T> &x) {
  double m = 0;
  for (T v : x.to_vector())
    m = std::max(m, double(std::abs(v)));
  return m;
}

/// `count` random n x n float32 matrices in [0, 1), plus `diag` on each
/// diagonal, on `dev`.
kiln::array<float> matrices(std::int64_t count, std::int64_t n, float diag, kiln::device dev, unsigned seed) {
  std::vector<float> v(static_cast<std::size_t>(count * n * n));
  std::uint32_t state = seed * 2654435761u + 1;
  for (std::size_t i = 0; i < v.size(); ++i) {
    state = state * 1664525u + 1013904223u;
    v[i] = float(state >> 8) / float(1 << 24);
    if ((i % std::size_t(n * n)) % std::size_t(n + 1) == 0)
      v[i] += diag;
  }
  const kiln::shape s = count == 1 ? kiln::shape{n, n} : kiln::shape{count, n, n};
  return kiln::asarray<float>(std::span<const float>(v.data(), v.size()), s, kiln::device::host()).to(dev);
}

} // namespace

int main() {
  if (kiln::cuda_device_count() == 0) {
    std::printf("{\"suite\": \"gpu_linalg\", \"skipped\": \"no CUDA GPU\"}\n");
    return 0;
  }
  const kiln::device gpu = kiln::device::cuda(0);
  kiln::set_current_device(gpu);
  auto rng = kiln::random::default_rng(7);
  using kiln::array;

  { // one 1024^2 solve
    const std::int64_t n = 1024;
    const array<float> a = matrices(1, n, float(n), gpu, 1);
    const array<float> b = rng.random<float>({n});
    array<float> x;
    const double ms = median_ms([&] { x = kiln::linalg::solve(a, b); });
    report("solve float32 1024", ms, max_abs<float>(kiln::matmul(a, x) - b) / max_abs(b), 1e-4);
  }
  { // 10,000 batched 32 x 32 solves
    const std::int64_t n = 32, count = 10000;
    const array<float> a = matrices(count, n, float(n), gpu, 2);
    const array<float> b = rng.random<float>({count, n, 1});
    array<float> x;
    const double ms = median_ms([&] { x = kiln::linalg::solve(a, b); });
    report("solve float32 10000x32x32", ms, max_abs<float>(kiln::matmul(a, x) - b), 1e-4);
  }
  { // batched 32 x 32 svd and eigh
    const std::int64_t n = 32, count = 10000;
    const array<float> a = rng.random<float>({count, n, n});
    kiln::linalg::svd_result<float> r;
    const double svd_ms = median_ms([&] { r = kiln::linalg::svd(a); });
    const array<float> us = r.U * kiln::expand_dims(r.S, 1);
    report("svd float32 10000x32x32", svd_ms, max_abs<float>(kiln::matmul(us, r.Vh) - a), 1e-4);
    const array<float> h = a + a.transpose({0, 2, 1});
    kiln::linalg::eigh_result<float> e;
    const double eigh_ms = median_ms([&] { e = kiln::linalg::eigh(h); });
    const array<float> hv = kiln::matmul(h, e.eigenvectors) - e.eigenvectors * kiln::expand_dims(e.eigenvalues, 1);
    report("eigh float32 10000x32x32", eigh_ms, max_abs(hv), 1e-3);
  }
  { // 1024^2 eigh, svd, qr
    const std::int64_t n = 1024;
    const array<float> a = rng.random<float>({n, n});
    const array<float> h = a + a.T();
    kiln::linalg::eigh_result<float> e;
    const double eigh_ms = median_ms([&] { e = kiln::linalg::eigh(h); });
    const array<float> hv = kiln::matmul(h, e.eigenvectors) - e.eigenvectors * kiln::expand_dims(e.eigenvalues, 0);
    report("eigh float32 1024", eigh_ms, max_abs(hv) / max_abs(e.eigenvalues), 1e-4);
    kiln::linalg::svd_result<float> r;
    const double svd_ms = median_ms([&] { r = kiln::linalg::svd(a); });
    const array<float> us = r.U * kiln::expand_dims(r.S, 0);
    report("svd float32 1024", svd_ms, max_abs<float>(kiln::matmul(us, r.Vh) - a), 1e-3);
    kiln::linalg::qr_result<float> q;
    const double qr_ms = median_ms([&] { q = kiln::linalg::qr(a); });
    report("qr float32 1024", qr_ms, max_abs<float>(kiln::matmul(q.Q, q.R) - a), 1e-3);
  }
  return failures ? 1 : 0;
}
