// The host half of a CUDA source literal (docs/kernel-abi.md, "Raw CUDA
// modules on the host"): the image points at the host table kilnc's host
// object defines, and the translation unit it compiles (kept by
// -save-temps) holds the source in an anonymous namespace, extern "C"
// dropped, extern __shared__ bound to the block's dynamic shared memory,
// inline asm removed, includes moved out of the namespace, and the table:
// the entry points, their parameters' sizes, a block form for kernels that
// never synchronize.
// RUN: rm -rf %t && mkdir %t && cd %t && %kilnc -save-temps -c %s -o %t/a.o 2>%t/err
// RUN: FileCheck %s --check-prefix=TU < %t/raw-module-host.raw_module_16.cpp
// RUN: %kilnc --emit=cpp %s -o - 2>/dev/null | FileCheck %s --check-prefix=CPP
// RUN: env KILN_NVRTC=%t/missing/libnvrtc.so.13 %kilnc --emit=cpp %s -o - 2>/dev/null | FileCheck %s --check-prefix=DEFERRED
#include <kiln/raw_module.hpp>

kiln::raw_module m() {
  return kiln::raw_module::from_source(R"(
#include <cuda/std/cmath>
extern __shared__ float dynamic[];
extern "C" {
__global__ void block_sum(const float *x, float *out, int n) {
  dynamic[threadIdx.x] = threadIdx.x < n ? x[threadIdx.x] : 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (unsigned i = 0; i < blockDim.x; ++i) s += dynamic[i];
    out[blockIdx.x] = s;
  }
}
}
extern "C" __global__ void scale(double *x, double a, long long n) {
  extern __shared__ double unused[];
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * cuda::std::abs(x[i]);
}
__global__ void overloaded(float *x) { x[0] = 1; }
__global__ void overloaded(double *x) { x[0] = 2; }
template <class T> __global__ void fill(T *x, T v) { x[threadIdx.x] = v; }
__global__ void lane(unsigned *out) { unsigned l; asm("mov.u32 %0, %%laneid;" : "=r"(l)); out[0] = l; }
)", {"-DUNUSED=1"}, {"fill<short>"});
}

// TU: #include <kiln/cuda_host.hpp>
// TU: namespace {
// TU: } // namespace
// TU-NEXT: #include <cuda/std/cmath>
// TU-NEXT: namespace {
// TU-NEXT: constexpr ::kiln::cuda_host::extern_shared<float> dynamic{};
// TU-NEXT: inline namespace __kiln_extern_c {
// TU: __global__ void block_sum(
// TU: {{^ *}}__global__ void scale(double *x, double a, long long n) {
// TU-NEXT: double *const unused = reinterpret_cast<double *>(::kiln::cuda_host::dynamic_shared());
// TU: __global__ void lane(unsigned *out) { unsigned l; ((void)0); out[0] = l; }
// TU: } // namespace
// The name expression first, then the plain kernels in order.
// TU: {"fill<short>", "_Z4fillIsEvPT_S0_",
// TU-NEXT: &::kiln::cuda_host::run_thread<&fill<short>>, &::kiln::cuda_host::run_block<&fill<short>>,
// TU-NEXT: 2, __kiln_params_0, "fill<short>(short *x, short v)", nullptr},
// TU-NEXT: {"block_sum", "block_sum",
// TU-NEXT: &::kiln::cuda_host::run_thread<&block_sum>, nullptr,
// TU-NEXT: 3, __kiln_params_1, "block_sum(const float *x, float *out, int n)", nullptr},
// TU-NEXT: {"scale", "scale",
// TU-NEXT: &::kiln::cuda_host::run_thread<&scale>, &::kiln::cuda_host::run_block<&scale>,
// TU: {nullptr, "_Z10overloadedPf",
// TU-NEXT: &::kiln::cuda_host::run_thread<static_cast<void (*)(float *)>(&overloaded)>,
// TU: {nullptr, "_Z10overloadedPd",
// TU: {nullptr, "_Z4lanePj",
// TU-NEXT: nullptr, nullptr,
// TU-NEXT: 1, __kiln_params_5, "lane(unsigned int *out)", "inline PTX asm at {{.*}}raw-module-host.cpp:38:51"},
// TU: const ::kiln::detail::raw_host_module __kiln_m_{{[0-9a-f]+}}_0_host = {__kiln_entries, 6};

// CPP: extern const ::kiln::detail::raw_host_module [[HOST:__kiln_m_[0-9a-f]+_0_host]];
// CPP: const ::kiln::detail::raw_module_image kiln_module_0 = {
// CPP-NEXT: kiln_module_ptx_0,
// CPP: &::[[HOST]], nullptr,
// CPP-NEXT: nullptr, nullptr, 0};

// Without NVRTC: no GPU code; the image has the host code and the source
// and options, for NVRTC at the first GPU launch, and kilnc's own names of
// the name expressions.
// DEFERRED: const char *const kiln_module_lowered_0[] = {"_Z4fillIsEvPT_S0_"};
// DEFERRED: const char *const kiln_module_options_0[] = {"-DUNUSED=1"};
// DEFERRED: const ::kiln::detail::raw_module_image kiln_module_0 = {
// DEFERRED-NEXT: nullptr,
// DEFERRED: &::__kiln_m_{{[0-9a-f]+}}_0_host, nullptr,
// DEFERRED-NEXT: "\n"
// DEFERRED-NEXT: "#include <cuda/std/cmath>\n"
// DEFERRED: kiln_module_options_0, 1};
