// Joining and shaping (kiln/shaping.hpp): concatenate, stack, split,
// meshgrid, tile, repeat, flip, roll, pad, squeeze, expand_dims, ravel,
// flatten and copyto, on random data of eight dtypes, ranks 0 to 4, every
// axis (negative ones too) and inputs that are views (transposed, negative
// steps, offsets with steps), each result checked element by element
// against a reference computed here from the host data; which results are
// views; NumPy's errors with their types and messages; and the same cases
// on a GPU against the host (skipped without one).
#include "expect.hpp"
#include "gpu.hpp"
#include "host_arrays.hpp"

#include <gtest/gtest.h>
#include <kiln/kiln.hpp>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using kiln::shape;
using index_t = std::vector<std::int64_t>;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

const kiln::device host = kiln::device::host();

/// Arrays of rank 1 to 4 (with dimensions of size 1) the cases run on.
const std::vector<shape> shapes = {{5}, {3, 4}, {2, 3, 4}, {2, 1, 3, 2}};

std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }
std::int64_t rank(const shape &s) { return static_cast<std::int64_t>(s.size()); }
std::int64_t positive(std::int64_t axis, std::int64_t nd) { return axis < 0 ? axis + nd : axis; }

/// `n` random values of E: of both signs, neither zeros nor a sequence.
template <class E> std::vector<E> random_values(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(-100, 100);
  std::vector<E> v(n);
  for (std::size_t k = 0; k < n; ++k) {
    if constexpr (std::is_same_v<E, bool>)
      v[k] = d(g) > 0;
    else if constexpr (kiln::is_std_complex<E>::value)
      v[k] = E(d(g) * 0.5, d(g) * 0.25);
    else if constexpr (std::is_floating_point_v<E>)
      v[k] = static_cast<E>(d(g) * 0.37);
    else
      v[k] = static_cast<E>(d(g));
  }
  return v;
}

/// Position of index `i` in C order in an array of shape `s`.
std::int64_t flat(const shape &s, const index_t &i) {
  std::int64_t k = 0;
  for (std::size_t d = 0; d < s.size(); ++d)
    k = k * s[d] + i[d];
  return k;
}

/// f(i) for every index i of shape `s`, in C order.
template <class F> void for_each_index(const shape &s, F &&f) {
  if (s.numel() == 0)
    return;
  index_t i(s.size(), 0);
  for (;;) {
    f(i);
    std::size_t d = s.size();
    while (d > 0 && ++i[d - 1] == s[d - 1])
      i[--d] = 0;
    if (d == 0)
      return;
  }
}

/// Host data of an n-d array in C order: the tests' reference.
template <class E> struct nd {
  shape s;
  std::vector<E> v;
  E operator()(const index_t &i) const { return v[at(flat(s, i))]; }
};
template <class E> nd<E> random_nd(const shape &s, unsigned seed) { return {s, random_values<E>(at(s.numel()), seed)}; }
/// The reference of shape `s` whose element i is f(i).
template <class E, class F> nd<E> build(const shape &s, F &&f) {
  nd<E> r{s, std::vector<E>(at(s.numel()))};
  for_each_index(s, [&](const index_t &i) { r.v[at(flat(s, i))] = f(i); });
  return r;
}

/// How an input's elements lie in memory.
enum class layout { contiguous, transposed, reversed, strided };
const layout layouts[] = {layout::contiguous, layout::transposed, layout::reversed, layout::strided};

/// An array on `dev` holding `x`, as a view of the given layout: the
/// transpose of a C-contiguous array, every axis stepped by -1, or every
/// axis stepped by 2 from an offset of 1 (between garbage elements).
template <class E> kiln::array<E> laid_out(const nd<E> &x, layout k, kiln::device dev) {
  const std::size_t r = x.s.size();
  shape bs = x.s; // the backing array's shape
  if (k == layout::transposed)
    std::reverse(bs.begin(), bs.end());
  if (k == layout::strided)
    for (auto &n : bs)
      n = 2 * n + 1;
  std::vector<E> b = random_values<E>(at(bs.numel()), 999);
  for_each_index(x.s, [&](const index_t &i) {
    index_t j = i;
    for (std::size_t d = 0; d < r; ++d)
      j[d] = k == layout::transposed ? i[r - 1 - d]
             : k == layout::reversed ? x.s[d] - 1 - i[d]
             : k == layout::strided  ? 2 * i[d] + 1
                                     : i[d];
    b[at(flat(bs, j))] = x(i);
  });
  const kiln::array<E> base = make(b, bs).to(dev);
  if (k == layout::transposed)
    return base.T();
  std::vector<kiln::slice_arg> args;
  for (std::size_t d = 0; d < r; ++d)
    args.emplace_back(k == layout::reversed ? kiln::range(std::nullopt, std::nullopt, -1)
                                            : kiln::range(k == layout::strided ? 1 : 0, bs[d], k == layout::strided ? 2 : 1));
  return kiln::array<E>(kiln::detail::slice(base, args));
}

std::string describe(const std::string &what, const shape &s, std::int64_t axis, layout k = layout::contiguous) {
  return what + " of shape " + kiln::to_string(s) + ", axis " + std::to_string(axis) + ", layout " +
         std::to_string(static_cast<int>(k));
}

/// `got` has `want`'s shape and elements.
template <class E> void expect_array(const kiln::array<E> &got, const nd<E> &want, const std::string &what) {
  SCOPED_TRACE(what + " (" + std::string(kiln::name(kiln::dtype_of<E>)) + ")");
  ASSERT_EQ(kiln::to_string(got.shape()), kiln::to_string(want.s));
  const auto g = got.to_vector();
  for (std::size_t k = 0; k < want.v.size(); ++k)
    if (!(E(g[k]) == want.v[k])) {
      ADD_FAILURE() << "element " << k << ": " << testing::PrintToString(E(g[k])) << ", expected "
                    << testing::PrintToString(want.v[k]);
      return;
    }
}

/// A case returns the arrays it made, so that a GPU run can be compared
/// with the host's.
template <class E> using results = std::vector<kiln::array<E>>;

template <class E> results<E> concatenate_case(kiln::device dev) {
  results<E> out;
  unsigned seed = 100;
  for (const shape &base : shapes)
    for (std::int64_t axis = -rank(base); axis < rank(base); ++axis) {
      const std::size_t a = at(positive(axis, rank(base)));
      std::vector<nd<E>> in;
      std::vector<kiln::array<E>> arrays;
      for (std::int64_t len : {base[a], std::int64_t(1), std::int64_t(0), std::int64_t(2)}) {
        shape s = base;
        s[a] = len;
        in.push_back(random_nd<E>(s, seed++));
        arrays.push_back(laid_out(in.back(), layouts[(in.size() + a) % 4], dev));
      }
      shape s = base;
      s[a] = base[a] + 3;
      const auto want = build<E>(s, [&](index_t i) {
        std::size_t k = 0;
        for (; i[a] >= in[k].s[a]; ++k)
          i[a] -= in[k].s[a];
        return in[k](i);
      });
      out.push_back(kiln::concatenate(arrays, axis));
      expect_array(out.back(), want, describe("concatenate", base, axis));
    }
  // The braced form, the default axis 0, and axis=None (flattened).
  const auto x = random_nd<E>({2, 3}, 7), y = random_nd<E>({4}, 8);
  const auto xv = laid_out(x, layout::transposed, dev), yv = laid_out(y, layout::reversed, dev);
  out.push_back(kiln::concatenate({xv, xv}));
  expect_array(out.back(), build<E>({4, 3}, [&](const index_t &i) { return x({i[0] % 2, i[1]}); }), "axis 0");
  out.push_back(kiln::concatenate({xv, yv}, std::nullopt));
  nd<E> joined{{10}, x.v};
  joined.v.insert(joined.v.end(), y.v.begin(), y.v.end());
  expect_array(out.back(), joined, "axis None");
  EXPECT_NE(out.back().data(), xv.data());
  return out;
}

template <class E> results<E> stack_case(kiln::device dev) {
  results<E> out;
  unsigned seed = 200;
  for (const shape &base : {shape{}, shape{5}, shape{3, 4}, shape{2, 3, 2}})
    for (std::int64_t axis = -rank(base) - 1; axis <= rank(base); ++axis) {
      const std::size_t a = at(positive(axis, rank(base) + 1));
      std::vector<nd<E>> in;
      std::vector<kiln::array<E>> arrays;
      for (int k = 0; k < 3; ++k) {
        in.push_back(random_nd<E>(base, seed++));
        arrays.push_back(laid_out(in.back(), layouts[(at(k) + a) % 4], dev));
      }
      shape s = base;
      s.insert(a, 3);
      const auto want = build<E>(s, [&](index_t i) {
        const std::int64_t k = i[a];
        i.erase(i.begin() + static_cast<std::ptrdiff_t>(a));
        return in[at(k)](i);
      });
      out.push_back(kiln::stack(arrays, axis));
      expect_array(out.back(), want, describe("stack", base, axis));
    }
  const auto x = random_nd<E>({2}, 9);
  const auto xv = laid_out(x, layout::strided, dev);
  out.push_back(kiln::stack({xv, xv}, -1));
  expect_array(out.back(), build<E>({2, 2}, [&](const index_t &i) { return x({i[0]}); }), "stack braced");
  return out;
}

/// Python's slice bound `i` of an axis of `len` (negative from the end,
/// clamped).
std::int64_t bound(std::int64_t i, std::int64_t len) { return i < 0 ? std::max<std::int64_t>(i + len, 0) : std::min(i, len); }

/// `part` is x[start:stop] along axis `a` and a view of `xv`.
template <class E>
void expect_part(const kiln::array<E> &part, const kiln::array<E> &xv, const nd<E> &x, std::size_t a,
                 std::int64_t start, std::int64_t stop, const std::string &what) {
  shape s = x.s;
  s[a] = std::max<std::int64_t>(stop - start, 0);
  expect_array(part, build<E>(s, [&](index_t i) { i[a] += start; return x(i); }), what);
  if (part.size() > 0)
    EXPECT_EQ(part.data(), xv.data() + start * xv.strides()[a]) << what << ": not a view";
}

template <class E> results<E> split_case(kiln::device dev) {
  results<E> out;
  unsigned seed = 300;
  for (const shape &base : shapes)
    for (std::int64_t axis = -rank(base); axis < rank(base); ++axis) {
      const std::size_t a = at(positive(axis, rank(base)));
      const std::int64_t len = base[a];
      const auto x = random_nd<E>(base, seed);
      const auto xv = laid_out(x, layouts[seed++ % 4], dev);
      for (std::int64_t n : {std::int64_t(1), len, len % 2 == 0 ? std::int64_t(2) : len}) {
        const auto parts = kiln::split(xv, n, axis);
        EXPECT_EQ(parts.size(), at(n));
        if (parts.size() != at(n))
          return out;
        for (std::int64_t p = 0; p < n; ++p)
          expect_part(parts[at(p)], xv, x, a, p * len / n, (p + 1) * len / n, describe("split", base, axis));
        out.insert(out.end(), parts.begin(), parts.end());
      }
      // Indices as Python slices: x[:1], x[1:-1], x[-1:len+3], x[len+3:0], x[0:].
      const std::vector<std::int64_t> indices = {1, -1, len + 3, 0};
      const auto parts = kiln::split(xv, indices, axis);
      EXPECT_EQ(parts.size(), 5u);
      if (parts.size() != 5)
        return out;
      std::int64_t start = 0;
      for (std::size_t p = 0; p < 5; ++p) {
        const std::int64_t stop = p < 4 ? bound(indices[p], len) : len;
        expect_part(parts[p], xv, x, a, start, std::max(start, stop), describe("split at indices", base, axis));
        start = stop;
      }
      out.insert(out.end(), parts.begin(), parts.end());
    }
  return out;
}

template <class E> results<E> meshgrid_case(kiln::device dev) {
  results<E> out;
  const auto x = random_nd<E>({4}, 400), y = random_nd<E>({2, 3}, 401); // y is flattened
  const auto xv = laid_out(x, layout::strided, dev), yv = laid_out(y, layout::transposed, dev);
  const auto y_at = [&](std::int64_t k) { return y.v[at(k)]; };
  auto [X, Y] = kiln::meshgrid(xv, yv);
  expect_array(X, build<E>({6, 4}, [&](const index_t &i) { return x({i[1]}); }), "meshgrid xy X");
  expect_array(Y, build<E>({6, 4}, [&](const index_t &i) { return y_at(i[0]); }), "meshgrid xy Y");
  auto [I, J] = kiln::meshgrid(xv, yv, kiln::indexing::ij);
  expect_array(I, build<E>({4, 6}, [&](const index_t &i) { return x({i[0]}); }), "meshgrid ij X");
  expect_array(J, build<E>({4, 6}, [&](const index_t &i) { return y_at(i[1]); }), "meshgrid ij Y");
  for (const auto &r : {X, Y, I, J}) {
    EXPECT_TRUE(r.writeable() && r.is_contiguous()); // new arrays: NumPy's default copy=True
    EXPECT_TRUE(r.data() != xv.data() && r.data() != yv.data());
  }
  // Each output keeps its input's dtype.
  auto [A, B] = kiln::meshgrid(xv, kiln::asarray<double>(std::vector<double>{0.5, -1.5}, shape{2}, dev));
  static_assert(std::is_same_v<decltype(B), kiln::array<double>>);
  expect_array(A, build<E>({2, 4}, [&](const index_t &i) { return x({i[1]}); }), "meshgrid with a float64 y");
  EXPECT_EQ(B.to_vector(), (std::vector<double>{0.5, 0.5, 0.5, 0.5, -1.5, -1.5, -1.5, -1.5}));
  out.insert(out.end(), {X, Y, I, J, A});
  return out;
}

template <class E> results<E> tile_case(kiln::device dev) {
  results<E> out;
  unsigned seed = 500;
  const std::vector<std::vector<std::int64_t>> reps_list = {{2}, {2, 3}, {1, 3, 1}, {2, 1, 1, 2}, {0, 2}, {}};
  for (const shape &base : {shape{}, shape{4}, shape{2, 3}, shape{2, 1, 3}, shape{1, 2, 2, 2}})
    for (const auto &reps : reps_list) {
      const auto x = random_nd<E>(base, seed);
      const auto xv = laid_out(x, layouts[seed++ % 4], dev);
      const std::size_t nd_out = std::max(reps.size(), base.size());
      shape xs = shape::filled(nd_out - base.size(), 1), s;
      for (std::int64_t n : base)
        xs.push_back(n);
      for (std::size_t d = 0; d < nd_out; ++d)
        s.push_back(xs[d] * (d < nd_out - reps.size() ? 1 : reps[d - (nd_out - reps.size())]));
      const auto want = build<E>(s, [&](const index_t &i) {
        index_t j;
        for (std::size_t d = nd_out - base.size(); d < nd_out; ++d)
          j.push_back(i[d] % xs[d]);
        return x(j);
      });
      out.push_back(kiln::tile(xv, reps));
      expect_array(out.back(), want, "tile " + kiln::to_string(shape(std::span<const std::int64_t>(reps))) + " of " +
                                         kiln::to_string(base));
    }
  const auto x = random_nd<E>({3}, 510);
  out.push_back(kiln::tile(laid_out(x, layout::reversed, dev), 2));
  expect_array(out.back(), build<E>({6}, [&](const index_t &i) { return x({i[0] % 3}); }), "tile 2");
  return out;
}

template <class E> results<E> repeat_case(kiln::device dev) {
  results<E> out;
  unsigned seed = 600;
  std::mt19937 g(5);
  for (const shape &base : shapes) {
    const auto x = random_nd<E>(base, seed);
    const auto xv = laid_out(x, layouts[seed++ % 4], dev);
    for (std::int64_t axis = -rank(base); axis < rank(base); ++axis) {
      const std::size_t a = at(positive(axis, rank(base)));
      for (std::int64_t n : {0, 1, 3}) {
        shape s = base;
        s[a] *= n;
        out.push_back(kiln::repeat(xv, n, axis));
        expect_array(out.back(), build<E>(s, [&](index_t i) { i[a] /= n; return x(i); }),
                     describe("repeat " + std::to_string(n), base, axis));
      }
      // One count per element along the axis.
      std::vector<std::int64_t> counts(at(base[a])), from; // from: the source index of each output index
      for (std::int64_t k = 0; k < base[a]; ++k) {
        counts[at(k)] = std::uniform_int_distribution<std::int64_t>(0, 3)(g);
        from.insert(from.end(), at(counts[at(k)]), k);
      }
      shape s = base;
      s[a] = static_cast<std::int64_t>(from.size());
      out.push_back(kiln::repeat(xv, counts, axis));
      expect_array(out.back(), build<E>(s, [&](index_t i) { i[a] = from[at(i[a])]; return x(i); }),
                   describe("repeat counts", base, axis));
    }
    // No axis: over the flattened x.
    out.push_back(kiln::repeat(xv, 2));
    expect_array(out.back(), build<E>({2 * base.numel()}, [&](const index_t &i) { return x.v[at(i[0] / 2)]; }),
                 describe("repeat flattened", base, 0));
  }
  return out;
}

template <class E> results<E> flip_case(kiln::device dev) {
  results<E> out;
  unsigned seed = 700;
  for (const shape &base : shapes) {
    const auto x = random_nd<E>(base, seed);
    const auto xv = laid_out(x, layouts[seed++ % 4], dev);
    for (std::int64_t axis = -rank(base); axis < rank(base); ++axis) {
      const std::size_t a = at(positive(axis, rank(base)));
      out.push_back(kiln::flip(xv, axis));
      expect_array(out.back(), build<E>(base, [&](index_t i) { i[a] = base[a] - 1 - i[a]; return x(i); }),
                   describe("flip", base, axis));
      EXPECT_EQ(out.back().data(), xv.data() + (base[a] - 1) * xv.strides()[a]) << "flip is a view";
    }
    out.push_back(kiln::flip(xv));
    expect_array(out.back(), build<E>(base, [&](index_t i) {
                   for (std::size_t d = 0; d < i.size(); ++d)
                     i[d] = base[d] - 1 - i[d];
                   return x(i);
                 }),
                 describe("flip all", base, 0));
  }
  return out;
}

template <class E> results<E> roll_case(kiln::device dev) {
  results<E> out;
  unsigned seed = 800;
  const auto mod = [](std::int64_t k, std::int64_t n) { return ((k % n) + n) % n; };
  for (const shape &base : shapes) {
    const auto x = random_nd<E>(base, seed);
    const auto xv = laid_out(x, layouts[seed++ % 4], dev);
    for (std::int64_t shift : {-7, -1, 0, 2, 13}) {
      for (std::int64_t axis = -rank(base); axis < rank(base); ++axis) {
        const std::size_t a = at(positive(axis, rank(base)));
        out.push_back(kiln::roll(xv, shift, axis));
        expect_array(out.back(), build<E>(base, [&](index_t i) { i[a] = mod(i[a] - shift, base[a]); return x(i); }),
                     describe("roll " + std::to_string(shift), base, axis));
      }
      // No axis: over the flattened x, the shape restored.
      out.push_back(kiln::roll(xv, shift));
      expect_array(out.back(), build<E>(base, [&](const index_t &i) {
                     return x.v[at(mod(flat(base, i) - shift, base.numel()))];
                   }),
                   describe("roll flattened " + std::to_string(shift), base, 0));
    }
  }
  return out;
}

template <class E> results<E> pad_case(kiln::device dev) {
  results<E> out;
  unsigned seed = 900;
  std::mt19937 g(9);
  for (const shape &base : shapes) {
    const auto x = random_nd<E>(base, seed);
    const auto xv = laid_out(x, layouts[seed++ % 4], dev);
    const E value = random_values<E>(1, seed)[0];
    kiln::pad_widths widths;
    for (std::size_t d = 0; d < base.size(); ++d)
      widths.emplace_back(std::uniform_int_distribution<std::int64_t>(0, 2)(g), std::uniform_int_distribution<std::int64_t>(0, 2)(g));
    for (const kiln::pad_widths &w : {widths, kiln::pad_widths{{2, 1}}, kiln::pad_widths{{1, 1}}}) {
      const auto width = [&](std::size_t d) { return w[w.size() == 1 ? 0 : d]; };
      shape s = base;
      for (std::size_t d = 0; d < s.size(); ++d)
        s[d] += width(d).first + width(d).second;
      const auto want = build<E>(s, [&](index_t i) {
        for (std::size_t d = 0; d < i.size(); ++d) {
          i[d] -= width(d).first;
          if (i[d] < 0 || i[d] >= base[d])
            return value;
        }
        return x(i);
      });
      out.push_back(w.size() == 1 && w[0] == std::pair<std::int64_t, std::int64_t>{1, 1} ? kiln::pad(xv, 1, value)
                                                                                          : kiln::pad(xv, w, value));
      expect_array(out.back(), want, describe("pad", base, 0));
    }
  }
  // The default value is 0.
  const auto y = random_nd<E>({2}, 950);
  out.push_back(kiln::pad(laid_out(y, layout::reversed, dev), {{0, 1}}));
  expect_array(out.back(), nd<E>{{3}, {y.v[0], y.v[1], E(0)}}, "pad with 0");
  return out;
}

template <class E> results<E> squeeze_expand_case(kiln::device dev) {
  results<E> out;
  unsigned seed = 1000;
  for (const shape &base : {shape{1, 3, 1, 2}, shape{1}, shape{2, 1}, shape{3, 4}}) {
    const auto x = random_nd<E>(base, seed);
    const auto xv = laid_out(x, layouts[seed++ % 4], dev);
    shape s;
    for (std::int64_t n : base)
      if (n != 1)
        s.push_back(n);
    out.push_back(kiln::squeeze(xv));
    expect_array(out.back(), nd<E>{s, x.v}, describe("squeeze", base, 0));
    EXPECT_EQ(out.back().data(), xv.data());
    for (std::int64_t axis = -rank(base); axis < rank(base); ++axis)
      if (base[at(positive(axis, rank(base)))] == 1) {
        shape t = base;
        t.erase(at(positive(axis, rank(base))));
        out.push_back(kiln::squeeze(xv, axis));
        expect_array(out.back(), nd<E>{t, x.v}, describe("squeeze", base, axis));
        EXPECT_EQ(out.back().data(), xv.data());
      }
  }
  for (const shape &base : {shape{}, shape{5}, shape{3, 4}, shape{2, 3, 2}}) {
    const auto x = random_nd<E>(base, seed);
    const auto xv = laid_out(x, layouts[seed++ % 4], dev);
    for (std::int64_t axis = -rank(base) - 1; axis <= rank(base); ++axis) {
      shape s = base;
      s.insert(at(positive(axis, rank(base) + 1)), 1);
      out.push_back(kiln::expand_dims(xv, axis));
      expect_array(out.back(), nd<E>{s, x.v}, describe("expand_dims", base, axis));
      EXPECT_EQ(out.back().data(), xv.data());
    }
  }
  return out;
}

template <class E> results<E> ravel_case(kiln::device dev) {
  results<E> out;
  unsigned seed = 1100;
  for (const shape &base : {shape{}, shape{5}, shape{3, 4}, shape{2, 3, 4}, shape{2, 1, 3, 2}})
    for (layout k : layouts) {
      const auto x = random_nd<E>(base, seed++);
      const auto xv = laid_out(x, k, dev);
      const nd<E> want{{base.numel()}, x.v};
      out.push_back(kiln::ravel(xv));
      expect_array(out.back(), want, describe("ravel", base, 0, k));
      // A view exactly when x is C-contiguous (NumPy's ravel), else a copy.
      EXPECT_EQ(out.back().data() == xv.data(), xv.is_contiguous()) << describe("ravel", base, 0, k);
      out.push_back(kiln::flatten(xv));
      expect_array(out.back(), want, describe("flatten", base, 0, k));
      EXPECT_NE(out.back().data(), xv.data());
    }
  return out;
}

/// copyto(dst, src) into a view of `big` (every other column), with src
/// broadcast from `src_shape`; returns `big`, whose other columns must
/// keep their values.
template <class To, class From> kiln::array<To> copyto_into(kiln::device dev, const shape &src_shape, layout k) {
  const auto big = random_nd<To>({3, 9}, 1200);
  const auto src = random_nd<From>(src_shape, 1201);
  const kiln::array<To> b = make(big.v, big.s).to(dev);
  kiln::copyto(b.slice({kiln::all, kiln::range(1, 9, 2)}), laid_out(src, k, dev));
  const std::int64_t lead = 2 - static_cast<std::int64_t>(src_shape.size());
  const auto want = build<To>(big.s, [&](const index_t &i) {
    if (i[1] % 2 == 0)
      return big(i);
    const index_t d = {i[0], i[1] / 2};
    index_t j;
    for (std::size_t e = 0; e < src_shape.size(); ++e)
      j.push_back(src_shape[e] == 1 ? 0 : d[at(lead) + e]);
    return static_cast<To>(src(j));
  });
  expect_array(b, want, "copyto from " + std::string(kiln::name(kiln::dtype_of<From>)) + " of shape " +
                            kiln::to_string(src_shape));
  return b;
}

template <class To, class From> results<To> copyto_case(kiln::device dev) {
  results<To> out;
  for (const shape &s : {shape{3, 4}, shape{4}, shape{3, 1}, shape{1, 4}, shape{}})
    for (layout k : layouts)
      out.push_back(copyto_into<To, From>(dev, s, k));
  return out;
}

/// Calls f(E{}) for each dtype the cases run on.
template <class F> void for_each_dtype(F &&f) {
  f(float{});
  f(double{});
  f(std::int32_t{});
  f(std::int64_t{});
  f(std::int8_t{});
  f(bool{});
  f(c64{});
  f(c128{});
}

#define KILN_EVERY_DTYPE(CASE, DEV)                                                                                   \
  for_each_dtype([](auto t) { (void)CASE<decltype(t)>(DEV); })

TEST(Shaping, Concatenate) { KILN_EVERY_DTYPE(concatenate_case, host); }
TEST(Shaping, Stack) { KILN_EVERY_DTYPE(stack_case, host); }
TEST(Shaping, SplitGivesViews) { KILN_EVERY_DTYPE(split_case, host); }
TEST(Shaping, Meshgrid) { KILN_EVERY_DTYPE(meshgrid_case, host); }
TEST(Shaping, Tile) { KILN_EVERY_DTYPE(tile_case, host); }
TEST(Shaping, Repeat) { KILN_EVERY_DTYPE(repeat_case, host); }
TEST(Shaping, FlipGivesViews) { KILN_EVERY_DTYPE(flip_case, host); }
TEST(Shaping, Roll) { KILN_EVERY_DTYPE(roll_case, host); }
TEST(Shaping, PadConstant) { KILN_EVERY_DTYPE(pad_case, host); }
TEST(Shaping, SqueezeAndExpandDimsGiveViews) { KILN_EVERY_DTYPE(squeeze_expand_case, host); }
TEST(Shaping, RavelAndFlatten) { KILN_EVERY_DTYPE(ravel_case, host); }

TEST(Shaping, CopytoCastsSameKindAndBroadcasts) {
  (void)copyto_case<float, float>(host);
  (void)copyto_case<double, float>(host);
  (void)copyto_case<float, double>(host); // within a kind, down too
  (void)copyto_case<std::int64_t, std::int32_t>(host);
  (void)copyto_case<std::int8_t, std::int64_t>(host);
  (void)copyto_case<float, std::int32_t>(host);
  (void)copyto_case<std::int32_t, bool>(host);
  (void)copyto_case<c64, float>(host);
  (void)copyto_case<c128, c64>(host);
  (void)copyto_case<bool, bool>(host);
}

TEST(Shaping, ViewsWriteThroughAndNewArraysDoNot) {
  auto x = make(random_values<float>(12, 1), {3, 4});
  const auto before = x.to_vector();
  kiln::flip(x, 0).slice({0, kiln::all}).fill(5.0f); // x's last row
  kiln::split(x, 2, 1)[1].slice({0, 0}).fill(6.0f);   // x[0, 2]
  kiln::expand_dims(x, 0).slice({0, 1, 1}).fill(7.0f);
  kiln::squeeze(x.reshape({3, 1, 4}), 1).slice({1, 3}).fill(8.0f);
  kiln::ravel(x).slice({0}).fill(9.0f);
  kiln::concatenate({x, x}).fill(-1.0f);
  kiln::flatten(x).fill(-1.0f);
  kiln::tile(x, 2).fill(-1.0f);
  auto want = before;
  for (int j = 0; j < 4; ++j)
    want[at(8 + j)] = 5.0f;
  want[2] = 6.0f;
  want[5] = 7.0f;
  want[7] = 8.0f;
  want[0] = 9.0f;
  EXPECT_EQ(x.to_vector(), want);
}

TEST(Shaping, CopytoReadsAnOverlappingSourceFirst) {
  const auto v = random_values<std::int64_t>(10, 2);
  auto x = make(v, {10});
  kiln::copyto(x, kiln::flip(x));
  EXPECT_EQ(x.to_vector(), std::vector<std::int64_t>(v.rbegin(), v.rend()));
}

TEST(Shaping, ViewsOfReadOnlyArraysStayReadOnly) {
  const auto b = kiln::broadcast_to(make(random_values<float>(3, 3), {3}), shape{2, 3});
  EXPECT_FALSE(kiln::expand_dims(b, 0).writeable());
  EXPECT_FALSE(kiln::flip(b, 1).writeable());
  EXPECT_FALSE(kiln::split(b, 3, 1)[0].writeable());
  EXPECT_FALSE(kiln::squeeze(kiln::expand_dims(b, 1)).writeable());
  EXPECT_TRUE(kiln::ravel(b).writeable()); // not contiguous: a copy
  EXPECT_TRUE(kiln::tile(b, 2).writeable());
}

TEST(Shaping, UntypedConcatenatePromotesAsNumPy) {
  // The typed functions take one element type; the runtime's untyped form
  // joins mixed dtypes into NumPy's result type.
  const auto i = make(std::vector<std::int32_t>{-3, 4});
  const auto b = make(std::vector<bool>{true});
  const auto f = make(std::vector<float>{0.5f});
  const std::vector<kiln::array_base> mixed = {i, f};
  const kiln::array<double> r(kiln::detail::concatenate(mixed, 0));
  EXPECT_EQ(r.to_vector(), (std::vector<double>{-3.0, 4.0, 0.5}));
  const std::vector<kiln::array_base> ints = {b, i};
  const kiln::array<std::int32_t> s(kiln::detail::concatenate(ints, 0));
  EXPECT_EQ(s.to_vector(), (std::vector<std::int32_t>{1, -3, 4}));
}

TEST(Shaping, NumPyErrors) {
  const auto a = make(random_values<float>(6, 4), {2, 3}), b = make(random_values<float>(8, 5), {2, 4});
  const auto v = make(random_values<float>(3, 6), {3});
  const auto s0 = make(std::vector<float>{1.0f}, shape{});
  using kiln::index_error, kiln::shape_error, kiln::value_error;

  expect_message<shape_error>([&] { (void)kiln::concatenate({a, b}); },
                              "all the input array dimensions except for the concatenation axis must match exactly, "
                              "but along dimension 1, the array at index 0 has size 3 and the array at index 1 has "
                              "size 4");
  expect_message<shape_error>([&] { (void)kiln::concatenate({a, a, v}); },
                              "all the input arrays must have same number of dimensions, but the array at index 0 "
                              "has 2 dimension(s) and the array at index 2 has 1 dimension(s)");
  expect_message<value_error>([&] { (void)kiln::concatenate(std::vector<kiln::array<float>>{}); },
                              "need at least one array to concatenate");
  expect_message<value_error>([&] { (void)kiln::concatenate({s0, s0}); },
                              "zero-dimensional arrays cannot be concatenated");
  expect_message<index_error>([&] { (void)kiln::concatenate({a, a}, 2); },
                              "axis 2 is out of bounds for array of dimension 2");
  expect_message<index_error>([&] { (void)kiln::concatenate({a, a}, -3); },
                              "axis -3 is out of bounds for array of dimension 2");

  expect_message<value_error>([&] { (void)kiln::stack(std::vector<kiln::array<float>>{}); },
                              "need at least one array to stack");
  expect_message<shape_error>([&] { (void)kiln::stack({a, b}); }, "all input arrays must have the same shape");
  expect_message<index_error>([&] { (void)kiln::stack({a, a}, -4); },
                              "axis -4 is out of bounds for array of dimension 3");

  expect_message<value_error>([&] { (void)kiln::split(a, 2, 1); }, "array split does not result in an equal division");
  expect_message<value_error>([&] { (void)kiln::split(a, 0, 1); }, "number sections must be larger than 0.");
  expect_message<index_error>([&] { (void)kiln::split(a, 1, 2); }, "axis 2 is out of bounds for array of dimension 2");

  expect_message<value_error>([&] { (void)kiln::squeeze(a, 0); },
                              "cannot select an axis to squeeze out which has size not equal to one");
  expect_message<index_error>([&] { (void)kiln::squeeze(a, -3); }, "axis -3 is out of bounds for array of dimension 2");
  expect_message<index_error>([&] { (void)kiln::expand_dims(a, 3); }, "axis 3 is out of bounds for array of dimension 3");

  expect_message<value_error>([&] { (void)kiln::tile(a, {2, -1}); }, "negative dimensions are not allowed");
  expect_message<value_error>([&] { (void)kiln::repeat(v, -1); }, "negative dimensions are not allowed");
  expect_message<value_error>([&] { (void)kiln::repeat(v, {1, -2, 1}); }, "repeats may not contain negative values.");
  expect_message<shape_error>([&] { (void)kiln::repeat(v, {1, 2}); },
                              "operands could not be broadcast together with shape (3,) (2,)");
  expect_message<index_error>([&] { (void)kiln::repeat(a, 2, 2); }, "axis 2 is out of bounds for array of dimension 2");

  expect_message<index_error>([&] { (void)kiln::flip(a, 2); }, "axis 2 is out of bounds for array of dimension 2");
  expect_message<index_error>([&] { (void)kiln::roll(a, 1, -3); }, "axis -3 is out of bounds for array of dimension 2");

  expect_message<shape_error>([&] { (void)kiln::pad(a, {{1, 2}, {3, 4}, {5, 6}}); },
                              "operands could not be broadcast together with remapped shapes [original->remapped]: "
                              "(3,2)  and requested shape (2,2)");
  expect_message<value_error>([&] { (void)kiln::pad(a, {{1, -2}}); }, "index can't contain negative values");

  auto k = make(std::vector<std::int32_t>{1, 2, 3});
  expect_message<value_error>([&] { kiln::copyto(k, make(std::vector<double>{1, 2, 3})); },
                              "Cannot cast array data from dtype('float64') to dtype('int32') according to the rule "
                              "'same_kind'");
  expect_message<value_error>([&] { kiln::copyto(make(std::vector<std::uint8_t>{1}), make(std::vector<std::int8_t>{1})); },
                              "Cannot cast array data from dtype('int8') to dtype('uint8') according to the rule "
                              "'same_kind'");
  expect_message<shape_error>([&] { kiln::copyto(a, make(random_values<float>(4, 7))); },
                              "could not broadcast input array from shape (4,) into shape (2,3)");
  expect_message<value_error>([&] { kiln::copyto(kiln::broadcast_to(v, shape{2, 3}), a); },
                              "assignment destination is read-only");
  EXPECT_EQ(k.to_vector(), (std::vector<std::int32_t>{1, 2, 3})); // nothing written
}

// On a GPU: every case above for every dtype, compared with the host's
// results (each case also checks its own against the reference).
template <class E, class Case> void gpu_matches_host(Case &&run_case) {
  const results<E> gpu = run_case(kiln::device::cuda(0)), cpu = run_case(host);
  ASSERT_EQ(gpu.size(), cpu.size());
  for (std::size_t k = 0; k < gpu.size(); ++k) {
    EXPECT_TRUE(gpu[k].device().is_cuda());
    ASSERT_EQ(gpu[k].shape(), cpu[k].shape()) << "result " << k;
    EXPECT_EQ(gpu[k].to_vector(), cpu[k].to_vector()) << "result " << k;
  }
}

#define KILN_GPU_EVERY_DTYPE(CASE)                                                                                    \
  for_each_dtype([](auto t) {                                                                                         \
    using E = decltype(t);                                                                                            \
    gpu_matches_host<E>([](kiln::device d) { return CASE<E>(d); });                                                   \
  })

TEST(ShapingGpu, JoiningMatchesTheHost) {
  KILN_REQUIRE_GPU();
  KILN_GPU_EVERY_DTYPE(concatenate_case);
  KILN_GPU_EVERY_DTYPE(stack_case);
  KILN_GPU_EVERY_DTYPE(meshgrid_case);
  KILN_GPU_EVERY_DTYPE(tile_case);
  KILN_GPU_EVERY_DTYPE(repeat_case);
  KILN_GPU_EVERY_DTYPE(roll_case);
  KILN_GPU_EVERY_DTYPE(pad_case);
}

TEST(ShapingGpu, ViewsMatchTheHost) {
  KILN_REQUIRE_GPU();
  KILN_GPU_EVERY_DTYPE(split_case);
  KILN_GPU_EVERY_DTYPE(flip_case);
  KILN_GPU_EVERY_DTYPE(squeeze_expand_case);
  KILN_GPU_EVERY_DTYPE(ravel_case);
}

TEST(ShapingGpu, CopytoMatchesTheHost) {
  KILN_REQUIRE_GPU();
  gpu_matches_host<double>([](kiln::device d) { return copyto_case<double, float>(d); });
  gpu_matches_host<std::int8_t>([](kiln::device d) { return copyto_case<std::int8_t, std::int64_t>(d); });
  gpu_matches_host<c64>([](kiln::device d) { return copyto_case<c64, float>(d); });
  gpu_matches_host<bool>([](kiln::device d) { return copyto_case<bool, bool>(d); });
}

TEST(ShapingGpu, LargeConcatenateMatchesTheHost) {
  KILN_REQUIRE_GPU();
  const auto gpu = kiln::device::cuda(0);
  const auto hx = random_values<float>(1 << 20, 11), hy = random_values<float>(1 << 20, 12);
  const auto x = make(hx, {1024, 1024}), y = make(hy, {1024, 1024});
  const auto gx = x.to(gpu), gy = y.to(gpu);
  for (std::int64_t axis : {0, 1}) {
    EXPECT_EQ(kiln::concatenate({gx, gy.T()}, axis).to_vector(), kiln::concatenate({x, y.T()}, axis).to_vector());
    EXPECT_EQ(kiln::stack({gx, gy}, axis).to_vector(), kiln::stack({x, y}, axis).to_vector());
  }
}

TEST(ShapingGpu, ArraysOnTwoDevicesAreAnError) {
  KILN_REQUIRE_GPU();
  const auto h = make(random_values<float>(6, 1), {2, 3});
  const auto g = h.to(kiln::device::cuda(0));
  const std::string msg = "arrays are on different devices: host and cuda:0";
  expect_message<kiln::device_error>([&] { (void)kiln::concatenate({h, g}); }, msg);
  expect_message<kiln::device_error>([&] { (void)kiln::stack({h, g}); }, msg);
  expect_message<kiln::device_error>([&] { (void)kiln::meshgrid(h, g); }, msg);
  expect_message<kiln::device_error>([&] { kiln::copyto(g, h); }, "arrays are on different devices: cuda:0 and host");
}

} // namespace

namespace {

/// np.pad's value at padded index p (original start `before`, length n) for
/// the modes that repeat values (checked against NumPy 2.4 by script).
std::int64_t pad_source(std::int64_t t, std::int64_t n, kiln::pad_mode mode) {
  switch (mode) {
  case kiln::pad_mode::edge:
    return std::clamp<std::int64_t>(t, 0, n - 1);
  case kiln::pad_mode::wrap:
    return ((t % n) + n) % n;
  case kiln::pad_mode::symmetric: {
    const std::int64_t m = ((t % (2 * n)) + 2 * n) % (2 * n);
    return m < n ? m : 2 * n - 1 - m;
  }
  case kiln::pad_mode::reflect: {
    if (n == 1)
      return 0;
    const std::int64_t p = 2 * n - 2, m = ((t % p) + p) % p;
    return m < n ? m : p - m;
  }
  }
  return 0;
}

void check_pad_modes(kiln::device dev) {
  // A 3-d array padded by widths below and above its lengths (3, 4, 1).
  std::vector<std::int32_t> v(3 * 4 * 1);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = std::int32_t(i * 7 + 1);
  const auto x = make(v, {3, 4, 1});
  const kiln::pad_widths w = {{2, 5}, {9, 1}, {3, 2}};
  for (auto mode : {kiln::pad_mode::edge, kiln::pad_mode::reflect, kiln::pad_mode::symmetric, kiln::pad_mode::wrap}) {
    const auto got = kiln::pad(x.to(dev), w, mode);
    ASSERT_EQ(got.shape(), (kiln::shape{10, 14, 6}));
    const auto values = got.to_vector();
    for (std::int64_t i = 0; i < 10; ++i)
      for (std::int64_t j = 0; j < 14; ++j)
        for (std::int64_t k = 0; k < 6; ++k) {
          const std::int64_t a = pad_source(i - 2, 3, mode), b = pad_source(j - 9, 4, mode), c = pad_source(k - 3, 1, mode);
          ASSERT_EQ(values[(i * 14 + j) * 6 + k], v[(a * 4 + b) * 1 + c])
              << "mode " << int(mode) << " at " << i << "," << j << "," << k << " on " << dev.str();
        }
  }
  // One width for every side; a float view (transposed) as input.
  const auto m = make(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3}).T(); // (3, 2)
  EXPECT_EQ(kiln::pad(m.to(dev), 1, kiln::pad_mode::edge).to_vector(),
            (std::vector<double>{1, 1, 4, 4, 1, 1, 4, 4, 2, 2, 5, 5, 3, 3, 6, 6, 3, 3, 6, 6}));
}

} // namespace

TEST(Shaping, PadModes) {
  check_pad_modes(kiln::device::host());
  try {
    (void)kiln::pad(make(std::vector<float>{}, {0, 3}), 1, kiln::pad_mode::edge);
    ADD_FAILURE() << "no value_error";
  } catch (const kiln::value_error &e) {
    EXPECT_EQ(std::string(e.what()), "can't extend empty axis 0 using modes other than 'constant' or 'empty'");
  }
}

TEST(ShapingGpu, PadModesMatchTheHost) {
  KILN_REQUIRE_GPU();
  check_pad_modes(kiln::device::cuda(0));
}
