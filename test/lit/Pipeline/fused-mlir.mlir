// The fused-mlir stage of a module with two kernels: each becomes one
// linalg.generic, the kernels stay separate functions.
// RUN: %kiln-translate --fused-mlir %S/../Inputs/mix.mlir | %FileCheck %s
// CHECK-LABEL: func.func @mix(
// CHECK-SAME: kiln.kernel
// CHECK-SAME: kiln.ops_before_fusion = 5
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @cfma(
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
