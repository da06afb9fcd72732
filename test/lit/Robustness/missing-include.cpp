// A missing #include is clang's fatal error, at the #include line; kilnc
// exits 1 and leaves nothing behind.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sh -c 'cd %t && TMPDIR=%t %kilnc -c %s -o %t/a.o; echo "exit=$?"' 2>&1 | FileCheck %s
// RUN: ls -A %t | count 0
// CHECK: missing-include.cpp:[[@LINE+3]]:10: fatal error: 'kiln/not-a-header.hpp' file not found
// CHECK: exit=1
#include <kiln/kiln.hpp>
#include <kiln/not-a-header.hpp>

KILN_FUSE kiln::array<float> f(const kiln::array<float> &x) { return x * x; }
