// End to end on the host: Inputs/mix.mlir is fused and compiled to an object;
// a C++ main packs arguments per the kernel ABI for _contig and _strided2
// (stride-0 broadcast, transposed, offset operands; bool and complex types)
// and checks the results against a float64 reference on random data.
// RUN: %kiln-translate --host-object %S/../Inputs/mix.mlir -o %t.o
// RUN: %cxx -std=c++20 -O1 %S/../Inputs/host_e2e_main.cpp %t.o -o %t.exe -lm
// RUN: %t.exe | %FileCheck %s
// CHECK: host e2e OK
