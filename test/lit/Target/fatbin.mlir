// --cuda-arch: ptxas makes a cubin per arch and fatbinary bundles them with
// the PTX; the result starts with the fatbin magic 0xBA55ED50.
// REQUIRES: ptxas, fatbinary
// RUN: %kiln-translate --fatbin --cuda-arch=sm_80,sm_90 %S/ptx-entries.mlir -o %t.fatbin
// RUN: od -A n -t x4 -N 4 %t.fatbin | %FileCheck %s
// CHECK: ba55ed50
// RUN: not %kiln-translate --fatbin --cuda-arch=sm_9x %S/ptx-entries.mlir -o %t.bad 2>&1 | %FileCheck %s --check-prefix=BAD
// BAD: ptxas failed
