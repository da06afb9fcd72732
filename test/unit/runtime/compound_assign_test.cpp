// Writing into arrays, eagerly: fill, assign (NumPy's x[...] = src) and the
// compound operators (np.add(x, y, out=x, casting='same_kind')), on whole
// arrays and views, with broadcasting, conversion, overlap and NumPy's
// casting errors; against references computed here on random data.
#include "kiln/kiln.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using kiln::shape;

TEST(Writes, FillConvertsTheValueAndWritesOnlyTheView) {
  auto x = kiln::zeros<std::int32_t>({4, 6});
  x.slice({kiln::range(1, 3), kiln::all}).fill(7.9); // converted as NumPy: 7
  const auto v = x.to_vector();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j)
      EXPECT_EQ(v[i * 6 + j], (i == 1 || i == 2) ? 7 : 0) << i << "," << j;
}

TEST(Writes, AssignBroadcastsAndConvertsIntoAView) {
  auto rng = kiln::random::default_rng(3);
  auto x = kiln::zeros<float>({5, 8});
  auto row = rng.normal<double>({4}, 0.0, 10.0);
  // Every other column of x gets the row, converted to float32.
  x.slice({kiln::all, kiln::range(0, 8, 2)}).assign(row);
  const auto hx = x.to_vector();
  const auto hr = row.to_vector();
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 8; ++j)
      EXPECT_EQ(hx[i * 8 + j], j % 2 == 0 ? static_cast<float>(hr[j / 2]) : 0.0f) << i << "," << j;
  EXPECT_THROW(x.assign(kiln::zeros<float>({3})), kiln::shape_error);
}

TEST(Writes, CompoundOperatorsMatchNumPyOnRandomData) {
  auto rng = kiln::random::default_rng(4);
  auto a = rng.normal<float>({6, 5}, 0.0, 3.0);
  auto b = rng.normal<float>({5}, 1.0, 2.0);
  const auto ha = a.to_vector(), hb = b.to_vector();
  auto x = a.copy();
  x += b;      // broadcast row
  x *= 2.0f;   // scalar
  x -= a;      // array
  x /= b;
  const auto hx = x.to_vector();
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j) {
      const float want = ((ha[i * 5 + j] + hb[j]) * 2.0f - ha[i * 5 + j]) / hb[j];
      EXPECT_FLOAT_EQ(hx[i * 5 + j], want) << i << "," << j;
    }
  // Integers: % as Python's, and a float64 result into int32 is NumPy's error.
  auto k = rng.integers<std::int32_t>(-50, 50, {16});
  const auto hk = k.to_vector();
  auto m = k.copy();
  m %= 7;
  const auto hm = m.to_vector();
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(hm[i], ((hk[i] % 7) + 7) % 7) << i;
  try {
    m /= 2; // true division: float64
    FAIL() << "no error";
  } catch (const kiln::value_error &e) {
    EXPECT_EQ(std::string(e.what()),
              "Cannot cast ufunc 'divide' output from dtype('float64') to dtype('int32') with casting rule 'same_kind'");
  }
  // Within a kind any size goes: float32 += float64.
  auto f = kiln::ones<float>({3});
  f += kiln::full<double>({3}, 0.25);
  EXPECT_EQ(f.to_vector(), (std::vector<float>{1.25f, 1.25f, 1.25f}));
  // A signed result into uint8 is an error, as in NumPy.
  auto u = kiln::ones<std::uint8_t>({3});
  EXPECT_THROW(u += kiln::ones<std::int8_t>({3}), kiln::value_error);
}

TEST(Writes, OverlappingOperandsGiveNumPysAnswer) {
  auto rng = kiln::random::default_rng(5);
  auto m = rng.normal<double>({9, 9}, 0.0, 1.0);
  const auto h = m.to_vector();
  m += m.T(); // the transpose is read before m is written
  const auto r = m.to_vector();
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j)
      EXPECT_DOUBLE_EQ(r[i * 9 + j], h[i * 9 + j] + h[j * 9 + i]) << i << "," << j;
  // A shifted view of itself.
  auto v = kiln::arange<std::int64_t>(10);
  v.slice({kiln::range(1, 10)}) += v.slice({kiln::range(0, 9)});
  const auto hv = v.to_vector();
  for (int i = 1; i < 10; ++i)
    EXPECT_EQ(hv[i], i + (i - 1)) << i;
}

TEST(Writes, BroadcastViewsAreReadOnlyAsInNumPy) {
  auto row = kiln::arange<std::int64_t>(4);
  auto b = kiln::broadcast_to(row, kiln::shape{3, 4}); // every row aliases `row`
  EXPECT_FALSE(b.writeable());
  auto message = [](auto &&write) {
    try {
      write();
    } catch (const kiln::value_error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] { b.fill(1); }), "assignment destination is read-only");
  EXPECT_EQ(message([&] { b += 1; }), "assignment destination is read-only");
  // Views of it stay read-only; a copy of it is an array of its own.
  EXPECT_EQ(message([&] { b.T().assign(kiln::zeros<std::int64_t>({4, 3})); }), "assignment destination is read-only");
  EXPECT_EQ(message([&] { b.slice({1, kiln::all}).fill(0); }), "assignment destination is read-only");
  auto c = b.copy();
  EXPECT_TRUE(c.writeable());
  c += 1;
  EXPECT_EQ(c.to_vector(), (std::vector<std::int64_t>{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}));
  EXPECT_EQ(row.to_vector(), (std::vector<std::int64_t>{0, 1, 2, 3})); // nothing written through b
  EXPECT_TRUE(row.writeable());
}

} // namespace
