// Tests of copies with dtype conversion: every pair of the nine dtypes from
// strided sources (transposed, negative steps, broadcast), assignment with
// broadcasting and overlap, fill, and the errors of each. GPU tests compare
// device results with the host's.
#include "gpu.hpp"

#include "kiln/creation.hpp"
#include "kiln/kiln.hpp"

#include <gtest/gtest.h>

#include "expect.hpp"

#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace {

using kiln::array;
using kiln::shape;
using c64 = std::complex<float>;
using c128 = std::complex<double>;
using all_types = std::tuple<bool, std::int8_t, std::uint8_t, std::int32_t,
                             std::int64_t, float, double, c64, c128>;

template <class T> struct is_complex : std::false_type {};
template <class R> struct is_complex<std::complex<R>> : std::true_type {};

/// Random values of T that every conversion keeps defined: integers in
/// [-100, 100], reals in [0, 100) (no negative float -> unsigned), complex
/// with both parts random.
template <class T> std::vector<T> random_values(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> ints(-100, 100);
  std::uniform_real_distribution<double> reals(0.0, 100.0);
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto x = T();
    if constexpr (std::is_same_v<T, bool>)
      x = ints(gen) > 0;
    else if constexpr (std::is_same_v<T, std::uint8_t>)
      x = static_cast<T>(ints(gen) + 100);
    else if constexpr (std::is_integral_v<T>)
      x = static_cast<T>(ints(gen));
    else if constexpr (is_complex<T>::value)
      x = T(static_cast<typename T::value_type>(reals(gen)),
            static_cast<typename T::value_type>(reals(gen) - 50.0));
    else
      x = static_cast<T>(reals(gen));
    v[i] = x;
  }
  // Some exact zeros for bool conversions.
  for (std::size_t i = 0; i < n; i += 7)
    v[i] = T(0);
  return v;
}

/// The conversion NumPy's astype does, written with the standard types.
template <class To, class From> To reference(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_complex<To>::value) {
    using R = typename To::value_type;
    if constexpr (is_complex<From>::value)
      return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    else
      return To(static_cast<R>(v), R(0));
  } else if constexpr (is_complex<From>::value) {
    return static_cast<To>(v.real());
  } else {
    return static_cast<To>(v);
  }
}

template <class F, class... Ts> void for_each_type(std::tuple<Ts...> *, F &&f) {
  (f(static_cast<Ts *>(nullptr)), ...);
}
template <class F> void for_each_type(F &&f) {
  for_each_type(static_cast<all_types *>(nullptr), f);
}

std::string type_name(kiln::dtype t) { return std::string(kiln::name(t)); }

/// For every (From, To): a strided source of From converted to To on `dev`
/// equals the reference conversion of the host data.
void check_all_pairs(kiln::device dev) {
  for_each_type([&](auto *from_tag) {
    using From = std::remove_pointer_t<decltype(from_tag)>;
    const std::vector<From> v = random_values<From>(5 * 6 * 4, 11);
    array<From> a = kiln::asarray<From>(v, {5, 6, 4}, dev);
    // View (i, j, k) -> a[4 - 2i, j, k] transposed to (k, i, j): shape (4, 3,
    // 6).
    array<From> view = a.slice({kiln::range(std::nullopt, std::nullopt, -2)})
                           .transpose({2, 0, 1});
    for_each_type([&](auto *to_tag) {
      using To = std::remove_pointer_t<decltype(to_tag)>;
      SCOPED_TRACE(type_name(kiln::dtype_of<From>) + " -> " +
                   type_name(kiln::dtype_of<To>) + " on " + dev.str());
      array<To> c = view.template astype<To>();
      ASSERT_EQ(c.shape(), (shape{4, 3, 6}));
      EXPECT_TRUE(c.is_contiguous());
      std::vector<To> got = c.to_vector();
      for (std::int64_t k = 0; k < 4; ++k)
        for (std::int64_t i = 0; i < 3; ++i)
          for (std::int64_t j = 0; j < 6; ++j) {
            To want = reference<To>(v[(4 - 2 * i) * 24 + j * 4 + k]);
            ASSERT_EQ(got[k * 18 + i * 6 + j], want)
                << "at " << k << "," << i << "," << j;
          }
    });
  });
}


} // namespace

TEST(CopyCast, AllDtypePairsFromStridedSourcesOnHost) {
  check_all_pairs(kiln::device::host());
}

TEST(CopyCast, NegativeRealsTruncateTowardZero) {
  std::vector<double> v = {-1.75, -0.5, 2.9, -100.99, 0.0, 7.5};
  auto a = kiln::asarray<double>(v, kiln::device::host());
  auto i32 = a.astype<std::int32_t>().to_vector();
  auto i8 = a.astype<std::int8_t>().to_vector();
  auto b = a.astype<bool>().to_vector();
  for (std::size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(i32[i], static_cast<std::int32_t>(v[i]));
    EXPECT_EQ(i8[i], static_cast<std::int8_t>(v[i]));
    EXPECT_EQ(b[i], v[i] != 0.0);
  }
}

TEST(CopyCast, CopyIsIndependentOfTheOriginal) {
  auto v = random_values<double>(12, 3);
  auto a = kiln::asarray<double>(v, {3, 4}, kiln::device::host());
  auto c = a.copy();
  EXPECT_NE(c.data(), a.data());
  c.data()[0] = -1.0;
  EXPECT_EQ(a.data()[0], v[0]);
  EXPECT_EQ(c.to_vector()[1], v[1]);
}

TEST(CopyCast, AssignBroadcastsAndConverts) {
  auto dst = kiln::zeros<double>({3, 4}, kiln::device::host());
  std::vector<std::int32_t> row = {5, -6, 7, -8};
  auto src = kiln::asarray<std::int32_t>(row, kiln::device::host());
  kiln::detail::assign(dst, src, kiln::stream::current(kiln::device::host()));
  auto got = dst.to_vector();
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(got[i], static_cast<double>(row[i % 4]));
  // Into a strided view (a column), from a 0-d array.
  auto col = dst.slice({kiln::all, 1});
  kiln::detail::assign(col, kiln::full<float>({}, 2.5f, kiln::device::host()),
                       kiln::stream::current(kiln::device::host()));
  got = dst.to_vector();
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(got[i], i % 4 == 1 ? 2.5 : static_cast<double>(row[i % 4]));
}

TEST(CopyCast, AssignOfOverlappingViewsUsesATemporary) {
  std::vector<std::int64_t> v = {1, 2, 3, 4, 5, 6, 7, 8};
  auto a = kiln::asarray<std::int64_t>(v, kiln::device::host());
  // a[1:] = a[:-1] (NumPy gives the shifted original)
  kiln::detail::assign(a.slice({kiln::range(1, std::nullopt)}),
                       a.slice({kiln::range(std::nullopt, -1)}),
                       kiln::stream::current(kiln::device::host()));
  EXPECT_EQ(a.to_vector(), (std::vector<std::int64_t>{1, 1, 2, 3, 4, 5, 6, 7}));
  // a[:] = a[::-1]
  kiln::detail::assign(a,
                       a.slice({kiln::range(std::nullopt, std::nullopt, -1)}),
                       kiln::stream::current(kiln::device::host()));
  EXPECT_EQ(a.to_vector(), (std::vector<std::int64_t>{7, 6, 5, 4, 3, 2, 1, 1}));
}

TEST(CopyCast, AssignErrors) {
  auto dst = kiln::zeros<float>({2, 4}, kiln::device::host());
  auto src = kiln::zeros<float>({3}, kiln::device::host());
  expect_message<kiln::shape_error>(
      [&] {
        kiln::detail::assign(dst, src,
                             kiln::stream::current(kiln::device::host()));
      },
      "could not broadcast input array from shape (3,) into shape (2,4)");
  EXPECT_NO_THROW(
      kiln::detail::assign(dst, kiln::ones<float>({4}, kiln::device::host()),
                           kiln::stream::current(kiln::device::host())));
  EXPECT_EQ(dst.to_vector(), std::vector<float>(8, 1.0f));
  // NumPy strips a source's leading axes of size 1 beyond dst's rank.
  auto lead = kiln::asarray<float>(std::vector<float>{1, 2, 3, 4}, {1, 1, 4}, kiln::device::host());
  kiln::detail::assign(dst, lead, kiln::stream::current(kiln::device::host()));
  EXPECT_EQ(dst.to_vector(), (std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4}));
  expect_message<kiln::shape_error>(
      [&] {
        kiln::detail::assign(dst, kiln::zeros<float>({2, 2, 4}, kiln::device::host()),
                             kiln::stream::current(kiln::device::host()));
      },
      "could not broadcast input array from shape (2,2,4) into shape (2,4)");
}

TEST(CopyCast, FillEveryDtypeThroughStridedViews) {
  for_each_type([&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    auto v = random_values<T>(30, 5);
    auto a = kiln::asarray<T>(v, {5, 6}, kiln::device::host());
    T value = random_values<T>(3, 9)[1];
    auto view = a.slice(
        {kiln::range(std::nullopt, std::nullopt, 2), kiln::range(5, 0, -2)});
    kiln::detail::fill(view, &value,
                       kiln::stream::current(kiln::device::host()));
    auto got = a.to_vector();
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 6; ++j) {
        bool in_view = i % 2 == 0 && (j == 5 || j == 3 || j == 1);
        EXPECT_EQ(got[i * 6 + j], in_view ? value : v[i * 6 + j]);
      }
  });
}

TEST(CopyCast, HighRankCopies) {
  // Rank 10 with a transposed layout: more dimensions than a GPU launch takes.
  shape s = shape::filled(10, 2);
  auto v = random_values<double>(1024, 8);
  auto a = kiln::asarray<double>(v, s, kiln::device::host());
  auto t = a.T().astype<float>();
  auto got = t.to_vector();
  for (std::int64_t i = 0; i < 1024; ++i) {
    std::int64_t src = 0;
    for (int d = 0; d < 10; ++d)
      src |= ((i >> d) & 1)
             << (9 - d); // the transpose reverses the bits of the index
    EXPECT_EQ(got[i], static_cast<float>(v[src]));
  }
}

TEST(CopyCastGpu, AllDtypePairsMatchTheHost) {
  KILN_REQUIRE_GPU();
  check_all_pairs(kiln::device::cuda(0));
}

TEST(CopyCastGpu, StridedAssignFillAndHighRankOnDevice) {
  KILN_REQUIRE_GPU();
  kiln::device gpu = kiln::device::cuda(0), host = kiln::device::host();
  auto v = random_values<double>(1024, 12);
  shape s = shape::filled(10, 2);
  auto h = kiln::asarray<double>(v, s, host);
  auto g = kiln::asarray<double>(v, s, gpu);
  EXPECT_EQ(g.T().astype<float>().to_vector(),
            h.T().astype<float>().to_vector());
  // Broadcast assign into a negative-step view on the device.
  auto hv = kiln::asarray<double>(v, {32, 32}, host);
  auto gv = kiln::asarray<double>(v, {32, 32}, gpu);
  std::vector<std::int32_t> row(16);
  for (int i = 0; i < 16; ++i)
    row[i] = i * 3 - 20;
  auto hr = kiln::asarray<std::int32_t>(row, host);
  auto gr = kiln::asarray<std::int32_t>(row, gpu);
  auto hview = hv.slice({kiln::range(std::nullopt, std::nullopt, -2),
                         kiln::range(1, std::nullopt, 2)});
  auto gview = gv.slice({kiln::range(std::nullopt, std::nullopt, -2),
                         kiln::range(1, std::nullopt, 2)});
  kiln::detail::assign(hview, hr, kiln::stream::current(host));
  kiln::detail::assign(gview, gr, kiln::stream::current(gpu));
  EXPECT_EQ(gv.to_vector(), hv.to_vector());
  c128 value(1.5, -2.5);
  auto hc = kiln::zeros<c128>({7, 9}, host);
  auto gc = kiln::zeros<c128>({7, 9}, gpu);
  kiln::detail::fill(hc.T(), &value, kiln::stream::current(host));
  kiln::detail::fill(gc.T(), &value, kiln::stream::current(gpu));
  EXPECT_EQ(gc.to_vector(), hc.to_vector());
  // Overlapping assignment on the device.
  auto go = kiln::asarray<double>(v, gpu);
  auto ho = kiln::asarray<double>(v, host);
  kiln::detail::assign(go.slice({kiln::range(1, std::nullopt)}),
                       go.slice({kiln::range(std::nullopt, -1)}),
                       kiln::stream::current(gpu));
  kiln::detail::assign(ho.slice({kiln::range(1, std::nullopt)}),
                       ho.slice({kiln::range(std::nullopt, -1)}),
                       kiln::stream::current(host));
  EXPECT_EQ(go.to_vector(), ho.to_vector());
}

TEST(CopyCastGpu, MixingDevicesIsADeviceError) {
  KILN_REQUIRE_GPU();
  auto h = kiln::zeros<float>({4}, kiln::device::host());
  auto g = kiln::zeros<float>({4}, kiln::device::cuda(0));
  expect_message<kiln::device_error>(
      [&] {
        kiln::detail::assign(g, h,
                             kiln::stream::current(kiln::device::cuda(0)));
      },
      "arrays are on different devices: cuda:0 and host");
}
