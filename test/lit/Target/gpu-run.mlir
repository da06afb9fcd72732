// On a machine with a GPU: the PTX of Inputs/mix.mlir and of ptx-entries.mlir
// loads with the driver API, computes the same results as a float64
// reference for _contig and _strided2 at several grid sizes, and the saxpy
// bandwidth is printed as a ratio to a device-to-device copy.
// REQUIRES: gpu
// RUN: %kiln-translate --ptx %S/../Inputs/mix.mlir -o %t.mix.ptx
// RUN: %kiln-translate --ptx %S/ptx-entries.mlir -o %t.saxpy.ptx
// RUN: %cxx -std=c++17 -O2 %S/../Inputs/gpu_check.cpp -I%cuda_include -lcuda -o %t.exe
// RUN: %t.exe %t.mix.ptx %t.saxpy.ptx | %FileCheck %s
// CHECK: mix variant contig checked
// CHECK: mix variant strided2 checked
// CHECK: GPU CHECK OK
