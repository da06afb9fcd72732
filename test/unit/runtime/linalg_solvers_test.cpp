// kiln::linalg's square solvers (solve, inv, det, slogdet, cholesky) on the
// host, through LAPACK: every LAPACK dtype and an integer input (float64),
// batches and broadcasting, empty matrices, against float64 references on
// random well-conditioned matrices (residuals, products with the input,
// determinants by elimination in long double), and NumPy's errors. On a GPU
// (where present) the same checks through cuSOLVER.
#include "expect.hpp"
#include "gpu.hpp"
#include "host_arrays.hpp"

#include <kiln/kiln.hpp>

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

template <class T> cld as_cld(T v) {
  if constexpr (is_cplx<T>)
    return cld(v.real(), v.imag());
  else
    return cld(static_cast<long double>(v), 0);
}

/// Random values in [-1, 1) (and imaginary parts for complex T), plus `diag`
/// on the diagonals of a stack of n x n matrices: well conditioned.
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

template <class T> double tolerance() {
  return std::is_same_v<T, float> || std::is_same_v<T, c64> ? 2e-4 : 1e-10;
}

template <class T> std::vector<cld> values(const kiln::array<T> &x) {
  std::vector<cld> out;
  for (const T &v : x.to_vector())
    out.push_back(as_cld(v));
  return out;
}

/// The determinant of the n x n matrix at `m` by elimination with partial
/// pivoting in long double.
cld reference_det(std::vector<cld> m, std::int64_t n) {
  cld det = 1;
  for (std::int64_t c = 0; c < n; ++c) {
    std::int64_t p = c;
    for (std::int64_t r = c + 1; r < n; ++r)
      if (std::abs(m[r * n + c]) > std::abs(m[p * n + c]))
        p = r;
    if (m[p * n + c] == cld(0))
      return 0;
    if (p != c) {
      for (std::int64_t j = 0; j < n; ++j)
        std::swap(m[p * n + j], m[c * n + j]);
      det = -det;
    }
    det *= m[c * n + c];
    for (std::int64_t r = c + 1; r < n; ++r) {
      const cld f = m[r * n + c] / m[c * n + c];
      for (std::int64_t j = c; j < n; ++j)
        m[r * n + j] -= f * m[c * n + j];
    }
  }
  return det;
}

template <class T> void check_solvers(kiln::device dev) {
  using R = kiln::linalg_t<T>;
  const std::string t = std::string(kiln::name(kiln::dtype_of<T>)) + " on " + dev.str();
  const std::int64_t n = 7, batch = 3, k = 4;
  const std::vector<T> av = random_values<T>(batch * n * n, 1, n, 8.0);
  const kiln::array<T> a = make(av, {batch, n, n}).to(dev);
  const std::vector<cld> A = values(make(av, {batch, n, n}));
  const double tol = tolerance<R>();

  // solve with a stack of right-hand sides: A x = b.
  const std::vector<T> bv = random_values<T>(batch * n * k, 2);
  const std::vector<cld> B = values(make(bv, {batch, n, k}));
  const kiln::array<R> x = kiln::linalg::solve(a, make(bv, {batch, n, k}).to(dev));
  ASSERT_EQ(x.shape(), (kiln::shape{batch, n, k})) << t;
  const std::vector<cld> X = values(x);
  for (std::int64_t s = 0; s < batch; ++s)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < k; ++j) {
        cld sum = 0;
        for (std::int64_t p = 0; p < n; ++p)
          sum += A[(s * n + i) * n + p] * X[(s * n + p) * k + j];
        ASSERT_LT(std::abs(sum - B[(s * n + i) * k + j]), tol * 10) << t << " solve residual " << s << "," << i;
      }

  // solve with one vector, broadcast over the batch: shape (batch, n).
  const std::vector<T> v = random_values<T>(n, 3);
  const kiln::array<R> xv = kiln::linalg::solve(a, make(v, {n}).to(dev));
  ASSERT_EQ(xv.shape(), (kiln::shape{batch, n})) << t;
  const std::vector<cld> XV = values(xv), V = values(make(v, {n}));
  for (std::int64_t s = 0; s < batch; ++s)
    for (std::int64_t i = 0; i < n; ++i) {
      cld sum = 0;
      for (std::int64_t p = 0; p < n; ++p)
        sum += A[(s * n + i) * n + p] * XV[s * n + p];
      ASSERT_LT(std::abs(sum - V[i]), tol * 10) << t << " solve vector";
    }

  // inv: A @ inv(A) = I.
  const std::vector<cld> I = values(kiln::linalg::inv(a));
  for (std::int64_t s = 0; s < batch; ++s)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        cld sum = 0;
        for (std::int64_t p = 0; p < n; ++p)
          sum += A[(s * n + i) * n + p] * I[(s * n + p) * n + j];
        ASSERT_LT(std::abs(sum - cld(i == j ? 1 : 0)), tol * 10) << t << " inv";
      }

  // det and slogdet against elimination in long double.
  const kiln::array<R> d = kiln::linalg::det(a);
  ASSERT_EQ(d.shape(), (kiln::shape{batch})) << t;
  const auto [sign, logabs] = kiln::linalg::slogdet(a);
  const std::vector<cld> D = values(d), S = values(sign), L = values(logabs);
  for (std::int64_t s = 0; s < batch; ++s) {
    const cld want = reference_det(std::vector<cld>(A.begin() + s * n * n, A.begin() + (s + 1) * n * n), n);
    EXPECT_LT(std::abs(D[s] - want) / std::abs(want), tol) << t << " det " << s;
    EXPECT_NEAR(double(std::abs(S[s])), 1.0, tol) << t << " |sign|";
    EXPECT_LT(std::abs(S[s] * std::exp(L[s].real()) - want) / std::abs(want), tol) << t << " slogdet " << s;
  }

  // cholesky of M M^H + n I: lower, and L L^H = A.
  std::vector<T> hv(batch * n * n);
  for (std::int64_t s = 0; s < batch; ++s)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        T sum = i == j ? T(n) : T(0);
        for (std::int64_t p = 0; p < n; ++p) {
          const T mj = av[(s * n + j) * n + p];
          if constexpr (is_cplx<T>)
            sum += av[(s * n + i) * n + p] * std::conj(mj);
          else
            sum += av[(s * n + i) * n + p] * mj;
        }
        hv[(s * n + i) * n + j] = sum;
      }
  const std::vector<cld> H = values(make(hv, {batch, n, n}));
  const std::vector<cld> C = values(kiln::linalg::cholesky(make(hv, {batch, n, n}).to(dev)));
  for (std::int64_t s = 0; s < batch; ++s)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        if (j > i)
          ASSERT_EQ(C[(s * n + i) * n + j], cld(0)) << t << " cholesky is lower";
        cld sum = 0;
        for (std::int64_t p = 0; p < n; ++p)
          sum += C[(s * n + i) * n + p] * std::conj(C[(s * n + j) * n + p]);
        ASSERT_LT(std::abs(sum - H[(s * n + i) * n + j]), tol * 10 * n) << t << " L L^H";
      }
}

TEST(LinalgSolvers, EveryDtypeOnTheHost) {
  check_solvers<float>(kiln::device::host());
  check_solvers<double>(kiln::device::host());
  check_solvers<c64>(kiln::device::host());
  check_solvers<c128>(kiln::device::host());
  check_solvers<std::int32_t>(kiln::device::host());
  static_assert(std::is_same_v<kiln::linalg_t<std::int32_t>, double>);
  static_assert(std::is_same_v<decltype(kiln::linalg::slogdet(kiln::array<c64>()).logabsdet), kiln::array<float>>);
}

TEST(LinalgSolversGpu, EveryDtypeInCuSolver) {
  KILN_REQUIRE_GPU();
  const kiln::device gpu = kiln::device::cuda(0);
  check_solvers<float>(gpu);
  check_solvers<double>(gpu);
  check_solvers<c64>(gpu);
  check_solvers<c128>(gpu);
  check_solvers<std::int32_t>(gpu);
  // Results stay on the GPU; singular and indefinite matrices raise there too.
  // (A zero row: an exact zero pivot however the elimination rounds; equal
  // rows, or a row twice another, leave 1e-16 with cuSOLVER's fused
  // multiply-adds, as they may in any LAPACK.)
  const auto singular = make(std::vector<double>{1, 2, 3, 0, 0, 0, 4, 5, 6}, {3, 3}).to(gpu);
  const auto diagonal = make(std::vector<float>{2, 0, 0, 0, 4, 0, 0, 0, 8}, {3, 3}).to(gpu);
  const kiln::array<float> inverse = kiln::linalg::inv(diagonal);
  EXPECT_EQ(inverse.device(), gpu);
  EXPECT_EQ(inverse.to_vector(), (std::vector<float>{0.5f, 0, 0, 0, 0.25f, 0, 0, 0, 0.125f}));
  EXPECT_THROW((void)kiln::linalg::inv(singular), kiln::linalg_error);
  EXPECT_THROW((void)kiln::linalg::solve(singular, make(std::vector<double>{1, 2, 3}, {3}).to(gpu)),
               kiln::linalg_error);
  EXPECT_EQ(kiln::linalg::det(singular).to_vector()[0], 0.0);
  EXPECT_THROW((void)kiln::linalg::cholesky(make(std::vector<double>{1, 2, 2, 1}, {2, 2}).to(gpu)),
               kiln::linalg_error);
  // A stack of small matrices (cuBLAS's batched LU) with one singular
  // matrix: solve and inv raise, det is 0 for it alone.
  std::vector<double> stack = random_values<double>(3 * 4 * 4, 9, 4, 5.0);
  for (int j = 0; j < 4; ++j)
    stack[16 + 4 + j] = 0; // matrix 1, row 1
  const auto stacked = make(stack, {3, 4, 4}).to(gpu);
  EXPECT_THROW((void)kiln::linalg::solve(stacked, make(std::vector<double>(4, 1.0), {4}).to(gpu)), kiln::linalg_error);
  EXPECT_THROW((void)kiln::linalg::inv(stacked), kiln::linalg_error);
  const std::vector<double> dets = kiln::linalg::det(stacked).to_vector();
  EXPECT_NE(dets[0], 0.0);
  EXPECT_EQ(dets[1], 0.0);
  EXPECT_NE(dets[2], 0.0);
}

TEST(LinalgSolvers, BroadcastingEmptyAndSingular) {
  // A (2, 1, 4, 4) stack against b (3, 4, 2): batch (2, 3).
  const auto a = make(random_values<double>(2 * 4 * 4, 5, 4, 6.0), {2, 1, 4, 4});
  const auto b = make(random_values<double>(3 * 4 * 2, 6), {3, 4, 2});
  EXPECT_EQ(kiln::linalg::solve(a, b).shape(), (kiln::shape{2, 3, 4, 2}));
  // Empty matrices: det 1, slogdet (1, 0), inv and solve empty.
  const auto empty = make(std::vector<float>{}, {3, 0, 0});
  EXPECT_EQ(kiln::linalg::det(empty).to_vector(), (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(kiln::linalg::slogdet(empty).logabsdet.to_vector(), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(kiln::linalg::inv(empty).shape(), (kiln::shape{3, 0, 0}));
  // A singular matrix: det 0, slogdet (0, -inf); solve and inv raise.
  const auto singular = make(std::vector<double>{1, 2, 3, 2, 4, 6, 0, 1, 5}, {3, 3});
  EXPECT_EQ(kiln::linalg::det(singular).to_vector()[0], 0.0);
  const auto [sign, logabs] = kiln::linalg::slogdet(singular);
  EXPECT_EQ(sign.to_vector()[0], 0.0);
  EXPECT_EQ(logabs.to_vector()[0], -std::numeric_limits<double>::infinity());
  expect_message<kiln::linalg_error>(
      [&] {
        (void)kiln::linalg::solve(singular,
                                  make(std::vector<double>{1, 2, 3}, {3}));
      },
      "Singular matrix");
  expect_message<kiln::linalg_error>([&] { (void)kiln::linalg::inv(singular); },
                                     "Singular matrix");
  expect_message<kiln::linalg_error>(
      [&] {
        (void)kiln::linalg::cholesky(
            make(std::vector<double>{1, 2, 2, 1}, {2, 2}));
      },
      "Matrix is not positive definite");
  expect_message<kiln::linalg_error>(
      [&] {
        (void)kiln::linalg::det(make(std::vector<double>{1, 2, 3}, {3}));
      },
      "1-dimensional array given. Array must be at least two-dimensional");
  expect_message<kiln::linalg_error>(
      [&] {
        (void)kiln::linalg::inv(make(std::vector<double>(6, 1.0), {2, 3}));
      },
      "Last 2 dimensions of the array must be square");
  try {
    (void)kiln::linalg::solve(make(random_values<double>(9, 7, 3, 4.0), {3, 3}), make(std::vector<double>(4, 1.0), {4}));
    ADD_FAILURE() << "no shape_error";
  } catch (const kiln::shape_error &e) {
    EXPECT_EQ(std::string(e.what()), "solve1: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                                     "signature (m,m),(m)->(m) (size 4 is different from 3)");
  }
}

} // namespace
