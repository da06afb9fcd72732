// Compound assignment into an array is one fused kernel that writes its
// destination in place: `x += a * y` reads x and y once and writes x
// (kiln::detail::call_fused_into), the sum converted to x's dtype inside the
// kernel. A destination that is not a variable is evaluated once (a lambda's
// parameter); a reduction kernel's result is written after it
// (write_update). The fusion report says which kernels write in place.
// RUN: %kilnc --cuda-host-only --emit=cpp %s -o - | FileCheck %s --check-prefix=CPP
// RUN: %kilnc --emit=fused-mlir %s -o - | FileCheck %s --check-prefix=FUSED
// RUN: %kilnc --cuda-host-only --fusion-report %s | FileCheck %s --check-prefix=REPORT
#include <kiln/kiln.hpp>

void axpy(kiln::array<float> &x, float a, const kiln::array<float> &y) {
  x += a * y;
}
// CPP-LABEL: void axpy(
// CPP: ::kiln::detail::call_fused_into({{.*}}, x, {::kiln::detail::in(x), ::kiln::detail::in(y)}, {::kiln::detail::scalar(a)});

void narrow(kiln::array<float> &x, const kiln::array<double> &d) {
  x.slice({kiln::all, kiln::range(0, 4)}) -= kiln::exp(d);
}
// CPP-LABEL: void narrow(
// CPP: [&](const auto &__kiln_d) -> decltype(auto) { return ::kiln::detail::call_fused_into({{.*}}, __kiln_d, {::kiln::detail::in(__kiln_d), ::kiln::detail::in(d)}, {}); }(x.slice({kiln::all, kiln::range(0, 4)}));

void center(kiln::array<double> &x) {
  x -= kiln::mean(x, -1, true);
}
// CPP-LABEL: void center(
// CPP: ::kiln::detail::write_update(x, [](

void masks(kiln::array<bool> &m, const kiln::array<float> &x) {
  m &= x > 0.0f;
}
// CPP-LABEL: void masks(
// CPP: ::kiln::detail::call_fused_into({{.*}}, m, {::kiln::detail::in(m), ::kiln::detail::in(x)}, {});

// FUSED-LABEL: func.func @kiln_compound_assign_{{[0-9a-f]+}}_axpy
// FUSED-COUNT-1: linalg.generic
// FUSED: arith.mulf
// FUSED: arith.addf
// FUSED-LABEL: func.func @kiln_compound_assign_{{[0-9a-f]+}}_narrow
// FUSED: math.exp
// FUSED: arith.subf %{{.*}} : f64
// FUSED: arith.truncf %{{.*}} : f64 to f32

// REPORT: compound-assign.cpp:13:3{{.*}}axpy{{.*}}2 ops{{.*}}2 arrays + 1 scalar, writes x - 12 B
// REPORT: compound-assign.cpp:19:3{{.*}}narrow{{.*}}writes x.slice({kiln::all, kiln::range(0, 4)}) - 16 B
