// Boolean masks and integer indices (kiln/indexing.hpp): x[mask], x[mask] =
// v and op=, take (with and without an axis), x[idx] = v with duplicate and
// negative indices, put and nonzero, on several dtypes and on views, checked
// against references computed element by element from random data; NumPy's
// errors; the same on a GPU against the host's answers (skipped without one),
// including a mask over 10^6 elements and the determinism of duplicates.
#include "gpu.hpp"

#include <gtest/gtest.h>
#include <kiln/kiln.hpp>

#include <complex>
#include <cstdint>
#include <random>
#include <string>

namespace {

template <class E> std::vector<E> random_values(std::size_t n, std::mt19937 &g) {
  std::vector<E> v(n);
  std::uniform_int_distribution<int> d(-100, 100);
  for (auto &&x : v) {
    if constexpr (std::is_same_v<E, bool>)
      x = d(g) > 0;
    else if constexpr (kiln::is_std_complex<E>::value)
      x = E(d(g) * 0.25, d(g) * 0.5);
    else if constexpr (std::is_floating_point_v<E>)
      x = static_cast<E>(d(g) * 0.37);
    else
      x = static_cast<E>(d(g));
  }
  return v;
}

std::vector<bool> random_mask(std::size_t n, std::mt19937 &g, double p = 0.5) {
  std::bernoulli_distribution b(p);
  std::vector<bool> m(n);
  for (std::size_t i = 0; i < n; ++i)
    m[i] = b(g);
  return m;
}

template <class E> kiln::array<E> on(const std::vector<E> &v, const kiln::shape &s, kiln::device dev) {
  return kiln::asarray<E>(v, s, dev);
}
kiln::array<bool> on_mask(const std::vector<bool> &v, const kiln::shape &s, kiln::device dev) {
  return kiln::asarray<bool>(std::vector<bool>(v), s, dev);
}

template <class E> std::string message_of(const std::function<void()> &f) {
  try {
    f();
  } catch (const E &e) {
    return e.what();
  }
  return "(no exception)";
}

template <class E> void mask_gather_and_scatter(kiln::device dev) {
  std::mt19937 g(7);
  const std::int64_t m = 37, n = 29;
  auto hx = random_values<E>(m * n, g);
  auto hm = random_mask(m * n, g);
  auto x = on(hx, {m, n}, dev);
  auto mask = on_mask(hm, {m, n}, dev);
  // Gather: the selected elements in C order.
  kiln::array<E> got = x[mask];
  std::vector<E> want;
  for (std::size_t i = 0; i < hx.size(); ++i)
    if (hm[i]) want.push_back(hx[i]);
  EXPECT_EQ(got.shape(), kiln::shape{static_cast<std::int64_t>(want.size())});
  EXPECT_EQ(got.to_vector(), want);
  // Scatter a scalar, then an array of one value per selected element.
  auto y = x.copy();
  y[mask] = 3;
  auto hy = y.to_vector();
  for (std::size_t i = 0; i < hx.size(); ++i)
    EXPECT_EQ(hy[i], hm[i] ? E(3) : hx[i]) << i;
  auto values = random_values<E>(want.size(), g);
  y[mask] = on(values, {static_cast<std::int64_t>(values.size())}, dev);
  hy = y.to_vector();
  for (std::size_t i = 0, k = 0; i < hx.size(); ++i)
    EXPECT_EQ(hy[i], hm[i] ? values[k++] : hx[i]) << i;
}

TEST(Masks, GatherAndScatterEveryDtype) {
  const auto host = kiln::device::host();
  mask_gather_and_scatter<bool>(host);
  mask_gather_and_scatter<std::int8_t>(host);
  mask_gather_and_scatter<std::uint8_t>(host);
  mask_gather_and_scatter<std::int32_t>(host);
  mask_gather_and_scatter<std::int64_t>(host);
  mask_gather_and_scatter<float>(host);
  mask_gather_and_scatter<double>(host);
  mask_gather_and_scatter<std::complex<float>>(host);
  mask_gather_and_scatter<std::complex<double>>(host);
}

TEST(Masks, LeadingAxisMaskSelectsRowsOfAView) {
  std::mt19937 g(3);
  auto base = on(random_values<float>(6 * 8, g), {6, 8}, kiln::device::host());
  auto x = base.T(); // (8, 6), strided
  auto hm = random_mask(8, g);
  auto got = kiln::array<float>(x[on_mask(hm, {8}, kiln::device::host())]);
  auto hb = base.to_vector();
  std::vector<float> want;
  for (std::int64_t r = 0; r < 8; ++r)
    if (hm[r])
      for (std::int64_t c = 0; c < 6; ++c) want.push_back(hb[c * 8 + r]);
  EXPECT_EQ(got.shape()[1], 6);
  EXPECT_EQ(got.to_vector(), want);
  // Writing rows through the transposed view writes the base.
  auto row = on(random_values<float>(6, g), {6}, kiln::device::host());
  x[on_mask(hm, {8}, kiln::device::host())] = row;
  auto hr = row.to_vector(), after = base.to_vector();
  for (std::int64_t r = 0; r < 8; ++r)
    for (std::int64_t c = 0; c < 6; ++c)
      EXPECT_EQ(after[c * 8 + r], hm[r] ? hr[c] : hb[c * 8 + r]);
}

TEST(Masks, CompoundUpdateAndNumPyErrors) {
  std::mt19937 g(5);
  auto hx = random_values<double>(50, g);
  auto hm = random_mask(50, g);
  const auto host = kiln::device::host(); // every operand on one device
  auto x = on(hx, {50}, host);
  auto mask = on_mask(hm, {50}, host);
  x[mask] += 1.5;
  x[mask] *= x[mask];
  auto got = x.to_vector();
  for (std::size_t i = 0; i < 50; ++i)
    EXPECT_DOUBLE_EQ(got[i], hm[i] ? (hx[i] + 1.5) * (hx[i] + 1.5) : hx[i]);
  auto k = kiln::zeros<std::int32_t>({50}, host);
  EXPECT_EQ(message_of<kiln::value_error>([&] { k[mask] += 0.5; }),
            "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int32') with casting rule 'same_kind'");
  EXPECT_EQ(message_of<kiln::index_error>([&] { (void)kiln::array<double>(x[kiln::ones<bool>({49}, host)]); }),
            "boolean index did not match indexed array along axis 0; size of axis is 50 but size of corresponding "
            "boolean axis is 49");
  EXPECT_EQ(message_of<kiln::index_error>([&] { (void)kiln::array<double>(x[kiln::ones<bool>({50, 1}, host)]); }),
            "too many indices for array: array is 1-dimensional, but 2 were indexed");
  const auto count = std::count(hm.begin(), hm.end(), true);
  EXPECT_EQ(message_of<kiln::value_error>([&] { x[mask] = kiln::ones<double>({count + 1}, host); }),
            "NumPy boolean array indexing assignment cannot assign " + std::to_string(count + 1) +
                " input values to the " + std::to_string(count) + " output values where the mask is true");
  auto ro = kiln::broadcast_to(x, kiln::shape{2, 50});
  EXPECT_EQ(message_of<kiln::value_error>([&] { ro[kiln::ones<bool>({2, 50}, host)] = 1.0; }),
            "assignment destination is read-only");
}

template <class E, class I> void take_and_scatter(kiln::device dev) {
  std::mt19937 g(11);
  const std::int64_t rows = 23, cols = 7;
  auto hx = random_values<E>(rows * cols, g);
  auto x = on(hx, {rows, cols}, dev);
  // Negative indices count from the end (unsigned index types have none).
  std::uniform_int_distribution<int> pick(std::is_unsigned_v<I> ? 0 : -static_cast<int>(rows), static_cast<int>(rows) - 1);
  std::vector<I> hi(40);
  for (auto &v : hi) v = static_cast<I>(pick(g));
  auto idx = on(hi, {5, 8}, dev);
  auto norm = [&](I v) { return static_cast<std::int64_t>(v < 0 ? v + rows : v); };
  // x[idx]: rows along axis 0, shape (5, 8, cols).
  kiln::array<E> got = x[idx];
  EXPECT_EQ(got.shape(), (kiln::shape{5, 8, cols}));
  auto hg = got.to_vector();
  for (std::size_t j = 0; j < hi.size(); ++j)
    for (std::int64_t c = 0; c < cols; ++c)
      ASSERT_EQ(hg[j * cols + c], hx[norm(hi[j]) * cols + c]);
  // take along axis 1 (column indices) and flat.
  std::vector<I> hc = {static_cast<I>(6), static_cast<I>(std::is_unsigned_v<I> ? 5 : -1), static_cast<I>(0),
                       static_cast<I>(3)};
  auto t1 = kiln::take(x, on(hc, {4}, dev), 1);
  auto h1 = t1.to_vector();
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < hc.size(); ++j)
      ASSERT_EQ(h1[r * 4 + j], hx[r * cols + (hc[j] < 0 ? hc[j] + cols : hc[j])]);
  auto flat = kiln::take(x, on(hc, {2, 2}, dev));
  auto hf = flat.to_vector();
  for (std::size_t j = 0; j < hc.size(); ++j)
    ASSERT_EQ(hf[j], hx[hc[j] < 0 ? hc[j] + rows * cols : hc[j]]);
  // x[idx] = v with duplicates: the last occurrence's row stays.
  auto y = x.copy();
  auto v = random_values<E>(hi.size() * cols, g);
  y[idx] = on(v, {5, 8, cols}, dev);
  auto hy = y.to_vector();
  std::vector<E> want = hx;
  for (std::size_t j = 0; j < hi.size(); ++j)
    for (std::int64_t c = 0; c < cols; ++c) want[norm(hi[j]) * cols + c] = v[j * cols + c];
  EXPECT_EQ(hy, want);
  // x[idx] = scalar and = a one-element array fill every chosen row (issue
  // 24: only each row's first element was written, the rest from past the
  // value's buffer).
  for (bool as_array : {false, true}) {
    auto z = x.copy();
    const E one = random_values<E>(1, g)[0];
    if (as_array)
      z[idx] = on(std::vector<E>{one}, {1, 1}, dev);
    else
      z[idx] = one;
    std::vector<E> filled = hx;
    for (std::size_t j = 0; j < hi.size(); ++j)
      for (std::int64_t c = 0; c < cols; ++c) filled[norm(hi[j]) * cols + c] = one;
    EXPECT_EQ(z.to_vector(), filled) << (as_array ? "one-element array" : "scalar");
  }
}

TEST(Indices, TakeAndScatter) {
  const auto host = kiln::device::host();
  take_and_scatter<float, std::int64_t>(host);
  take_and_scatter<double, std::int32_t>(host);
  take_and_scatter<std::int8_t, std::int8_t>(host);
  take_and_scatter<bool, std::uint8_t>(host);
  take_and_scatter<std::complex<double>, std::int64_t>(host);
}

TEST(Indices, PutNonzeroAndErrors) {
  auto x = kiln::arange<std::int64_t>(0, 12).reshape({3, 4});
  kiln::put(x, kiln::asarray<std::int32_t>({0, -1, 5, 5}), kiln::asarray<std::int64_t>({100, 200, 300, 400}));
  auto hx = x.to_vector();
  EXPECT_EQ(hx[0], 100);
  EXPECT_EQ(hx[11], 200);
  EXPECT_EQ(hx[5], 400); // the last of the duplicates
  EXPECT_EQ(hx[1], 1);
  auto nz = kiln::nonzero(kiln::asarray<float>({0, 1.5f, 0, 0, -2, 0}, {2, 3}));
  ASSERT_EQ(nz.size(), 2u);
  EXPECT_EQ(nz[0].to_vector(), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(nz[1].to_vector(), (std::vector<std::int64_t>{1, 1}));
  auto y = kiln::zeros<float>({3});
  EXPECT_EQ(message_of<kiln::index_error>([&] { (void)kiln::array<float>(y[kiln::asarray<std::int64_t>({0, 5})]); }),
            "index 5 is out of bounds for axis 0 with size 3");
  EXPECT_EQ(message_of<kiln::index_error>([&] { (void)kiln::take(y, kiln::asarray<std::int64_t>({-4})); }),
            "index -4 is out of bounds for size 3");
  EXPECT_EQ(message_of<kiln::index_error>([&] { y[kiln::asarray<std::int64_t>({1, 3})] = 1.0f; }),
            "index 3 is out of bounds for axis 0 with size 3");
  EXPECT_EQ(y.to_vector(), (std::vector<float>{0, 0, 0})); // nothing written
  y[kiln::asarray<std::int64_t>({1, 1, 2})] += 1.0f;       // buffered: once each
  EXPECT_EQ(y.to_vector(), (std::vector<float>{0, 1, 1}));
}

TEST(IndexingGpu, MatchesTheHost) {
  KILN_REQUIRE_GPU();
  const auto gpu = kiln::device::cuda(0);
  mask_gather_and_scatter<float>(gpu);
  mask_gather_and_scatter<std::int8_t>(gpu);
  mask_gather_and_scatter<std::complex<double>>(gpu);
  mask_gather_and_scatter<bool>(gpu);
  take_and_scatter<float, std::int64_t>(gpu);
  take_and_scatter<double, std::int32_t>(gpu);
  take_and_scatter<std::uint8_t, std::int8_t>(gpu);
  take_and_scatter<std::complex<float>, std::int64_t>(gpu);
}

TEST(IndexingGpu, LargeMaskDuplicatesAndErrors) {
  KILN_REQUIRE_GPU();
  const auto gpu = kiln::device::cuda(0);
  std::mt19937 g(1);
  const std::int64_t n = 1000003;
  auto hx = random_values<float>(n, g);
  auto hm = random_mask(n, g);
  auto x = on(hx, {n}, gpu);
  auto mask = on_mask(hm, {n}, gpu);
  std::vector<float> want;
  for (std::int64_t i = 0; i < n; ++i)
    if (hm[i]) want.push_back(hx[i]);
  EXPECT_EQ(kiln::array<float>(x[mask]).to_vector(), want);
  // Duplicates: many indices to few rows, the same bits every time.
  std::vector<std::int64_t> hi(200000);
  std::uniform_int_distribution<int> pick(0, 99);
  for (auto &v : hi) v = pick(g);
  auto idx = on(hi, {static_cast<std::int64_t>(hi.size())}, gpu);
  auto vals = kiln::arange<float>(0, static_cast<float>(hi.size()), 1.0f, gpu);
  std::vector<float> last(100, -1);
  for (std::size_t j = 0; j < hi.size(); ++j) last[hi[j]] = static_cast<float>(j);
  for (int run = 0; run < 3; ++run) {
    auto y = kiln::full<float>({100}, -1.0f, gpu);
    y[idx] = vals;
    EXPECT_EQ(y.to_vector(), last);
  }
  auto small = kiln::zeros<float>({10}, gpu);
  EXPECT_EQ(message_of<kiln::index_error>([&] { (void)kiln::take(small, kiln::asarray<std::int64_t>({3, 10, -11}, gpu)); }),
            "index 10 is out of bounds for size 10");
  EXPECT_EQ(message_of<kiln::index_error>([&] { small[kiln::asarray<std::int64_t>({-11}, gpu)] = 1.0f; }),
            "index -11 is out of bounds for axis 0 with size 10");
  auto nz = kiln::nonzero(on_mask(hm, {n}, gpu));
  EXPECT_EQ(nz[0].size(), static_cast<std::int64_t>(want.size()));
}

} // namespace
