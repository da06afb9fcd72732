// Without NVRTC at build time, kilnc warns once and leaves CUDA source
// literals to NVRTC at run time (the calls as written); the build goes on.
// RUN: env KILN_NVRTC=%t.missing/libnvrtc.so.13 %kilnc --emit=cpp %s -o - 2>%t.err | grep -v '^// ' | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err
#include <kiln/raw_module.hpp>

kiln::raw_module first() { return kiln::raw_module::from_source("extern \"C\" __global__ void a(int *p) { }"); }
kiln::raw_module second() { return kiln::raw_module::from_source("extern \"C\" __global__ void b(int *p) { }"); }

// CHECK-NOT: raw_module_from_image
// CHECK: kiln::raw_module first() { return kiln::raw_module::from_source("extern \"C\" __global__ void a(int *p) { }"); }
// CHECK: kiln::raw_module second() { return kiln::raw_module::from_source("extern \"C\" __global__ void b(int *p) { }"); }
// WARN: raw-module-literal-no-nvrtc.cpp:7:35: warning: NVRTC could not be loaded (tried {{.*}}.missing/libnvrtc.so.13; {{.*}}) (set KILN_NVRTC to libnvrtc.so of the CUDA toolkit); kiln::raw_module::from_source compiles this CUDA source at run time, with NVRTC
// WARN-NOT: warning
