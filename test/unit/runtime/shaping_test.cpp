// Joining and shaping (kiln/shaping.hpp): concatenate, stack, split,
// meshgrid, tile, repeat, flip, roll, pad, squeeze, expand_dims, ravel,
// flatten and copyto on random data and views, checked element by element
// against references computed here; which results are views; NumPy's
// errors; the main cases on a GPU against the host (skipped without one).
#include "gpu.hpp"

#include <gtest/gtest.h>
#include <kiln/kiln.hpp>

#include <complex>
#include <cstdint>
#include <random>
#include <string>

namespace {

template <class E> std::vector<E> random_values(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(-100, 100);
  std::vector<E> v(n);
  for (auto &&x : v) {
    if constexpr (std::is_same_v<E, bool>)
      x = d(g) > 0;
    else if constexpr (kiln::is_std_complex<E>::value)
      x = E(d(g) * 0.5, d(g) * 0.25);
    else
      x = static_cast<E>(d(g) * (std::is_floating_point_v<E> ? 0.31 : 1));
  }
  return v;
}

template <class E> std::string message_of(const std::function<void()> &f) {
  try {
    f();
  } catch (const E &e) {
    return e.what();
  }
  return "(no exception)";
}

/// Element (i, j) of a 2-d host vector of `cols` columns.
template <class E> E at(const std::vector<E> &v, std::int64_t cols, std::int64_t i, std::int64_t j) {
  return v[static_cast<std::size_t>(i * cols + j)];
}

template <class E> void joining(kiln::device dev) {
  auto ha = random_values<E>(3 * 4, 1), hb = random_values<E>(5 * 4, 2);
  auto a = kiln::asarray<E>(ha, {3, 4}, dev), b = kiln::asarray<E>(hb, {5, 4}, dev);
  auto c = kiln::concatenate({a, b});
  ASSERT_EQ(c.shape(), (kiln::shape{8, 4}));
  auto hc = c.to_vector();
  for (std::int64_t i = 0; i < 8; ++i)
    for (std::int64_t j = 0; j < 4; ++j)
      ASSERT_EQ(at(hc, 4, i, j), i < 3 ? at(ha, 4, i, j) : at(hb, 4, i - 3, j));
  // Along the last axis, from transposed views.
  auto d = kiln::concatenate({a.T(), b.T()}, -1);
  ASSERT_EQ(d.shape(), (kiln::shape{4, 8}));
  auto hd = d.to_vector();
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t j = 0; j < 8; ++j)
      ASSERT_EQ(at(hd, 8, i, j), j < 3 ? at(ha, 4, j, i) : at(hb, 4, j - 3, i));
  // stack along a new middle axis.
  auto s = kiln::stack({a, a.slice({kiln::range(std::nullopt, std::nullopt, -1), kiln::all})}, 1);
  ASSERT_EQ(s.shape(), (kiln::shape{3, 2, 4}));
  auto hs = s.to_vector();
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 4; ++j) {
      ASSERT_EQ(hs[(i * 2 + 0) * 4 + j], at(ha, 4, i, j));
      ASSERT_EQ(hs[(i * 2 + 1) * 4 + j], at(ha, 4, 2 - i, j));
    }
  // tile, repeat, roll, pad, flip.
  auto t = kiln::tile(a, {2, 3});
  ASSERT_EQ(t.shape(), (kiln::shape{6, 12}));
  auto ht = t.to_vector();
  for (std::int64_t i = 0; i < 6; ++i)
    for (std::int64_t j = 0; j < 12; ++j) ASSERT_EQ(at(ht, 12, i, j), at(ha, 4, i % 3, j % 4));
  auto r = kiln::repeat(a, 2, 1);
  auto hr = r.to_vector();
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 8; ++j) ASSERT_EQ(at(hr, 8, i, j), at(ha, 4, i, j / 2));
  auto flat_rep = kiln::repeat(a, 3);
  ASSERT_EQ(flat_rep.shape(), kiln::shape{36});
  EXPECT_EQ(flat_rep.to_vector()[7], ha[2]);
  auto ro = kiln::roll(b, -2, 0);
  auto hro = ro.to_vector();
  for (std::int64_t i = 0; i < 5; ++i)
    for (std::int64_t j = 0; j < 4; ++j) ASSERT_EQ(at(hro, 4, i, j), at(hb, 4, (i + 2) % 5, j));
  auto rflat = kiln::roll(a, 5).to_vector();
  for (std::int64_t k = 0; k < 12; ++k) ASSERT_EQ(rflat[k], ha[(k - 5 + 12) % 12]);
  auto p = kiln::pad(a, {{1, 2}, {0, 1}}, E(1));
  ASSERT_EQ(p.shape(), (kiln::shape{6, 5}));
  auto hp = p.to_vector();
  for (std::int64_t i = 0; i < 6; ++i)
    for (std::int64_t j = 0; j < 5; ++j)
      ASSERT_EQ(at(hp, 5, i, j), (i >= 1 && i < 4 && j < 4) ? at(ha, 4, i - 1, j) : E(1));
  auto f = kiln::flip(a, 1);
  auto hf = f.to_vector();
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 4; ++j) ASSERT_EQ(at(hf, 4, i, j), at(ha, 4, i, 3 - j));
  EXPECT_EQ(f.data() + 0, a.data() + 3); // a view: flip's element 0 is a's element (0, 3)
  auto fa = kiln::flip(a).to_vector();
  for (std::int64_t k = 0; k < 12; ++k) ASSERT_EQ(fa[k], ha[11 - k]);
}

TEST(Shaping, JoiningEveryDtype) {
  const auto host = kiln::device::host();
  joining<float>(host);
  joining<double>(host);
  joining<std::int32_t>(host);
  joining<std::int64_t>(host);
  joining<std::uint8_t>(host);
  joining<bool>(host);
  joining<std::complex<float>>(host);
}

TEST(Shaping, SplitSqueezeExpandRavelAreViews) {
  auto x = kiln::asarray<float>(random_values<float>(24, 3), {2, 12});
  auto parts = kiln::split(x, 3, 1);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1].shape(), (kiln::shape{2, 4}));
  EXPECT_EQ(parts[1].data(), x.data() + 4);
  auto uneven = kiln::split(x, std::vector<std::int64_t>{5, 7}, -1);
  ASSERT_EQ(uneven.size(), 3u);
  EXPECT_EQ(uneven[0].shape()[1], 5);
  EXPECT_EQ(uneven[1].shape()[1], 2);
  EXPECT_EQ(uneven[2].shape()[1], 5);
  auto e = kiln::expand_dims(x, 1);
  EXPECT_EQ(e.shape(), (kiln::shape{2, 1, 12}));
  EXPECT_EQ(e.data(), x.data());
  auto sq = kiln::squeeze(e);
  EXPECT_EQ(sq.shape(), (kiln::shape{2, 12}));
  EXPECT_EQ(kiln::squeeze(e, -2).shape(), (kiln::shape{2, 12}));
  EXPECT_EQ(kiln::ravel(x).data(), x.data());
  auto fl = kiln::flatten(x);
  EXPECT_NE(fl.data(), x.data());
  EXPECT_EQ(fl.to_vector(), x.to_vector());
  EXPECT_EQ(kiln::ravel(x.T()).to_vector()[1], x.to_vector()[12]); // a copy in C order of the view
  // Views of read-only arrays stay read-only.
  auto ro = kiln::broadcast_to(x.slice({0, kiln::all}), kiln::shape{3, 12});
  EXPECT_FALSE(kiln::expand_dims(ro, 0).writeable());
}

TEST(Shaping, MeshgridAndCopyto) {
  auto x = kiln::linspace<double>(-1.0, 1.0, 5);
  auto y = kiln::arange<std::int32_t>(0, 3);
  auto [X, Y] = kiln::meshgrid(x, y);
  EXPECT_EQ(X.shape(), (kiln::shape{3, 5}));
  auto hx = x.to_vector();
  auto hX = X.to_vector();
  auto hY = Y.to_vector();
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 5; ++j) {
      ASSERT_EQ(hX[i * 5 + j], hx[j]);
      ASSERT_EQ(hY[i * 5 + j], i);
    }
  auto [I, J] = kiln::meshgrid(x, y, kiln::indexing::ij);
  EXPECT_EQ(I.shape(), (kiln::shape{5, 3}));
  EXPECT_EQ(I.to_vector()[3 * 2], hx[2]);
  EXPECT_EQ(J.to_vector()[3 * 2 + 1], 1);
  EXPECT_TRUE(X.writeable()); // copies, as NumPy's default
  auto d = kiln::zeros<double>({3, 5});
  kiln::copyto(d, y.reshape({3, 1}));
  EXPECT_EQ(d.to_vector()[5 * 2 + 4], 2.0);
  auto k = kiln::zeros<std::int32_t>({3});
  EXPECT_EQ(message_of<kiln::value_error>([&] { kiln::copyto(k, kiln::ones<double>({3})); }),
            "Cannot cast array data from dtype('float64') to dtype('int32') according to the rule 'same_kind'");
}

TEST(Shaping, NumPyErrors) {
  auto a = kiln::zeros<float>({2, 3}), b = kiln::zeros<float>({2, 4}), v = kiln::zeros<float>({3});
  EXPECT_EQ(message_of<kiln::value_error>([&] { (void)kiln::concatenate({a, b}); }),
            "all the input array dimensions except for the concatenation axis must match exactly, but along "
            "dimension 1, the array at index 0 has size 3 and the array at index 1 has size 4");
  EXPECT_EQ(message_of<kiln::value_error>([&] { (void)kiln::concatenate({a, v}); }),
            "all the input arrays must have same number of dimensions, but the array at index 0 has 2 dimension(s) "
            "and the array at index 1 has 1 dimension(s)");
  EXPECT_EQ(message_of<kiln::value_error>([&] { (void)kiln::concatenate(std::vector<kiln::array<float>>{}); }),
            "need at least one array to concatenate");
  EXPECT_EQ(message_of<kiln::index_error>([&] { (void)kiln::concatenate({a, a}, 2); }),
            "axis 2 is out of bounds for array of dimension 2");
  EXPECT_EQ(message_of<kiln::value_error>([&] { (void)kiln::split(a, 2, 1); }),
            "array split does not result in an equal division");
  EXPECT_EQ(message_of<kiln::value_error>([&] { (void)kiln::squeeze(a, 0); }),
            "cannot select an axis to squeeze out which has size not equal to one");
  EXPECT_EQ(message_of<kiln::value_error>([&] { (void)kiln::stack({a, b}); }),
            "all input arrays must have the same shape");
}

TEST(ShapingGpu, MatchesTheHost) {
  KILN_REQUIRE_GPU();
  joining<float>(kiln::device::cuda(0));
  joining<std::int8_t>(kiln::device::cuda(0));
  joining<std::complex<double>>(kiln::device::cuda(0));
  auto big = kiln::arange<float>(0, 1 << 20, 1.0f, kiln::device::cuda(0));
  auto c = kiln::concatenate({big, big.slice({kiln::range(std::nullopt, std::nullopt, -1)})});
  auto h = c.to_vector();
  EXPECT_EQ(h[(1 << 20) - 1], float((1 << 20) - 1));
  EXPECT_EQ(h[1 << 20], float((1 << 20) - 1));
  EXPECT_EQ(h[(2 << 20) - 1], 0.0f);
}

} // namespace
