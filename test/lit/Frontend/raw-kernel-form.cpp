// A KILN_RAWKERNEL function in the raw-kernel form (issue 9, first step):
// parameters stored into allocas, the loop and its early exits as cf
// blocks, && evaluated only when C++ evaluates it, unsigned shifts and
// compares, pointer indexing, <cmath> as math ops, a helper inlined.
// RUN: %kilnc --emit=mlir %s -o - | FileCheck %s
// RUN: %kilnc --emit=mlir %s -o %t.mlir && %kiln-opt %t.mlir -o /dev/null
// The kernel table describes it (kiln::detail::raw_kernel): parameter
// bytes, no shared memory, no synchronization (so a block host form).
// RUN: %kilnc --cuda-host-only --emit=cpp %s -o - | FileCheck %s --check-prefix=CPP
#include <cmath>
#define KILN_RAWKERNEL [[clang::annotate("kiln.rawkernel")]]

static float twice(float v) { return v * 2.0f; }

KILN_RAWKERNEL void kernel(float a, const float *x, float *y, long n, unsigned flags) {
  for (long i = 0; i < n; ++i) {
    if (i % 2 == 0 && flags != 0u)
      continue;
    float v = a * x[i] + y[i];
    y[i] = std::sqrt(v) + twice(v);
    if (v > 100.0f)
      break;
  }
  unsigned k = flags >> 1;
  y[0] += k < 3u ? 1.0f : 2.0f;
}

// CHECK: func.func @kiln_raw_kernel_form_{{[0-9a-f]+}}_kernel_raw{{[0-9]+}}(%arg0: f32, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: i64, %arg4: i32) attributes {kiln.raw_kernel, kiln.static_shared = 0 : i64}
// CHECK: llvm.alloca
// CHECK: llvm.store %arg0
// CHECK: arith.cmpi slt, {{.*}} : i64
// CHECK: cf.cond_br
// CHECK: arith.remsi
// CHECK: cf.cond_br %{{.*}}, ^bb{{[0-9]+}}, ^bb{{[0-9]+}}(%false : i1)
// CHECK: arith.shrui
// CHECK: arith.cmpi ult
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: arith.mulf
// CHECK: math.sqrt
// CHECK: return
// CPP: #include <kiln/detail/raw_kernel.hpp>
// CPP: const ::kiln::detail::raw_kernel &__kiln_r_{{[0-9a-f]+}}_0() noexcept;
// CPP: void [[K:kiln_raw_kernel_form_[0-9a-f]+_kernel_raw[0-9]+]]_host(void **, ::kiln::detail::raw_thread_ctx *);
// CPP: void [[K]]_host_block(void **, ::kiln::detail::raw_thread_ctx *);
// CPP: const std::uint8_t kiln_raw_bytes_0[] = {4, 8, 8, 8, 4};
// CPP: "kernel", "[[K]]",
// CPP-NEXT: nullptr,
// CPP-NEXT: nullptr, 0,
// CPP-NEXT: [[K]]_host, [[K]]_host_block,
// CPP-NEXT: 5, kiln_raw_bytes_0, 0u, false};
