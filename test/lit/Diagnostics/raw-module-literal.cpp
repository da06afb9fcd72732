// CUDA errors in a string literal that kilnc compiles (kiln::raw_module::
// from_source) are kilnc diagnostics at their line and column inside the
// literal, clang style with the source line and a caret; warnings are
// warnings; kilnc exits 1.
// REQUIRES: nvrtc
// RUN: sh -c '%kilnc -c %s -o %t.o; echo "exit=$?"' 2>&1 | FileCheck %s
#include <kiln/raw_module.hpp>

kiln::raw_module multi_line() {
  return kiln::raw_module::from_source(R"(
extern "C" __global__ void broken(float *x, long long n) {
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  int unused;
  if (i < n) x[i] = 2.0f * undefined_name;
  x[0] = 1 +;
}
template <class T> __global__ void t(T *x) { x[0] = T::nope; }
)", {}, {"t<float>"});
}
// In NVRTC's order: its errors of a pass, then its warnings.
// CHECK: raw-module-literal.cpp:[[@LINE-7]]:28: error: identifier "undefined_name" is undefined
// CHECK-NEXT: {{ *}}[[@LINE-8]] |   if (i < n) x[i] = 2.0f * undefined_name;
// CHECK-NEXT: {{ *}}| {{ *}}^
// CHECK-NEXT: raw-module-literal.cpp:[[@LINE-9]]:13: error: expected an expression
// CHECK-NEXT: {{ *}}[[@LINE-10]] |   x[0] = 1 +;
// CHECK-NEXT: {{ *}}| {{ *}}^
// CHECK-NEXT: raw-module-literal.cpp:[[@LINE-14]]:7: warning: variable "unused" was declared but never referenced [NVRTC #177-D]
// CHECK-NEXT: {{ *}}[[@LINE-15]] |   int unused;
// CHECK-NEXT: {{ *}}| {{ *}}^
// CHECK-NEXT: raw-module-literal.cpp:[[@LINE-13]]:53: error: name followed by "::" must be a class or namespace name
// CHECK-NEXT: {{ *}}[[@LINE-14]] | template <class T> __global__ void t(T *x) { x[0] = T::nope; }
// CHECK-NEXT: {{ *}}| {{ *}}^
// CHECK-NEXT: raw-module-literal.cpp:[[@LINE-16]]:53: note: detected during instantiation of "void t(T *) [with T=float]"

// A plain literal, with escapes and pieces: the place in the user's text.
kiln::raw_module pieces() {
  return kiln::raw_module::from_source("extern \"C\" __global__ void p(float *x) {\n"
                                       "  x[0] = \"text\" + 1.0f;\n"
                                       "}\n");
}
// The caret under 1.0f: the escaped quotes count as two characters each.
// CHECK: raw-module-literal.cpp:[[@LINE-4]]:61: error: expression must have integral or unscoped enum type

// An option NVRTC refuses, at the options; a name expression that names no
// kernel, at the name expressions.
kiln::raw_module bad_option() {
  return kiln::raw_module::from_source("extern \"C\" __global__ void o(float *x) { }", {"--no-such-option"});
}
// CHECK: raw-module-literal.cpp:[[@LINE-2]]:88: error: unrecognized option --no-such-option found
kiln::raw_module bad_name() {
  return kiln::raw_module::from_source("template <class T> __global__ void n(T *x) { }", {}, {"m<float>"});
}
// CHECK: raw-module-literal.cpp:[[@LINE-2]]:94: error: identifier "m" is undefined (in the name expressions)
// CHECK: exit=1
