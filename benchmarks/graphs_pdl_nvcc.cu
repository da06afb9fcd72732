// Programmatic dependent launch in CUDA C (the experiment behind Kiln's use of
// it, docs/runtime-launch.md): 100 saxpy kernels on 2^16 and 2^20 float32,
// issued one by one and captured into a graph, plain and with
// griddepcontrol + CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION (the
// trigger first, as Kiln's kernels do, or last). Wall-clock ms per 100 calls
// with completion, medians of 60. Built by scripts/device-build.sh
// (nvcc -O3 -arch=sm_90) and run by scripts/device-check.sh --graphs.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

template <bool Pdl, bool TriggerFirst>
__global__ void saxpy(int n, float a, const float4 *__restrict__ x, float4 *__restrict__ y) {
  if (Pdl) {
    if (TriggerFirst)
      asm volatile("griddepcontrol.launch_dependents;");
    asm volatile("griddepcontrol.wait;" ::: "memory");
  }
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4) {
    float4 xv = x[i], yv = y[i];
    yv.x += a * xv.x, yv.y += a * xv.y, yv.z += a * xv.z, yv.w += a * xv.w;
    y[i] = yv;
  }
  if (Pdl && !TriggerFirst)
    asm volatile("griddepcontrol.launch_dependents;");
}

template <bool Pdl, bool TriggerFirst> void issue100(cudaStream_t s, int n, float4 *x, float4 *y, bool attribute) {
  cudaLaunchAttribute at{};
  at.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3((n / 4 + 255) / 256);
  config.blockDim = dim3(256);
  config.stream = s;
  config.attrs = &at;
  config.numAttrs = attribute ? 1 : 0;
  for (int k = 0; k < 100; ++k)
    cudaLaunchKernelEx(&config, saxpy<Pdl, TriggerFirst>, n, 1.0f + k * 1e-3f, static_cast<const float4 *>(x), y);
}

template <class F> double median_ms(F f) {
  std::vector<double> t;
  for (int r = 0; r < 60; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <bool Pdl, bool TriggerFirst> void row(const char *name, int n, float4 *x, float4 *y, bool attribute) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const double one = median_ms([&] {
    issue100<Pdl, TriggerFirst>(s, n, x, y, attribute);
    cudaStreamSynchronize(s);
  });
  cudaGraph_t g;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  issue100<Pdl, TriggerFirst>(s, n, x, y, attribute);
  cudaStreamEndCapture(s, &g);
  cudaGraphExec_t exec;
  if (cudaGraphInstantiate(&exec, g, 0) != cudaSuccess) {
    std::printf("%s: cudaGraphInstantiate failed\n", name);
    return;
  }
  const double graph = median_ms([&] {
    cudaGraphLaunch(exec, s);
    cudaStreamSynchronize(s);
  });
  std::printf("%-30s 2^%-2d  one by one %.3f ms  graph %.3f ms  %.2fx\n", name, __builtin_ctz(n), one, graph,
              one / graph);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
}

int main() {
  for (int n : {1 << 16, 1 << 20}) {
    float4 *x, *y;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMemset(x, 0, n * sizeof(float));
    cudaMemset(y, 0, n * sizeof(float));
    row<false, false>("plain", n, x, y, false);
    row<true, false>("wait, trigger last, attribute", n, x, y, true);
    row<true, true>("trigger first, wait, attribute", n, x, y, true);
    row<true, true>("trigger first, wait, no attr", n, x, y, false);
    cudaFree(x);
    cudaFree(y);
  }
  const cudaError_t e = cudaGetLastError();
  std::printf("%s\n", e == cudaSuccess ? "no CUDA error" : cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
