// A KILN_FUSE function must return an array.
// RUN: not %kilnc -c %s -o %t.o 2>&1 | FileCheck %s
#include <kiln/kiln.hpp>

KILN_FUSE float total(const kiln::array<float> &x) { return 1.0f; }
// CHECK: return-type.cpp:5:11: error: a KILN_FUSE function must return a kiln::array, not 'float'
