// A KILN_FUSE body is one data flow (locals are inlined where they are used),
// so a scalar modified between statements is an error, not a silent change
// of the value a fused expression reads.
// RUN: not %kilnc -c %s -o %t.o 2>&1 | FileCheck %s
#include <kiln/kiln.hpp>

KILN_FUSE kiln::array<float> f(const kiln::array<float> &x, float s) {
  auto t = x * s;
  s = 2.0f;
  return t + s;
}
// CHECK: modify-scalar.cpp:9:5: error: modifying 's' is not supported in a KILN_FUSE function (its statements are fused as one data flow); declare a new variable instead
