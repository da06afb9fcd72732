// `x.assign(value)` whose value is an array operation is one fused kernel
// that computes the value into x (kiln::detail::call_fused_assign): x is not
// read, the value is converted to x's dtype inside the kernel (setitem's
// unsafe casting, float to int32 included), and a destination that is not a
// variable is evaluated once. A bare array, a view or a scalar stays
// array::assign's copy or fill, and a reduction's result is copied after
// its kernel, as before.
// RUN: %kilnc --cuda-host-only --emit=cpp %s -o - | FileCheck %s --check-prefix=CPP
// RUN: %kilnc --emit=fused-mlir %s -o - | FileCheck %s --check-prefix=FUSED
// RUN: %kilnc --cuda-host-only --fusion-report %s | FileCheck %s --check-prefix=REPORT
#include <kiln/kiln.hpp>

void transpose_into(kiln::array<float> &x, const kiln::array<float> &m) {
  x.assign(m.T() * 2.0f + 1.0f);
}
// CPP-LABEL: void transpose_into(
// CPP: ::kiln::detail::call_fused_assign({{.*}}, x, {::kiln::detail::in(m.T())}, {});

void truncate_into(kiln::array<int> &k, const kiln::array<float> &y) {
  k.assign(y * 100.0f);
}
// CPP-LABEL: void truncate_into(
// CPP: ::kiln::detail::call_fused_assign({{.*}}, k, {::kiln::detail::in(y)}, {});

void into_view(kiln::array<double> &d, const kiln::array<double> &a) {
  d.slice({kiln::all, kiln::range(0, 4)}).assign(kiln::exp(a) - a);
}
// CPP-LABEL: void into_view(
// CPP: [&](const auto &__kiln_d) -> decltype(auto) { return ::kiln::detail::call_fused_assign({{.*}}, __kiln_d, {::kiln::detail::in(a)}, {}); }(d.slice({kiln::all, kiln::range(0, 4)}));

void copies(kiln::array<float> &x, const kiln::array<float> &m) {
  x.assign(m.T());
  x.assign(2.0f);
  x.assign(kiln::sum(m, 0));
}
// CPP-LABEL: void copies(
// CPP-NOT: call_fused_assign
// CPP: {{^}}  x.assign(m.T());
// CPP-NEXT: {{^}}  x.assign(2.0f);
// CPP-NEXT: {{^}}  x.assign([](const auto &__kiln_a0, {{.*}}::kiln::detail::call_reduction<float>(
// CPP-LABEL: void end_of_copies(

void end_of_copies() {}

// FUSED-LABEL: func.func @kiln_assign_fused_{{[0-9a-f]+}}_transpose_into
// FUSED-COUNT-1: linalg.generic
// FUSED-LABEL: func.func @kiln_assign_fused_{{[0-9a-f]+}}_truncate_into
// FUSED: arith.mulf
// FUSED: arith.fptosi %{{.*}} : f32 to i32

// REPORT: assign-fused.cpp:14:3{{.*}}transpose_into{{.*}}2 ops{{.*}}1 array, writes x - 8 B
// REPORT: assign-fused.cpp:20:3{{.*}}truncate_into{{.*}}writes k - 8 B
// REPORT: assign-fused.cpp:26:3{{.*}}into_view{{.*}}writes d.slice({kiln::all, kiln::range(0, 4)}) - 16 B
