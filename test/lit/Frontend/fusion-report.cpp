// Fusion decisions: each KILN_FUSE function is one kernel; plain statements
// are one kernel per full-expression, a chain of them one kernel
// (statement-chains.cpp); a value used outside elementwise operations
// (matmul) keeps its own kernel.
// RUN: %kilnc --fusion-report %s | FileCheck %s
#include <kiln/kiln.hpp>

KILN_FUSE kiln::array<float> squared_diff(const kiln::array<float> &x, const kiln::array<float> &y) {
  auto d = x - y;
  return d * d;
}

KILN_FUSE kiln::array<float> mixed(const kiln::array<float> &a, const kiln::array<float> &w) {
  auto t = kiln::exp(a) + 1.0f;
  auto m = kiln::matmul(t, w);
  return m * 2.0f + t;
}

int main() {
  kiln::array<float> x = kiln::ones<float>({4}), y = kiln::ones<float>({4});
  auto z = x * y + 1.0f;
  return static_cast<int>((z - x).item() == 0.0f);
}
// CHECK: 4 fused expressions, 4 kernels
// CHECK-DAG: :10:10 {{ *}}squared_diff {{.*}} 3 ops of 2 statements  2 arrays
// CHECK-DAG: :16:10 {{ *}}mixed {{.*}} 2 ops {{ *}}2 arrays
// CHECK-DAG: :14:12 {{ *}}mixed {{.*}} 2 ops {{ *}}1 array
// CHECK-DAG: :22:28 {{ *}}main {{.*}} 3 ops of 2 statements  2 arrays
