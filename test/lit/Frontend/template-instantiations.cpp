// A KILN_FUSE template compiles one kernel per instantiation used, and the
// rewritten template selects the kernel by its template argument.
// RUN: %kilnc --emit=mlir %s -o - | FileCheck %s --check-prefix=MLIR
// RUN: %kilnc --emit=cpp %s -o - | FileCheck %s --check-prefix=CPP
#include <kiln/kiln.hpp>

template <class T>
KILN_FUSE kiln::array<T> leaky(const kiln::array<T> &x, T alpha) {
  return kiln::where(x > 0, x, alpha * x);
}

kiln::array<float> f(const kiln::array<float> &x) { return leaky<float>(x, 0.1f); }
kiln::array<double> g(const kiln::array<double> &x) { return leaky<double>(x, 0.1); }
// MLIR-DAG: func.func @{{.*}}_leaky_{{[0-9]+}}_i0_0({{.*}}tensor<?xf32>{{.*}}: f32)
// MLIR-DAG: func.func @{{.*}}_leaky_{{[0-9]+}}_i1_0({{.*}}tensor<?xf64>{{.*}}: f64)
// CPP-DAG: template <> struct __kiln_t_{{[0-9a-f]+}}_0<float> { using out = float;
// CPP-DAG: template <> struct __kiln_t_{{[0-9a-f]+}}_0<double> { using out = double;
// CPP: call_fused<typename ::__kiln_t_{{[0-9a-f]+}}_0<T>::out>(::__kiln_t_{{[0-9a-f]+}}_0<T>::get()
