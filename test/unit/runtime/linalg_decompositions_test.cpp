// kiln::linalg's decompositions and what is built on them (svd, svdvals, qr,
// eigh, eigvalsh, eig, eigvals, pinv, lstsq, matrix_rank, cond, norm 2/-2/nuc,
// matrix_power) and SciPy's factorizations (lu_factor, lu_solve, lu,
// cho_factor, cho_solve, solve_triangular): every LAPACK dtype and an integer
// input, batches, tall and wide matrices, strided views as inputs, checked
// against their defining identities in long double on random matrices
// (A = U S V^H with orthonormal U and V, A V = V diag(w), P L U = A, ...),
// and NumPy's and SciPy's errors. On a GPU (where present) the same checks
// run through cuSOLVER and cuBLAS.
#include "expect.hpp"
#include "gpu.hpp"
#include "host_arrays.hpp"

#include <kiln/kiln.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;
using cld = std::complex<long double>;

/// A stack of matrices in long double complex, row-major.
struct mats {
  std::int64_t count = 0, rows = 0, cols = 0;
  std::vector<cld> v;
  cld &at(std::int64_t b, std::int64_t i, std::int64_t j) { return v[(b * rows + i) * cols + j]; }
  cld at(std::int64_t b, std::int64_t i, std::int64_t j) const { return v[(b * rows + i) * cols + j]; }
};

template <class T> cld as_cld(T v) {
  if constexpr (is_cplx<T>)
    return cld(v.real(), v.imag());
  else
    return cld(static_cast<long double>(v), 0);
}

template <class T> mats to_mats(const kiln::array<T> &x) {
  mats m;
  m.rows = x.ndim() >= 2 ? x.shape()[x.ndim() - 2] : x.shape()[0];
  m.cols = x.ndim() >= 2 ? x.shape().back() : 1;
  m.count = (m.rows * m.cols) ? x.size() / (m.rows * m.cols) : 0;
  for (const T &e : x.to_vector())
    m.v.push_back(as_cld(e));
  return m;
}

mats product(const mats &a, const mats &b) {
  mats c{a.count, a.rows, b.cols, std::vector<cld>(a.count * a.rows * b.cols)};
  for (std::int64_t s = 0; s < a.count; ++s)
    for (std::int64_t i = 0; i < a.rows; ++i)
      for (std::int64_t j = 0; j < b.cols; ++j) {
        cld sum = 0;
        for (std::int64_t p = 0; p < a.cols; ++p)
          sum += a.at(s, i, p) * b.at(b.count == 1 ? 0 : s, p, j);
        c.at(s, i, j) = sum;
      }
  return c;
}

mats adjoint(const mats &a) {
  mats c{a.count, a.cols, a.rows, std::vector<cld>(a.v.size())};
  for (std::int64_t s = 0; s < a.count; ++s)
    for (std::int64_t i = 0; i < a.rows; ++i)
      for (std::int64_t j = 0; j < a.cols; ++j)
        c.at(s, j, i) = std::conj(a.at(s, i, j));
  return c;
}

/// max |a - b| over all elements (shapes must agree).
long double distance(const mats &a, const mats &b) {
  EXPECT_EQ(a.v.size(), b.v.size());
  long double d = 0;
  for (std::size_t i = 0; i < std::min(a.v.size(), b.v.size()); ++i)
    d = std::max(d, std::abs(a.v[i] - b.v[i]));
  return d;
}

mats identity(std::int64_t count, std::int64_t n) {
  mats m{count, n, n, std::vector<cld>(count * n * n, cld(0))};
  for (std::int64_t s = 0; s < count; ++s)
    for (std::int64_t i = 0; i < n; ++i)
      m.at(s, i, i) = 1;
  return m;
}

/// Random values in [-1, 1) (integers in [-9, 9]); `diag` added on the
/// diagonals of square stacks.
template <class T> std::vector<T> random_values(std::size_t count, std::uint32_t seed, std::int64_t n = 0,
                                                double diag = 0) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(count);
  for (std::size_t i = 0; i < count; ++i) {
    if constexpr (is_cplx<T>)
      v[i] = T(u(gen), u(gen));
    else if constexpr (std::is_integral_v<T>)
      v[i] = static_cast<T>(std::lround(u(gen) * 9));
    else
      v[i] = static_cast<T>(u(gen));
    if (n > 0 && (i % std::size_t(n * n)) % std::size_t(n + 1) == 0)
      v[i] += static_cast<T>(diag);
  }
  return v;
}

template <class T> long double tolerance() {
  return std::is_same_v<T, float> || std::is_same_v<T, c64> ? 1e-4L : 1e-11L;
}

/// A (batch, n, n) stack of Hermitian positive-definite matrices M M^H + n I.
template <class T> std::vector<T> hermitian_pd(std::int64_t batch, std::int64_t n, std::uint32_t seed) {
  const std::vector<T> m = random_values<T>(batch * n * n, seed);
  std::vector<T> h(batch * n * n);
  for (std::int64_t s = 0; s < batch; ++s)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        T sum = i == j ? T(n) : T(0);
        for (std::int64_t p = 0; p < n; ++p) {
          if constexpr (is_cplx<T>)
            sum += m[(s * n + i) * n + p] * std::conj(m[(s * n + j) * n + p]);
          else
            sum += m[(s * n + i) * n + p] * m[(s * n + j) * n + p];
        }
        h[(s * n + i) * n + j] = sum;
      }
  return h;
}

template <class T> void check_svd(kiln::device dev, std::int64_t batch, std::int64_t m, std::int64_t n) {
  using R = kiln::linalg_t<T>;
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " " + std::to_string(m) + "x" +
                        std::to_string(n) + " on " + dev.str();
  const long double tol = tolerance<R>() * 10;
  const auto host = make(random_values<T>(batch * m * n, 11 + m), {batch, m, n});
  const mats A = to_mats(host);
  const std::int64_t k = std::min(m, n);
  for (bool full : {false, true}) {
    const auto [U, S, Vh] = kiln::linalg::svd(host.to(dev), full);
    ASSERT_EQ(U.device(), dev) << t;
    ASSERT_EQ(U.shape(), (kiln::shape{batch, m, full ? m : k})) << t;
    ASSERT_EQ(S.shape(), (kiln::shape{batch, k})) << t;
    ASSERT_EQ(Vh.shape(), (kiln::shape{batch, full ? n : k, n})) << t;
    const mats u = to_mats(U), v = to_mats(Vh);
    const std::vector<float> none;
    const auto s = S.to_vector();
    mats us = u; // U[:, :k] diag(S) Vh[:k]
    mats uk{batch, m, k, std::vector<cld>(batch * m * k)}, vk{batch, k, n, std::vector<cld>(batch * k * n)};
    for (std::int64_t b = 0; b < batch; ++b) {
      for (std::int64_t j = 0; j < k; ++j) {
        if (j > 0)
          EXPECT_GE(s[b * k + j - 1], s[b * k + j]) << t << " descending";
        EXPECT_GE(s[b * k + j], 0) << t;
        for (std::int64_t i = 0; i < m; ++i)
          uk.at(b, i, j) = u.at(b, i, j) * static_cast<long double>(s[b * k + j]);
        for (std::int64_t i = 0; i < n; ++i)
          vk.at(b, j, i) = v.at(b, j, i);
      }
    }
    EXPECT_LT(distance(product(uk, vk), A), tol) << t << " U S Vh";
    EXPECT_LT(distance(product(adjoint(u), u), identity(batch, u.cols)), tol) << t << " U^H U";
    EXPECT_LT(distance(product(v, adjoint(v)), identity(batch, v.rows)), tol) << t << " Vh Vh^H";
  }
  const auto values = kiln::linalg::svdvals(host.to(dev)).to_vector();
  const auto s = kiln::linalg::svd(host.to(dev), false).S.to_vector();
  for (std::size_t i = 0; i < s.size(); ++i)
    EXPECT_NEAR(values[i], s[i], double(tol) * (1 + std::abs(s[i]))) << t << " svdvals";
}

template <class T> void check_qr(kiln::device dev, std::int64_t batch, std::int64_t m, std::int64_t n) {
  using R = kiln::linalg_t<T>;
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " " + std::to_string(m) + "x" +
                        std::to_string(n) + " on " + dev.str();
  const long double tol = tolerance<R>() * 10;
  const auto host = make(random_values<T>(batch * m * n, 21 + n), {batch, m, n});
  const mats A = to_mats(host);
  const std::int64_t k = std::min(m, n);
  for (auto mode : {kiln::linalg::qr_mode::reduced, kiln::linalg::qr_mode::complete}) {
    const auto [Q, Rm] = kiln::linalg::qr(host.to(dev), mode);
    const std::int64_t qc = mode == kiln::linalg::qr_mode::complete ? m : k;
    ASSERT_EQ(Q.shape(), (kiln::shape{batch, m, qc})) << t;
    ASSERT_EQ(Rm.shape(), (kiln::shape{batch, qc, n})) << t;
    const mats q = to_mats(Q), r = to_mats(Rm);
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t i = 0; i < qc; ++i)
        for (std::int64_t j = 0; j < std::min(i, n); ++j)
          ASSERT_EQ(r.at(b, i, j), cld(0)) << t << " R is upper triangular";
    EXPECT_LT(distance(product(q, r), A), tol) << t << " Q R";
    EXPECT_LT(distance(product(adjoint(q), q), identity(batch, qc)), tol) << t << " Q^H Q";
  }
  const auto only_r = kiln::linalg::qr(host.to(dev), kiln::linalg::qr_mode::r);
  EXPECT_EQ(only_r.Q.size(), 0) << t;
  EXPECT_LT(distance(to_mats(only_r.R), to_mats(kiln::linalg::qr(host.to(dev)).R)), tol) << t << " mode r";
}

template <class T> void check_eigen(kiln::device dev) {
  using R = kiln::linalg_t<T>;
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " on " + dev.str();
  const long double tol = tolerance<R>() * 100;
  for (std::int64_t n : {5, 40}) { // the batched routine (n <= 32) and syevd
    const std::int64_t batch = 3;
    std::vector<T> hv = hermitian_pd<T>(batch, n, 31);
    const auto h = make(hv, {batch, n, n});
    const mats H = to_mats(h);
    const auto [w, V] = kiln::linalg::eigh(h.to(dev));
    ASSERT_EQ(w.shape(), (kiln::shape{batch, n})) << t;
    const auto wv = w.to_vector();
    const mats v = to_mats(V);
    mats vw = v;
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t j = 0; j < n; ++j) {
        if (j > 0)
          EXPECT_LE(wv[b * n + j - 1], wv[b * n + j]) << t << " ascending";
        for (std::int64_t i = 0; i < n; ++i)
          vw.at(b, i, j) *= static_cast<long double>(wv[b * n + j]);
      }
    EXPECT_LT(distance(product(H, v), vw), tol * n) << t << " A V = V diag(w), n " << n;
    EXPECT_LT(distance(product(adjoint(v), v), identity(batch, n)), tol) << t << " V^H V, n " << n;
    // eigvalsh; and 'U' reads the upper triangle only (garbage below).
    const auto values = kiln::linalg::eigvalsh(h.to(dev)).to_vector();
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < i; ++j)
          hv[(b * n + i) * n + j] = T(99);
    const auto upper = kiln::linalg::eigvalsh(make(hv, {batch, n, n}).to(dev), 'U').to_vector();
    for (std::size_t i = 0; i < wv.size(); ++i) {
      EXPECT_NEAR(values[i], wv[i], double(tol) * n * (1 + std::abs(wv[i]))) << t << " eigvalsh";
      EXPECT_NEAR(upper[i], wv[i], double(tol) * n * (1 + std::abs(wv[i]))) << t << " UPLO U";
    }
  }
  // eig of a general matrix: A v = w v, unit columns; eigvals the same set.
  const std::int64_t n = 6, batch = 2;
  const auto a = make(random_values<T>(batch * n * n, 41), {batch, n, n});
  const mats A = to_mats(a);
  const auto [w, V] = kiln::linalg::eig(a.to(dev));
  static_assert(kiln::is_std_complex<typename decltype(w)::value_type>::value);
  const mats v = to_mats(V), wm = to_mats(w);
  mats vw = v;
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t j = 0; j < n; ++j) {
      long double norm2 = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        vw.at(b, i, j) *= wm.v[b * n + j];
        norm2 += std::norm(v.at(b, i, j));
      }
      EXPECT_NEAR(double(norm2), 1.0, double(tol)) << t << " unit eigenvectors";
    }
  EXPECT_LT(distance(product(A, v), vw), tol * 10) << t << " A V = V diag(w)";
  const mats values = to_mats(kiln::linalg::eigvals(a.to(dev)));
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t j = 0; j < n; ++j) {
      long double nearest = 1e9;
      for (std::int64_t i = 0; i < n; ++i)
        nearest = std::min(nearest, std::abs(values.v[b * n + i] - wm.v[b * n + j]));
      EXPECT_LT(nearest, tol * 10) << t << " eigvals";
    }
}

template <class T> void check_svd_uses(kiln::device dev) {
  using R = kiln::linalg_t<T>;
  using V = kiln::var_result_t<T>;
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " on " + dev.str();
  const long double tol = tolerance<R>() * 100;
  // pinv of tall, wide and rank-deficient stacks: the Moore-Penrose
  // conditions A X A = A and X A X = X.
  for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{7, 4}, {3, 5}}) {
    const auto a = make(random_values<T>(2 * m * n, 51 + m), {2, m, n});
    const mats A = to_mats(a), X = to_mats(kiln::linalg::pinv(a.to(dev)));
    ASSERT_EQ(X.rows, n) << t;
    EXPECT_LT(distance(product(product(A, X), A), A), tol) << t << " A X A";
    EXPECT_LT(distance(product(product(X, A), X), X), tol * 10) << t << " X A X";
  }
  // A rank-2 6x5 product: matrix_rank 2; pinv still satisfies the conditions.
  const auto left = make(random_values<T>(6 * 2, 61), {6, 2}), right = make(random_values<T>(2 * 5, 62), {2, 5});
  const auto deficient = kiln::matmul(left, right);
  EXPECT_EQ(kiln::linalg::matrix_rank(deficient.to(dev)).to_vector()[0], 2) << t;
  EXPECT_EQ(kiln::linalg::matrix_rank(make(random_values<T>(3 * 4 * 4, 63, 4, 3.0), {3, 4, 4}).to(dev)).to_vector(),
            (std::vector<std::int64_t>{4, 4, 4}))
      << t;
  {
    // (NumPy's default rcond, 1e-15, keeps float32's rounding noise: 1e-5.)
    const double rcond = std::is_same_v<kiln::var_result_t<T>, float> ? 1e-5 : 1e-15;
    const mats A = to_mats(deficient), X = to_mats(kiln::linalg::pinv(deficient.to(dev), rcond));
    EXPECT_LT(distance(product(product(A, X), A), A), tol * 10) << t << " rank-deficient pinv";
  }
  // lstsq, tall: the residual is orthogonal to A's columns, and the reported
  // residuals are its squared norms.
  {
    const std::int64_t m = 9, n = 4, k = 2;
    const auto a = make(random_values<T>(m * n, 71), {m, n});
    const auto b = make(random_values<T>(m * k, 72), {m, k});
    const auto r = kiln::linalg::lstsq(a.to(dev), b.to(dev));
    EXPECT_EQ(r.rank, n) << t;
    ASSERT_EQ(r.x.shape(), (kiln::shape{n, k})) << t;
    ASSERT_EQ(r.residuals.shape(), (kiln::shape{k})) << t;
    const mats A = to_mats(a), B = to_mats(b), X = to_mats(r.x);
    mats res = product(A, X);
    for (std::size_t i = 0; i < res.v.size(); ++i)
      res.v[i] = B.v[i] - res.v[i];
    const mats normal = product(adjoint(A), res);
    EXPECT_LT(distance(normal, mats{1, n, k, std::vector<cld>(n * k)}), tol) << t << " A^H (b - A x) = 0";
    const auto reported = r.residuals.to_vector();
    for (std::int64_t j = 0; j < k; ++j) {
      long double sum = 0;
      for (std::int64_t i = 0; i < m; ++i)
        sum += std::norm(res.at(0, i, j));
      EXPECT_NEAR(double(reported[j]), double(sum), double(tol) * 10) << t << " residuals";
    }
    const auto s = kiln::linalg::svdvals(a.to(dev)).to_vector(), rs = r.s.to_vector();
    for (std::size_t i = 0; i < s.size(); ++i)
      EXPECT_NEAR(rs[i], s[i], double(tol)) << t << " lstsq's s";
    // A vector b: x (N,), residuals (1,).
    const auto rv = kiln::linalg::lstsq(a.to(dev), make(random_values<T>(m, 73), {m}).to(dev));
    EXPECT_EQ(rv.x.shape(), (kiln::shape{n})) << t;
    EXPECT_EQ(rv.residuals.shape(), (kiln::shape{1})) << t;
  }
  // lstsq, wide: an exact solution (A x = b), no residuals.
  {
    const std::int64_t m = 3, n = 6;
    const auto a = make(random_values<T>(m * n, 74), {m, n});
    const auto b = make(random_values<T>(m, 75), {m});
    const auto r = kiln::linalg::lstsq(a.to(dev), b.to(dev));
    EXPECT_EQ(r.rank, m) << t;
    EXPECT_EQ(r.residuals.size(), 0) << t;
    const mats ax = product(to_mats(a), to_mats(r.x.reshape({n, 1})));
    EXPECT_LT(distance(ax, to_mats(b.reshape({m, 1}))), tol) << t << " wide lstsq";
  }
  // cond and the singular-value norms against svdvals; cond 1 against norms.
  {
    const std::int64_t n = 5;
    const auto a = make(random_values<T>(2 * n * n, 81, n, 2.0), {2, n, n});
    const auto s = kiln::linalg::svdvals(a.to(dev)).to_vector();
    const auto c = kiln::linalg::cond(a.to(dev)).to_vector();
    const auto two = kiln::linalg::norm(a.to(dev), 2.0, kiln::axes({-2, -1})).to_vector();
    const auto minus_two = kiln::linalg::norm(a.to(dev), -2.0, kiln::axes({-2, -1})).to_vector();
    const auto nuclear = kiln::linalg::norm(a.to(dev), kiln::linalg::nuc, kiln::axes({-2, -1})).to_vector();
    for (std::int64_t b = 0; b < 2; ++b) {
      V sum = 0;
      for (std::int64_t i = 0; i < n; ++i)
        sum += s[b * n + i];
      EXPECT_NEAR(c[b], s[b * n] / s[b * n + n - 1], double(tol) * c[b]) << t << " cond";
      EXPECT_NEAR(two[b], s[b * n], double(tol)) << t << " norm 2";
      EXPECT_NEAR(minus_two[b], s[b * n + n - 1], double(tol)) << t << " norm -2";
      EXPECT_NEAR(nuclear[b], sum, double(tol) * n) << t << " nuclear norm";
    }
    const auto c1 = kiln::linalg::cond(a.to(dev), 1.0).to_vector();
    for (std::int64_t b = 0; b < 2; ++b) {
      const auto m = a.slice({b, kiln::all, kiln::all});
      const double want = double(kiln::linalg::norm(m, 1.0).to_vector()[0]) *
                          double(kiln::linalg::norm(kiln::linalg::inv(m), 1.0).to_vector()[0]);
      EXPECT_NEAR(c1[b], want, double(tol) * want) << t << " cond 1";
    }
  }
}

template <class T> void check_power(kiln::device dev) {
  using R = kiln::linalg_t<T>;
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " on " + dev.str();
  const std::int64_t n = 4;
  const auto a = make(random_values<T>(2 * n * n, 91, n, 2.0), {2, n, n});
  const mats A = to_mats(a);
  const kiln::array<T> cube = kiln::linalg::matrix_power(a.to(dev), 3);
  const long double tol = std::is_integral_v<T> ? 0 : tolerance<R>() * 100;
  EXPECT_LE(distance(to_mats(cube), product(product(A, A), A)), tol) << t << " a^3";
  EXPECT_EQ(distance(to_mats(kiln::linalg::matrix_power(a.to(dev), 0)), identity(2, n)), 0) << t << " a^0";
  EXPECT_LE(distance(to_mats(kiln::linalg::matrix_power(a.to(dev), 5)), product(product(product(A, A), product(A, A)), A)),
            tol * 10)
      << t << " a^5";
  if constexpr (!std::is_integral_v<T>) {
    const mats inverse = to_mats(kiln::linalg::inv(a));
    EXPECT_LT(distance(to_mats(kiln::linalg::matrix_power(a.to(dev), -2)), product(inverse, inverse)), tol) << t;
  }
}

template <class T> void check_factorizations(kiln::device dev) {
  using R = kiln::linalg_t<T>;
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " on " + dev.str();
  const long double tol = tolerance<R>() * 100;
  const std::int64_t n = 6, batch = 2, k = 3;
  const auto a = make(random_values<T>(batch * n * n, 101, n, 3.0), {batch, n, n});
  const auto b = make(random_values<T>(batch * n * k, 102), {batch, n, k});
  const mats A = to_mats(a), B = to_mats(b);
  // lu_factor + lu_solve for op(A) = A, A^T, A^H.
  const auto f = kiln::linalg::lu_factor(a.to(dev));
  ASSERT_EQ(f.piv.shape(), (kiln::shape{batch, n})) << t;
  for (std::int32_t p : f.piv.to_vector())
    EXPECT_TRUE(p >= 0 && p < n) << t << " 0-based pivots";
  for (int trans : {0, 1, 2}) {
    const mats X = to_mats(kiln::linalg::lu_solve(f, b.to(dev), trans));
    mats op = A;
    if (trans >= 1) {
      op = adjoint(A);
      if (trans == 1)
        for (cld &v : op.v)
          v = std::conj(v);
    }
    EXPECT_LT(distance(product(op, X), B), tol) << t << " lu_solve trans " << trans;
  }
  // One matrix (cuSOLVER's getrf rather than the batched LU).
  {
    const auto one = a.slice({0, kiln::all, kiln::all});
    const auto f1 = kiln::linalg::lu_factor(one.to(dev));
    const auto rhs = b.slice({0, kiln::all, kiln::all});
    const mats X = to_mats(kiln::linalg::lu_solve(f1, rhs.to(dev)));
    EXPECT_LT(distance(product(to_mats(one), X), to_mats(rhs)), tol) << t << " lu_solve of one matrix";
  }
  // lu: P L U = A for square, tall and wide.
  for (auto [m, c] : {std::pair<std::int64_t, std::int64_t>{n, n}, {7, 4}, {3, 5}}) {
    const auto g = make(random_values<T>(batch * m * c, 103 + m), {batch, m, c});
    const auto [P, L, U] = kiln::linalg::lu(g.to(dev));
    const std::int64_t kk = std::min(m, c);
    ASSERT_EQ(L.shape(), (kiln::shape{batch, m, kk})) << t;
    ASSERT_EQ(U.shape(), (kiln::shape{batch, kk, c})) << t;
    const mats l = to_mats(L), u = to_mats(U), p = to_mats(P);
    for (std::int64_t s = 0; s < batch; ++s)
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < kk; ++j) {
          if (j > i)
            ASSERT_EQ(l.at(s, i, j), cld(0)) << t;
          if (j == i)
            ASSERT_EQ(l.at(s, i, j), cld(1)) << t;
        }
    EXPECT_LT(distance(product(product(p, l), u), to_mats(g)), tol) << t << " P L U " << m << "x" << c;
  }
  // cho_factor + cho_solve, upper and lower.
  const auto h = make(hermitian_pd<T>(batch, n, 104), {batch, n, n});
  for (bool lower : {false, true}) {
    const auto c = kiln::linalg::cho_factor(h.to(dev), lower);
    const mats X = to_mats(kiln::linalg::cho_solve(c, b.to(dev)));
    EXPECT_LT(distance(product(to_mats(h), X), B), tol) << t << " cho_solve lower " << lower;
  }
  // solve_triangular: only the triangle is read.
  for (bool lower : {false, true})
    for (bool unit : {false, true})
      for (int trans : {0, 1, 2}) {
        const mats X = to_mats(kiln::linalg::solve_triangular(a.to(dev), b.to(dev), trans, lower, unit));
        mats tri = A;
        for (std::int64_t s = 0; s < batch; ++s)
          for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < n; ++j) {
              if (lower ? j > i : j < i)
                tri.at(s, i, j) = 0;
              if (unit && i == j)
                tri.at(s, i, j) = 1;
            }
        if (trans >= 1) {
          tri = adjoint(tri);
          if (trans == 1)
            for (cld &v : tri.v)
              v = std::conj(v);
        }
        EXPECT_LT(distance(product(tri, X), B), tol) << t << " solve_triangular " << lower << unit << trans;
      }
  // A vector right-hand side.
  const auto v = make(random_values<T>(n, 105), {n});
  const auto x = kiln::linalg::solve_triangular(a.to(dev), v.to(dev), 0, true);
  EXPECT_EQ(x.shape(), (kiln::shape{batch, n})) << t;
}

template <class T> void check_all(kiln::device dev) {
  check_svd<T>(dev, 2, 7, 4);
  check_svd<T>(dev, 2, 3, 6);
  check_svd<T>(dev, 1, 5, 5);
  check_qr<T>(dev, 2, 7, 4);
  check_qr<T>(dev, 2, 3, 6);
  check_eigen<T>(dev);
  check_svd_uses<T>(dev);
  check_power<T>(dev);
  check_factorizations<T>(dev);
}

TEST(LinalgDecompositions, EveryDtypeOnTheHost) {
  const kiln::device host = kiln::device::host();
  check_all<float>(host);
  check_all<double>(host);
  check_all<c64>(host);
  check_all<c128>(host);
  check_svd<std::int32_t>(host, 2, 5, 3);
  check_qr<std::int32_t>(host, 2, 5, 3);
  check_power<std::int32_t>(host);
  static_assert(std::is_same_v<decltype(kiln::linalg::svd(kiln::array<std::int32_t>()).S), kiln::array<double>>);
  static_assert(std::is_same_v<decltype(kiln::linalg::eig(kiln::array<float>()).eigenvalues), kiln::array<c64>>);
  static_assert(std::is_same_v<decltype(kiln::linalg::eigh(kiln::array<c128>()).eigenvalues), kiln::array<double>>);
}

TEST(LinalgDecompositionsGpu, EveryDtypeInCuSolver) {
  KILN_REQUIRE_GPU();
  const kiln::device gpu = kiln::device::cuda(0);
  check_all<float>(gpu);
  check_all<double>(gpu);
  check_all<c64>(gpu);
  check_all<c128>(gpu);
  check_svd<std::int32_t>(gpu, 2, 5, 3);
  check_power<std::int32_t>(gpu);
}

TEST(LinalgDecompositions, StridedViewsAndEmptyMatrices) {
  // A transposed view and a stepped view factor as their values do.
  const auto base = make(random_values<double>(8 * 6, 111), {8, 6});
  const auto view = base.T().slice({kiln::all, kiln::range(0, std::nullopt, 2)}); // (6, 4)
  const auto dense = view.copy();
  const auto [U, S, Vh] = kiln::linalg::svd(view, false);
  const auto dense_s = kiln::linalg::svdvals(dense).to_vector();
  const auto s = S.to_vector();
  for (std::size_t i = 0; i < s.size(); ++i)
    EXPECT_NEAR(s[i], dense_s[i], 1e-12);
  EXPECT_LT(distance(to_mats(kiln::linalg::qr(view).R), to_mats(kiln::linalg::qr(dense).R)), 1e-12L);
  // Empty stacks and matrices.
  const auto none = make(std::vector<double>{}, {0, 3, 3});
  EXPECT_EQ(kiln::linalg::svd(none).U.shape(), (kiln::shape{0, 3, 3}));
  EXPECT_EQ(kiln::linalg::eigh(none).eigenvalues.shape(), (kiln::shape{0, 3}));
  const auto flat = make(std::vector<double>{}, {2, 0, 3});
  EXPECT_EQ(kiln::linalg::svdvals(flat).shape(), (kiln::shape{2, 0}));
  EXPECT_EQ(kiln::linalg::qr(flat).Q.shape(), (kiln::shape{2, 0, 0}));
}

TEST(LinalgDecompositions, NumPyAndSciPyErrors) {
  const auto vec = make(std::vector<double>{1, 2, 3}, {3});
  const auto rect = make(std::vector<double>(6, 1.0), {2, 3});
  expect_message<kiln::linalg_error>(
      [&] { (void)kiln::linalg::svd(vec); },
      "1-dimensional array given. Array must be at least two-dimensional");
  expect_message<kiln::linalg_error>(
      [&] { (void)kiln::linalg::eigh(rect); },
      "Last 2 dimensions of the array must be square");
  expect_message<kiln::value_error>(
      [&] {
        (void)kiln::linalg::eigh(make(std::vector<double>{1, 0, 0, 1}, {2, 2}),
                                 'X');
      },
      "UPLO argument must be 'L' or 'U'");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_message<kiln::linalg_error>(
      [&] {
        (void)kiln::linalg::eig(
            make(std::vector<double>{1, nan, 2, 3}, {2, 2}));
      },
      "Array must not contain infs or NaNs");
  expect_message<kiln::linalg_error>(
      [&] {
        (void)kiln::linalg::cho_factor(
            make(std::vector<double>{1, 2, 2, 1}, {2, 2}));
      },
      "2-th leading minor of the array is not positive definite");
  expect_message<kiln::linalg_error>(
      [&] {
        (void)kiln::linalg::solve_triangular(
            make(std::vector<double>{1, 0, 0, 0}, {2, 2}),
            make(std::vector<double>{1, 1}, {2}));
      },
      "singular matrix: resolution failed at diagonal 1");
  expect_message<kiln::linalg_error>(
      [&] {
        (void)kiln::linalg::lstsq(make(std::vector<double>(8, 1.0), {2, 2, 2}),
                                  vec);
      },
      "3-dimensional array given. Array must be two-dimensional");
  expect_message<kiln::linalg_error>(
      [&] { (void)kiln::linalg::lstsq(rect, vec); }, "Incompatible dimensions");
  expect_message<kiln::value_error>(
      [&] {
        (void)kiln::linalg::solve_triangular(
            make(std::vector<double>{1, 0, 0, 1}, {2, 2}), vec);
      },
      "shapes of a (2, 2) and b (3,) are incompatible");
  expect_message<kiln::value_error>(
      [&] { (void)kiln::linalg::norm(vec, kiln::linalg::nuc); },
      "Invalid norm order 'nuc' for vectors");
  try {
    (void)kiln::linalg::matrix_power(
        make(std::vector<std::int32_t>{1, 0, 0, 1}, {2, 2}), -1);
    ADD_FAILURE() << "no value_error";
  } catch (const kiln::value_error &e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 26),
              "kiln::linalg::matrix_power");
  }
  // A singular matrix: cond is inf (NumPy), matrix_rank counts what is left.
  const auto singular = make(std::vector<double>{1, 0, 0, 0}, {2, 2});
  EXPECT_EQ(kiln::linalg::cond(singular).to_vector()[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(kiln::linalg::cond(singular, 1.0).to_vector()[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(kiln::linalg::matrix_rank(singular).to_vector()[0], 1);
  EXPECT_EQ(kiln::linalg::matrix_rank(make(std::vector<double>{0, 0}, {2})).to_vector()[0], 0);
  EXPECT_EQ(kiln::linalg::matrix_rank(vec).to_vector()[0], 1);
}

} // namespace
