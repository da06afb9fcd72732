// Tests of the creation functions: empty/zeros/ones/full, the *_like forms,
// arange and linspace against NumPy's definitions, asarray (shapes, bool,
// initializer lists) and their errors.
#include "gpu.hpp"

#include "kiln/creation.hpp"
#include "kiln/kiln.hpp"

#include <gtest/gtest.h>

#include "expect.hpp"

#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <vector>

namespace {

using kiln::array;
using kiln::shape;
const kiln::device host = kiln::device::host();


} // namespace

TEST(Creation, ZerosOnesFull) {
  auto z = kiln::zeros<double>({3, 5}, host);
  EXPECT_EQ(z.shape(), (shape{3, 5}));
  EXPECT_EQ(z.to_vector(), std::vector<double>(15, 0.0));
  auto o = kiln::ones<std::int32_t>({4}, host);
  EXPECT_EQ(o.to_vector(), std::vector<std::int32_t>(4, 1));
  std::complex<float> c(1.5f, -2.0f);
  auto f = kiln::full<std::complex<float>>({2, 2}, c, host);
  EXPECT_EQ(f.to_vector(), std::vector<std::complex<float>>(4, c));
  auto b = kiln::ones<bool>({3}, host);
  EXPECT_EQ(b.to_vector(), std::vector<bool>(3, true));
  auto e = kiln::empty<float>({0}, host);
  EXPECT_EQ(e.size(), 0);
  EXPECT_TRUE(e.to_vector().empty());
  auto like = kiln::full_like(f, std::complex<float>(3.0f, 4.0f));
  EXPECT_EQ(like.shape(), f.shape());
  EXPECT_EQ(kiln::zeros_like(z).to_vector(), std::vector<double>(15, 0.0));
  EXPECT_EQ(kiln::ones_like(o).to_vector(), std::vector<std::int32_t>(4, 1));
  EXPECT_EQ(kiln::empty_like(z).shape(), z.shape());
}

TEST(Creation, NegativeDimensionsAreErrors) {
  expect_message<kiln::value_error>(
      [] {
        kiln::zeros<float>({2, -1}, host);
      },
      "negative dimensions are not allowed");
  EXPECT_EQ(kiln::zeros<float>({2, 1}, host).size(), 2);
}

TEST(Creation, ArangeAsNumPy) {
  EXPECT_EQ(kiln::arange<std::int64_t>(5).to_vector(),
            (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(kiln::arange<std::int32_t>(2, 11, 3).to_vector(),
            (std::vector<std::int32_t>{2, 5, 8}));
  EXPECT_EQ(kiln::arange<std::int32_t>(10, 0, -4).to_vector(),
            (std::vector<std::int32_t>{10, 6, 2}));
  EXPECT_TRUE(kiln::arange<std::int32_t>(5, 1).to_vector().empty());
  // np.arange(0.0, 1.0, 0.1) has 10 elements, start + i * step.
  auto f = kiln::arange<double>(0.0, 1.0, 0.1).to_vector();
  ASSERT_EQ(f.size(), 10u);
  for (std::size_t i = 0; i < f.size(); ++i)
    EXPECT_DOUBLE_EQ(f[i], 0.1 * static_cast<double>(i));
  auto g = kiln::arange<float>(1, 2, 0.25f).to_vector();
  EXPECT_EQ(g, (std::vector<float>{1.0f, 1.25f, 1.5f, 1.75f}));
  expect_message<kiln::value_error>(
      [] { kiln::arange<float>(0, 1, 0); },
      "arange: step must not be zero (division by zero)");
}

TEST(Creation, LinspaceAsNumPy) {
  auto a = kiln::linspace<double>(2.0, 3.0, 5).to_vector();
  EXPECT_EQ(a, (std::vector<double>{2.0, 2.25, 2.5, 2.75, 3.0}));
  auto b = kiln::linspace<double>(0.0, 1.0, 4, /*endpoint=*/false).to_vector();
  EXPECT_EQ(b, (std::vector<double>{0.0, 0.25, 0.5, 0.75}));
  auto c = kiln::linspace<float>(-1.0, 1.0, 1).to_vector();
  EXPECT_EQ(c, (std::vector<float>{-1.0f}));
  EXPECT_TRUE(kiln::linspace<float>(0.0, 1.0, 0).to_vector().empty());
  // Random endpoints: last element is exactly stop, steps are even.
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> u(-50, 50);
  for (int t = 0; t < 20; ++t) {
    double s = u(gen), e = u(gen);
    auto v = kiln::linspace<double>(s, e, 17).to_vector();
    EXPECT_EQ(v.front(), s);
    EXPECT_EQ(v.back(), e);
    for (int i = 0; i < 17; ++i)
      EXPECT_NEAR(v[i], s + (e - s) * i / 16.0, 1e-12);
  }
  auto i = kiln::linspace<std::int32_t>(0.0, 10.0, 4)
               .to_vector(); // 0, 3.33, 6.67, 10
  EXPECT_EQ(i, (std::vector<std::int32_t>{0, 3, 6, 10}));
  expect_message<kiln::value_error>(
      [] { kiln::linspace<float>(0, 1, -1); },
      "Number of samples, -1, must be non-negative.");
}

TEST(Creation, AsarrayCopiesHostData) {
  std::mt19937 gen(4);
  std::normal_distribution<double> n;
  std::vector<double> v(24);
  for (auto &x : v)
    x = n(gen);
  auto a = kiln::asarray<double>(v, {2, 3, 4}, host);
  EXPECT_EQ(a.shape(), (shape{2, 3, 4}));
  EXPECT_EQ(a.to_vector(), v);
  v[0] = 99.0; // a copy, not a view of v
  EXPECT_NE(a.to_vector()[0], 99.0);
  auto l = kiln::asarray({1, 2, 3});
  static_assert(std::is_same_v<decltype(l), array<int>>);
  EXPECT_EQ(l.to_vector(), (std::vector<int>{1, 2, 3}));
  auto d = kiln::asarray({1.5, 2.5});
  EXPECT_EQ(d.dtype(), kiln::dtype::float64);
  auto f = kiln::asarray<float>({1, 2, 3, 4}, {2, 2}, host);
  EXPECT_EQ(f.shape(), (shape{2, 2}));
  auto bl = kiln::asarray(std::vector<bool>{true, false, true}, host);
  EXPECT_EQ(bl.to_vector(), (std::vector<bool>{true, false, true}));
  expect_message<kiln::shape_error>(
      [&] {
        kiln::asarray<double>(v, {5, 5}, host);
      },
      "cannot reshape array of size 24 into shape (5,5)");
  EXPECT_EQ(kiln::asarray<double>(v, {24}, host).size(), 24);
}

TEST(Creation, AbsentDeviceIsADeviceError) {
  EXPECT_THROW(kiln::zeros<float>(
                   {2}, kiln::device::cuda(kiln::cuda_device_count() + 3)),
               kiln::device_error);
  EXPECT_EQ(kiln::zeros<float>({2}, host).size(), 2);
}

TEST(CreationGpu, CreationOnTheDeviceMatchesTheHost) {
  KILN_REQUIRE_GPU();
  kiln::device gpu = kiln::device::cuda(0);
  EXPECT_EQ(kiln::zeros<double>({3, 7}, gpu).to_vector(),
            std::vector<double>(21, 0.0));
  EXPECT_EQ(kiln::full<std::int8_t>({5}, -3, gpu).to_vector(),
            std::vector<std::int8_t>(5, -3));
  EXPECT_EQ(kiln::arange<float>(0, 3, 0.5f, gpu).to_vector(),
            kiln::arange<float>(0, 3, 0.5f, host).to_vector());
  EXPECT_EQ(kiln::linspace<double>(-2, 5, 33, true, gpu).to_vector(),
            kiln::linspace<double>(-2, 5, 33, true, host).to_vector());
  EXPECT_EQ(kiln::full<std::complex<double>>({4}, {1, -1}, gpu).to_vector(),
            std::vector<std::complex<double>>(4, {1, -1}));
}
