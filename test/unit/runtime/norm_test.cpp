// Tests of kiln::linalg::norm (kiln/linalg.hpp, runtime/ops/norm.cpp):
// vector norms of every order, the Frobenius norm and the matrix norms 1,
// -1, inf and -inf against long double references computed here on random
// data, on every layout, over one axis, two axes (in either order) and
// kiln::all with NumPy's choice between them; result types; empty arrays;
// and every error with NumPy's message.
#include "expect.hpp"

#include <kiln/kiln.hpp>

#include <gtest/gtest.h>

#include "host_arrays.hpp"
#include "reduction_layouts.hpp"

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;
using kiln::linalg::fro;
using kiln::linalg::inf;
using std::int32_t, std::int64_t, std::int8_t, std::uint64_t;

std::mt19937 &rng() {
  static std::mt19937 g(31337);
  return g;
}

/// Random values in [-2, 2], a fifth of them zero (for the 0-norm and
/// negative orders).
template <class T> std::vector<T> random_values(std::size_t n) {
  std::vector<T> v(n);
  std::uniform_real_distribution<double> u(-2, 2);
  std::bernoulli_distribution zero(0.2);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>)
      v[i] = !zero(rng());
    else if constexpr (std::is_integral_v<T>)
      v[i] = zero(rng()) ? T(0) : static_cast<T>(std::lround(u(rng()) * 3));
    else if constexpr (is_cplx<T>)
      v[i] = zero(rng()) ? T(0)
                         : T(static_cast<typename T::value_type>(u(rng())),
                             static_cast<typename T::value_type>(u(rng())));
    else
      v[i] = zero(rng()) ? T(0) : static_cast<T>(u(rng()));
  }
  return v;
}

template <class T> kiln::array<T> random_array(const kiln::shape &s, layout l) {
  return layout_array<T>(s, l,
                         [](std::size_t n) { return random_values<T>(n); });
}

template <class T> long double modulus(T v) {
  if constexpr (is_cplx<T>)
    return std::hypot(static_cast<long double>(v.real()),
                      static_cast<long double>(v.imag()));
  else
    return std::abs(static_cast<long double>(v));
}

/// The vector norm of order p of `g`, in long double.
template <class T> long double vector_norm(const std::vector<T> &g, double p) {
  long double r = 0;
  if (std::isinf(p)) {
    r = p > 0 ? 0 : std::numeric_limits<long double>::infinity();
    for (T v : g)
      r = p > 0 ? std::max(r, modulus(v)) : std::min(r, modulus(v));
    return r;
  }
  if (p == 0) {
    for (T v : g)
      r += v != T(0);
    return r;
  }
  for (T v : g)
    r += std::pow(modulus(v), static_cast<long double>(p));
  return std::pow(r, 1 / static_cast<long double>(p));
}

/// The relative tolerance of a norm of elements of T.
template <class T> double tolerance() {
  return std::is_same_v<T, float> || std::is_same_v<T, c64> ? 2e-5 : 1e-12;
}

template <class R>
void expect_near_all(const kiln::array<R> &got,
                     const std::vector<long double> &want, double rel,
                     const std::string &what) {
  const std::vector<R> v = got.to_vector();
  ASSERT_EQ(v.size(), want.size()) << what;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double w = static_cast<double>(want[i]);
    if (std::isinf(w))
      EXPECT_EQ(v[i], w) << what << " output " << i;
    else
      EXPECT_NEAR(v[i], w, rel * std::abs(w) + 1e-30)
          << what << " output " << i;
  }
}

template <class T> void check_vector_norms() {
  using R = kiln::var_result_t<T>;
  const double orders[] = {1, 2, inf, -inf, 0, 3, 0.5, -1, -2.5};
  const kiln::shape s{4, 37, 3};
  for (layout l : {layout::contiguous, layout::transposed, layout::stepped,
                   layout::broadcast}) {
    const auto x = random_array<T>(s, l);
    const auto values = x.to_vector();
    for (double p : orders)
      for (int64_t axis : {0, 1, -1})
        for (bool keepdims : {false, true}) {
          const std::string what = std::string(kiln::name(kiln::dtype_of<T>)) +
                                   " " + layout_name(l) + " ord " +
                                   std::to_string(p) + " axis " +
                                   std::to_string(axis);
          const auto got = kiln::linalg::norm(x, p, axis, keepdims);
          static_assert(std::is_same_v<decltype(got), const kiln::array<R>>);
          const uint64_t mask = mask_of(axis, 3);
          EXPECT_EQ(got.shape(), expected_shape(s, mask, keepdims)) << what;
          std::vector<long double> want;
          for (const auto &g : groups(values, s, mask))
            want.push_back(vector_norm(g, p));
          // |x|^p of float32 scales the relative error by p.
          expect_near_all(
              got, want, tolerance<T>() * (std::isinf(p) ? 1 : 1 + std::abs(p)),
              what);
        }
  }
}

TEST(Norm, VectorNormsEveryOrderAndDtype) {
  check_vector_norms<bool>();
  check_vector_norms<int8_t>();
  check_vector_norms<int32_t>();
  check_vector_norms<int64_t>();
  check_vector_norms<float>();
  check_vector_norms<double>();
  check_vector_norms<c64>();
  check_vector_norms<c128>();
}

TEST(Norm, DefaultOrderFlattens) {
  // kiln::all with the default order: the 2-norm of every element, for any
  // rank (also with fro on a matrix and 2 on a vector).
  for (const kiln::shape &s : {kiln::shape{}, kiln::shape{5}, kiln::shape{6, 7},
                               kiln::shape{3, 4, 5}, kiln::shape{2, 3, 2, 3}})
    for (layout l : {layout::contiguous, layout::transposed, layout::stepped}) {
      const auto x = random_array<double>(s, l);
      const long double want = vector_norm(x.to_vector(), 2);
      const std::string what = kiln::to_string(s) + " " + layout_name(l);
      EXPECT_NEAR(kiln::linalg::norm(x).item(), want, 1e-13 * want) << what;
      const auto kept = kiln::linalg::norm(x, {}, kiln::all, true);
      EXPECT_EQ(kept.shape(), kiln::shape::filled(s.size(), 1)) << what;
      EXPECT_NEAR(kept.to_vector()[0], want, 1e-13 * want) << what;
      if (s.size() == 2)
        EXPECT_NEAR(kiln::linalg::norm(x, fro).item(), want, 1e-13 * want)
            << what;
      if (s.size() == 1)
        EXPECT_NEAR(kiln::linalg::norm(x, 2).item(), want, 1e-13 * want)
            << what;
    }
  const auto minus_three = make(std::vector<int32_t>{-3}, kiln::shape{});
  EXPECT_EQ(kiln::linalg::norm(minus_three).item(), 3.0);
  // As NumPy, the squares are summed unscaled: they overflow.
  EXPECT_EQ(kiln::linalg::norm(make(std::vector<double>{1e200, 1e200})).item(),
            inf);
  EXPECT_EQ(kiln::linalg::norm(make(std::vector<float>{3e19f, 4e19f})).item(),
            inf);
}

/// The matrix norm of the (rows, cols) matrix `m` (C order) in long double.
template <class T>
long double matrix_norm(const std::vector<T> &m, int64_t rows, int64_t cols,
                        double p, bool frobenius) {
  if (frobenius)
    return vector_norm(m, 2);
  // p = +-1: extreme column sum; p = +-inf: extreme row sum.
  const bool columns = std::abs(p) == 1;
  std::vector<long double> sums(static_cast<std::size_t>(columns ? cols : rows),
                                0);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      sums[static_cast<std::size_t>(columns ? j : i)] +=
          modulus(m[static_cast<std::size_t>(i * cols + j)]);
  return p > 0 ? *std::max_element(sums.begin(), sums.end())
               : *std::min_element(sums.begin(), sums.end());
}

template <class T> void check_matrix_norms() {
  using R = kiln::var_result_t<T>;
  const kiln::shape s{5, 3, 6};
  const auto x = random_array<T>(s, layout::stepped);
  const auto values = x.to_vector();
  struct pair_of_axes {
    int64_t row, col;
  };
  for (pair_of_axes ax : {pair_of_axes{0, 2}, pair_of_axes{2, 0},
                          pair_of_axes{-1, 1}, pair_of_axes{1, -3}})
    for (double p : {1.0, -1.0, inf, -inf, 0.0 /* Frobenius */})
      for (bool keepdims : {false, true}) {
        const bool frobenius = p == 0;
        const int64_t row = ax.row < 0 ? ax.row + 3 : ax.row,
                      col = ax.col < 0 ? ax.col + 3 : ax.col;
        const int64_t other = 3 - row - col;
        const std::string what = std::string(kiln::name(kiln::dtype_of<T>)) +
                                 " ord " + std::to_string(p) + " axes " +
                                 std::to_string(ax.row) + "," +
                                 std::to_string(ax.col);
        const kiln::axes axes{ax.row, ax.col};
        const auto got = frobenius ? kiln::linalg::norm(x, fro, axes, keepdims)
                                   : kiln::linalg::norm(x, p, axes, keepdims);
        static_assert(std::is_same_v<decltype(got), const kiln::array<R>>);
        kiln::shape want_shape{s[static_cast<std::size_t>(other)]};
        if (keepdims) {
          want_shape = s;
          want_shape[static_cast<std::size_t>(row)] = 1;
          want_shape[static_cast<std::size_t>(col)] = 1;
        }
        EXPECT_EQ(got.shape(), want_shape) << what;
        std::vector<long double> want;
        for (int64_t o = 0; o < s[static_cast<std::size_t>(other)]; ++o) {
          std::vector<T> m;
          for (int64_t i = 0; i < s[static_cast<std::size_t>(row)]; ++i)
            for (int64_t j = 0; j < s[static_cast<std::size_t>(col)]; ++j) {
              int64_t idx[3];
              idx[row] = i;
              idx[col] = j;
              idx[other] = o;
              m.push_back(values[static_cast<std::size_t>(
                  (idx[0] * s[1] + idx[1]) * s[2] + idx[2])]);
            }
          want.push_back(matrix_norm(m, s[static_cast<std::size_t>(row)],
                                     s[static_cast<std::size_t>(col)], p,
                                     frobenius));
        }
        expect_near_all(got, want, tolerance<T>(), what);
      }
  // A 2-d array with kiln::all is one matrix.
  const auto m = random_array<T>({7, 4}, layout::transposed);
  for (double p : {1.0, -1.0, inf, -inf})
    EXPECT_NEAR(kiln::linalg::norm(m, p).item(),
                static_cast<double>(matrix_norm(m.to_vector(), 7, 4, p, false)),
                tolerance<T>() * 30)
        << p;
}

TEST(Norm, MatrixNormsEveryOrderAndDtype) {
  check_matrix_norms<int32_t>();
  check_matrix_norms<float>();
  check_matrix_norms<double>();
  check_matrix_norms<c64>();
  check_matrix_norms<c128>();
}

TEST(Norm, EmptyArrays) {
  const auto v = make(std::vector<double>{});
  EXPECT_EQ(kiln::linalg::norm(v).item(), 0.0);
  EXPECT_EQ(kiln::linalg::norm(v, 1).item(), 0.0);
  EXPECT_EQ(kiln::linalg::norm(v, 0).item(), 0.0);
  expect_message<kiln::value_error>(
      [&] { (void)kiln::linalg::norm(v, inf); },
      "zero-size array to reduction operation maximum which has no identity");
  expect_message<kiln::value_error>(
      [&] { (void)kiln::linalg::norm(v, -inf); },
      "zero-size array to reduction operation minimum which has no identity");
  // No rows: every column sums to 0; no columns: no column to take the
  // largest of.
  EXPECT_EQ(kiln::linalg::norm(make(std::vector<float>{}, {0, 3}), 1).item(),
            0.0f);
  expect_message<kiln::value_error>(
      [] {
        (void)kiln::linalg::norm(make(std::vector<float>{}, {3, 0}), 1);
      },
      "zero-size array to reduction operation maximum which has no identity");
  EXPECT_EQ(kiln::linalg::norm(make(std::vector<float>{}, {3, 0}), fro).item(),
            0.0f);
}

TEST(Norm, ErrorsHaveNumPysMessages) {
  const auto v = random_array<double>({4}, layout::contiguous);
  const auto m = random_array<double>({3, 4}, layout::contiguous);
  const auto t = random_array<float>({2, 3, 4}, layout::contiguous);
  const auto scalar = make(std::vector<double>{2}, kiln::shape{});
  expect_message<kiln::value_error>([&] { (void)kiln::linalg::norm(v, fro); },
                                    "Invalid norm order 'fro' for vectors");
  expect_message<kiln::value_error>(
      [&] { (void)kiln::linalg::norm(m, fro, 1); },
      "Invalid norm order 'fro' for vectors");
  expect_message<kiln::value_error>([&] { (void)kiln::linalg::norm(t, 1); },
                                    "Improper number of dimensions to norm.");
  expect_message<kiln::value_error>(
      [&] {
        (void)kiln::linalg::norm(t, {}, {0, 1, 2});
      },
      "Improper number of dimensions to norm.");
  expect_message<kiln::value_error>(
      [&] { (void)kiln::linalg::norm(t, {}, {}); },
      "Improper number of dimensions to norm.");
  expect_message<kiln::value_error>(
      [&] { (void)kiln::linalg::norm(scalar, 1); },
      "Improper number of dimensions to norm.");
  expect_message<kiln::value_error>([&] { (void)kiln::linalg::norm(m, 3); },
                                    "Invalid norm order for matrices.");
  expect_message<kiln::value_error>([&] { (void)kiln::linalg::norm(m, 0); },
                                    "Invalid norm order for matrices.");
  // Orders 2 and -2 are the extreme singular values (an SVD; kept dims).
  EXPECT_NEAR(kiln::linalg::norm(m, 2).to_vector()[0], kiln::linalg::svdvals(m).to_vector()[0], 1e-5);
  {
    const auto r = kiln::linalg::norm(t, -2, {0, 2}, true);
    EXPECT_EQ(r.shape()[0], 1);
    EXPECT_EQ(r.shape()[2], 1);
  }
  expect_message<kiln::value_error>(
      [&] {
        (void)kiln::linalg::norm(m, 1, {0, -2});
      },
      "Duplicate axes given.");
  expect_message<kiln::index_error>(
      [&] {
        (void)kiln::linalg::norm(m, 1, {0, 2});
      },
      "axis 2 is out of bounds for array of dimension 2");
  expect_message<kiln::index_error>(
      [&] { (void)kiln::linalg::norm(m, inf, -3); },
      "axis -3 is out of bounds for array of dimension 2");
  expect_message<kiln::index_error>(
      [&] { (void)kiln::linalg::norm(scalar, {}, 0); },
      "axis 0 is out of bounds for array of dimension 0");
  // The program goes on.
  EXPECT_GT(kiln::linalg::norm(m, 1).item(), 0);
}

} // namespace
