//===- runtime/linalg/cusolver_backend.cpp - linalg's operations in cuSOLVER
//
// The GPU's backend (backend.hpp): cuSOLVER's 64-bit generic API, which
// takes the element type as an argument (getrf, getrs, potrf, potrs, geqrf,
// gesvd, syevd, geev), plus what has a function per type: orgqr / ungqr,
// the batched Jacobi SVD and eigensolver for stacks of small matrices
// (gesvdjBatched, syevjBatched / heevjBatched: on an H200 the generic
// XsyevBatched took 5.6 ms for 10,000 32 x 32 float32 matrices where
// syevjBatched takes 2.8) and cuBLAS's trsm and batched LU (getrfBatched,
// getrsBatched) for stacks of small matrices. Every
// call is queued on the GPU's current stream, its workspaces come from
// Kiln's stream-ordered pool, and the info words of a batch are read back
// once, at the end.
//
//===----------------------------------------------------------------------===//
#include "backend.hpp"

#include "cusolver.hpp"
#include "solver_types.hpp"

#include "kiln/creation.hpp"
#include "kiln/error.hpp"
#include "kiln/promote.hpp"
#include "kiln/stream.hpp"
#include "runtime/blas/cublas.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/cuda/toolkit_library.hpp"
#include "runtime/kernels/gpu_kernels.hpp"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kiln::detail::linalg_backend {
namespace {

using linalg_stack::make_stack;
using namespace linalg_types;

cublasFillMode_t fill(char uplo) { return uplo == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER; }
cublasOperation_t operation_of(operation op) {
  return op == 'N' ? CUBLAS_OP_N : op == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
}

/// The handle, options and stream for a stack's GPU (its context made
/// current), and the stack's element type.
struct context {
  const cusolver::api &lib;
  device dev;
  stream s;
  cusolverDnHandle_t h;
  cusolverDnParams_t params;
  cudaDataType type;
  explicit context(const stack &a)
      : lib(cusolver::require()), dev(a.where()), s(stream::current(a.where())),
        h((cuda::make_current(dev.index()),
           cusolver::handle(lib, dev, s.native_handle()))),
        params(cusolver::params(lib)), type(cuda::data_type_of(a.dtype())) {}
};

/// A call's workspaces: on the device from Kiln's pool, and on the host.
struct workspace {
  array_base on_device;
  std::vector<char> on_host;
  workspace(std::size_t device_bytes, std::size_t host_bytes, device dev)
      : on_device(empty(dtype::uint8, shape{std::int64_t(std::max<std::size_t>(device_bytes, 1))}, dev)),
        on_host(std::max<std::size_t>(host_bytes, 1)) {}
  void *dev() const { return on_device.data(); }
  std::size_t dev_bytes() const { return std::size_t(on_device.size()); }
  void *host() { return on_host.data(); }
  std::size_t host_bytes() const { return on_host.size(); }
};

/// One info word per matrix, on the device (the words a call writes).
array_base info_array(std::int64_t count, device dev) { return empty(dtype::int32, shape{count}, dev); }

/// `count` zero info words (a call with nothing to do).
array_base zeros_on(std::int64_t count, device dev) {
  array_base z = info_array(count, dev);
  const std::int32_t zero = 0;
  detail::fill(z, &zero, stream::current(dev));
  return z;
}

int *info_of(const array_base &info, std::int64_t i) { return static_cast<int *>(info.data()) + i; }

/// The info words of a batch on the host (the call's one synchronization).
std::vector<int> read(const array_base &info) { return info_words{info}.read(); }

void *row_of(const array_base &x, std::int64_t i) {
  return static_cast<char *>(x.data()) + i * x.shape()[1] * std::int64_t(itemsize(x.dtype()));
}

/// orgqr / ungqr and trsm: a function per element type.
template <class R> struct typed;
template <> struct typed<float> {
  using native = float;
  static auto orgqr_size(const cusolver::api &l) { return l.cusolverDnSorgqr_bufferSize; }
  static auto orgqr(const cusolver::api &l) { return l.cusolverDnSorgqr; }
  static auto trsm(const cublas::api &l) { return l.cublasStrsm_v2; }
  static auto getrf_batched(const cublas::api &l) { return l.cublasSgetrfBatched; }
  static auto getrs_batched(const cublas::api &l) { return l.cublasSgetrsBatched; }
  static auto gesvdj_size(const cusolver::api &l) { return l.cusolverDnSgesvdjBatched_bufferSize; }
  static auto gesvdj(const cusolver::api &l) { return l.cusolverDnSgesvdjBatched; }
  static auto syevj_size(const cusolver::api &l) { return l.cusolverDnSsyevjBatched_bufferSize; }
  static auto syevj(const cusolver::api &l) { return l.cusolverDnSsyevjBatched; }
};
template <> struct typed<double> {
  using native = double;
  static auto orgqr_size(const cusolver::api &l) { return l.cusolverDnDorgqr_bufferSize; }
  static auto orgqr(const cusolver::api &l) { return l.cusolverDnDorgqr; }
  static auto trsm(const cublas::api &l) { return l.cublasDtrsm_v2; }
  static auto getrf_batched(const cublas::api &l) { return l.cublasDgetrfBatched; }
  static auto getrs_batched(const cublas::api &l) { return l.cublasDgetrsBatched; }
  static auto gesvdj_size(const cusolver::api &l) { return l.cusolverDnDgesvdjBatched_bufferSize; }
  static auto gesvdj(const cusolver::api &l) { return l.cusolverDnDgesvdjBatched; }
  static auto syevj_size(const cusolver::api &l) { return l.cusolverDnDsyevjBatched_bufferSize; }
  static auto syevj(const cusolver::api &l) { return l.cusolverDnDsyevjBatched; }
};
template <> struct typed<c64> {
  using native = cuComplex;
  static auto orgqr_size(const cusolver::api &l) { return l.cusolverDnCungqr_bufferSize; }
  static auto orgqr(const cusolver::api &l) { return l.cusolverDnCungqr; }
  static auto trsm(const cublas::api &l) { return l.cublasCtrsm_v2; }
  static auto getrf_batched(const cublas::api &l) { return l.cublasCgetrfBatched; }
  static auto getrs_batched(const cublas::api &l) { return l.cublasCgetrsBatched; }
  static auto gesvdj_size(const cusolver::api &l) { return l.cusolverDnCgesvdjBatched_bufferSize; }
  static auto gesvdj(const cusolver::api &l) { return l.cusolverDnCgesvdjBatched; }
  static auto syevj_size(const cusolver::api &l) { return l.cusolverDnCheevjBatched_bufferSize; }
  static auto syevj(const cusolver::api &l) { return l.cusolverDnCheevjBatched; }
};
template <> struct typed<c128> {
  using native = cuDoubleComplex;
  static auto orgqr_size(const cusolver::api &l) { return l.cusolverDnZungqr_bufferSize; }
  static auto orgqr(const cusolver::api &l) { return l.cusolverDnZungqr; }
  static auto trsm(const cublas::api &l) { return l.cublasZtrsm_v2; }
  static auto getrf_batched(const cublas::api &l) { return l.cublasZgetrfBatched; }
  static auto getrs_batched(const cublas::api &l) { return l.cublasZgetrsBatched; }
  static auto gesvdj_size(const cusolver::api &l) { return l.cusolverDnZgesvdjBatched_bufferSize; }
  static auto gesvdj(const cusolver::api &l) { return l.cusolverDnZgesvdjBatched; }
  static auto syevj_size(const cusolver::api &l) { return l.cusolverDnZheevjBatched_bufferSize; }
  static auto syevj(const cusolver::api &l) { return l.cusolverDnZheevjBatched; }
};
template <class R> auto *native(void *p) { return static_cast<typename typed<R>::native *>(p); }

/// Stacks of at most this order factor in one batched call (cuBLAS's
/// getrfBatched, cuSOLVER's gesvdjBatched and syevBatched) rather than a
/// call per matrix.
constexpr std::int64_t batched_lu_order = 256, batched_jacobi_order = 32;

/// The calling thread's cuBLAS handle for `dev` on its current stream.
cublasHandle_t cublas_handle(const cublas::api &lib, device dev) {
  cuda::make_current(dev.index());
  cublasHandle_t h = cublas::handle(lib, dev);
  cublas::check(lib, lib.cublasSetStream_v2(h, static_cast<cudaStream_t>(stream::current(dev).native_handle())),
                "cublasSetStream_v2");
  return h;
}

/// A device array of the address of each matrix of `s` (cuBLAS's batched
/// routines take them so), written by a kernel on the stream: no copy from
/// the host.
array_base matrix_addresses(const stack &s) {
  array_base out = empty(dtype::int64, shape{s.count}, s.where());
  kernels::matrix_addresses_params p{};
  p.base = static_cast<char *>(s.data.data());
  p.stride = s.rows * s.cols * static_cast<std::int64_t>(itemsize(s.dtype()));
  p.count = s.count;
  p.out = static_cast<void **>(out.data());
  cuda::make_current(s.where().index());
  kernels::gpu::matrix_addresses(s.where().index(), p, stream::current(s.where()).native_handle());
  return out;
}

/// cuSOLVER's options of the batched Jacobi SVD (its defaults: sorted
/// singular values, tolerance of the type's epsilon, 100 sweeps).
struct gesvdj_options {
  const cusolver::api &lib;
  gesvdjInfo_t info = nullptr;
  explicit gesvdj_options(const cusolver::api &l) : lib(l) {
    cusolver::check(lib.cusolverDnCreateGesvdjInfo(&info), "cusolverDnCreateGesvdjInfo");
  }
  ~gesvdj_options() { lib.cusolverDnDestroyGesvdjInfo(info); }
  gesvdj_options(const gesvdj_options &) = delete;
  gesvdj_options &operator=(const gesvdj_options &) = delete;
};

/// cuSOLVER's options of the batched Jacobi eigensolver (its defaults:
/// ascending eigenvalues, the type's epsilon, 100 sweeps).
struct syevj_options {
  const cusolver::api &lib;
  syevjInfo_t info = nullptr;
  explicit syevj_options(const cusolver::api &l) : lib(l) {
    cusolver::check(lib.cusolverDnCreateSyevjInfo(&info), "cusolverDnCreateSyevjInfo");
  }
  ~syevj_options() { lib.cusolverDnDestroySyevjInfo(info); }
  syevj_options(const syevj_options &) = delete;
  syevj_options &operator=(const syevj_options &) = delete;
};

int int_size(std::int64_t n, const char *what) {
  if (n > std::numeric_limits<int>::max())
    throw value_error(std::string("kiln::linalg: ") + what + " of " + std::to_string(n) +
                      " are past cuSOLVER's 32-bit routines");
  return static_cast<int>(n);
}

class cusolver_backend final : public backend {
public:
  info_words getrf(const stack &a, array_base &pivots) const override {
    const std::int64_t m = a.rows, n = a.cols, k = std::min(m, n);
    if (a.count > 1 && m == n && n > 0 && n <= batched_lu_order)
      return getrf_batched(a, pivots);
    pivots = empty(dtype::int64, shape{a.count, k}, a.where());
    if (a.count == 0 || k == 0)
      return {zeros_on(a.count, a.where())};
    context c(a);
    std::size_t dbytes = 0, hbytes = 0;
    cusolver::check(c.lib.cusolverDnXgetrf_bufferSize(c.h, c.params, m, n, c.type, a.matrix(0), m, c.type, &dbytes, &hbytes),
                    "cusolverDnXgetrf_bufferSize");
    workspace w(dbytes, hbytes, c.dev);
    const array_base info = info_array(a.count, c.dev);
    for (std::int64_t i = 0; i < a.count; ++i)
      cusolver::check(c.lib.cusolverDnXgetrf(c.h, c.params, m, n, c.type, a.matrix(i), m,
                                             static_cast<std::int64_t *>(row_of(pivots, i)), c.type, w.dev(),
                                             w.dev_bytes(), w.host(), w.host_bytes(), info_of(info, i)),
                      "cusolverDnXgetrf");
    return {info};
  }

  void getrs(const stack &lu, const array_base &pivots, const stack &b, operation op) const override {
    if (lu.count == 0 || lu.rows == 0 || b.cols == 0)
      return;
    if (pivots.dtype() == dtype::int32) // getrf_batched's
      return getrs_batched(lu, pivots, b, op);
    context c(lu);
    const array_base info = info_array(lu.count, c.dev);
    for (std::int64_t i = 0; i < lu.count; ++i)
      cusolver::check(c.lib.cusolverDnXgetrs(c.h, c.params, operation_of(op), lu.rows, b.cols, c.type, lu.matrix(i),
                                             lu.rows, static_cast<const std::int64_t *>(row_of(pivots, i)), c.type,
                                             b.matrix(i), b.rows, info_of(info, i)),
                      "cusolverDnXgetrs");
  }

  std::vector<int> potrf(const stack &a, char uplo) const override {
    if (a.count == 0 || a.rows == 0)
      return std::vector<int>(static_cast<std::size_t>(a.count), 0);
    context c(a);
    std::size_t dbytes = 0, hbytes = 0;
    cusolver::check(c.lib.cusolverDnXpotrf_bufferSize(c.h, c.params, fill(uplo), a.rows, c.type, a.matrix(0), a.rows,
                                                      c.type, &dbytes, &hbytes),
                    "cusolverDnXpotrf_bufferSize");
    workspace w(dbytes, hbytes, c.dev);
    const array_base info = info_array(a.count, c.dev);
    for (std::int64_t i = 0; i < a.count; ++i)
      cusolver::check(c.lib.cusolverDnXpotrf(c.h, c.params, fill(uplo), a.rows, c.type, a.matrix(i), a.rows, c.type,
                                             w.dev(), w.dev_bytes(), w.host(), w.host_bytes(), info_of(info, i)),
                      "cusolverDnXpotrf");
    return read(info);
  }

  void potrs(const stack &ch, const stack &b, char uplo) const override {
    if (ch.count == 0 || ch.rows == 0 || b.cols == 0)
      return;
    context c(ch);
    const array_base info = info_array(ch.count, c.dev);
    for (std::int64_t i = 0; i < ch.count; ++i)
      cusolver::check(c.lib.cusolverDnXpotrs(c.h, c.params, fill(uplo), ch.rows, b.cols, c.type, ch.matrix(i), ch.rows,
                                             c.type, b.matrix(i), b.rows, info_of(info, i)),
                      "cusolverDnXpotrs");
  }

  std::vector<int> trsm(const stack &a, const stack &b, char uplo, operation op, bool unit_diagonal) const override {
    std::vector<int> none(static_cast<std::size_t>(a.count), 0);
    if (a.count == 0 || a.rows == 0 || b.cols == 0)
      return none;
    const int n = int_size(a.rows, "rows"), k = int_size(b.cols, "right-hand sides");
    const cublas::api &lib = cublas::require();
    cuda::make_current(a.where().index());
    cublasHandle_t h = cublas::handle(lib, a.where());
    cublas::check(lib, lib.cublasSetStream_v2(h, static_cast<cudaStream_t>(stream::current(a.where()).native_handle())),
                  "cublasSetStream_v2");
    with_type(a.dtype(), [&]<class R>() {
      const R one(1);
      for (std::int64_t i = 0; i < a.count; ++i)
        cublas::check(lib,
                      typed<R>::trsm(lib)(h, CUBLAS_SIDE_LEFT, fill(uplo), operation_of(op),
                                          unit_diagonal ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, n, k,
                                          native<R>(const_cast<R *>(&one)), native<R>(a.matrix(i)), n,
                                          native<R>(b.matrix(i)), n),
                      "cublas?trsm_v2");
    });
    return none;
  }

  array_base geqrf(const stack &a) const override {
    const std::int64_t m = a.rows, n = a.cols, k = std::min(m, n);
    array_base tau = empty(a.dtype(), shape{a.count, k}, a.where());
    if (a.count == 0 || k == 0)
      return tau;
    context c(a);
    std::size_t dbytes = 0, hbytes = 0;
    cusolver::check(c.lib.cusolverDnXgeqrf_bufferSize(c.h, c.params, m, n, c.type, a.matrix(0), m, c.type, tau.data(),
                                                      c.type, &dbytes, &hbytes),
                    "cusolverDnXgeqrf_bufferSize");
    workspace w(dbytes, hbytes, c.dev);
    const array_base info = info_array(a.count, c.dev);
    for (std::int64_t i = 0; i < a.count; ++i)
      cusolver::check(c.lib.cusolverDnXgeqrf(c.h, c.params, m, n, c.type, a.matrix(i), m, c.type, row_of(tau, i), c.type,
                                             w.dev(), w.dev_bytes(), w.host(), w.host_bytes(), info_of(info, i)),
                      "cusolverDnXgeqrf");
    return tau;
  }

  void orgqr(const stack &q, const array_base &tau, std::int64_t k) const override {
    if (q.count == 0 || q.cols == 0)
      return;
    context c(q);
    const int m = int_size(q.rows, "rows"), n = int_size(q.cols, "columns"), kk = int(k);
    with_type(q.dtype(), [&]<class R>() {
      int lwork = 0;
      cusolver::check(typed<R>::orgqr_size(c.lib)(c.h, m, n, kk, native<R>(q.matrix(0)), m, native<R>(tau.data()), &lwork),
                      "cusolverDn?orgqr_bufferSize");
      const array_base work = empty(q.dtype(), shape{std::max(lwork, 1)}, c.dev);
      const array_base info = info_array(q.count, c.dev);
      for (std::int64_t i = 0; i < q.count; ++i)
        cusolver::check(typed<R>::orgqr(c.lib)(c.h, m, n, kk, native<R>(q.matrix(i)), m, native<R>(row_of(tau, i)),
                                               native<R>(work.data()), lwork, info_of(info, i)),
                        "cusolverDn?orgqr");
    });
  }

  svd_factors gesvd(const stack &a, bool vectors, bool full) const override {
    const std::int64_t m = a.rows, n = a.cols, k = std::min(m, n);
    if (a.count > 1 && k > 0 && std::max(m, n) <= batched_jacobi_order)
      return gesvd_batched(a, vectors, full);
    if (m < n)
      throw value_error("kiln::linalg: cuSOLVER's gesvd takes matrices with at least as many rows as columns");
    svd_factors r;
    const dtype real = real_type(a.dtype());
    r.s = empty(real, shape{a.count, k}, a.where());
    const std::int64_t ucols = full ? m : k, vrows = full ? n : k;
    if (vectors) {
      r.u = make_stack(a.dtype(), a.count, m, ucols, a.where());
      r.vt = make_stack(a.dtype(), a.count, vrows, n, a.where());
    }
    r.info.assign(static_cast<std::size_t>(a.count), 0);
    if (a.count == 0 || k == 0)
      return r;
    context c(a);
    const signed char job = vectors ? (full ? 'A' : 'S') : 'N';
    const cudaDataType real_t = cuda::data_type_of(real);
    std::size_t dbytes = 0, hbytes = 0;
    cusolver::check(c.lib.cusolverDnXgesvd_bufferSize(c.h, c.params, job, job, m, n, c.type, a.matrix(0), m, real_t,
                                                      r.s.data(), c.type, vectors ? r.u.matrix(0) : nullptr, m, c.type,
                                                      vectors ? r.vt.matrix(0) : nullptr, std::max<std::int64_t>(vrows, 1),
                                                      c.type, &dbytes, &hbytes),
                    "cusolverDnXgesvd_bufferSize");
    workspace w(dbytes, hbytes, c.dev);
    const array_base info = info_array(a.count, c.dev);
    for (std::int64_t i = 0; i < a.count; ++i)
      cusolver::check(c.lib.cusolverDnXgesvd(c.h, c.params, job, job, m, n, c.type, a.matrix(i), m, real_t,
                                             row_of(r.s, i), c.type, vectors ? r.u.matrix(i) : nullptr, m, c.type,
                                             vectors ? r.vt.matrix(i) : nullptr, std::max<std::int64_t>(vrows, 1), c.type,
                                             w.dev(), w.dev_bytes(), w.host(), w.host_bytes(), info_of(info, i)),
                      "cusolverDnXgesvd");
    r.info = read(info);
    return r;
  }

  eigen_factors syevd(const stack &a, bool vectors, char uplo) const override {
    const std::int64_t n = a.rows;
    eigen_factors r;
    const dtype real = real_type(a.dtype());
    r.w = empty(real, shape{a.count, n}, a.where());
    r.info.assign(static_cast<std::size_t>(a.count), 0);
    if (a.count == 0 || n == 0)
      return r;
    context c(a);
    const cudaDataType real_t = cuda::data_type_of(real);
    const cusolverEigMode_t job = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    const array_base info = info_array(a.count, c.dev);
    std::size_t dbytes = 0, hbytes = 0;
    if (a.count > 1 && n <= batched_jacobi_order) { // one call of the batched Jacobi routine
      const int count = int_size(a.count, "batches");
      syevj_options options(c.lib);
      with_type(a.dtype(), [&]<class R>() {
        using V = decltype(std::abs(R()));
        int lwork = 0;
        cusolver::check(typed<R>::syevj_size(c.lib)(c.h, job, fill(uplo), int(n), native<R>(a.matrix(0)), int(n),
                                                    static_cast<V *>(r.w.data()), &lwork, options.info, count),
                        "cusolverDn?syevjBatched_bufferSize");
        const array_base work = empty(a.dtype(), shape{std::max(lwork, 1)}, c.dev);
        cusolver::check(typed<R>::syevj(c.lib)(c.h, job, fill(uplo), int(n), native<R>(a.matrix(0)), int(n),
                                               static_cast<V *>(r.w.data()), native<R>(work.data()), lwork,
                                               info_of(info, 0), options.info, count),
                        "cusolverDn?syevjBatched");
      });
    } else {
      cusolver::check(c.lib.cusolverDnXsyevd_bufferSize(c.h, c.params, job, fill(uplo), n, c.type, a.matrix(0), n, real_t,
                                                        r.w.data(), c.type, &dbytes, &hbytes),
                      "cusolverDnXsyevd_bufferSize");
      workspace w(dbytes, hbytes, c.dev);
      for (std::int64_t i = 0; i < a.count; ++i)
        cusolver::check(c.lib.cusolverDnXsyevd(c.h, c.params, job, fill(uplo), n, c.type, a.matrix(i), n, real_t,
                                               row_of(r.w, i), c.type, w.dev(), w.dev_bytes(), w.host(), w.host_bytes(),
                                               info_of(info, i)),
                        "cusolverDnXsyevd");
    }
    r.info = read(info);
    return r;
  }

  eigen_factors geev(const stack &a, const stack *vr) const override {
    const std::int64_t n = a.rows;
    eigen_factors r;
    r.w = empty(a.dtype(), shape{a.count, n}, a.where());
    r.info.assign(static_cast<std::size_t>(a.count), 0);
    if (a.count == 0 || n == 0)
      return r;
    context c(a);
    const cusolverEigMode_t job = vr ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    std::size_t dbytes = 0, hbytes = 0;
    cusolver::check(c.lib.cusolverDnXgeev_bufferSize(c.h, c.params, CUSOLVER_EIG_MODE_NOVECTOR, job, n, c.type,
                                                     a.matrix(0), n, c.type, r.w.data(), c.type, nullptr, 1, c.type,
                                                     vr ? vr->matrix(0) : nullptr, n, c.type, &dbytes, &hbytes),
                    "cusolverDnXgeev_bufferSize");
    workspace w(dbytes, hbytes, c.dev);
    const array_base info = info_array(a.count, c.dev);
    for (std::int64_t i = 0; i < a.count; ++i)
      cusolver::check(c.lib.cusolverDnXgeev(c.h, c.params, CUSOLVER_EIG_MODE_NOVECTOR, job, n, c.type, a.matrix(i), n,
                                            c.type, row_of(r.w, i), c.type, nullptr, 1, c.type,
                                            vr ? vr->matrix(i) : nullptr, n, c.type, w.dev(), w.dev_bytes(), w.host(),
                                            w.host_bytes(), info_of(info, i)),
                      "cusolverDnXgeev");
    r.info = read(info);
    return r;
  }

private:
  /// LU of a stack of small square matrices in one cuBLAS call; int32
  /// pivots (which tell getrs to use getrs_batched).
  info_words getrf_batched(const stack &a, array_base &pivots) const {
    const int n = int(a.rows), count = int_size(a.count, "batches");
    pivots = empty(dtype::int32, shape{a.count, a.rows}, a.where());
    const cublas::api &lib = cublas::require();
    cublasHandle_t h = cublas_handle(lib, a.where());
    const array_base addresses = matrix_addresses(a);
    const array_base info = info_array(a.count, a.where());
    with_type(a.dtype(), [&]<class R>() {
      using N = typename typed<R>::native;
      cublas::check(lib,
                    typed<R>::getrf_batched(lib)(h, n, static_cast<N *const *>(addresses.data()), n,
                                                 static_cast<int *>(pivots.data()), info_of(info, 0), count),
                    "cublas?getrfBatched");
    });
    return {info};
  }

  void getrs_batched(const stack &lu, const array_base &pivots, const stack &b, operation op) const {
    const int n = int(lu.rows), k = int_size(b.cols, "right-hand sides"), count = int_size(lu.count, "batches");
    const cublas::api &lib = cublas::require();
    cublasHandle_t h = cublas_handle(lib, lu.where());
    const array_base a_addresses = matrix_addresses(lu), b_addresses = matrix_addresses(b);
    int info = 0; // on the host: an invalid argument only
    with_type(lu.dtype(), [&]<class R>() {
      using N = typename typed<R>::native;
      cublas::check(lib,
                    typed<R>::getrs_batched(lib)(h, operation_of(op), n, k, static_cast<const N *const *>(a_addresses.data()),
                                                 n, static_cast<const int *>(pivots.data()),
                                                 static_cast<N *const *>(b_addresses.data()), n, &info, count),
                    "cublas?getrsBatched");
    });
    if (info < 0)
      throw cuda_error("cublas?getrsBatched: invalid argument " + std::to_string(-info), info);
  }

  /// The SVD of a stack of matrices of at most 32 rows and columns in one
  /// call of cuSOLVER's batched Jacobi routine, which gives V (not V^H) and
  /// always the full U and V: V^H and the reduced corners are taken on the
  /// way out (one matrix_map each).
  svd_factors gesvd_batched(const stack &a, bool vectors, bool full) const {
    const std::int64_t m = a.rows, n = a.cols, k = std::min(m, n);
    const int count = int_size(a.count, "batches");
    context c(a);
    svd_factors r;
    r.s = empty(real_type(a.dtype()), shape{a.count, k}, a.where());
    const stack u = make_stack(a.dtype(), a.count, m, m, a.where()), v = make_stack(a.dtype(), a.count, n, n, a.where());
    const array_base info = info_array(a.count, c.dev);
    gesvdj_options options(c.lib);
    const cusolverEigMode_t job = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    with_type(a.dtype(), [&]<class R>() {
      using V = decltype(std::abs(R()));
      int lwork = 0;
      cusolver::check(typed<R>::gesvdj_size(c.lib)(c.h, job, int(m), int(n), native<R>(a.matrix(0)), int(m),
                                                   static_cast<V *>(r.s.data()), native<R>(u.matrix(0)), int(m),
                                                   native<R>(v.matrix(0)), int(n), &lwork, options.info, count),
                      "cusolverDn?gesvdjBatched_bufferSize");
      const array_base work = empty(a.dtype(), shape{std::max(lwork, 1)}, c.dev);
      cusolver::check(typed<R>::gesvdj(c.lib)(c.h, job, int(m), int(n), native<R>(a.matrix(0)), int(m),
                                              static_cast<V *>(r.s.data()), native<R>(u.matrix(0)), int(m),
                                              native<R>(v.matrix(0)), int(n), native<R>(work.data()), lwork,
                                              info_of(info, 0), options.info, count),
                      "cusolverDn?gesvdjBatched");
    });
    r.info = read(info);
    if (!vectors)
      return r;
    const std::int64_t ucols = full ? m : k, vrows = full ? n : k;
    // U's first ucols columns: a prefix of each column-major matrix.
    r.u = {linalg_stack::matrix_map(array_base::from_parts(u.data.storage(), u.dtype(), u.where(),
                                                          shape{a.count, ucols, m}, shape{m * m, m, 1},
                                                          u.data.offset())),
           a.count, m, ucols};
    // V^H's first vrows rows: element (i, j) = conj(V[j, i]).
    r.vt = {linalg_stack::matrix_map(array_base::from_parts(v.data.storage(), v.dtype(), v.where(),
                                                           shape{a.count, n, vrows}, shape{n * n, 1, n},
                                                           v.data.offset()),
                                     linalg_stack::element_map{.conj = true}),
            a.count, vrows, n};
    return r;
  }
};

} // namespace

const backend &gpu_backend() {
  static const cusolver_backend b;
  return b;
}

} // namespace kiln::detail::linalg_backend
