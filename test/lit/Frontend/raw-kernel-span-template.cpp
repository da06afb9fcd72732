// Raw kernels with kiln::span parameters (two values each: data, size),
// a kernel template (one kernel per instantiation the program launches,
// none for the pattern), a kiln::dim3 local, &p[i] for an atomic, and
// ballot; the launches name kilnc's kernels.
// RUN: %kilnc --emit=mlir %s -o - | FileCheck %s
// RUN: %kilnc --cuda-host-only --emit=cpp %s -o - | FileCheck %s --check-prefix=CPP
#include <kiln/kernel.hpp>

KILN_RAWKERNEL void axpy(float a, kiln::span<const float> x, kiln::span<float> y) {
  for (std::int64_t i = kiln::global_thread_id(); i < y.size(); i += kiln::grid_stride())
    y[i] += a * x[i];
}

template <class T> KILN_RAWKERNEL void count(const T *x, int *n, int *mask) {
  auto t = kiln::thread_idx();
  if (x[t.x] > T(0))
    kiln::atomic_add(&n[0], 1);
  mask[t.x] = static_cast<int>(kiln::ballot(x[t.x] > T(0)));
}

void run(kiln::array<float> &x, kiln::array<float> &y, kiln::array<double> &d, kiln::array<int> &n,
         kiln::array<int> &m) {
  kiln::launch(axpy, kiln::grid{4}, kiln::block{128}, 2.0f, x, y);
  kiln::launch(count<double>, kiln::grid{1}, kiln::block{32}, d, n, m);
  kiln::launch(&count<float>, kiln::grid{1}, kiln::block{32}, x, n, m);
}

// CHECK: func.func @{{.*}}_axpy_raw{{[0-9]+}}(%arg0: f32, %arg1: !llvm.ptr, %arg2: i64, %arg3: !llvm.ptr, %arg4: i64)
// CHECK: arith.cmpi slt, %{{.*}}, %arg4 : i64
// CHECK: func.func @{{.*}}_count_raw{{[0-9]+}}(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr) attributes {kiln.raw_kernel, kiln.static_shared = 0 : i64, kiln.synchronizes}
// CHECK: llvm.load {{.*}} -> f64
// CHECK: llvm.atomicrmw add
// CHECK: kiln.ballot %{{.*}} : i32
// CHECK: func.func @{{.*}}_count_raw{{[0-9]+}}(
// CHECK: llvm.load {{.*}} -> f32
// CHECK-NOT: func.func

// CPP: kiln::launch(::kiln::detail::typed_raw_kernel<decltype(axpy)>(::__kiln_r_{{[0-9a-f]+}}_{{[0-9]+}}()), kiln::grid{4}
// CPP: kiln::launch(::kiln::detail::typed_raw_kernel<decltype(count<double>)>(::__kiln_r_
// CPP: kiln::launch(::kiln::detail::typed_raw_kernel<decltype(count<float>)>(::__kiln_r_
// CPP: const std::uint8_t kiln_raw_bytes_0[] = {4, 8, 8, 8, 8};
// CPP: "axpy",
// CPP: "count<double>",
// CPP: "count<float>",
