// Without NVRTC at build time, kilnc warns once; each CUDA source literal
// is still compiled for the host, and its image carries the source for
// NVRTC at the first GPU launch (no GPU code at build time). The build goes
// on.
// RUN: env KILN_NVRTC=%t.missing/libnvrtc.so.13 %kilnc --emit=cpp %s -o - 2>%t.err | grep -v '^// ' | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err
#include <kiln/raw_module.hpp>

kiln::raw_module first() { return kiln::raw_module::from_source("extern \"C\" __global__ void a(int *p) { }"); }
kiln::raw_module second() { return kiln::raw_module::from_source("extern \"C\" __global__ void b(int *p) { }"); }

// CHECK: kiln::raw_module first() { return ::kiln::detail::raw_module_from_image(::[[A:__kiln_m_[0-9a-f]+_[0-9]+]]()); }
// CHECK: kiln::raw_module second() { return ::kiln::detail::raw_module_from_image(::[[B:__kiln_m_[0-9a-f]+_[0-9]+]]()); }
// CHECK-NOT: kiln_module_ptx_
// CHECK: const ::kiln::detail::raw_module_image kiln_module_0 = {
// CHECK-NEXT: nullptr,
// CHECK-NEXT: nullptr, 0,
// CHECK-NEXT: nullptr, nullptr, 0,
// CHECK-NEXT: "{{.*}}raw-module-literal-no-nvrtc.cpp:9",
// CHECK-NEXT: &::[[A]]_host, nullptr,
// CHECK-NEXT: "extern \"C\" __global__ void a(int *p) { }",
// CHECK-NEXT: nullptr, 0};
// WARN: raw-module-literal-no-nvrtc.cpp:9:35: warning: NVRTC could not be loaded (tried {{.*}}.missing/libnvrtc.so.13; {{.*}}) (set KILN_NVRTC to libnvrtc.so of the CUDA toolkit); this CUDA source is compiled by NVRTC at its first launch on a GPU
// WARN-NOT: warning
