// The kernels of raw_kernels.cpp in CUDA C, for nvcc -O3 (scripts/
// device-build.sh builds it): same sizes, launch shapes and timing (median of
// 30 event-timed runs after 3 warm-ups). One JSON line each.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

__global__ void saxpy(float a, const float *x, float *y, std::int64_t n) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    y[i] = a * x[i] + y[i];
}

__global__ void block_sum(const float *x, float *partial, std::int64_t n) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  float v = 0.0f;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    v += x[i];
  s[t] = v;
  __syncthreads();
  for (unsigned k = 128; k > 0; k /= 2) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

__global__ void touch(float *y) {
  if (blockIdx.x * blockDim.x + threadIdx.x == 0) y[0] += 1.0f;
}

template <class F> double median_ms(F f) {
  for (int i = 0; i < 3; ++i) f();
  cudaDeviceSynchronize();
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<double> ts;
  for (int i = 0; i < 30; ++i) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    ts.push_back(ms);
  }
  std::nth_element(ts.begin(), ts.begin() + ts.size() / 2, ts.end());
  return ts[ts.size() / 2];
}

void emit(const char *name, double ms, double bytes) {
  std::printf("{\"suite\": \"raw\", \"name\": \"%s\", \"ms\": %.6f, \"bytes\": %.0f, \"gbps\": %.2f}\n", name, ms, bytes,
              bytes / (ms * 1e-3) / 1e9);
}

int main() {
  const std::int64_t n = std::int64_t(1) << 26;
  const unsigned blocks = 132 * 16;
  float *x, *y, *partial, *one;
  cudaMalloc(&x, n * 4);
  cudaMalloc(&y, n * 4);
  cudaMalloc(&partial, blocks * 4);
  cudaMalloc(&one, 4);
  std::vector<float> h(n);
  for (std::int64_t i = 0; i < n; ++i) h[i] = float(i % 1000) / 1000.0f;
  cudaMemcpy(x, h.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(y, h.data(), n * 4, cudaMemcpyHostToDevice);
  emit("saxpy.nvcc", median_ms([&] { saxpy<<<blocks, 256>>>(2.0f, x, y, n); }), 3.0 * 4 * n);
  emit("block_sum.nvcc", median_ms([&] { block_sum<<<blocks, 256>>>(x, partial, n); }), 4.0 * n);
  cudaMemset(one, 0, 4);
  const int launches = 20000;
  for (int i = 0; i < 100; ++i) touch<<<1, 32>>>(one);
  cudaDeviceSynchronize();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i) touch<<<1, 32>>>(one);
  auto t1 = std::chrono::steady_clock::now();
  cudaDeviceSynchronize();
  std::printf("{\"suite\": \"raw\", \"name\": \"launch_host_us.nvcc\", \"us\": %.3f}\n",
              std::chrono::duration<double, std::micro>(t1 - t0).count() / launches);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
