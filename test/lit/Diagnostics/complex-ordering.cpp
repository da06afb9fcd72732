// Ordering comparisons of complex arrays have no meaning in Kiln (NumPy
// orders lexicographically; Kiln reports it at the operator).
// RUN: not %kilnc -c %s -o %t.o 2>&1 | FileCheck %s
#include <kiln/kiln.hpp>

KILN_FUSE kiln::array<bool> less(const kiln::array<std::complex<float>> &a, const kiln::array<std::complex<float>> &b) {
  return a < b;
}
// CHECK: complex-ordering.cpp:7:10: error: ordering comparison '<' of complex arrays is not supported
