// Tests of array views: reshape (with -1, view or copy as NumPy), transpose,
// slice (Python slice semantics, checked against a table Python computed),
// broadcast_to, shared memory through views, and the errors of each.
#include "kiln/creation.hpp"
#include "kiln/kiln.hpp"

#include <gtest/gtest.h>

#include "expect.hpp"

#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

using kiln::array;
using kiln::shape;

std::vector<double> random_data(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-100.0, 100.0);
  std::vector<double> v(n);
  for (auto &x : v)
    x = u(gen);
  return v;
}

/// Element at `idx` of a host array, read through its strides directly.
template <class T>
T at(const array<T> &a, std::initializer_list<std::int64_t> idx) {
  std::int64_t off = 0;
  std::size_t d = 0;
  for (std::int64_t i : idx)
    off += i * a.strides()[d++];
  return a.data()[off];
}


array<double> host_array(const shape &s, unsigned seed,
                         std::vector<double> *data = nullptr) {
  std::vector<double> v =
      random_data(static_cast<std::size_t>(s.numel()), seed);
  if (data)
    *data = v;
  return kiln::asarray<double>(v, s, kiln::device::host());
}

} // namespace

TEST(Views, MetadataOfANewArray) {
  auto a = kiln::empty<float>({2, 3, 4}, kiln::device::host());
  EXPECT_EQ(a.ndim(), 3);
  EXPECT_EQ(a.size(), 24);
  EXPECT_EQ(a.nbytes(), 96);
  EXPECT_EQ(a.shape(), (shape{2, 3, 4}));
  EXPECT_EQ(a.strides(), (shape{12, 4, 1}));
  EXPECT_EQ(a.dtype(), kiln::dtype::float32);
  EXPECT_EQ(a.device(), kiln::device::host());
  EXPECT_TRUE(a.is_contiguous());
  auto z = kiln::empty<double>({0, 5}, kiln::device::host());
  EXPECT_EQ(z.size(), 0);
  EXPECT_TRUE(z.is_contiguous());
  auto s = kiln::empty<int>({}, kiln::device::host());
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_EQ(s.size(), 1);
}

TEST(Views, ReshapeIsAViewOfContiguousData) {
  std::vector<double> v;
  auto a = host_array({2, 3, 4}, 1, &v);
  auto b = a.reshape({4, -1});
  EXPECT_EQ(b.shape(), (shape{4, 6}));
  EXPECT_EQ(b.data(), a.data());
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t j = 0; j < 6; ++j)
      EXPECT_EQ(at(b, {i, j}), v[i * 6 + j]);
  auto c = a.reshape({-1});
  EXPECT_EQ(c.shape(), (shape{24}));
  auto d = a.reshape({1, 24, 1});
  EXPECT_EQ(d.data(), a.data());
  EXPECT_EQ(d.to_vector(), v);
  // Writing through the view is visible in the original.
  b.data()[5] = 12345.0;
  EXPECT_EQ(at(a, {0, 1, 1}), 12345.0);
}

TEST(Views, ReshapeOfNonContiguousViewsAsNumPy) {
  std::vector<double> v;
  auto a = host_array({4, 6}, 2, &v);
  // Every other row: rows stay contiguous, so merging (2,6)->(12,) is not
  // possible, but splitting columns is.
  auto rows = a.slice({kiln::range(0, std::nullopt, 2)});
  auto split = rows.reshape({2, 2, 3});
  EXPECT_EQ(split.data(), a.data()) << "splitting an axis keeps a view";
  EXPECT_EQ(split.strides(), (shape{12, 3, 1}));
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 2; ++j)
      for (std::int64_t k = 0; k < 3; ++k)
        EXPECT_EQ(at(split, {i, j, k}), v[2 * i * 6 + j * 3 + k]);
  auto flat = rows.reshape({12});
  EXPECT_NE(flat.storage(), a.storage()) << "merging non-adjacent rows copies";
  EXPECT_TRUE(flat.is_contiguous());
  for (std::int64_t i = 0; i < 12; ++i)
    EXPECT_EQ(at(flat, {i}), v[(i / 6) * 12 + i % 6]);
  // A transpose reshaped back to 1-d copies in C order of the transpose.
  auto t = a.T().reshape({-1});
  for (std::int64_t i = 0; i < 24; ++i)
    EXPECT_EQ(at(t, {i}), v[(i % 4) * 6 + i / 4]);
  // A transpose with a length-1 axis inserted stays a view.
  auto t2 = a.T().reshape({6, 1, 4});
  EXPECT_EQ(t2.data(), a.data());
  EXPECT_EQ(at(t2, {5, 0, 3}), v[3 * 6 + 5]);
}

TEST(Views, ReshapeErrors) {
  auto a = kiln::zeros<float>({6}, kiln::device::host());
  expect_message<kiln::shape_error>(
      [&] { a.reshape({4}); },
      "cannot reshape array of size 6 into shape (4,)");
  expect_message<kiln::shape_error>(
      [&] {
        a.reshape({4, -1});
      },
      "cannot reshape array of size 6 into shape (4,newaxis)");
  expect_message<kiln::value_error>(
      [&] {
        a.reshape({-1, -1});
      },
      "can only specify one unknown dimension");
  expect_message<kiln::value_error>(
      [&] {
        a.reshape({-2, -3});
      },
      "negative dimensions not allowed");
  // The program goes on.
  EXPECT_EQ(a.reshape({2, 3}).shape(), (shape{2, 3}));
  auto z = kiln::zeros<float>({0, 3}, kiln::device::host());
  EXPECT_EQ(z.reshape({3, 0, 5}).shape(), (shape{3, 0, 5}));
}

TEST(Views, TransposeMatchesIndexPermutation) {
  std::vector<double> v;
  auto a = host_array({2, 3, 4}, 3, &v);
  auto t = a.transpose({2, 0, 1});
  EXPECT_EQ(t.shape(), (shape{4, 2, 3}));
  EXPECT_EQ(t.data(), a.data());
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t j = 0; j < 2; ++j)
      for (std::int64_t k = 0; k < 3; ++k)
        EXPECT_EQ(at(t, {i, j, k}), v[j * 12 + k * 4 + i]);
  auto r = a.T();
  EXPECT_EQ(r.shape(), (shape{4, 3, 2}));
  EXPECT_FALSE(r.is_contiguous());
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t j = 0; j < 3; ++j)
      for (std::int64_t k = 0; k < 2; ++k)
        EXPECT_EQ(at(r, {i, j, k}), v[k * 12 + j * 4 + i]);
  auto n = a.transpose({-1, -3, -2});
  EXPECT_EQ(n.shape(), (shape{4, 2, 3}));
  // to_vector gives C order of the view.
  auto tv = t.to_vector();
  for (std::int64_t i = 0; i < 24; ++i)
    EXPECT_EQ(tv[i], v[(i / 3 % 2) * 12 + (i % 3) * 4 + i / 6]);
}

TEST(Views, TransposeErrors) {
  auto a = kiln::zeros<float>({2, 3}, kiln::device::host());
  expect_message<kiln::index_error>(
      [&] {
        a.transpose({0, 3});
      },
      "axis 3 is out of bounds for array of dimension 2");
  expect_message<kiln::index_error>(
      [&] {
        a.transpose({-3, 0});
      },
      "axis -3 is out of bounds for array of dimension 2");
  expect_message<kiln::value_error>([&] { a.transpose({0}); },
                                    "axes don't match array");
  expect_message<kiln::value_error>(
      [&] {
        a.transpose({1, 1});
      },
      "repeated axis in transpose");
  EXPECT_EQ(a.transpose({1, 0}).shape(), (shape{3, 2}));
}

TEST(Views, SlicesFollowPythonSemantics) {
  struct slice_case {
    std::int64_t len;
    std::optional<std::int64_t> start, stop;
    std::int64_t step;
    std::vector<std::int64_t>
        indices; // list(range(len))[start:stop:step] in Python
  };
  const std::vector<slice_case> cases = {
      {0, std::nullopt, std::nullopt, 1, {}},
      {0, std::nullopt, std::nullopt, -1, {}},
      {0, 1, std::nullopt, 2, {}},
      {0, -2, std::nullopt, -1, {}},
      {0, std::nullopt, -1, 3, {}},
      {0, 5, 1, -2, {}},
      {0, -10, 10, 1, {}},
      {0, 10, -10, -1, {}},
      {0, 2, 2, 1, {}},
      {0, 3, 1, 1, {}},
      {0, -1, -8, -3, {}},
      {0, std::nullopt, std::nullopt, -3, {}},
      {0, 0, std::nullopt, -1, {}},
      {0, std::nullopt, 2, -1, {}},
      {1, std::nullopt, std::nullopt, 1, {0}},
      {1, std::nullopt, std::nullopt, -1, {0}},
      {1, 1, std::nullopt, 2, {}},
      {1, -2, std::nullopt, -1, {}},
      {1, std::nullopt, -1, 3, {}},
      {1, 5, 1, -2, {}},
      {1, -10, 10, 1, {0}},
      {1, 10, -10, -1, {0}},
      {1, 2, 2, 1, {}},
      {1, 3, 1, 1, {}},
      {1, -1, -8, -3, {0}},
      {1, std::nullopt, std::nullopt, -3, {0}},
      {1, 0, std::nullopt, -1, {0}},
      {1, std::nullopt, 2, -1, {}},
      {5, std::nullopt, std::nullopt, 1, {0, 1, 2, 3, 4}},
      {5, std::nullopt, std::nullopt, -1, {4, 3, 2, 1, 0}},
      {5, 1, std::nullopt, 2, {1, 3}},
      {5, -2, std::nullopt, -1, {3, 2, 1, 0}},
      {5, std::nullopt, -1, 3, {0, 3}},
      {5, 5, 1, -2, {4, 2}},
      {5, -10, 10, 1, {0, 1, 2, 3, 4}},
      {5, 10, -10, -1, {4, 3, 2, 1, 0}},
      {5, 2, 2, 1, {}},
      {5, 3, 1, 1, {}},
      {5, -1, -8, -3, {4, 1}},
      {5, std::nullopt, std::nullopt, -3, {4, 1}},
      {5, 0, std::nullopt, -1, {0}},
      {5, std::nullopt, 2, -1, {4, 3}},
      {7, std::nullopt, std::nullopt, 1, {0, 1, 2, 3, 4, 5, 6}},
      {7, std::nullopt, std::nullopt, -1, {6, 5, 4, 3, 2, 1, 0}},
      {7, 1, std::nullopt, 2, {1, 3, 5}},
      {7, -2, std::nullopt, -1, {5, 4, 3, 2, 1, 0}},
      {7, std::nullopt, -1, 3, {0, 3}},
      {7, 5, 1, -2, {5, 3}},
      {7, -10, 10, 1, {0, 1, 2, 3, 4, 5, 6}},
      {7, 10, -10, -1, {6, 5, 4, 3, 2, 1, 0}},
      {7, 2, 2, 1, {}},
      {7, 3, 1, 1, {}},
      {7, -1, -8, -3, {6, 3, 0}},
      {7, std::nullopt, std::nullopt, -3, {6, 3, 0}},
      {7, 0, std::nullopt, -1, {0}},
      {7, std::nullopt, 2, -1, {6, 5, 4, 3}},
  };
  for (const auto &c : cases) {
    std::vector<double> v;
    auto a = host_array({c.len}, 4, &v);
    auto s = a.slice({kiln::range(c.start, c.stop, c.step)});
    SCOPED_TRACE("len " + std::to_string(c.len) + " step " +
                 std::to_string(c.step));
    ASSERT_EQ(s.size(), static_cast<std::int64_t>(c.indices.size()));
    auto got = s.to_vector();
    for (std::size_t i = 0; i < c.indices.size(); ++i) {
      EXPECT_EQ(at(s, {static_cast<std::int64_t>(i)}), v[c.indices[i]]);
      EXPECT_EQ(got[i], v[c.indices[i]]);
    }
  }
}

TEST(Views, MultiAxisSlicesIndicesAndAll) {
  std::vector<double> v;
  auto a = host_array({5, 6, 7}, 5, &v);
  auto s = a.slice({kiln::range(1, 5, 2), kiln::all,
                    kiln::range(std::nullopt, std::nullopt, -3)});
  EXPECT_EQ(s.shape(), (shape{2, 6, 3}));
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 6; ++j)
      for (std::int64_t k = 0; k < 3; ++k)
        EXPECT_EQ(at(s, {i, j, k}), v[(1 + 2 * i) * 42 + j * 7 + (6 - 3 * k)]);
  // An integer index drops its axis; negative counts from the end; missing
  // trailing axes are whole.
  auto row = a.slice({-1, 2});
  EXPECT_EQ(row.shape(), (shape{7}));
  for (std::int64_t k = 0; k < 7; ++k)
    EXPECT_EQ(at(row, {k}), v[4 * 42 + 2 * 7 + k]);
  auto scalar = a.slice({3, -2, 4});
  EXPECT_EQ(scalar.ndim(), 0);
  EXPECT_EQ(scalar.item(), v[3 * 42 + 4 * 7 + 4]);
  // Slices of slices.
  auto ss = s.slice({kiln::all, kiln::range(-1, 0, -2)});
  EXPECT_EQ(ss.shape(), (shape{2, 3, 3}));
  EXPECT_EQ(at(ss, {1, 2, 1}), v[3 * 42 + 1 * 7 + 3]);
}

TEST(Views, WritesThroughViewsAreShared) {
  std::vector<double> v;
  auto a = host_array({4, 5}, 6, &v);
  auto col = a.slice({kiln::all, 3});
  auto col_rev = a.slice({kiln::range(std::nullopt, std::nullopt, -1), 3});
  for (std::int64_t i = 0; i < 4; ++i)
    col.data()[i * col.strides()[0]] = 1000.0 + static_cast<double>(i);
  for (std::int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(at(a, {i, 3}), 1000.0 + static_cast<double>(i));
    EXPECT_EQ(at(col_rev, {i}), 1000.0 + static_cast<double>(3 - i));
    EXPECT_EQ(at(a, {i, 2}), v[i * 5 + 2]); // neighbours untouched
  }
  // copy_from_host through a strided view writes the right elements.
  std::vector<double> newcol = {-1.0, -2.0, -3.0, -4.0};
  col_rev.copy_from_host(newcol);
  for (std::int64_t i = 0; i < 4; ++i)
    EXPECT_EQ(at(a, {3 - i, 3}), newcol[i]);
  // The view keeps the buffer alive after the original is gone.
  auto keep = a.T();
  a = array<double>();
  EXPECT_EQ(at(keep, {3, 0}), -4.0);
}

TEST(Views, SliceErrors) {
  auto a = kiln::zeros<float>({3, 4}, kiln::device::host());
  expect_message<kiln::index_error>(
      [&] { a.slice({5}); }, "index 5 is out of bounds for axis 0 with size 3");
  expect_message<kiln::index_error>(
      [&] {
        a.slice({0, -5});
      },
      "index -5 is out of bounds for axis 1 with size 4");
  expect_message<kiln::index_error>(
      [&] {
        a.slice({0, 0, 0});
      },
      "too many indices for array: array is 2-dimensional, but 3 were indexed");
  expect_message<kiln::value_error>([&] { a.slice({kiln::range(0, 2, 0)}); },
                                    "slice step cannot be zero");
  EXPECT_EQ(a.slice({2}).shape(), (shape{4}));
}

TEST(Views, BroadcastToHasZeroStrides) {
  std::vector<double> v;
  auto a = host_array({3, 1}, 7, &v);
  auto b = kiln::broadcast_to(a, {2, 3, 4});
  EXPECT_EQ(b.shape(), (shape{2, 3, 4}));
  EXPECT_EQ(b.strides(), (shape{0, 1, 0}));
  EXPECT_EQ(b.data(), a.data());
  auto bv = b.to_vector();
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j)
      for (std::int64_t k = 0; k < 4; ++k) {
        EXPECT_EQ(at(b, {i, j, k}), v[j]);
        EXPECT_EQ(bv[i * 12 + j * 4 + k], v[j]);
      }
  auto s =
      kiln::broadcast_to(kiln::full<int>({}, 7, kiln::device::host()), {5});
  EXPECT_EQ(s.to_vector(), std::vector<int>(5, 7));
}

TEST(Views, BroadcastToErrors) {
  auto a = kiln::zeros<float>({3}, kiln::device::host());
  expect_message<kiln::shape_error>(
      [&] { kiln::broadcast_to(a, {4}); },
      "operands could not be broadcast together with remapped shapes "
      "[original->remapped]: (3,) "
      "and requested shape (4,)");
  expect_message<kiln::value_error>(
      [&] {
        kiln::broadcast_to(kiln::zeros<float>({2, 3}, kiln::device::host()),
                           {3});
      },
      "input operand has more dimensions than allowed by the axis remapping");
  expect_message<kiln::value_error>(
      [&] {
        kiln::broadcast_to(a, {-1, 3});
      },
      "all elements of broadcast shape must be non-negative");
  EXPECT_EQ(kiln::broadcast_to(a, {2, 3}).shape(), (shape{2, 3}));
}

TEST(Views, ItemAndTypedViewErrors) {
  auto a = kiln::full<double>({1, 1}, 2.5, kiln::device::host());
  EXPECT_EQ(a.item(), 2.5);
  auto b = kiln::zeros<double>({2}, kiln::device::host());
  expect_message<kiln::value_error>(
      [&] { b.item(); },
      "can only convert an array of size 1 to a Python scalar");
  expect_message<kiln::value_error>(
      [&] { array<float> f(b); },
      "array of dtype float64 cannot be viewed as float32");
  EXPECT_EQ(b.slice({1}).item(), 0.0);
}

TEST(Views, ElementViewsItemAtIndicesAndDot) {
  // x(i, j), x.item(i), x.item(i, j) and x.dot(y) against the data read
  // through the strides, on a transposed view (item's flat index is C order
  // over the view, as NumPy's).
  std::vector<double> v;
  const array<double> base = host_array({3, 5}, 27, &v);
  const array<double> x = base.T(); // shape (5, 3)
  for (std::int64_t i = 0; i < 5; ++i)
    for (std::int64_t j = 0; j < 3; ++j) {
      const double want = v[static_cast<std::size_t>(j * 5 + i)];
      EXPECT_EQ(x(i, j).ndim(), 0);
      EXPECT_EQ(x(i, j).item(), want);
      EXPECT_EQ(x(i - 5, j - 3).item(), want);
      EXPECT_EQ(x.item(i, j), want);
      EXPECT_EQ(x.item(i * 3 + j), want);
      EXPECT_EQ(x.item(i * 3 + j - 15), want);
    }
  EXPECT_EQ(x(2).ndim(), 1); // fewer indices: the sub-array, as x[2]
  EXPECT_EQ(x(2).item(1), v[1 * 5 + 2]);
  // A write through the element view lands in the base.
  x(4, 1).fill(-7.0);
  EXPECT_EQ(at(base, {1, 4}), -7.0);
  expect_message<kiln::index_error>([&] { (void)x.item(15); }, "index 15 is out of bounds for size 15");
  expect_message<kiln::value_error>([&] { (void)x.item(1, 2, 0); }, "incorrect number of indices for array");
  expect_message<kiln::index_error>([&] { (void)x(5, 0); }, "index 5 is out of bounds for axis 0 with size 5");
  // x.dot(y) is np.dot: a matrix-vector product here, in float64.
  const array<float> y = kiln::asarray<float>({1.5f, -2.0f, 0.25f}, kiln::device::host());
  const std::vector<double> got = x.dot(y).to_vector();
  ASSERT_EQ(got.size(), 5u);
  for (std::int64_t i = 0; i < 5; ++i) {
    const double want = at(x, {i, 0}) * 1.5 - at(x, {i, 1}) * 2.0 + at(x, {i, 2}) * 0.25;
    EXPECT_NEAR(got[static_cast<std::size_t>(i)], want, 1e-12 * (1 + std::abs(want)));
  }
}
