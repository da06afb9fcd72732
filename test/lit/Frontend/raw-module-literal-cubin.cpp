// A CUDA source literal with --cuda-arch: cubins for those GPUs bundled with
// the compute_80 PTX by ptxas and fatbinary, as the fused kernels' are. A
// real architecture in the user's options (-arch=sm_90) instead embeds
// NVRTC's own cubin beside that architecture's PTX, and --cuda-arch adds
// nothing to it.
// REQUIRES: nvrtc, ptxas, fatbinary
// RUN: %kilnc --cuda-arch=sm_90 --emit=cpp %s -o - | grep -v '^// ' | FileCheck %s
#include <kiln/raw_module.hpp>

kiln::raw_module for_archs() {
  return kiln::raw_module::from_source("extern \"C\" __global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n");
}

kiln::raw_module user_arch() {
  return kiln::raw_module::from_source("extern \"C\" __global__ void u(float *x) { x[threadIdx.x] *= 3.0f; }\n",
                                       {"-arch=sm_90"});
}

// A fatbin (magic 0xba55ed50), then an ELF cubin.
// CHECK: alignas(8) const char kiln_module_ptx_0[] =
// CHECK: ".target sm_80\n"
// CHECK: alignas(8) const unsigned char kiln_module_fatbin_0[] = {
// CHECK-NEXT: 0x50,0xed,0x55,0xba,
// CHECK: kiln_module_fatbin_0, sizeof(kiln_module_fatbin_0),
// CHECK: alignas(8) const char kiln_module_ptx_1[] =
// CHECK: ".target sm_90\n"
// CHECK: alignas(8) const unsigned char kiln_module_fatbin_1[] = {
// CHECK-NEXT: 0x7f,0x45,0x4c,0x46,
// CHECK: kiln_module_fatbin_1, sizeof(kiln_module_fatbin_1),
