// kiln::elementwise with a lambda: the lambda's body becomes a private
// element function (kiln.element_function) that takes the operands in their
// element types (captured values first) and converts them to the lambda's
// parameter types; the kernel's linalg.generic calls it per element, and it
// fuses with the operations around it into one kernel.
// RUN: %kilnc --emit=mlir %s -o - | FileCheck %s
// RUN: %kilnc --emit=fused-mlir %s -o - | FileCheck %s --check-prefix=FUSED
// The rewritten C++ calls one kernel for the whole statement, and
// elementwise_into's kernel writes into `out` (converting to its dtype).
// RUN: %kilnc --cuda-host-only --emit=cpp %s -o - | FileCheck %s --check-prefix=CPP
// The GPU form: the element function is copied into the kernels' module,
// and LLVM inlines it (always_inline): the kernels call nothing.
// RUN: %kilnc --emit=ptx %s -o - | FileCheck %s --check-prefix=PTX
#include <kiln/kiln.hpp>
#include <cmath>

kiln::array<float> fused(const kiln::array<float> &x, const kiln::array<std::int32_t> &y, float lo) {
  return kiln::exp(kiln::elementwise([=](float a, int b) { return a < lo ? lo : a * std::sqrt(a) + b; }, x, y)) * 2.0f;
}

void into(const kiln::array<double> &out, const kiln::array<float> &x) {
  kiln::elementwise_into(out, [](auto v) { return v > 0 ? v : -v; }, x);
}

// CHECK-LABEL: func.func private @kiln_elementwise_lambda_{{[0-9a-f]+}}_lambda{{[0-9]+}}(%arg0: f32, %arg1: f32, %arg2: i32) -> f32 attributes {always_inline, kiln.element_function, llvm.linkage = #llvm.linkage<internal>}
// CHECK: llvm.alloca
// CHECK: cf.cond_br
// CHECK: math.sqrt
// CHECK: return %{{.*}} : f32
// CHECK-LABEL: func.func @kiln_elementwise_lambda_{{[0-9a-f]+}}_fused
// CHECK: linalg.generic
// CHECK: func.call @kiln_elementwise_lambda_{{[0-9a-f]+}}_lambda{{[0-9]+}}(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, i32) -> f32
// CHECK: math.exp

// FUSED-LABEL: func.func @kiln_elementwise_lambda_{{[0-9a-f]+}}_fused
// FUSED-COUNT-1: linalg.generic
// FUSED: func.call
// FUSED: math.exp
// FUSED: arith.mulf

// CPP: ::kiln::detail::call_fused<float>({{.*}}{::kiln::detail::in(x), ::kiln::detail::in(y)}, {::kiln::detail::scalar(lo)})
// CPP: static_cast<void>(::kiln::detail::call_fused_into({{.*}}, out, {::kiln::detail::in(x)}, {}))

// PTX: .entry kiln_elementwise_lambda_{{[0-9a-f]+}}_fused_0_0_contig(
// PTX-NOT: call
// PTX: sqrt.rn.f32
// PTX-NOT: call
// PTX: .entry kiln_elementwise_lambda_{{[0-9a-f]+}}_fused_0_0_strided1(
