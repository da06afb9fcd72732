// The linear-algebra cells of the CuPy tutorials in Kiln, each checked
// against a float64 reference computed on the host:
//   001: u, s, v = cp.linalg.svd(A) of a 64 x 64 float32 matrix of uniform
//        values in [-1, 1), and u copied back to the host (cp.asnumpy);
//   002: x = linalg.solve(A, b) of a 1024 x 1024 float32 system and its
//        relative residual norm(A @ x - b) / norm(b);
// and, beside them, the QR and symmetric eigendecompositions of the same
// matrix and SciPy's lu_factor / lu_solve. On a GPU these run in cuSOLVER
// and cuBLAS; on the host in LAPACK.
#include "check.hpp"

#include <cmath>
#include <vector>

using f32 = kiln::array<float>;

/// max |A - U diag(S) V^H| / max |A| for one matrix, in float64 on the host.
static double svd_error(const std::vector<float> &a, const std::vector<float> &u, const std::vector<float> &s,
                        const std::vector<float> &vh, std::int64_t n) {
  double worst = 0, scale = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (std::int64_t k = 0; k < n; ++k)
        sum += double(u[i * n + k]) * s[k] * vh[k * n + j];
      worst = std::max(worst, std::abs(sum - a[i * n + j]));
      scale = std::max(scale, std::abs(double(a[i * n + j])));
    }
  return worst / scale;
}

/// norm(A @ x - b) / norm(b) in float64 on the host.
static double residual(const std::vector<float> &a, const std::vector<float> &x, const std::vector<float> &b,
                       std::int64_t n) {
  double num = 0, den = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    double sum = 0;
    for (std::int64_t k = 0; k < n; ++k)
      sum += double(a[i * n + k]) * x[k];
    num += (sum - b[i]) * (sum - b[i]);
    den += double(b[i]) * b[i];
  }
  return std::sqrt(num / den);
}

int main() {
  auto rng = kiln::random::default_rng(2024);
  int rc = 0;

  // 001: the SVD of a 64 x 64 float32 matrix; u back on the host.
  const std::int64_t n = 64;
  f32 A = rng.random<float>({n, n}) * 2.0f - 1.0f; // uniform in [-1, 1)
  auto [u_gpu, s_gpu, v_gpu] = kiln::linalg::svd(A);
  std::vector<float> u_cpu = u_gpu.to_vector(); // cp.asnumpy(u_gpu)
  rc |= example::report("svd(A): A == U diag(S) Vh",
                        svd_error(A.to_vector(), u_cpu, s_gpu.to_vector(), v_gpu.to_vector(), n), 1e-5, A.size());

  // 002: solve a 1024 x 1024 system; its relative residual.
  const std::int64_t m = 1024;
  f32 M = rng.random<float>({m, m});
  f32 b = rng.random<float>({m});
  f32 x = kiln::linalg::solve(M, b);
  float r = (kiln::linalg::norm(kiln::matmul(M, x) - b) / kiln::linalg::norm(b)).item();
  const double reference = residual(M.to_vector(), x.to_vector(), b.to_vector(), m);
  std::printf("Solve relative residual: %g (float64 on the host: %g)\n", r, reference);
  rc |= example::report("solve(M, b): residual", reference, 1e-3, M.size());

  // QR and eigh of A; lu_factor / lu_solve of M.
  auto [Q, R] = kiln::linalg::qr(A);
  const f32 QR = kiln::matmul(Q, R);
  rc |= example::report("qr(A): A == Q R", example::relative_error(QR.to_vector(), A.to_vector()), 1e-5, A.size());
  f32 H = A + A.T(); // symmetric
  auto [w, V] = kiln::linalg::eigh(H);
  const f32 HV = kiln::matmul(H, V), VW = V * kiln::expand_dims(w, 0);
  rc |= example::report("eigh(H): H V == V diag(w)", example::relative_error(HV.to_vector(), VW.to_vector()), 1e-5,
                        H.size());
  auto factors = kiln::linalg::lu_factor(M);
  f32 y = kiln::linalg::lu_solve(factors, b);
  rc |= example::report("lu_solve(lu_factor(M), b): residual", residual(M.to_vector(), y.to_vector(), b.to_vector(), m),
                        1e-3, M.size());
  return rc;
}
