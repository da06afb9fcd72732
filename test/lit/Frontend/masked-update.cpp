// The masked update of the CuPy tutorial, Z[mask] = Z[mask] * Z[mask] + C[mask],
// is one kernel that writes where(mask, Z * Z + C, Z) into Z in place,
// guarded by a run-time check that Z, mask and C have one shape (else the
// statement runs as written: a gather and a scatter). `x[m] op= v` adds x to
// the tree; a scalar is converted to x's dtype. A value that reads an array
// not indexed by the same mask is not fused this way: its operations are a
// kernel of their own over the gathered arrays.
// RUN: %kilnc --cuda-host-only --emit=cpp %s -o - | FileCheck %s --check-prefix=CPP
// RUN: %kilnc --emit=fused-mlir %s -o - | FileCheck %s --check-prefix=FUSED
// RUN: %kilnc --cuda-host-only --fusion-report %s | FileCheck %s --check-prefix=REPORT
#include <kiln/kiln.hpp>

using cplx = std::complex<double>;

void step(kiln::array<cplx> &Z, const kiln::array<cplx> &C, const kiln::array<bool> &mask) {
  Z[mask] = Z[mask] * Z[mask] + C[mask];
}
// CPP-LABEL: void step(
// CPP: (::kiln::detail::masked_update_applies(mask, {::kiln::detail::in(Z), ::kiln::detail::in(Z), ::kiln::detail::in(C)}) ? static_cast<void>(::kiln::detail::call_fused_into({{.*}}, Z, {::kiln::detail::in(mask), ::kiln::detail::in(Z), ::kiln::detail::in(C)}, {})) : static_cast<void>(Z[mask] = Z[mask] * Z[mask] + C[mask]));

void bump(kiln::array<float> &x, const kiln::array<bool> &m) {
  x[m] += 2;
  x[m] = 0;
}
// CPP-LABEL: void bump(
// CPP: ::kiln::detail::call_fused_into({{.*}}, x, {::kiln::detail::in(m), ::kiln::detail::in(x)}, {})
// CPP: ::kiln::detail::call_fused_into({{.*}}, x, {::kiln::detail::in(m), ::kiln::detail::in(x)}, {})

void other(kiln::array<double> &mat, const kiln::array<bool> &m, const kiln::array<double> &z, int n) {
  mat[m] = (n + 1) - kiln::log(z) / 2.0;
}
// CPP-LABEL: void other(
// CPP: mat[m] = ::kiln::detail::call_fused<double>(

// FUSED-LABEL: func.func @kiln_masked_update_{{[0-9a-f]+}}_step
// FUSED-COUNT-1: linalg.generic
// FUSED: ins(%arg0, %arg1, %arg2 : tensor<?xi8>, tensor<?xcomplex<f64>>, tensor<?xcomplex<f64>>)
// FUSED: arith.subf
// FUSED: complex.create
// FUSED: arith.select %{{.*}}, %{{.*}}, %in_0 : complex<f64>
// FUSED-NEXT: linalg.yield

// REPORT: masked-update.cpp:16:3{{.*}}step{{.*}}3 arrays, writes Z[mask]
