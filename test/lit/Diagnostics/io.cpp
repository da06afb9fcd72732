// An unsupported construct in a KILN_FUSE function: a clang-style error at
// the construct, with the source line and a caret; kilnc exits 1.
// RUN: not %kilnc -c %s -o %t.o 2>&1 | FileCheck %s
#include <kiln/kiln.hpp>
#include <cstdio>

int helper(int v) { return v + 1; }

KILN_FUSE kiln::array<float> f(const kiln::array<float> &x, int n) {
  printf("%d\n", n);
  return x * 2.0f;
}
// CHECK: io.cpp:10:3: error: input/output ('printf') is not supported in a KILN_FUSE function
// CHECK-NEXT: printf("%d\n", n);
// CHECK-NEXT: {{^ +\| +\^$}}
