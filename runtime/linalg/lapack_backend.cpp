//===- runtime/linalg/lapack_backend.cpp - linalg's operations in LAPACK --===//
//
// The host's backend (backend.hpp): each matrix of a stack goes to LAPACKE in
// its column-major layout, so LAPACKE copies nothing. Small matrices are
// spread over the host backend's threads, a matrix each; large ones run one
// at a time on OpenBLAS's own threads.
//
//===----------------------------------------------------------------------===//
#include "backend.hpp"

#include "lapack.hpp"

#include "kiln/promote.hpp"
#include "kiln/stream.hpp"
#include "runtime/parallel/thread_pool.hpp"

#include <algorithm>

namespace kiln::detail::linalg_backend {
namespace {

using linalg_stack::lapack_size;
using linalg_stack::make_stack;

/// Calls f(i) for each matrix of a batch of `count` n x n ones: on the host
/// backend's threads when they are small (OpenBLAS runs those on one
/// thread), in order otherwise.
template <class F> void for_each_matrix(std::int64_t count, std::int64_t n, F &&f) {
  if (n <= 64)
    parallel::parallel_for(count, std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(n * n, 1)),
                           [&](std::int64_t begin, std::int64_t end) {
                             for (std::int64_t i = begin; i < end; ++i)
                               f(i);
                           });
  else
    for (std::int64_t i = 0; i < count; ++i)
      f(i);
}

template <class T> T *at(const array_base &x, std::int64_t row, std::int64_t width) {
  return static_cast<T *>(x.data()) + row * width;
}

class lapack_backend final : public backend {
public:
  info_words getrf(const stack &a, array_base &pivots) const override {
    const lapack::routines &lp = lapack::require(a.dtype());
    const int m = lapack_size(a.rows, "rows"), n = lapack_size(a.cols, "columns"), k = std::min(m, n);
    pivots = empty(dtype::int32, shape{a.count, k}, device::host());
    info_words info{empty(dtype::int32, shape{a.count}, device::host())};
    int *words = static_cast<int *>(info.words.data());
    std::fill(words, words + a.count, 0);
    if (m > 0 && n > 0)
      for_each_matrix(a.count, k, [&](std::int64_t i) {
        words[i] = lp.getrf(lapack::col_major, m, n, a.matrix(i), m, at<int>(pivots, i, k));
      });
    return info;
  }

  void getrs(const stack &lu, const array_base &pivots, const stack &b, operation op) const override {
    const lapack::routines &lp = lapack::require(lu.dtype());
    const int n = lapack_size(lu.rows, "rows"), k = lapack_size(b.cols, "right-hand sides");
    if (n > 0 && k > 0)
      for_each_matrix(lu.count, n, [&](std::int64_t i) {
        (void)lp.getrs(lapack::col_major, op, n, k, lu.matrix(i), n, at<int>(pivots, i, n), b.matrix(i), n);
      });
  }

  std::vector<int> potrf(const stack &a, char uplo) const override {
    const lapack::routines &lp = lapack::require(a.dtype());
    const int n = lapack_size(a.rows, "rows");
    std::vector<int> info(static_cast<std::size_t>(a.count), 0);
    if (n > 0)
      for_each_matrix(a.count, n, [&](std::int64_t i) { info[i] = lp.potrf(lapack::col_major, uplo, n, a.matrix(i), n); });
    return info;
  }

  void potrs(const stack &c, const stack &b, char uplo) const override {
    const lapack::routines &lp = lapack::require(c.dtype());
    const int n = lapack_size(c.rows, "rows"), k = lapack_size(b.cols, "right-hand sides");
    if (n > 0 && k > 0)
      for_each_matrix(c.count, n, [&](std::int64_t i) {
        (void)lp.potrs(lapack::col_major, uplo, n, k, c.matrix(i), n, b.matrix(i), n);
      });
  }

  std::vector<int> trsm(const stack &a, const stack &b, char uplo, operation op, bool unit_diagonal) const override {
    const lapack::routines &lp = lapack::require(a.dtype());
    const int n = lapack_size(a.rows, "rows"), k = lapack_size(b.cols, "right-hand sides");
    std::vector<int> info(static_cast<std::size_t>(a.count), 0);
    if (n > 0 && k > 0)
      for_each_matrix(a.count, n, [&](std::int64_t i) {
        info[i] = lp.trtrs(lapack::col_major, uplo, op, unit_diagonal ? 'U' : 'N', n, k, a.matrix(i), n, b.matrix(i), n);
      });
    return info;
  }

  array_base geqrf(const stack &a) const override {
    const lapack::routines &lp = lapack::require(a.dtype());
    const int m = lapack_size(a.rows, "rows"), n = lapack_size(a.cols, "columns"), k = std::min(m, n);
    array_base tau = empty(a.dtype(), shape{a.count, k}, device::host());
    if (k > 0)
      for_each_matrix(a.count, k, [&](std::int64_t i) {
        (void)lp.geqrf(lapack::col_major, m, n, a.matrix(i), m,
                       static_cast<char *>(tau.data()) + i * k * std::int64_t(itemsize(a.dtype())));
      });
    return tau;
  }

  void orgqr(const stack &q, const array_base &tau, std::int64_t k) const override {
    const lapack::routines &lp = lapack::require(q.dtype());
    const int m = lapack_size(q.rows, "rows"), n = lapack_size(q.cols, "columns");
    const std::int64_t width = tau.shape()[1];
    if (m > 0 && n > 0)
      for_each_matrix(q.count, n, [&](std::int64_t i) {
        (void)lp.orgqr(lapack::col_major, m, n, int(k), q.matrix(i), m,
                       static_cast<const char *>(tau.data()) + i * width * std::int64_t(itemsize(q.dtype())));
      });
  }

  svd_factors gesvd(const stack &a, bool vectors, bool full) const override {
    const lapack::routines &lp = lapack::require(a.dtype());
    const int m = lapack_size(a.rows, "rows"), n = lapack_size(a.cols, "columns"), k = std::min(m, n);
    svd_factors r;
    r.s = empty(real_type(a.dtype()), shape{a.count, k}, device::host());
    const int ucols = full ? m : k, vrows = full ? n : k;
    if (vectors) {
      r.u = make_stack(a.dtype(), a.count, m, ucols, device::host());
      r.vt = make_stack(a.dtype(), a.count, vrows, n, device::host());
    }
    r.info.assign(static_cast<std::size_t>(a.count), 0);
    if (k == 0)
      return r;
    const char jobz = vectors ? (full ? 'A' : 'S') : 'N';
    const std::int64_t real_size = std::int64_t(itemsize(real_type(a.dtype())));
    for_each_matrix(a.count, k, [&](std::int64_t i) {
      r.info[i] = lp.gesdd(lapack::col_major, jobz, m, n, a.matrix(i), m,
                           static_cast<char *>(r.s.data()) + i * k * real_size, vectors ? r.u.matrix(i) : nullptr,
                           std::max(m, 1), vectors ? r.vt.matrix(i) : nullptr, std::max(vrows, 1));
    });
    return r;
  }

  eigen_factors syevd(const stack &a, bool vectors, char uplo) const override {
    const lapack::routines &lp = lapack::require(a.dtype());
    const int n = lapack_size(a.rows, "rows");
    eigen_factors r;
    r.w = empty(real_type(a.dtype()), shape{a.count, n}, device::host());
    r.info.assign(static_cast<std::size_t>(a.count), 0);
    const std::int64_t real_size = std::int64_t(itemsize(real_type(a.dtype())));
    if (n > 0)
      for_each_matrix(a.count, n, [&](std::int64_t i) {
        r.info[i] = lp.syevd(lapack::col_major, vectors ? 'V' : 'N', uplo, n, a.matrix(i), n,
                             static_cast<char *>(r.w.data()) + i * n * real_size);
      });
    return r;
  }

  eigen_factors geev(const stack &a, const stack *vr) const override {
    const lapack::routines &lp = lapack::require(a.dtype());
    if (!lp.geev)
      throw value_error("kiln::linalg: geev runs on complex matrices");
    const int n = lapack_size(a.rows, "rows");
    eigen_factors r;
    r.w = empty(a.dtype(), shape{a.count, n}, device::host());
    r.info.assign(static_cast<std::size_t>(a.count), 0);
    const std::int64_t size = std::int64_t(itemsize(a.dtype()));
    if (n > 0)
      for_each_matrix(a.count, n, [&](std::int64_t i) {
        r.info[i] = lp.geev(lapack::col_major, 'N', vr ? 'V' : 'N', n, a.matrix(i), n,
                            static_cast<char *>(r.w.data()) + i * n * size, nullptr, 1, vr ? vr->matrix(i) : nullptr,
                            vr ? n : 1);
      });
    return r;
  }
};

} // namespace

std::vector<int> info_words::read() const {
  std::vector<int> out(static_cast<std::size_t>(words.size()), 0);
  if (!out.empty())
    copy_to_host(words, out.data(), stream::current(words.device()), /*async=*/false);
  return out;
}

const backend &host_backend() {
  static const lapack_backend b;
  return b;
}

} // namespace kiln::detail::linalg_backend
