// An unsupported construct in a KILN_FUSE function: a clang-style error at
// the construct, with the source line and a caret; kilnc exits 1.
// RUN: not %kilnc -c %s -o %t.o 2>&1 | FileCheck %s
#include <kiln/kiln.hpp>
#include <cstdio>

int helper(int v) { return v + 1; }

KILN_FUSE kiln::array<float> f(const kiln::array<float> &x, int n) {
  if (n > 1) n = 0;
  return x * 2.0f;
}
// CHECK: if.cpp:10:3: error: control flow ('if') is not supported in a KILN_FUSE function; select elementwise with kiln::where
// CHECK-NEXT: if (n > 1) n
// CHECK-NEXT: {{^ +\| +\^$}}
