// An unsupported construct in a KILN_FUSE function: a clang-style error at
// the construct, with the source line and a caret; kilnc exits 1.
// RUN: not %kilnc -c %s -o %t.o 2>&1 | FileCheck %s
#include <kiln/kiln.hpp>
#include <cstdio>

int helper(int v) { return v + 1; }

KILN_FUSE kiln::array<float> f(const kiln::array<float> &x, int n) {
  helper(n);
  return x * 2.0f;
}
// CHECK: call.cpp:10:3: error: call to 'helper' is not supported in a KILN_FUSE function; only Kiln array operations and scalar arithmetic can be fused
// CHECK-NEXT: helper(n);
// CHECK-NEXT: {{^ +\| +\^$}}
