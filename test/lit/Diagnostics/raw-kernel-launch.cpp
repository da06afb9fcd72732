// kiln::launch of a KILN_RAWKERNEL function with arguments that do not fit
// its parameters: a compile-time error naming the rule, and a note at the
// user's launch; kilnc exits 1.
// RUN: not %kilnc -c %s -o %t.o 2>&1 | FileCheck %s
#include <kiln/kiln.hpp>
#include <cstdint>

KILN_RAWKERNEL void scale(float *y, float a, std::int64_t n) {
  for (std::int64_t i = kiln::global_thread_id(); i < n; i += kiln::grid_stride())
    y[i] *= a;
}

void too_few(kiln::array<float> &y) { kiln::launch(scale, kiln::grid{4}, kiln::block{256}, y, 2.0f); }
// CHECK: error: static assertion failed {{.*}}kiln::launch: the number of kernel arguments differs from the kernel's number of parameters
// CHECK: raw-kernel-launch.cpp:[[@LINE-2]]:45: note: in instantiation of function template specialization 'kiln::launch

void wrong_element(kiln::array<double> &d) { kiln::launch(scale, kiln::grid{4}, kiln::block{256}, d, 2.0f, d.size()); }
// CHECK: error: static assertion failed {{.*}}kiln::launch: a kiln::array passed for a pointer parameter must have exactly the parameter's element type
// CHECK: raw-kernel-launch.cpp:[[@LINE-2]]:52: note: in instantiation of function template specialization 'kiln::launch
