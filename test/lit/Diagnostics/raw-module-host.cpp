// kilnc compiles a CUDA source literal for the host too. What a CPU cannot
// run is a warning at its line and column inside the literal (the kernel
// then runs only on a GPU, and its host launch raises device_error naming
// the construct and this place); so is a source that compiles for the GPU
// but not for the host. Warnings only: the program builds (exit 0).
// REQUIRES: nvrtc
// RUN: sh -c '%kilnc -c %s -o %t.o; echo "exit=$?"' 2>&1 | FileCheck %s
#include <kiln/raw_module.hpp>

kiln::raw_module gpu_only() {
  return kiln::raw_module::from_source(R"(
extern "C" __global__ void stamp(long long *out) {
  out[threadIdx.x] = clock64();
}
__device__ unsigned lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}
extern "C" __global__ void lanes(unsigned *out) { out[threadIdx.x] = lane_id(); }
extern "C" __global__ void fine(float *x) { x[threadIdx.x] *= 2.0f; }
)");
}
// CHECK: raw-module-host.cpp:[[@LINE-11]]:22: warning: kernel 'stamp' uses clock64, which cannot run on a CPU: it runs only on a GPU (a launch on the host raises kiln::device_error)
// CHECK-NEXT: {{ *}}[[@LINE-12]] |   out[threadIdx.x] = clock64();
// CHECK-NEXT: {{ *}}| {{ *}}^
// CHECK: raw-module-host.cpp:[[@LINE-10]]:3: warning: kernel 'lanes' uses inline PTX asm, which cannot run on a CPU
// CHECK-NEXT: {{ *}}[[@LINE-11]] |   asm("mov.u32 %0, %%laneid;" : "=r"(lane));
// CHECK-NOT: 'fine'

// Valid CUDA that the host compilation rejects: SIMD video intrinsics have
// no host definition.
kiln::raw_module not_for_the_host() {
  return kiln::raw_module::from_source(R"(
extern "C" __global__ void absdiff(unsigned *x, unsigned y) {
  x[threadIdx.x] = __vabsdiffu4(x[threadIdx.x], y);
}
)");
}
// CHECK: raw-module-host.cpp:[[@LINE-4]]:20: warning: this CUDA source does not compile for the host (its kernels run only on a GPU): use of undeclared identifier '__vabsdiffu4'
// CHECK-NOT: error:
// CHECK: exit=0
