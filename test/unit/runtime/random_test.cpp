// Tests of kiln::random: determinism per seed, offsets advancing per call,
// the statistics of uniform / normal / integers, bit-exact agreement with an
// independent Philox4x32-10 reference (checked against the Random123
// known-answer vector), the errors, and on a GPU bitwise equality with the
// host.
#include "gpu.hpp"

#include "kiln/kiln.hpp"
#include "kiln/random.hpp"

#include <gtest/gtest.h>

#include "expect.hpp"

#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

const kiln::device host = kiln::device::host();


/// An independent Philox4x32-10 with a full 128-bit counter and a 64-bit
/// key (Salmon et al.), written out round by round.
void philox_ref(std::uint32_t ctr[4], const std::uint32_t key_in[2]) {
  std::uint32_t key[2] = {key_in[0], key_in[1]};
  for (int round = 0; round < 10; ++round) {
    std::uint64_t p0 = static_cast<std::uint64_t>(0xD2511F53u) * ctr[0];
    std::uint64_t p1 = static_cast<std::uint64_t>(0xCD9E8D57u) * ctr[2];
    std::uint32_t out[4] = {
        static_cast<std::uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0],
        static_cast<std::uint32_t>(p1),
        static_cast<std::uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1],
        static_cast<std::uint32_t>(p0)};
    for (int i = 0; i < 4; ++i)
      ctr[i] = out[i];
    key[0] += 0x9E3779B9u;
    key[1] += 0xBB67AE85u;
  }
}

} // namespace

TEST(Random, ReferencePhiloxMatchesTheRandom123KnownAnswer) {
  // Random123's kat_vectors, "philox4x32 10" with the pi-digit counter/key.
  std::uint32_t ctr[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u};
  const std::uint32_t key[2] = {0xa4093822u, 0x299f31d0u};
  philox_ref(ctr, key);
  EXPECT_EQ(ctr[0], 0xd16cfe09u);
  EXPECT_EQ(ctr[1], 0x94fdccebu);
  EXPECT_EQ(ctr[2], 0x5001e420u);
  EXPECT_EQ(ctr[3], 0x24126ea1u);
}

TEST(Random, UniformIsPhiloxOfTheElementCounter) {
  const std::uint64_t seed = 0x1234567890abcdefull;
  auto rng = kiln::random::default_rng(seed);
  auto f = rng.random<float>({100}, host).to_vector();
  auto d = rng.random<double>({50}, host).to_vector();
  const std::uint32_t key[2] = {static_cast<std::uint32_t>(seed),
                                static_cast<std::uint32_t>(seed >> 32)};
  for (std::uint64_t i = 0; i < 100; ++i) {
    std::uint32_t c[4] = {static_cast<std::uint32_t>(i),
                          static_cast<std::uint32_t>(i >> 32), 0, 0};
    philox_ref(c, key);
    EXPECT_EQ(f[i], static_cast<float>(c[0] >> 8) / 16777216.0f);
  }
  for (std::uint64_t i = 0; i < 50; ++i) {
    std::uint64_t ctr = 100 + i; // the second call continues at offset 100
    std::uint32_t c[4] = {static_cast<std::uint32_t>(ctr), 0, 0, 0};
    philox_ref(c, key);
    std::uint64_t bits =
        ((static_cast<std::uint64_t>(c[0]) << 32) | c[1]) >> 11;
    EXPECT_EQ(d[i], std::ldexp(static_cast<double>(bits), -53));
  }
  EXPECT_EQ(rng.offset(), 150u);
}

TEST(Random, SameSeedSameNumbersDifferentSeedsDiffer) {
  auto a = kiln::random::default_rng(42);
  auto b = kiln::random::default_rng(42);
  auto c = kiln::random::default_rng(43);
  auto va = a.normal<double>({3, 100}, 1.0, 2.0, host).to_vector();
  auto vb = b.normal<double>({3, 100}, 1.0, 2.0, host).to_vector();
  auto vc = c.normal<double>({3, 100}, 1.0, 2.0, host).to_vector();
  EXPECT_EQ(va, vb);
  int same = 0;
  for (std::size_t i = 0; i < va.size(); ++i)
    same += va[i] == vc[i];
  EXPECT_EQ(same, 0);
  // Each call advances: a second draw differs from the first.
  auto va2 = a.normal<double>({3, 100}, 1.0, 2.0, host).to_vector();
  EXPECT_NE(va, va2);
  // Rewinding the offset replays.
  a.set_offset(0);
  EXPECT_EQ(a.normal<double>({3, 100}, 1.0, 2.0, host).to_vector(), va);
}

TEST(Random, UniformStatistics) {
  auto rng = kiln::random::default_rng(7);
  const int n = 200000;
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<double> v;
    if (pass == 0) {
      auto f = rng.random<float>({n}, host).to_vector();
      v.assign(f.begin(), f.end());
    } else {
      v = rng.random<double>({n}, host).to_vector();
    }
    double sum = 0, sq = 0;
    int bins[10] = {};
    for (double x : v) {
      ASSERT_GE(x, 0.0);
      ASSERT_LT(x, 1.0);
      sum += x;
      sq += x * x;
      ++bins[static_cast<int>(x * 10)];
    }
    double mean = sum / n, var = sq / n - mean * mean;
    EXPECT_NEAR(mean, 0.5, 0.005);       // sd of the mean ~ 0.00065
    EXPECT_NEAR(var, 1.0 / 12.0, 0.002); // sd ~ 0.0002
    for (int b : bins)
      EXPECT_NEAR(b, n / 10, 700); // sd ~ 134
  }
}

TEST(Random, NormalStatistics) {
  auto rng = kiln::random::default_rng(8);
  const int n = 200000;
  auto v = rng.normal<double>({n}, 3.0, 0.5, host).to_vector();
  auto f = rng.normal<float>({n}, -1.0f, 2.0f, host).to_vector();
  auto moments = [](const auto &x, double &mean, double &sd, double &within1) {
    double s = 0, q = 0;
    for (double e : x) {
      s += e;
      q += e * e;
    }
    mean = s / static_cast<double>(x.size());
    sd = std::sqrt(q / static_cast<double>(x.size()) - mean * mean);
    within1 = 0;
    for (double e : x)
      within1 += std::abs(e - mean) < sd;
    within1 /= static_cast<double>(x.size());
  };
  double mean, sd, w;
  moments(v, mean, sd, w);
  EXPECT_NEAR(mean, 3.0, 0.01);
  EXPECT_NEAR(sd, 0.5, 0.01);
  EXPECT_NEAR(w, 0.6827, 0.005);
  moments(f, mean, sd, w);
  EXPECT_NEAR(mean, -1.0, 0.03);
  EXPECT_NEAR(sd, 2.0, 0.03);
  EXPECT_NEAR(w, 0.6827, 0.005);
  for (float e : f)
    ASSERT_TRUE(std::isfinite(e));
}

TEST(Random, IntegersInRangeAndUniform) {
  auto rng = kiln::random::default_rng(9);
  const int n = 100000;
  auto v = rng.integers<std::int64_t>(-3, 7, {n}, host).to_vector();
  int counts[10] = {};
  for (auto x : v) {
    ASSERT_GE(x, -3);
    ASSERT_LT(x, 7);
    ++counts[x + 3];
  }
  for (int c : counts)
    EXPECT_NEAR(c, n / 10, 600);
  auto u8 = rng.integers<std::uint8_t>(250, 255, {1000}, host).to_vector();
  for (auto x : u8) {
    ASSERT_GE(x, 250);
    ASSERT_LT(x, 255);
  }
  auto i32 = rng.integers<std::int32_t>(INT32_MIN, INT32_MAX, {1000}, host)
                 .to_vector();
  bool negative = false, positive = false;
  for (auto x : i32) {
    negative |= x < 0;
    positive |= x > 0;
    ASSERT_LT(x, INT32_MAX);
  }
  EXPECT_TRUE(negative && positive);
  auto one = rng.integers<std::int8_t>(5, 6, {10}, host).to_vector();
  EXPECT_EQ(one, std::vector<std::int8_t>(10, 5));
}

TEST(Random, Errors) {
  auto rng = kiln::random::default_rng(1);
  expect_message<kiln::value_error>(
      [&] { rng.integers<std::int32_t>(5, 5, {3}, host); }, "low >= high");
  expect_message<kiln::value_error>(
      [&] { rng.normal<float>({3}, 0.0f, -1.0f, host); }, "scale < 0");
  expect_message<kiln::value_error>([&] { rng.random<float>({-3}, host); },
                                    "negative dimensions are not allowed");
  EXPECT_EQ(rng.offset(), 0u) << "failed calls do not advance the generator";
  EXPECT_EQ(rng.random<float>({3}, host).size(), 3);
  EXPECT_EQ(rng.offset(), 3u);
}

TEST(RandomGpu, GpuDrawsMatchTheHost) {
  KILN_REQUIRE_GPU();
  kiln::device gpu = kiln::device::cuda(0);
  auto hr = kiln::random::default_rng(2024);
  auto gr = kiln::random::default_rng(2024);
  const std::int64_t n = 1 << 20;
  EXPECT_EQ(gr.random<float>({n}, gpu).to_vector(),
            hr.random<float>({n}, host).to_vector());
  EXPECT_EQ(gr.random<double>({1000, 33}, gpu).to_vector(),
            hr.random<double>({1000, 33}, host).to_vector());
  EXPECT_EQ(
      gr.integers<std::int64_t>(-1000000, 1000000, {n}, gpu).to_vector(),
      hr.integers<std::int64_t>(-1000000, 1000000, {n}, host).to_vector());
  EXPECT_EQ(gr.integers<std::uint8_t>(0, 200, {4097}, gpu).to_vector(),
            hr.integers<std::uint8_t>(0, 200, {4097}, host).to_vector());
  // Normals: the GPU's log/cos may differ from the host's in the last ulps.
  auto gn = gr.normal<double>({n}, 0.0, 1.0, gpu).to_vector();
  auto hn = hr.normal<double>({n}, 0.0, 1.0, host).to_vector();
  auto gf = gr.normal<float>({n}, 0.0f, 1.0f, gpu).to_vector();
  auto hf = hr.normal<float>({n}, 0.0f, 1.0f, host).to_vector();
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_NEAR(gn[i], hn[i], 1e-12 * (1 + std::abs(hn[i])));
    ASSERT_NEAR(gf[i], hf[i], 2e-5f * (1 + std::abs(hf[i])));
  }
  EXPECT_EQ(gr.offset(), hr.offset());
}
