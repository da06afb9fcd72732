// kiln::sparse against dense references on random sparse matrices (with
// duplicates, unsorted indices and stored zeros): construction from
// (data, (row, col)), (data, indices, indptr) and dense arrays, COO/CSR/CSC
// conversions (canonical results), toarray, T(), sum_duplicates,
// eliminate_zeros, diagonal, sums, +, scalar *, products with dense vectors
// and matrices and with sparse matrices, conjugate gradients, SciPy's error
// messages; every value type; on a GPU (where present) the same through
// cuSPARSE. Also the CuPy tutorial's cell (rows, cols, vals).tocsr().dot.
#include "expect.hpp"
#include "gpu.hpp"
#include "host_arrays.hpp"

#include <kiln/kiln.hpp>
#include <kiln/sparse.hpp>

#include <gtest/gtest.h>

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
using kiln::sparse::index_t;

template <class T> cld as_cld(T v) {
  if constexpr (is_cplx<T>)
    return cld(v.real(), v.imag());
  else
    return cld(static_cast<long double>(v), 0);
}

template <class T> T random_value(std::mt19937 &gen) {
  std::uniform_real_distribution<double> u(-1, 1);
  if constexpr (is_cplx<T>)
    return T(u(gen), u(gen));
  else
    return T(u(gen));
}

/// Random COO triplets of an m x n matrix: about density * m * n entries,
/// some positions repeated, in random order, plus one stored zero.
template <class T> struct triplets {
  std::vector<T> val;
  std::vector<index_t> row, col;
  std::int64_t m, n;
  std::vector<cld> dense() const {
    std::vector<cld> d(m * n, cld(0));
    for (std::size_t k = 0; k < val.size(); ++k)
      d[row[k] * n + col[k]] += as_cld(val[k]);
    return d;
  }
};
template <class T> triplets<T> random_triplets(std::int64_t m, std::int64_t n, double density, std::uint32_t seed) {
  std::mt19937 gen(seed);
  triplets<T> t{{}, {}, {}, m, n};
  std::uniform_int_distribution<std::int64_t> r(0, m - 1), c(0, n - 1);
  const std::int64_t count = std::max<std::int64_t>(1, std::int64_t(density * double(m * n)));
  for (std::int64_t k = 0; k < count; ++k) {
    t.row.push_back(index_t(r(gen)));
    t.col.push_back(index_t(c(gen)));
    t.val.push_back(random_value<T>(gen));
    if (k % 7 == 0) { // a duplicate
      t.row.push_back(t.row.back());
      t.col.push_back(t.col.back());
      t.val.push_back(random_value<T>(gen));
    }
  }
  t.row.push_back(index_t(m - 1)); // a stored zero
  t.col.push_back(0);
  t.val.push_back(T(0));
  return t;
}

template <class T> std::vector<cld> dense_of(const kiln::array<T> &x) {
  std::vector<cld> out;
  for (const T &v : x.to_vector())
    out.push_back(as_cld(v));
  return out;
}

long double max_diff(const std::vector<cld> &a, const std::vector<cld> &b) {
  EXPECT_EQ(a.size(), b.size());
  long double d = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

template <class T> long double tolerance() {
  return std::is_same_v<T, float> || std::is_same_v<T, c64> ? 1e-4L : 1e-12L;
}

template <class T> void check_sparse(kiln::device dev) {
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " on " + dev.str();
  const long double tol = tolerance<T>();
  const std::int64_t m = 37, n = 29;
  const triplets<T> tr = random_triplets<T>(m, n, 0.12, 3);
  const std::vector<cld> D = tr.dense();
  const kiln::sparse::coo_matrix<T> coo(make(tr.val).to(dev), make(tr.row).to(dev), make(tr.col).to(dev),
                                        kiln::shape{m, n});
  EXPECT_EQ(coo.nnz(), std::int64_t(tr.val.size())) << t;
  EXPECT_LT(max_diff(dense_of(coo.toarray()), D), tol) << t << " coo toarray";
  // CSR from COO: canonical (sorted, duplicates summed), the same matrix.
  const auto csr = coo.tocsr();
  EXPECT_EQ(csr.device(), dev) << t;
  EXPECT_TRUE(csr.has_canonical_format()) << t;
  EXPECT_LT(csr.nnz(), coo.nnz()) << t << " duplicates summed";
  const auto ptr = csr.indptr().to_vector(), idx = csr.indices().to_vector();
  for (std::int64_t i = 0; i < m; ++i)
    for (index_t p = ptr[i] + 1; p < ptr[i + 1]; ++p)
      ASSERT_LT(idx[p - 1], idx[p]) << t << " sorted columns";
  EXPECT_LT(max_diff(dense_of(csr.toarray()), D), tol) << t << " csr toarray";
  const auto csc = coo.tocsc();
  EXPECT_LT(max_diff(dense_of(csc.toarray()), D), tol) << t << " csc toarray";
  EXPECT_LT(max_diff(dense_of(csr.tocsc().toarray()), D), tol) << t << " csr -> csc";
  EXPECT_LT(max_diff(dense_of(csc.tocsr().toarray()), D), tol) << t << " csc -> csr";
  EXPECT_LT(max_diff(dense_of(csr.tocoo().toarray()), D), tol) << t << " csr -> coo";
  // The transpose.
  std::vector<cld> DT(n * m);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      DT[j * m + i] = D[i * n + j];
  EXPECT_LT(max_diff(dense_of(csr.T().toarray()), DT), tol) << t << " csr.T()";
  EXPECT_LT(max_diff(dense_of(coo.T().toarray()), DT), tol) << t << " coo.T()";
  // Products with a vector and a matrix, CSR and CSC; matmul.
  std::mt19937 gen(9);
  std::vector<T> xv(n), xm(n * 4);
  for (T &v : xv)
    v = random_value<T>(gen);
  for (T &v : xm)
    v = random_value<T>(gen);
  std::vector<cld> want_v(m, cld(0)), want_m(m * 4, cld(0));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      want_v[i] += D[i * n + j] * as_cld(xv[j]);
      for (std::int64_t k = 0; k < 4; ++k)
        want_m[i * 4 + k] += D[i * n + j] * as_cld(xm[j * 4 + k]);
    }
  const auto x = make(xv).to(dev), X = make(xm, {n, 4}).to(dev);
  for (int rep = 0; rep < 2; ++rep) { // the second product reuses the kept preprocessing
    EXPECT_LT(max_diff(dense_of(csr.dot(x)), want_v), tol * 10) << t << " csr.dot(vector) " << rep;
    EXPECT_LT(max_diff(dense_of(csr.dot(X)), want_m), tol * 10) << t << " csr.dot(matrix) " << rep;
  }
  EXPECT_LT(max_diff(dense_of(csc.dot(x)), want_v), tol * 10) << t << " csc.dot";
  EXPECT_LT(max_diff(dense_of(kiln::sparse::matmul(coo, X)), want_m), tol * 10) << t << " matmul(coo, X)";
  // +, scalar *, the product of two sparse matrices.
  const auto twice = csr + csc;
  std::vector<cld> D2 = D;
  for (cld &v : D2)
    v *= 2;
  EXPECT_LT(max_diff(dense_of(twice.toarray()), D2), tol * 10) << t << " S + S";
  EXPECT_LT(max_diff(dense_of((2.0f * csr).toarray()), D2), tol * 10) << t << " 2 * S";
  const auto gram = csr.T().dot(csr); // (n x m)(m x n)
  std::vector<cld> G(n * n, cld(0));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t k = 0; k < m; ++k)
        G[i * n + j] += D[k * n + i] * D[k * n + j];
  EXPECT_LT(max_diff(dense_of(gram.toarray()), G), tol * 100) << t << " SpGEMM";
  EXPECT_EQ(gram.device(), dev) << t;
  EXPECT_TRUE(gram.has_canonical_format()) << t;
  {
    const auto gp = gram.indptr().to_vector(), gi = gram.indices().to_vector();
    ASSERT_EQ(std::int64_t(gp.size()), n + 1) << t;
    for (std::int64_t i = 0; i < n; ++i)
      for (index_t p = gp[i] + 1; p < gp[i + 1]; ++p)
        ASSERT_LT(gi[p - 1], gi[p])
            << t << " SpGEMM: sorted columns, no duplicates";
  }
  // Cancellation leaves no stored zero, as in SciPy: [[1, 1], [1, 2]] x
  // [[1, 0], [-1, 1]] = [[0, 1], [-1, 2]] has 3 non-zeros.
  const kiln::sparse::csr_matrix<T> p1(
      make(std::vector<T>{T(1), T(1), T(1), T(2)}, {2, 2}).to(dev)),
      p2(make(std::vector<T>{T(1), T(0), T(-1), T(1)}, {2, 2}).to(dev));
  const auto cancelled = p1.dot(p2);
  EXPECT_EQ(cancelled.nnz(), 3) << t << " SpGEMM drops exact zeros";
  EXPECT_LT(max_diff(dense_of(cancelled.toarray()),
                     {cld(0), cld(1), cld(-1), cld(2)}),
            tol)
      << t;
  EXPECT_EQ(p1.dot(kiln::sparse::csr_matrix<T>(
                       make(std::vector<T>{T(1), T(-1)}, {2, 1}).to(dev)))
                .nnz(),
            1)
      << t;
  // diagonal and sums.
  std::vector<cld> diag(std::min(m, n)), cols(n, cld(0)), rows(m, cld(0));
  cld total = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      if (i == j)
        diag[i] = D[i * n + j];
      cols[j] += D[i * n + j];
      rows[i] += D[i * n + j];
      total += D[i * n + j];
    }
  EXPECT_LT(max_diff(dense_of(csr.diagonal()), diag), tol) << t << " diagonal";
  EXPECT_LT(max_diff(dense_of(csc.diagonal()), diag), tol) << t << " csc diagonal";
  EXPECT_EQ(csr.sum(0).shape(), (kiln::shape{1, n})) << t;
  EXPECT_LT(max_diff(dense_of(csr.sum(0)), cols), tol * 10) << t << " sum(0)";
  EXPECT_LT(max_diff(dense_of(csc.sum(1)), rows), tol * 10) << t << " sum(1)";
  EXPECT_LT(std::abs(dense_of(csr.sum())[0] - total), tol * 100) << t << " sum()";
  // eliminate_zeros drops the stored zero of the last row.
  auto pruned = csr;
  pruned.eliminate_zeros();
  EXPECT_LT(pruned.nnz(), csr.nnz()) << t;
  EXPECT_LT(max_diff(dense_of(pruned.toarray()), D), tol) << t;
  // A dense array in, the same non-zeros out.
  const kiln::sparse::csr_matrix<T> from_dense(csr.toarray());
  EXPECT_EQ(from_dense.nnz(), pruned.nnz()) << t;
}

template <class T> void check_cg(kiln::device dev) {
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " on " + dev.str();
  // A Hermitian positive-definite matrix: 4 on the diagonal, -1 (and its
  // conjugate) beside it.
  const std::int64_t n = 200;
  std::vector<T> val;
  std::vector<index_t> row, col;
  for (std::int64_t i = 0; i < n; ++i) {
    row.push_back(index_t(i));
    col.push_back(index_t(i));
    val.push_back(T(4));
    if (i + 1 < n) {
      T off = T(-1);
      if constexpr (is_cplx<T>)
        off = T(-1, 0.5);
      row.push_back(index_t(i));
      col.push_back(index_t(i + 1));
      val.push_back(off);
      row.push_back(index_t(i + 1));
      col.push_back(index_t(i));
      if constexpr (is_cplx<T>)
        val.push_back(std::conj(off));
      else
        val.push_back(off);
    }
  }
  const auto a = kiln::sparse::coo_matrix<T>(make(val), make(row), make(col), kiln::shape{n, n}).tocsr().to(dev);
  std::mt19937 gen(4);
  std::vector<T> bv(n);
  for (T &v : bv)
    v = random_value<T>(gen);
  const auto b = make(bv).to(dev);
  const auto [x, info] = kiln::sparse::linalg::cg(a, b);
  EXPECT_EQ(info, 0) << t;
  EXPECT_EQ(x.device(), dev) << t;
  const std::vector<cld> ax = dense_of(a.dot(x)), B = dense_of(make(bv));
  long double rnorm = 0, bnorm = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    rnorm += std::norm(ax[i] - B[i]);
    bnorm += std::norm(B[i]);
  }
  EXPECT_LE(std::sqrt(rnorm), 1e-5L * std::sqrt(bnorm) * 1.01L) << t << " |b - A x| <= rtol |b|";
  // Too few iterations: info is their number.
  EXPECT_EQ(kiln::sparse::linalg::cg(a, b, {}, 1e-12, 0.0, 3).info, 3) << t;
}

TEST(Sparse, EveryValueTypeOnTheHost) {
  check_sparse<float>(kiln::device::host());
  check_sparse<double>(kiln::device::host());
  check_sparse<c64>(kiln::device::host());
  check_sparse<c128>(kiln::device::host());
  check_cg<float>(kiln::device::host());
  check_cg<double>(kiln::device::host());
  check_cg<c128>(kiln::device::host());
}

TEST(SparseGpu, EveryValueTypeInCuSparse) {
  KILN_REQUIRE_GPU();
  const kiln::device gpu = kiln::device::cuda(0);
  check_sparse<float>(gpu);
  check_sparse<double>(gpu);
  check_sparse<c64>(gpu);
  check_sparse<c128>(gpu);
  check_cg<float>(gpu);
  check_cg<double>(gpu);
  check_cg<c64>(gpu);
}

TEST(Sparse, TutorialCellAndErrors) {
  // rows, cols, vals; sparse.coo_matrix((vals, (rows, cols)), shape=(3,3)).tocsr().dot([1,2,3])
  const auto rows = make(std::vector<index_t>{0, 0, 1, 2, 2, 2}), cols = make(std::vector<index_t>{0, 2, 2, 0, 1, 2});
  const auto vals = make(std::vector<float>{1, 2, 3, 4, 5, 6});
  const auto S = kiln::sparse::coo_matrix<float>(vals, rows, cols, kiln::shape{3, 3}).tocsr();
  EXPECT_EQ(S.dot(make(std::vector<float>{1, 2, 3})).to_vector(), (std::vector<float>{7, 9, 32}));
  // Shape inferred from the indices.
  EXPECT_EQ(kiln::sparse::coo_matrix<float>(vals, rows, cols).shape(), (kiln::shape{3, 3}));
  expect_message<kiln::value_error>(
      [&] {
        (void)kiln::sparse::coo_matrix<float>(vals, rows, cols,
                                              kiln::shape{2, 3});
      },
      "row index exceeds matrix dimensions");
  expect_message<kiln::value_error>(
      [&] {
        (void)kiln::sparse::coo_matrix<float>(vals, rows, cols,
                                              kiln::shape{3, 2});
      },
      "column index exceeds matrix dimensions");
  expect_message<kiln::value_error>(
      [&] {
        (void)kiln::sparse::coo_matrix<float>(
            vals, make(std::vector<index_t>{0, 0, 1, 2, 2, -1}), cols,
            kiln::shape{3, 3});
      },
      "negative row index found");
  expect_message<kiln::value_error>(
      [&] {
        (void)kiln::sparse::csr_matrix<float>(
            make(std::vector<float>{1, 2}), make(std::vector<index_t>{0, 1}),
            make(std::vector<index_t>{0, 1, 2}), kiln::shape{3, 3});
      },
      "index pointer size (3) should be (4)");
  expect_message<kiln::value_error>(
      [&] {
        (void)kiln::sparse::csr_matrix<float>(
            make(std::vector<float>{1, 2}), make(std::vector<index_t>{0, 5}),
            make(std::vector<index_t>{0, 1, 2}), kiln::shape{2, 3});
      },
      "column index values must be < 3");
  expect_message<kiln::value_error>(
      [&] {
        (void)kiln::sparse::csr_matrix<float>(
            make(std::vector<float>{1, 2}), make(std::vector<index_t>{0, 1}),
            make(std::vector<index_t>{0, 2, 1}), kiln::shape{2, 3});
      },
      "index pointer values must form a non-decreasing sequence");
  expect_message<kiln::value_error>(
      [&] {
        (void)S.dot(make(std::vector<float>{1, 2}));
      },
      "dimension mismatch");
  expect_message<kiln::value_error>(
      [&] {
        (void)(S + kiln::sparse::csr_matrix<float>(
                       make(std::vector<float>(6, 1.0f), {2, 3})));
      },
      "inconsistent shapes");
  // A CSR given with duplicates and unsorted columns; sum_duplicates.
  auto raw = kiln::sparse::csr_matrix<double>(make(std::vector<double>{1, 2, 3}), make(std::vector<index_t>{2, 0, 2}),
                                              make(std::vector<index_t>{0, 3, 3}), kiln::shape{2, 3});
  EXPECT_FALSE(raw.has_canonical_format());
  raw.sum_duplicates();
  EXPECT_TRUE(raw.has_canonical_format());
  EXPECT_EQ(raw.indices().to_vector(), (std::vector<index_t>{0, 2}));
  EXPECT_EQ(raw.data().to_vector(), (std::vector<double>{2, 4}));
}

} // namespace
