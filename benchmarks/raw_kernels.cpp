// KILN_RAWKERNEL kernels against the same kernels in CUDA C compiled by
// nvcc -O3 (raw_kernels_nvcc.cu, same sizes, same timing, same run):
// a grid-stride saxpy and a block sum through shared memory over 2^26
// floats, and the host cost of one kiln::launch. One JSON line each.
#include "bench.hpp"

#include <kiln/kernel.hpp>

#include <chrono>
#include <cstdint>

KILN_RAWKERNEL void saxpy(float a, const float *x, float *y, std::int64_t n) {
  for (std::int64_t i = kiln::global_thread_id(); i < n; i += kiln::grid_stride())
    y[i] = a * x[i] + y[i];
}

KILN_RAWKERNEL void block_sum(const float *x, float *partial, std::int64_t n) {
  float *s = kiln::shared_array<float, 256>();
  unsigned t = kiln::thread_idx().x;
  float v = 0.0f;
  for (std::int64_t i = kiln::global_thread_id(); i < n; i += kiln::grid_stride())
    v += x[i];
  s[t] = v;
  kiln::syncthreads();
  for (unsigned k = 128; k > 0; k /= 2) {
    if (t < k)
      s[t] += s[t + k];
    kiln::syncthreads();
  }
  if (t == 0)
    partial[kiln::block_idx().x] = s[0];
}

KILN_RAWKERNEL void touch(float *y) {
  if (kiln::global_thread_id() == 0)
    y[0] += 1.0f;
}

int main() {
  if (kiln::current_device().is_host()) {
    std::printf("{\"suite\": \"raw\", \"skipped\": \"no GPU\"}\n");
    return 0;
  }
  const std::int64_t n = std::int64_t(1) << 26;
  auto rng = kiln::random::default_rng(1);
  kiln::array<float> x = rng.random<float>({n}), y = rng.random<float>({n});
  const unsigned blocks = 132 * 16; // grid-stride: 16 blocks a multiprocessor on an H100
  double ms = bench::median_ms([&] { kiln::launch(saxpy, kiln::grid{blocks}, kiln::block{256}, 2.0f, x, y, n); });
  bench::emit("raw", "saxpy.kiln", ms, 3.0 * 4 * n);
  kiln::array<float> partial = kiln::zeros<float>({blocks});
  ms = bench::median_ms([&] { kiln::launch(block_sum, kiln::grid{blocks}, kiln::block{256}, x, partial, n); });
  bench::emit("raw", "block_sum.kiln", ms, 4.0 * n);

  // Host cost of a launch: back-to-back launches of a one-block kernel,
  // wall time over launches (the GPU runs them as fast as they come).
  kiln::array<float> one = kiln::zeros<float>({1});
  const int launches = 20000;
  for (int i = 0; i < 100; ++i) kiln::launch(touch, kiln::grid{1}, kiln::block{32}, one);
  kiln::synchronize();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i) kiln::launch(touch, kiln::grid{1}, kiln::block{32}, one);
  auto t1 = std::chrono::steady_clock::now();
  kiln::synchronize();
  double us = std::chrono::duration<double, std::micro>(t1 - t0).count() / launches;
  std::printf("{\"suite\": \"raw\", \"name\": \"launch_host_us.kiln\", \"us\": %.3f}\n", us);
  float got = one.to_vector()[0];
  if (got != 100.0f + launches) {
    std::printf("launch count wrong: %g\n", got);
    return 1;
  }
  return 0;
}
