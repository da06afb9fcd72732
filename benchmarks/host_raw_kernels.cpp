// Raw kernels on the host backend: the tutorials' saxpy RawKernel (CUDA
// source, a thread an element, `if (i < n)`) beside the same kernel written
// as a KILN_RAWKERNEL function, over 2^24 floats in blocks of 256; then a
// block sum through __shared__ and __syncthreads (fibers) in both forms.
// The issue's goal: CUDA source at <= 1.2x the KILN_RAWKERNEL time. Median
// wall time of 15 runs after 2; one JSON line each, then the ratios.
#include "bench.hpp"

#include <kiln/kernel.hpp>
#include <kiln/raw_module.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>

KILN_RAWKERNEL void saxpy_k(float a, const float *x, const float *y, float *out, int n) {
  int i = kiln::block_dim().x * kiln::block_idx().x + kiln::thread_idx().x;
  if (i < n)
    out[i] = a * x[i] + y[i];
}

KILN_RAWKERNEL void block_sum_k(const float *x, float *partial, int n) {
  float *s = kiln::shared_array<float, 256>();
  unsigned t = kiln::thread_idx().x;
  int i = kiln::block_idx().x * 256 + t;
  s[t] = i < n ? x[i] : 0.0f;
  kiln::syncthreads();
  for (unsigned k = 128; k > 0; k /= 2) {
    if (t < k)
      s[t] += s[t + k];
    kiln::syncthreads();
  }
  if (t == 0)
    partial[kiln::block_idx().x] = s[0];
}

namespace {

double wall_median_ms(const std::function<void()> &f) {
  for (int i = 0; i < 2; ++i)
    f();
  std::vector<double> ts;
  for (int i = 0; i < 15; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    kiln::synchronize();
    ts.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(ts.begin(), ts.begin() + ts.size() / 2, ts.end());
  return ts[ts.size() / 2];
}

} // namespace

int main() {
  if (!kiln::current_device().is_host()) {
    std::printf("{\"suite\": \"host_raw\", \"skipped\": \"runs on the host device (KILN_DEVICE=host)\"}\n");
    return 0;
  }
  const kiln::raw_module m = kiln::raw_module::from_source(R"(
extern "C" __global__
void saxpy(const float a, const float* __restrict__ x,
           const float* __restrict__ y, float* __restrict__ out, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

extern "C" __global__ void block_sum(const float *x, float *partial, int n) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  int i = blockIdx.x * 256 + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned k = 128; k > 0; k /= 2) {
    if (t < k)
      s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0)
    partial[blockIdx.x] = s[0];
}
)");
  const int n = 1 << 24, threads = 256, blocks = (n + threads - 1) / threads;
  auto rng = kiln::random::default_rng(3);
  kiln::array<float> x = rng.random<float>({n}), y = rng.random<float>({n});
  kiln::array<float> out = kiln::empty_like(x), partial = kiln::zeros<float>({blocks});
  const kiln::raw_function saxpy = m.function("saxpy"), block_sum = m.function("block_sum");

  const double bytes = 3.0 * 4 * n;
  const double source_ms =
      wall_median_ms([&] { kiln::launch(saxpy, kiln::grid{blocks}, kiln::block{threads}, 2.0f, x, y, out, n); });
  const double raw_ms =
      wall_median_ms([&] { kiln::launch(saxpy_k, kiln::grid{blocks}, kiln::block{threads}, 2.0f, x, y, out, n); });
  bench::emit("host_raw", "saxpy.cuda_source", source_ms, bytes);
  bench::emit("host_raw", "saxpy.kiln_rawkernel", raw_ms, bytes);
  const double sum_source_ms =
      wall_median_ms([&] { kiln::launch(block_sum, kiln::grid{blocks}, kiln::block{threads}, x, partial, n); });
  const double sum_raw_ms =
      wall_median_ms([&] { kiln::launch(block_sum_k, kiln::grid{blocks}, kiln::block{threads}, x, partial, n); });
  bench::emit("host_raw", "block_sum.cuda_source", sum_source_ms, 4.0 * n);
  bench::emit("host_raw", "block_sum.kiln_rawkernel", sum_raw_ms, 4.0 * n);
  std::printf("saxpy 2^24: CUDA source %.2f ms, KILN_RAWKERNEL %.2f ms, ratio %.2f (goal <= 1.2)\n", source_ms,
              raw_ms, source_ms / raw_ms);
  std::printf("block sum 2^24 (fibers): CUDA source %.2f ms, KILN_RAWKERNEL %.2f ms, ratio %.2f\n", sum_source_ms,
              sum_raw_ms, sum_source_ms / sum_raw_ms);
  return 0;
}
