// kilnc's own loop hints are not the user's warnings (issue 24): a loop with
// a run-time bound around barriers (a tiled matrix product) is not asked to
// unroll, and nothing is printed without a source location.
// RUN: %kilnc -c %s -o %t.o 2>&1 | FileCheck %s --allow-empty
// CHECK-NOT: warning
// CHECK-NOT: <unknown>
#include <kiln/kiln.hpp>

constexpr int T = 16;
KILN_RAWKERNEL void matmul(const float *a, const float *b, float *c, std::int64_t n) {
  float *sa = kiln::shared_array<float, T * T>();
  float *sb = kiln::shared_array<float, T * T>();
  std::int64_t ty = kiln::thread_idx().y, tx = kiln::thread_idx().x;
  std::int64_t row = kiln::block_idx().y * T + ty, col = kiln::block_idx().x * T + tx;
  float acc = 0;
  for (std::int64_t t = 0; t < n; t += T) {
    sa[ty * T + tx] = a[row * n + t + tx];
    sb[ty * T + tx] = b[(t + ty) * n + col];
    kiln::syncthreads();
    for (int k = 0; k < T; ++k)
      acc += sa[ty * T + k] * sb[k * T + tx];
    kiln::syncthreads();
  }
  c[row * n + col] = acc;
}
