// Loops of a raw kernel carry what C++ lets LLVM assume: a loop whose
// condition is not a constant makes progress (llvm.loop.mustprogress), and a
// counted loop with a run-time bound (a grid-stride loop) is unrolled by 4,
// as nvcc does, so that four loads are in flight a thread.
// RUN: %kilnc --emit=mlir %s -o - | FileCheck %s
// RUN: %kilnc --emit=ptx %s -o - | FileCheck %s --check-prefix=PTX
// --fusion-report lists the raw kernels too.
// RUN: %kilnc --fusion-report %s | FileCheck %s --check-prefix=REPORT
#include <kiln/kernel.hpp>
#include <cstdint>

KILN_RAWKERNEL void grid_sum(const float *x, float *out, std::int64_t n) {
  float v = 0.0f;
  for (std::int64_t i = kiln::global_thread_id(); i < n; i += kiln::grid_stride())
    v += x[i];
  for (unsigned k = 16; k > 0; k /= 2)
    v += kiln::shfl_down(v, k);
  if (kiln::lane_id() == 0)
    kiln::atomic_add(&out[0], v);
}

// CHECK-DAG: #[[UNROLL:.*]] = #llvm.loop_unroll<count = 4 : i32>
// CHECK-DAG: #[[COUNTED:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]], mustProgress = true>
// CHECK-DAG: #[[PROGRESS:.*]] = #llvm.loop_annotation<mustProgress = true>
// CHECK: llvm.br ^{{.*}} {loop_annotation = #[[COUNTED]]}
// CHECK: llvm.br ^{{.*}} {loop_annotation = #[[PROGRESS]]}

// PTX: .entry kiln_raw_kernel_loops_{{[0-9a-f]+}}_grid_sum_raw{{[0-9]+}}(
// PTX-COUNT-4: ld.global
// PTX: shfl.sync.down

// REPORT: raw-kernel-loops.cpp: 1 raw kernel
// REPORT-NEXT: location function kernel parameter bytes static shared host form
// REPORT-NEXT: raw-kernel-loops.cpp:12:21 grid_sum kiln_raw_kernel_loops_{{[0-9a-f]+}}_grid_sum_raw0 24 B in 3 0 B fibers (synchronizes)
