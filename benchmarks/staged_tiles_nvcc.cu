// The staged-tile experiment behind _strided2's launch (compiler/Transforms/
// GenerateVariants.cpp, runtime/launch/gpu_launch.cpp): out = in.T * 2 + 1 on
// 16k x 16k float32 in CUDA C, with the tile, block size, vector accesses and
// grid varied, each over cudaMemcpy's device copy in the same run. Results
// (H100, 2026-11-25) are in benchmarks/RESULTS.md. Not built by CMake:
//   nvcc -O3 -arch=sm_90 -o staged_tiles benchmarks/staged_tiles_nvcc.cu && ./staged_tiles
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; } } while (0)

// A: T x T tile, NT threads, scalar loads/stores, grid-stride over tiles (like Kiln's _strided2).
template <int T, int NT>
__global__ void __launch_bounds__(NT) tA(const float *__restrict__ in, float *__restrict__ out, long n) {
  __shared__ float s[T][T + 1];
  long tilesC = (n + T - 1) / T, numTiles = tilesC * tilesC;
  for (long tile = blockIdx.x; tile < numTiles; tile += gridDim.x) {
    long tr = tile / tilesC, tc = tile - tr * tilesC, r0 = tr * T, c0 = tc * T;
    float v[T * T / NT];
#pragma unroll
    for (int j = 0; j < T * T / NT; ++j) {
      int e = threadIdx.x + j * NT; int major = e / T, minor = e % T;
      // input read column by column: lr = minor, lc = major; in is transposed: element (r,c) at in[c*n + r]
      v[j] = in[(c0 + major) * n + (r0 + minor)];
    }
#pragma unroll
    for (int j = 0; j < T * T / NT; ++j) {
      int e = threadIdx.x + j * NT; int major = e / T, minor = e % T;
      s[minor][major] = v[j];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < T * T / NT; ++j) {
      int e = threadIdx.x + j * NT; int lr = e / T, lc = e % T;
      out[(r0 + lr) * n + c0 + lc] = s[lr][lc] * 2.0f + 1.0f;
    }
    __syncthreads();
  }
}

// C: like A but each thread writes float4 (4 consecutive output columns).
template <int T, int NT>
__global__ void __launch_bounds__(NT) tC(const float *__restrict__ in, float *__restrict__ out, long n) {
  __shared__ float s[T][T + 1];
  long tilesC = (n + T - 1) / T, numTiles = tilesC * tilesC;
  for (long tile = blockIdx.x; tile < numTiles; tile += gridDim.x) {
    long tr = tile / tilesC, tc = tile - tr * tilesC, r0 = tr * T, c0 = tc * T;
    float v[T * T / NT];
#pragma unroll
    for (int j = 0; j < T * T / NT; ++j) {
      int e = threadIdx.x + j * NT; int major = e / T, minor = e % T;
      v[j] = in[(c0 + major) * n + (r0 + minor)];
    }
#pragma unroll
    for (int j = 0; j < T * T / NT; ++j) {
      int e = threadIdx.x + j * NT; int major = e / T, minor = e % T;
      s[minor][major] = v[j];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < T * T / NT / 4; ++j) {
      int e = threadIdx.x + j * NT; int lr = e / (T / 4), lc = (e % (T / 4)) * 4;
      float4 w = make_float4(s[lr][lc] * 2.f + 1.f, s[lr][lc + 1] * 2.f + 1.f, s[lr][lc + 2] * 2.f + 1.f, s[lr][lc + 3] * 2.f + 1.f);
      *reinterpret_cast<float4 *>(&out[(r0 + lr) * n + c0 + lc]) = w;
    }
    __syncthreads();
  }
}

// D: float4 loads along the input's contiguous axis and float4 stores.
template <int T, int NT>
__global__ void __launch_bounds__(NT) tD(const float *__restrict__ in, float *__restrict__ out, long n) {
  __shared__ float s[T][T + 1];
  long tilesC = (n + T - 1) / T, numTiles = tilesC * tilesC;
  for (long tile = blockIdx.x; tile < numTiles; tile += gridDim.x) {
    long tr = tile / tilesC, tc = tile - tr * tilesC, r0 = tr * T, c0 = tc * T;
    float4 v[T * T / NT / 4];
#pragma unroll
    for (int j = 0; j < T * T / NT / 4; ++j) {
      int e = threadIdx.x + j * NT; int major = e / (T / 4), minor = (e % (T / 4)) * 4;
      v[j] = *reinterpret_cast<const float4 *>(&in[(c0 + major) * n + (r0 + minor)]);
    }
#pragma unroll
    for (int j = 0; j < T * T / NT / 4; ++j) {
      int e = threadIdx.x + j * NT; int major = e / (T / 4), minor = (e % (T / 4)) * 4;
      s[minor][major] = v[j].x; s[minor + 1][major] = v[j].y; s[minor + 2][major] = v[j].z; s[minor + 3][major] = v[j].w;
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < T * T / NT / 4; ++j) {
      int e = threadIdx.x + j * NT; int lr = e / (T / 4), lc = (e % (T / 4)) * 4;
      float4 w = make_float4(s[lr][lc] * 2.f + 1.f, s[lr][lc + 1] * 2.f + 1.f, s[lr][lc + 2] * 2.f + 1.f, s[lr][lc + 3] * 2.f + 1.f);
      *reinterpret_cast<float4 *>(&out[(r0 + lr) * n + c0 + lc]) = w;
    }
    __syncthreads();
  }
}

template <class K> float timeit(K k, int blocks, int threads, const float *in, float *out, long n) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> ts;
  for (int i = 0; i < 23; ++i) {
    cudaEventRecord(a); k<<<blocks, threads>>>(in, out, n); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); if (i >= 3) ts.push_back(ms);
  }
  std::nth_element(ts.begin(), ts.begin() + ts.size() / 2, ts.end());
  return ts[ts.size() / 2];
}

int main() {
  const long n = 1 << 14; const size_t bytes = size_t(n) * n * 4;
  float *in, *out; CK(cudaMalloc(&in, bytes)); CK(cudaMalloc(&out, bytes));
  std::vector<float> h(size_t(n) * n); for (size_t i = 0; i < h.size(); ++i) h[i] = float(i % 1000) * 0.001f;
  CK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> ts;
  for (int i = 0; i < 23; ++i) { cudaEventRecord(a); cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); if (i >= 3) ts.push_back(ms); }
  std::nth_element(ts.begin(), ts.begin() + ts.size() / 2, ts.end());
  float copy = ts[ts.size() / 2];
  printf("copy %.3f ms = %.0f GB/s\n", copy, 2.0 * bytes / copy / 1e6);
  long tiles64 = (n / 64) * (n / 64), tiles32 = (n / 32) * (n / 32);
  auto check = [&](const char *name, float ms) {
    std::vector<float> o(size_t(n) * n); cudaMemcpy(o.data(), out, bytes, cudaMemcpyDeviceToHost);
    long bad = 0; for (long r = 0; r < n; r += 97) for (long c = 0; c < n; c += 89) if (o[r * n + c] != h[c * n + r] * 2.f + 1.f) ++bad;
    printf("%-28s %.3f ms  %.3f of copy  %s\n", name, ms, copy / ms, bad ? "WRONG" : "ok");
    cudaMemset(out, 0, bytes);
  };
  for (int per : {0, 2, 4, 6, 8, 12, 16, 32}) {
    char name[64];
    long g = per ? 132L * per : tiles64;
    snprintf(name, sizeof name, "A 64x64 256t grid=%ld", g); check(name, timeit(tA<64, 256>, g, 256, in, out, n));
    snprintf(name, sizeof name, "A 64x64 512t grid=%ld", g); check(name, timeit(tA<64, 512>, g, 512, in, out, n));
    snprintf(name, sizeof name, "D 64x64 128t grid=%ld", g); check(name, timeit(tD<64, 128>, g, 128, in, out, n));
  }
  return 0;
}
