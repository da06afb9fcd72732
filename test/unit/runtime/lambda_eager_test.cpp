// The eager forms of kiln::elementwise and kiln::reduce (kiln/elementwise.hpp,
// kiln/reduce.hpp): what runs where kilnc did not compile the call (this
// file is built by the ordinary C++ compiler) and in a reduction kernel's
// eager fallback. Checked against references computed here on random data;
// GPU arrays make a round trip and come back on their device.
#include "kiln/kiln.hpp"

#include "gpu.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using kiln::device;

TEST(LambdaEager, ElementwiseBroadcastsArraysAndPassesScalars) {
  auto rng = kiln::random::default_rng(7);
  auto x = rng.normal<float>({5, 7}, 0.0, 2.0);
  auto col = rng.normal<double>({5, 1}, 1.0, 1.0);
  auto z = kiln::elementwise([](float a, double c, int k) { return a * c + k; }, x, col, 3);
  static_assert(std::is_same_v<decltype(z), kiln::array<double>>);
  ASSERT_EQ(z.shape(), (kiln::shape{5, 7}));
  const auto hx = x.to_vector();
  const auto hc = col.to_vector();
  const auto hz = z.to_vector();
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 7; ++j)
      EXPECT_DOUBLE_EQ(hz[i * 7 + j], double(hx[i * 7 + j]) * hc[i] + 3) << i << "," << j;
}

TEST(LambdaEager, ElementwiseIntoConvertsToTheDestination) {
  auto rng = kiln::random::default_rng(8);
  auto x = rng.normal<float>({64}, 0.0, 3.0);
  auto out = kiln::zeros<std::int32_t>({64});
  kiln::elementwise_into(out, [](float v) { return v * 10.0f; }, x);
  const auto hx = x.to_vector();
  const auto ho = out.to_vector();
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(ho[i], static_cast<std::int32_t>(hx[i] * 10.0f)) << i;
}

TEST(LambdaEager, ReduceFoldsOverAxesWithKeepdims) {
  auto rng = kiln::random::default_rng(9);
  auto t = rng.normal<double>({4, 6, 3}, 0.0, 1.0);
  auto r = kiln::reduce(t, [](double v) { return v * v; }, [](double a, double b) { return a + b; }, 0.0,
                        [](double s) { return std::sqrt(s); }, {0, 2}, true);
  ASSERT_EQ(r.shape(), (kiln::shape{1, 6, 1}));
  const auto ht = t.to_vector();
  const auto hr = r.to_vector();
  for (int j = 0; j < 6; ++j) {
    double s = 0;
    for (int a = 0; a < 4; ++a)
      for (int c = 0; c < 3; ++c)
        s += ht[(a * 6 + j) * 3 + c] * ht[(a * 6 + j) * 3 + c];
    EXPECT_NEAR(hr[j], std::sqrt(s), 1e-12 * std::sqrt(s)) << j;
  }
  // An int maximum over every axis, starting from the identity.
  auto i = rng.integers<std::int32_t>(-1000, 1000, {9, 5});
  auto m = kiln::reduce(i, [](std::int32_t v) { return v; }, [](std::int32_t a, std::int32_t b) { return a > b ? a : b; },
                        -2147483647 - 1, [](std::int32_t v) { return v; });
  const auto hi = i.to_vector();
  EXPECT_EQ(m.item(), *std::max_element(hi.begin(), hi.end()));
}

TEST(LambdaEagerGpu, GpuArraysMakeARoundTripAndStayOnTheirDevice) {
  KILN_REQUIRE_GPU();
  auto rng = kiln::random::default_rng(10);
  auto x = rng.normal<float>({33, 17}, 0.0, 1.0, device::cuda(0));
  auto y = kiln::elementwise([](float v) { return v * v; }, x);
  EXPECT_EQ(y.device(), device::cuda(0));
  auto r = kiln::reduce(x, [](float v) { return v * v; }, [](float a, float b) { return a + b; }, 0.0f,
                        [](float s) { return s; }, -1);
  EXPECT_EQ(r.device(), device::cuda(0));
  const auto hx = x.to_vector();
  const auto hy = y.to_vector();
  const auto hr = r.to_vector();
  for (int i = 0; i < 33; ++i) {
    double s = 0;
    for (int j = 0; j < 17; ++j) {
      EXPECT_FLOAT_EQ(hy[i * 17 + j], hx[i * 17 + j] * hx[i * 17 + j]);
      s += double(hx[i * 17 + j]) * hx[i * 17 + j];
    }
    EXPECT_NEAR(hr[i], s, 1e-5 * s) << i;
  }
}

} // namespace
