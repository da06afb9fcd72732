// Constructs outside a KILN_RAWKERNEL function's subset: a clang-style
// error at each, saying what is not supported; kilnc exits 1.
// RUN: not %kilnc --emit=mlir %s -o %t 2>&1 | FileCheck %s
#include <kiln/kernel.hpp>

#include <cstdio>
#include <vector>

KILN_RAWKERNEL int returns_value(int *p) { return p[0]; }
// CHECK: raw-kernel.cpp:[[@LINE-1]]:16: error: a KILN_RAWKERNEL function returns void (it writes its results through pointers), not 'int'

int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
KILN_RAWKERNEL void recursion(int *p) { p[0] = fact(p[1]); }
// CHECK: raw-kernel.cpp:[[@LINE-2]]:43: error: 'fact' calls itself (recursion is not supported in a KILN_RAWKERNEL function)

KILN_RAWKERNEL void with_switch(int *p) {
  switch (p[0]) {
  case 0:
    p[1] = 1;
  }
}
// CHECK: raw-kernel.cpp:[[@LINE-5]]:3: error: a switch statement is not supported in a KILN_RAWKERNEL function

KILN_RAWKERNEL void address_of(int *p) {
  int v = 1;
  int *q = &v;
  p[0] = q[0];
}
// CHECK: raw-kernel.cpp:[[@LINE-3]]:12: error: taking the address ('&') of a local, a parameter or a built-in is not supported in a KILN_RAWKERNEL function (&p[i] of a pointer or span element is)

int global_counter;
KILN_RAWKERNEL void reads_global(int *p) { p[0] = global_counter; }
// CHECK: raw-kernel.cpp:[[@LINE-1]]:51: error: 'global_counter' is not a parameter or local of the kernel (globals are not supported in a KILN_RAWKERNEL function)

KILN_RAWKERNEL void static_local(int *p) {
  static int calls = 0;
  p[0] = calls;
}
// CHECK: raw-kernel.cpp:[[@LINE-3]]:14: error: static local variables are not supported in a KILN_RAWKERNEL function (use kiln::shared_array for memory a block shares)

struct Big { int a[4]; };
KILN_RAWKERNEL void struct_param(Big b, int *p) { p[0] = 0; }
// CHECK: raw-kernel.cpp:[[@LINE-1]]:38: error: type 'struct Big' is not supported in a KILN_RAWKERNEL function (scalars: bool, integers, float, double; pointers to them)

KILN_RAWKERNEL void pointer_math(int *p) { *(p + 1) = 2; }
// CHECK: raw-kernel.cpp:[[@LINE-1]]:48: error: pointer arithmetic is not supported in a KILN_RAWKERNEL function (index the pointer: p[i])

KILN_RAWKERNEL void throws(int *p) {
  if (p[0] < 0)
    throw 1;
}
// CHECK: raw-kernel.cpp:[[@LINE-2]]:5: error: exceptions ('throw') are not supported in a KILN_RAWKERNEL function

KILN_RAWKERNEL void allocates(int *p) {
  int *q = new int[4];
  p[0] = q[0];
}
// CHECK: raw-kernel.cpp:[[@LINE-3]]:12: error: 'new' and 'delete' are not supported in a KILN_RAWKERNEL function

KILN_RAWKERNEL void dim3_from_value(int *p) {
  kiln::dim3 d{};
  p[0] = d.x;
}
// CHECK: raw-kernel.cpp:[[@LINE-3]]:14: error: a kiln::dim3 local is initialized by kiln::thread_idx(), block_idx(), block_dim() or grid_dim() in a KILN_RAWKERNEL function

struct Shape { virtual int size() const { return 1; } };
KILN_RAWKERNEL void virtual_call(int *p, const Shape *s) { p[0] = s->size(); }
// CHECK: raw-kernel.cpp:[[@LINE-1]]:55: error: type 'const struct Shape' is not supported in a KILN_RAWKERNEL function (scalars: bool, integers, float, double; pointers to them)

KILN_RAWKERNEL void container(int *p) {
  std::vector<int> v(4);
  p[0] = 1;
}
// CHECK: raw-kernel.cpp:[[@LINE-3]]:20: error: type 'class std::vector<int>' is not supported in a KILN_RAWKERNEL function (scalars: bool, integers, float, double; pointers to them)

KILN_RAWKERNEL void prints(int *p) { std::printf("%d\n", p[0]); }
// CHECK: raw-kernel.cpp:[[@LINE-1]]:38: error: input/output ('printf') is not supported in a KILN_RAWKERNEL function (write results to memory)

KILN_RAWKERNEL void builtin_address(int *p) {
  auto barrier = &kiln::syncthreads;
  p[0] = 1;
}
// CHECK: raw-kernel.cpp:[[@LINE-3]]:18: error: taking the address of 'kiln::syncthreads' is not supported in a KILN_RAWKERNEL function (call it)
