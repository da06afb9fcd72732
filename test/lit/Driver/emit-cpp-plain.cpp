// A file without Kiln code comes back unchanged, after a #line that maps it
// to itself, and with no kernel table.
// RUN: %kilnc --emit=cpp %s -o - | FileCheck %s
// RUN: %kilnc --emit=cpp %s -o %t.cpp && FileCheck %s < %t.cpp
// RUN: %kilnc --emit=cpp %s | FileCheck %s
// RUN: %kilnc --emit=mlir %s | FileCheck %s --check-prefix=MLIR
// RUN: %kilnc --emit=ptx %s | count 0
// RUN: %kilnc --fusion-report %s | FileCheck %s --check-prefix=REPORT
#include <cstdio>

int twice(int v) { return v * 2; }

int main() { std::printf("%d\n", twice(21)); }

// CHECK: #line 1 "{{.*}}emit-cpp-plain.cpp"
// CHECK-NEXT: // A file without Kiln code comes back unchanged, after a #line that maps it
// CHECK: #include <cstdio>
// CHECK-EMPTY:
// CHECK-NEXT: int twice(int v) { return v * 2; }
// CHECK-EMPTY:
// CHECK-NEXT: int main() { std::printf("%d\n", twice(21)); }
// CHECK-NOT: {{fused_}}kernel
// MLIR: module {
// MLIR-NEXT: }
// REPORT: emit-cpp-plain.cpp: no fused expressions
