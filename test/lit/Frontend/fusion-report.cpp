// Fusion decisions: each KILN_FUSE function is one kernel; a plain statement
// is one kernel per full-expression; a value used outside elementwise
// operations (matmul) keeps its own kernel.
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
// CHECK-DAG: squared_diff {{.*}}3 ops
// CHECK-DAG: mixed {{.*}}2 ops
// CHECK-DAG: mixed {{.*}}2 ops
// CHECK-DAG: main {{.*}}2 ops
// CHECK-DAG: main {{.*}}1 op
