//===- runtime/linalg/gpu_solvers.cpp - The solvers' cuSOLVER half --------===//
//
// getrf, getrs and potrf of cuSOLVER's dense API, a call per matrix of the
// batch, with the workspace and the info words from Kiln's stream-ordered
// pool.
//
//===----------------------------------------------------------------------===//
#include "gpu_solvers.hpp"

#include "cusolver.hpp"
#include "solver_types.hpp"

#include "kiln/creation.hpp"
#include "kiln/error.hpp"
#include "kiln/stream.hpp"
#include "runtime/cuda/driver.hpp"

#include <complex>
#include <span>
#include <string>
#include <type_traits>

namespace kiln::detail::gpu_linalg {
namespace {

using namespace linalg_types;

/// The CUDA type cuSOLVER takes for R.
template <class R> using native_t =
    std::conditional_t<std::is_same_v<R, c64>, cuComplex, std::conditional_t<std::is_same_v<R, c128>, cuDoubleComplex, R>>;

template <class R> native_t<R> *native(const array_base &x, std::int64_t offset = 0) {
  return reinterpret_cast<native_t<R> *>(static_cast<R *>(x.data()) + offset);
}

/// The handle for `x`'s GPU on its current stream (made current).
struct context {
  const cusolver::api &lib;
  stream s;
  cusolverDnHandle_t h;
  explicit context(const array_base &x)
      : lib(cusolver::require()), s(stream::current(x.device())),
        h((cuda::make_current(x.device().index()), cusolver::handle(lib, x.device(), s.native_handle()))) {}
};

/// The info words of the batch, on the host.
std::vector<int> infos(const array_base &info, const stream &s) {
  std::vector<int> out(static_cast<std::size_t>(info.size()));
  if (!out.empty())
    copy_to_host(info, out.data(), s, /*async=*/false);
  return out;
}

} // namespace

std::vector<int> lu(const array_base &m, std::int64_t count, int n, std::vector<int> &pivots) {
  pivots.assign(static_cast<std::size_t>(count * n), 0);
  if (count == 0 || n == 0)
    return std::vector<int>(static_cast<std::size_t>(count), 0);
  context c(m);
  const array_base ipiv = empty(dtype::int32, shape{count * n}, m.device());
  const array_base info = empty(dtype::int32, shape{count}, m.device());
  with_type(m.dtype(), [&]<class R>() {
    int lwork = 0;
    auto *a0 = native<R>(m);
    if constexpr (std::is_same_v<R, float>)
      cusolver::check(c.lib.cusolverDnSgetrf_bufferSize(c.h, n, n, a0, n, &lwork), "cusolverDnSgetrf_bufferSize");
    else if constexpr (std::is_same_v<R, double>)
      cusolver::check(c.lib.cusolverDnDgetrf_bufferSize(c.h, n, n, a0, n, &lwork), "cusolverDnDgetrf_bufferSize");
    else if constexpr (std::is_same_v<R, c64>)
      cusolver::check(c.lib.cusolverDnCgetrf_bufferSize(c.h, n, n, a0, n, &lwork), "cusolverDnCgetrf_bufferSize");
    else
      cusolver::check(c.lib.cusolverDnZgetrf_bufferSize(c.h, n, n, a0, n, &lwork), "cusolverDnZgetrf_bufferSize");
    const array_base work = empty(m.dtype(), shape{std::max(lwork, 1)}, m.device());
    for (std::int64_t i = 0; i < count; ++i) {
      auto *a = native<R>(m, i * n * n);
      auto *w = native<R>(work);
      int *piv = static_cast<int *>(ipiv.data()) + i * n, *inf = static_cast<int *>(info.data()) + i;
      if constexpr (std::is_same_v<R, float>)
        cusolver::check(c.lib.cusolverDnSgetrf(c.h, n, n, a, n, w, piv, inf), "cusolverDnSgetrf");
      else if constexpr (std::is_same_v<R, double>)
        cusolver::check(c.lib.cusolverDnDgetrf(c.h, n, n, a, n, w, piv, inf), "cusolverDnDgetrf");
      else if constexpr (std::is_same_v<R, c64>)
        cusolver::check(c.lib.cusolverDnCgetrf(c.h, n, n, a, n, w, piv, inf), "cusolverDnCgetrf");
      else
        cusolver::check(c.lib.cusolverDnZgetrf(c.h, n, n, a, n, w, piv, inf), "cusolverDnZgetrf");
    }
  });
  copy_to_host(ipiv, pivots.data(), c.s, /*async=*/false);
  return infos(info, c.s); // > 0: a zero pivot (a singular matrix), which the callers judge
}

void lu_solve(const array_base &m, const std::vector<int> &pivots, const array_base &b, std::int64_t count, int n,
              int k, bool transposed) {
  if (count == 0 || n == 0 || k == 0)
    return;
  context c(m);
  const array_base ipiv =
      kiln::asarray<std::int32_t>(std::span<const std::int32_t>(pivots.data(), pivots.size()), m.device());
  const array_base info = empty(dtype::int32, shape{count}, m.device());
  const cublasOperation_t op = transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  with_type(m.dtype(), [&]<class R>() {
    for (std::int64_t i = 0; i < count; ++i) {
      auto *a = native<R>(m, i * n * n);
      auto *x = native<R>(b, i * n * k);
      const int *piv = static_cast<const int *>(ipiv.data()) + i * n;
      int *inf = static_cast<int *>(info.data()) + i;
      if constexpr (std::is_same_v<R, float>)
        cusolver::check(c.lib.cusolverDnSgetrs(c.h, op, n, k, a, n, piv, x, n, inf), "cusolverDnSgetrs");
      else if constexpr (std::is_same_v<R, double>)
        cusolver::check(c.lib.cusolverDnDgetrs(c.h, op, n, k, a, n, piv, x, n, inf), "cusolverDnDgetrs");
      else if constexpr (std::is_same_v<R, c64>)
        cusolver::check(c.lib.cusolverDnCgetrs(c.h, op, n, k, a, n, piv, x, n, inf), "cusolverDnCgetrs");
      else
        cusolver::check(c.lib.cusolverDnZgetrs(c.h, op, n, k, a, n, piv, x, n, inf), "cusolverDnZgetrs");
    }
  });
  for (int v : infos(info, c.s))
    if (v < 0)
      throw cuda_error("cusolverDn?getrs: invalid parameter " + std::to_string(-v), v);
}

bool cholesky_upper(const array_base &m, std::int64_t count, int n) {
  if (count == 0 || n == 0)
    return true;
  context c(m);
  const array_base info = empty(dtype::int32, shape{count}, m.device());
  const cublasFillMode_t upper = CUBLAS_FILL_MODE_UPPER;
  with_type(m.dtype(), [&]<class R>() {
    int lwork = 0;
    auto *a0 = native<R>(m);
    if constexpr (std::is_same_v<R, float>)
      cusolver::check(c.lib.cusolverDnSpotrf_bufferSize(c.h, upper, n, a0, n, &lwork), "cusolverDnSpotrf_bufferSize");
    else if constexpr (std::is_same_v<R, double>)
      cusolver::check(c.lib.cusolverDnDpotrf_bufferSize(c.h, upper, n, a0, n, &lwork), "cusolverDnDpotrf_bufferSize");
    else if constexpr (std::is_same_v<R, c64>)
      cusolver::check(c.lib.cusolverDnCpotrf_bufferSize(c.h, upper, n, a0, n, &lwork), "cusolverDnCpotrf_bufferSize");
    else
      cusolver::check(c.lib.cusolverDnZpotrf_bufferSize(c.h, upper, n, a0, n, &lwork), "cusolverDnZpotrf_bufferSize");
    const array_base work = empty(m.dtype(), shape{std::max(lwork, 1)}, m.device());
    for (std::int64_t i = 0; i < count; ++i) {
      auto *a = native<R>(m, i * n * n);
      auto *w = native<R>(work);
      int *inf = static_cast<int *>(info.data()) + i;
      if constexpr (std::is_same_v<R, float>)
        cusolver::check(c.lib.cusolverDnSpotrf(c.h, upper, n, a, n, w, lwork, inf), "cusolverDnSpotrf");
      else if constexpr (std::is_same_v<R, double>)
        cusolver::check(c.lib.cusolverDnDpotrf(c.h, upper, n, a, n, w, lwork, inf), "cusolverDnDpotrf");
      else if constexpr (std::is_same_v<R, c64>)
        cusolver::check(c.lib.cusolverDnCpotrf(c.h, upper, n, a, n, w, lwork, inf), "cusolverDnCpotrf");
      else
        cusolver::check(c.lib.cusolverDnZpotrf(c.h, upper, n, a, n, w, lwork, inf), "cusolverDnZpotrf");
    }
  });
  for (int v : infos(info, c.s))
    if (v > 0)
      return false;
  return true;
}

} // namespace kiln::detail::gpu_linalg
