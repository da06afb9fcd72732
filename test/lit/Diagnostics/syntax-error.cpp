// A C++ error is reported by clang as usual, and kilnc exits 1 without crashing.
// RUN: not %kilnc -c %s -o %t.o 2>&1 | FileCheck %s
#include <kiln/kiln.hpp>

KILN_FUSE kiln::array<float> f(const kiln::array<float> &x) { return x + undefined_name; }
// CHECK: syntax-error.cpp:5:74: error: use of undeclared identifier 'undefined_name'
