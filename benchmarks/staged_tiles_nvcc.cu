// The staged-tile experiment behind _strided2's launch (compiler/Transforms/
// GenerateVariants.cpp, runtime/launch/gpu_launch.cpp): out = in.T * 2 + 1 on
// 16k x 16k float32 in CUDA C, with the tile, block size, vector accesses and
// grid varied, each over cudaMemcpy's device copy in the same run. Results
// (H100, 2026-11-25) are in benchmarks/RESULTS.md. Not built by CMake:
//   nvcc -O3 -arch=sm_90 -o staged_tiles benchmarks/staged_tiles_nvcc.cu && ./staged_tiles
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; } } while (0)

// A T x T tile a block, NT threads, grid-stride over the tiles (like Kiln's
// _strided2): the tile is read along the input's contiguous axis (scalar, or
// float4 with VLOAD), stored transposed in a padded shared buffer, then
// written row by row (scalar, or float4 with VSTORE). `in` is row-major n x n;
// out[r][c] = in[c][r] * 2 + 1.
template <int T, int NT, bool VLOAD, bool VSTORE>
__global__ void __launch_bounds__(NT) staged(const float *__restrict__ in, float *__restrict__ out, long n) {
  __shared__ float s[T][T + 1];
  constexpr int LV = VLOAD ? 4 : 1, SV = VSTORE ? 4 : 1;
  const long tilesC = (n + T - 1) / T, numTiles = tilesC * tilesC;
  for (long tile = blockIdx.x; tile < numTiles; tile += gridDim.x) {
    const long tr = tile / tilesC, r0 = tr * T, c0 = (tile - tr * tilesC) * T;
    float v[T * T / NT];
#pragma unroll
    for (int j = 0; j < T * T / NT / LV; ++j) { // all of a thread's loads in flight
      const int e = threadIdx.x + j * NT, major = e / (T / LV), minor = e % (T / LV) * LV;
      const float *p = &in[(c0 + major) * n + r0 + minor];
      if constexpr (VLOAD) {
        const float4 q = *reinterpret_cast<const float4 *>(p);
        v[4 * j] = q.x, v[4 * j + 1] = q.y, v[4 * j + 2] = q.z, v[4 * j + 3] = q.w;
      } else {
        v[j] = *p;
      }
    }
#pragma unroll
    for (int j = 0; j < T * T / NT / LV; ++j) {
      const int e = threadIdx.x + j * NT, major = e / (T / LV), minor = e % (T / LV) * LV;
#pragma unroll
      for (int k = 0; k < LV; ++k)
        s[minor + k][major] = v[LV * j + k];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < T * T / NT / SV; ++j) {
      const int e = threadIdx.x + j * NT, lr = e / (T / SV), lc = e % (T / SV) * SV;
      float *p = &out[(r0 + lr) * n + c0 + lc];
      if constexpr (VSTORE)
        *reinterpret_cast<float4 *>(p) = make_float4(s[lr][lc] * 2.f + 1.f, s[lr][lc + 1] * 2.f + 1.f,
                                                     s[lr][lc + 2] * 2.f + 1.f, s[lr][lc + 3] * 2.f + 1.f);
      else
        *p = s[lr][lc] * 2.f + 1.f;
    }
    __syncthreads();
  }
}

/// Median milliseconds of `launch` over 20 runs after 3, event-timed.
template <class F> float median_ms(F launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> ts;
  for (int i = 0; i < 23; ++i) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (i >= 3) ts.push_back(ms);
  }
  std::nth_element(ts.begin(), ts.begin() + ts.size() / 2, ts.end());
  return ts[ts.size() / 2];
}

int main() {
  const long n = 1 << 14;
  const size_t bytes = size_t(n) * n * 4;
  float *in, *out;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, bytes));
  std::vector<float> h(size_t(n) * n);
  for (size_t i = 0; i < h.size(); ++i) h[i] = float(i % 1000) * 0.001f;
  CK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const float copy = median_ms([&] { cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice); });
  printf("copy %.3f ms = %.0f GB/s, %d SMs\n", copy, 2.0 * bytes / copy / 1e6, sms);

  // Times one configuration (grid 0: one block a tile) and checks a sample.
  auto run = [&](const char *name, auto kernel, int tile, int threads, int per_sm) {
    const long grid = per_sm ? long(sms) * per_sm : (n / tile) * (n / tile);
    const float ms = median_ms([&] { kernel<<<grid, threads>>>(in, out, n); });
    std::vector<float> o(size_t(n) * n);
    cudaMemcpy(o.data(), out, bytes, cudaMemcpyDeviceToHost);
    long bad = 0;
    for (long r = 0; r < n; r += 97)
      for (long c = 0; c < n; c += 89) bad += o[r * n + c] != h[c * n + r] * 2.f + 1.f;
    printf("%-26s grid %6ld  %.3f ms  %.3f of copy  %s\n", name, grid, ms, copy / ms, bad ? "WRONG" : "ok");
    cudaMemset(out, 0, bytes);
  };
  run("64x64 256t (Kiln before)", staged<64, 256, false, false>, 64, 256, 0);
  run("32x32 256t", staged<32, 256, false, false>, 32, 256, 0);
  run("64x64 256t st.v4", staged<64, 256, false, true>, 64, 256, 0);
  run("64x64 512t st.v4", staged<64, 512, false, true>, 64, 512, 0);
  run("32x32 64t ld.v4 st.v4", staged<32, 64, true, true>, 32, 64, 0);
  for (int per_sm : {0, 2, 4, 6, 8, 12, 16, 32}) {
    run("64x64 256t", staged<64, 256, false, false>, 64, 256, per_sm);
    run("64x64 512t", staged<64, 512, false, false>, 64, 512, per_sm);
    run("64x64 128t ld.v4 st.v4", staged<64, 128, true, true>, 64, 128, per_sm);
  }
  return 0;
}
