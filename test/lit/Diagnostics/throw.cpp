// An unsupported construct in a KILN_FUSE function: a clang-style error at
// the construct, with the source line and a caret; kilnc exits 1.
// RUN: not %kilnc -c %s -o %t.o 2>&1 | FileCheck %s
#include <kiln/kiln.hpp>
#include <cstdio>

int helper(int v) { return v + 1; }

KILN_FUSE kiln::array<float> f(const kiln::array<float> &x, int n) {
  throw 1;
  return x * 2.0f;
}
// CHECK: throw.cpp:10:3: error: exceptions ('throw') are not supported in a KILN_FUSE function
// CHECK-NEXT: throw 1;
// CHECK-NEXT: {{^ +\| +\^$}}
