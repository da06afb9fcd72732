//===- runtime/sparse/cg.cpp - Conjugate gradients ------------------------===//
//
// scipy.sparse.linalg.cg: each iteration is one product with the matrix
// (products.cpp: cuSPARSE's SpMV on a GPU, its preprocessing done once for
// all iterations), two inner products (cuBLAS's dot/dotc, read by the host,
// which decides convergence as SciPy does) and two fused vector updates (one
// pass updates x and r, one the direction: kiln_cg_step / kiln_cg_direction
// on a GPU, loops on the host).
//
//===----------------------------------------------------------------------===//
#include "host_parts.hpp"

#include "kiln/error.hpp"
#include "kiln/sparse.hpp"
#include "kiln/stream.hpp"
#include "runtime/array/array_internal.hpp"
#include "runtime/blas/cublas.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/kernels/gpu_kernels.hpp"

#include <cmath>
#include <limits>
#include <complex>

namespace kiln::sparse::linalg::detail {

using kiln::detail::copy;
using kiln::detail::empty;
using kiln::detail::reshape;
using kiln::detail::slice;
namespace {

using namespace kiln::sparse::detail::host_parts;
namespace kd = kiln::detail;

/// <a, b> = sum conj(a_i) b_i, real part (a Hermitian form's value).
double inner(const array_base &a, const array_base &b) {
  const std::int64_t n = a.size();
  if (n == 0)
    return 0;
  if (a.device().is_host()) {
    double sum = 0;
    with_value(a.dtype(), [&]<class V>() {
      const V *x = static_cast<const V *>(a.data()), *y = static_cast<const V *>(b.data());
      for (std::int64_t i = 0; i < n; ++i) {
        if constexpr (is_std_complex<V>::value)
          sum += double((std::conj(x[i]) * y[i]).real());
        else
          sum += double(x[i]) * double(y[i]);
      }
    });
    return sum;
  }
  const kd::cublas::api &lib = kd::cublas::require();
  kd::cuda::make_current(a.device().index());
  cublasHandle_t h = kd::cublas::handle(lib, a.device());
  kd::cublas::check(lib, lib.cublasSetStream_v2(h, static_cast<cudaStream_t>(stream::current(a.device()).native_handle())),
                    "cublasSetStream_v2");
  if (n > std::numeric_limits<int>::max())
    throw value_error("kiln::sparse::linalg::cg: vectors past 2^31 elements");
  const int m = int(n);
  switch (a.dtype()) {
  case dtype::float32: {
    float r = 0;
    kd::cublas::check(lib, lib.cublasSdot_v2(h, m, static_cast<const float *>(a.data()), 1, static_cast<const float *>(b.data()), 1, &r), "cublasSdot_v2");
    return r;
  }
  case dtype::float64: {
    double r = 0;
    kd::cublas::check(lib, lib.cublasDdot_v2(h, m, static_cast<const double *>(a.data()), 1, static_cast<const double *>(b.data()), 1, &r), "cublasDdot_v2");
    return r;
  }
  case dtype::complex64: {
    cuComplex r{};
    kd::cublas::check(lib, lib.cublasCdotc_v2(h, m, static_cast<const cuComplex *>(a.data()), 1, static_cast<const cuComplex *>(b.data()), 1, &r), "cublasCdotc_v2");
    return r.x;
  }
  default: {
    cuDoubleComplex r{};
    kd::cublas::check(lib, lib.cublasZdotc_v2(h, m, static_cast<const cuDoubleComplex *>(a.data()), 1, static_cast<const cuDoubleComplex *>(b.data()), 1, &r), "cublasZdotc_v2");
    return r.x;
  }
  }
}

/// x += alpha p, r -= alpha q (step) or p = r + beta p.
void update(bool step, const array_base &x, const array_base &r, const array_base &p, const array_base &q, double alpha,
            double beta) {
  const std::int64_t n = r.size();
  if (!r.device().is_host()) {
    kd::kernels::cg_params c{x.data(), r.data(), p.data(), q.data(), n, alpha, beta};
    kd::cuda::make_current(r.device().index());
    kd::kernels::gpu::cg_update(r.device().index(), r.dtype(), step, c, stream::current(r.device()).native_handle());
    return;
  }
  with_value(r.dtype(), [&]<class V>() {
    V *xv = static_cast<V *>(x.data()), *rv = static_cast<V *>(r.data()), *pv = static_cast<V *>(p.data());
    const V *qv = static_cast<const V *>(q.data());
    using R = decltype(std::abs(V()));
    for (std::int64_t i = 0; i < n; ++i) {
      if (step) {
        xv[i] += R(alpha) * pv[i];
        rv[i] -= R(alpha) * qv[i];
      } else {
        pv[i] = rv[i] + R(beta) * pv[i];
      }
    }
  });
}

} // namespace

std::pair<array_base, std::int64_t> cg(const sparse::detail::compressed &a, const array_base &b, const array_base *x0,
                                       double rtol, double atol, std::int64_t maxiter) {
  if (a.rows != a.cols)
    throw value_error("expected square matrix, but got shape=(" + std::to_string(a.rows) + ", " +
                      std::to_string(a.cols) + ")");
  if (b.ndim() != 1 || b.shape()[0] != a.rows)
    throw value_error("shapes of A (" + std::to_string(a.rows) + ", " + std::to_string(a.cols) + ") and b (" +
                      (b.ndim() ? std::to_string(b.shape()[0]) : std::string()) + ",) are incompatible");
  kd::check_same_device(a.data.device(), b.device());
  const dtype t = a.data.dtype();
  const std::int64_t n = a.rows;
  if (maxiter < 0)
    maxiter = 10 * n;
  array_base x = x0 ? copy(*x0, t) : empty(t, shape{n}, b.device());
  if (!x0) {
    const std::complex<double> zero{};
    kd::fill(x, &zero, stream::current(b.device()));
  }
  const array_base bb = copy(b, t);
  const double bnorm = std::sqrt(inner(bb, bb));
  if (bnorm == 0.0) // SciPy: the solution is 0
    return {x, 0};
  const double limit = std::max(rtol * bnorm, atol);
  // r = b - A x, p = r.
  array_base r = bb;
  if (x0) {
    const array_base ax = sparse::detail::multiply(a, x);
    const array_base scratch = copy(x, t); // r -= 1 * A x (its x += p half lands here)
    update(true, scratch, r, scratch, ax, 1.0, 0.0);
  }
  array_base p = copy(r, t);
  double rho = inner(r, r);
  for (std::int64_t it = 0; it < maxiter; ++it) {
    if (std::sqrt(rho) < limit)
      return {x, 0};
    const array_base q = sparse::detail::multiply(a, p);
    const double alpha = rho / inner(p, q);
    update(true, x, r, p, q, alpha, 0.0);
    const double next = inner(r, r);
    update(false, x, r, p, q, 0.0, next / rho);
    rho = next;
  }
  return {x, std::sqrt(rho) < limit ? 0 : maxiter};
}

} // namespace kiln::sparse::linalg::detail
