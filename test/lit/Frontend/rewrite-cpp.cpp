// The rewritten C++ calls the runtime with the kernel and its operands, keeps
// everything else as written, and maps lines back to this file.
// RUN: %kilnc --emit=cpp %s -o - | FileCheck %s
#include <kiln/kiln.hpp>

KILN_FUSE kiln::array<float> saxpy(float a, const kiln::array<float> &x, const kiln::array<float> &y) {
  return a * x + y;
}

int untouched(int v) { return v * 2; }
// CHECK: #line 1 "{{.*}}rewrite-cpp.cpp"
// CHECK: return ::kiln::detail::call_fused<float>(::__kiln_k_{{[0-9a-f]+}}_0(), {::kiln::detail::in(x), ::kiln::detail::in(y)}, {::kiln::detail::scalar(a)});
// CHECK: int untouched(int v) { return v * 2; }
// CHECK: const ::kiln::detail::fused_kernel kiln_kernel_0 = {
// CHECK: "kiln_rewrite_cpp_{{[0-9a-f]+}}_saxpy_0_0",
