//===- test/unit/runtime/launch_test.cpp - launch_elementwise -------------===//
//
// Tests kiln::detail::launch_elementwise with fused kernels written by hand
// in this file: host variants that read the expanded memref parameters of
// fused.hpp's ABI (and record which variant ran), and a PTX saxpy for GPUs.
//
//===----------------------------------------------------------------------===//
#include "kiln/detail/fused.hpp"
#include "runtime/launch/gpu_launch.hpp"

#include "gpu.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using kiln::array_base;
using kiln::device;
using kiln::dtype;
using kiln::shape;
using kiln::detail::fused_kernel;
using kiln::detail::launch_elementwise;
using i64 = std::int64_t;

//===----------------------------------------------------------------------===//
// Host kernels following the ABI
//===----------------------------------------------------------------------===//

/// What the hand-written kernels saw: the variant of each call (0 = contig,
/// R = strided<R>) and how many ABI preconditions they found broken. The
/// runtime may call a host variant from several threads at once (a big call
/// is split across its thread pool): recording is thread-safe.
struct call_log {
  std::mutex mutex;
  std::vector<int> variants;
  std::atomic<int> violations = 0;
  void record(int variant) {
    std::lock_guard<std::mutex> lock(mutex);
    variants.push_back(variant);
  }
  void clear() {
    variants.clear();
    violations = 0;
  }
};
call_log calls;

/// One expanded memref descriptor, read back from `void **args`.
template <class T, int R> struct memref {
  T *allocated;
  T *aligned;
  i64 offset;
  i64 sizes[R];
  i64 strides[R];
  T &at(const i64 *index) const {
    i64 e = offset;
    for (int k = 0; k < R; ++k)
      e += index[k] * strides[k];
    return aligned[e];
  }
};

template <class T, int R> memref<T, R> take(void **&args) {
  memref<T, R> m;
  m.allocated = *static_cast<T **>(*args++);
  m.aligned = *static_cast<T **>(*args++);
  m.offset = *static_cast<i64 *>(*args++);
  for (int k = 0; k < R; ++k)
    m.sizes[k] = *static_cast<i64 *>(*args++);
  for (int k = 0; k < R; ++k)
    m.strides[k] = *static_cast<i64 *>(*args++);
  return m;
}

template <class T> T take_scalar(void **&args) {
  return *static_cast<const T *>(*args++);
}

/// Counts a violation unless `m` has the sizes of `ref`.
template <class T, class U, int R>
void expect_sizes(const memref<T, R> &m, const memref<U, R> &ref) {
  for (int k = 0; k < R; ++k)
    if (m.sizes[k] != ref.sizes[k] || m.sizes[k] <= 0)
      ++calls.violations;
}

/// What `_contig` may assume: unit stride, offset 0, vector-aligned address.
template <class T> void expect_contig(const memref<T, 1> &m, int width) {
  if (m.strides[0] != 1 || m.offset != 0 ||
      reinterpret_cast<std::uintptr_t>(m.aligned) % (width * sizeof(T)) != 0)
    ++calls.violations;
}

template <int R, class F> void for_each_index(const i64 *sizes, F f) {
  i64 index[R] = {};
  i64 total = 1;
  for (int k = 0; k < R; ++k)
    total *= sizes[k];
  for (i64 n = 0; n < total; ++n) {
    f(index);
    for (int k = R - 1; k >= 0; --k) {
      if (++index[k] < sizes[k])
        break;
      index[k] = 0;
    }
  }
}

// fake_saxpy: out = a * x + y on float32, vector width 4.
constexpr int saxpy_width = 4;
template <int R, bool Contig> void saxpy(void **args, int variant = Contig ? 0 : R) {
  auto x = take<float, R>(args);
  auto y = take<float, R>(args);
  auto out = take<float, R>(args);
  const float a = take_scalar<float>(args);
  calls.record(variant);
  expect_sizes(x, out);
  expect_sizes(y, out);
  if constexpr (Contig) {
    expect_contig(x, saxpy_width);
    expect_contig(y, saxpy_width);
    expect_contig(out, saxpy_width);
  }
  for_each_index<R>(out.sizes,
                    [&](const i64 *i) { out.at(i) = a * x.at(i) + y.at(i); });
}

extern "C" void fake_saxpy_contig_host(void **args) { saxpy<1, true>(args); }
extern "C" void fake_saxpy_strided1_host(void **args) { saxpy<1, false>(args); }
extern "C" void fake_saxpy_strided2_host(void **args) { saxpy<2, false>(args); }
extern "C" void fake_saxpy_strided3_host(void **args) { saxpy<3, false>(args); }
extern "C" void fake_saxpy_strided4_host(void **args) { saxpy<4, false>(args); }

/// `_rows` (variant 5): rank 2; what it may assume is checked.
template <class T> void expect_rows(const memref<T, 2> &m, int width) {
  const std::uintptr_t align = width * sizeof(T);
  if (m.strides[1] != 1 || m.sizes[1] % width != 0 ||
      reinterpret_cast<std::uintptr_t>(m.aligned) % align != 0 ||
      (static_cast<std::uintptr_t>(m.strides[0]) * sizeof(T)) % align != 0)
    ++calls.violations;
}
extern "C" void fake_saxpy_rows_host(void **args) {
  void **first = args;
  auto x = take<float, 2>(args);
  auto y = take<float, 2>(args);
  auto out = take<float, 2>(args);
  expect_rows(x, saxpy_width);
  expect_rows(y, saxpy_width);
  expect_rows(out, saxpy_width);
  saxpy<2, false>(first, kiln::detail::max_kernel_rank + 1);
}

const dtype saxpy_dtypes[] = {dtype::float32, dtype::float32, dtype::float32};
const fused_kernel saxpy_kernel = {
    "fake_saxpy",
    nullptr,
    nullptr,
    0,
    fake_saxpy_contig_host,
    {fake_saxpy_strided1_host, fake_saxpy_strided2_host,
     fake_saxpy_strided3_host, fake_saxpy_strided4_host},
    2,
    1,
    1,
    saxpy_dtypes,
    saxpy_width};
/// The same kernel with a `_rows` variant, as kilnc emits kernels.
const fused_kernel saxpy_rows_kernel = {
    "fake_saxpy_rows",
    nullptr,
    nullptr,
    0,
    fake_saxpy_contig_host,
    {fake_saxpy_strided1_host, fake_saxpy_strided2_host,
     fake_saxpy_strided3_host, fake_saxpy_strided4_host},
    2,
    1,
    1,
    saxpy_dtypes,
    saxpy_width,
    fake_saxpy_rows_host};

// fake_mix: (x: float64, y: float32, z: int32) -> (x * y + z: float64,
// x > y: bool); vector width 2. Three inputs, two outputs, no scalar.
constexpr int mix_width = 2;
template <int R, bool Contig> void mix(void **args) {
  auto x = take<double, R>(args);
  auto y = take<float, R>(args);
  auto z = take<std::int32_t, R>(args);
  auto o1 = take<double, R>(args);
  auto o2 = take<bool, R>(args);
  calls.record(Contig ? 0 : R);
  expect_sizes(x, o1);
  expect_sizes(y, o1);
  expect_sizes(z, o1);
  expect_sizes(o2, o1);
  if constexpr (Contig) {
    expect_contig(x, mix_width);
    expect_contig(y, mix_width);
    expect_contig(z, mix_width);
    expect_contig(o1, mix_width);
    expect_contig(o2, mix_width);
  }
  for_each_index<R>(o1.sizes, [&](const i64 *i) {
    o1.at(i) = x.at(i) * static_cast<double>(y.at(i)) + z.at(i);
    o2.at(i) = x.at(i) > static_cast<double>(y.at(i));
  });
}

const dtype mix_dtypes[] = {dtype::float64, dtype::float32, dtype::int32,
                            dtype::float64, dtype::bool_};
const fused_kernel mix_kernel = {
    "fake_mix",
    nullptr,
    nullptr,
    0,
    mix<1, true>,
    {mix<1, false>, mix<2, false>, mix<3, false>, mix<4, false>},
    3,
    2,
    0,
    mix_dtypes,
    mix_width};

// fake_fill: () -> value: float64 from one float64 scalar; no inputs.
template <int R, bool Contig> void fill(void **args) {
  auto out = take<double, R>(args);
  const double v = take_scalar<double>(args);
  calls.record(Contig ? 0 : R);
  for_each_index<R>(out.sizes, [&](const i64 *i) { out.at(i) = v; });
}
const dtype fill_dtypes[] = {dtype::float64};
const fused_kernel fill_kernel = {
    "fake_fill",
    nullptr,
    nullptr,
    0,
    fill<1, true>,
    {fill<1, false>, fill<2, false>, fill<3, false>, fill<4, false>},
    0,
    1,
    1,
    fill_dtypes,
    1};

//===----------------------------------------------------------------------===//
// Arrays for the tests: views of host buffers with any strides
//===----------------------------------------------------------------------===//

std::mt19937 &rng() {
  static std::mt19937 g(12345);
  return g;
}

/// A view and the buffer it lives in (so the buffer can be mirrored on a GPU).
struct test_view {
  array_base array;
  i64 buffer_elems = 0;
};

void fill_random(dtype t, void *p, i64 n) {
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  std::uniform_int_distribution<int> integer(-50, 50);
  for (i64 i = 0; i < n; ++i) {
    switch (t) {
    case dtype::float32:
      static_cast<float *>(p)[i] = static_cast<float>(real(rng()));
      break;
    case dtype::float64:
      static_cast<double *>(p)[i] = real(rng());
      break;
    case dtype::int32:
      static_cast<std::int32_t *>(p)[i] = integer(rng());
      break;
    case dtype::bool_:
      static_cast<bool *>(p)[i] = integer(rng()) > 0;
      break;
    default:
      FAIL() << "dtype not used by these tests";
    }
  }
}

/// A host buffer of `bytes`, 64-byte aligned.
kiln::allocation host_buffer(std::size_t bytes) {
  std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 63) / 64 * 64;
  return kiln::allocation(std::aligned_alloc(64, rounded), std::free);
}

/// A random array of dtype `t` and shape `dims`, laid out in memory with the
/// dimension order `order` (outermost first; identity for C order), per-axis
/// `steps` (negative: reversed), and element 0 placed `shift` elements after
/// the buffer's aligned start.
test_view make_view(dtype t, std::vector<i64> dims, std::vector<int> order = {},
                    std::vector<i64> steps = {}, i64 shift = 0) {
  const std::size_t r = dims.size();
  if (order.empty()) {
    order.resize(r);
    std::iota(order.begin(), order.end(), 0);
  }
  if (steps.empty())
    steps.assign(r, 1);
  std::vector<i64> physical(r, 1);
  i64 acc = 1;
  for (std::size_t k = r; k-- > 0;) {
    const int d = order[k];
    physical[d] = acc;
    acc *= std::max<i64>(dims[d] * std::abs(steps[d]), 1);
  }
  shape strides = shape::filled(r, 0);
  i64 offset = shift;
  for (std::size_t d = 0; d < r; ++d) {
    strides[d] = physical[d] * steps[d];
    if (steps[d] < 0)
      offset += (dims[d] - 1) * -steps[d] * physical[d];
  }
  const i64 elems = acc + shift;
  kiln::allocation buf =
      host_buffer(static_cast<std::size_t>(elems) * kiln::itemsize(t));
  fill_random(t, buf.get(), elems);
  test_view v;
  v.array = array_base::from_parts(std::move(buf), t, device::host(),
                                   shape(std::span<const i64>(dims)), strides,
                                   offset);
  v.buffer_elems = elems;
  return v;
}

array_base contiguous(dtype t, std::vector<i64> dims) {
  return make_view(t, std::move(dims)).array;
}

/// Element `index` (in the array's own rank) as a double.
double get(const array_base &a, const i64 *index) {
  i64 e = 0;
  for (i64 d = 0; d < a.ndim(); ++d)
    e += index[d] * a.strides()[d];
  const char *p = static_cast<const char *>(a.data()) +
                  e * static_cast<i64>(kiln::itemsize(a.dtype()));
  switch (a.dtype()) {
  case dtype::float32:
    return *reinterpret_cast<const float *>(p);
  case dtype::float64:
    return *reinterpret_cast<const double *>(p);
  case dtype::int32:
    return *reinterpret_cast<const std::int32_t *>(p);
  case dtype::bool_:
    return *reinterpret_cast<const bool *>(p) ? 1.0 : 0.0;
  default:
    return NAN;
  }
}

/// Element of `a` at `index` of the broadcast shape of rank `rank`.
double get_broadcast(const array_base &a, const i64 *index, i64 rank) {
  i64 own[kiln::shape::inline_rank * 2] = {};
  const i64 lead = rank - a.ndim();
  for (i64 d = 0; d < a.ndim(); ++d)
    own[d] = a.shape()[d] == 1 ? 0 : index[lead + d];
  return get(a, own);
}

/// Calls f(index) for every index of `s` in C order (once for a 0-d shape).
template <class F> void for_each(const shape &s, F f) {
  std::vector<i64> index(std::max<std::size_t>(s.size(), 1), 0);
  const i64 total = s.numel();
  for (i64 n = 0; n < total; ++n) {
    f(index.data());
    for (std::size_t k = s.size(); k-- > 0;) {
      if (++index[k] < s[k])
        break;
      index[k] = 0;
    }
  }
}

/// Runs fake_saxpy and returns its output (given, or allocated).
array_base run_saxpy(const array_base &x, const array_base &y, float a,
                     array_base out = {}) {
  const array_base *in[] = {&x, &y};
  const void *sc[] = {&a};
  array_base outs[] = {std::move(out)};
  launch_elementwise(saxpy_kernel, in, sc, outs);
  return std::move(outs[0]);
}

/// Runs the kernel that has a `_rows` variant.
array_base run_saxpy_rows(const array_base &x, const array_base &y, float a) {
  const array_base *in[] = {&x, &y};
  const void *sc[] = {&a};
  array_base outs[1];
  launch_elementwise(saxpy_rows_kernel, in, sc, outs);
  return std::move(outs[0]);
}

/// Checks out == a * x + y elementwise against a float64 reference.
void expect_saxpy(const array_base &out, const array_base &x,
                  const array_base &y, float a) {
  ASSERT_EQ(out.dtype(), dtype::float32);
  i64 checked = 0;
  for_each(out.shape(), [&](const i64 *i) {
    const double want =
        static_cast<double>(a) * get_broadcast(x, i, out.ndim()) +
        get_broadcast(y, i, out.ndim());
    const double got = get(out, i);
    if (std::abs(got - want) > 1e-5 * (1 + std::abs(want)))
      ADD_FAILURE() << "element " << checked << ": got " << got << ", want "
                    << want;
    ++checked;
  });
  EXPECT_EQ(checked, out.size());
  EXPECT_EQ(calls.violations, 0);
}

shape expected_broadcast(std::initializer_list<const array_base *> in) {
  shape s;
  for (const array_base *a : in)
    s = kiln::broadcast_shapes(s, a->shape());
  return s;
}

class LaunchElementwise : public ::testing::Test {
protected:
  void SetUp() override { calls.clear(); }
};

//===----------------------------------------------------------------------===//
// Contiguous arrays and variant choice
//===----------------------------------------------------------------------===//

TEST_F(LaunchElementwise, ContiguousArraysRunContigOnce) {
  array_base x = contiguous(dtype::float32, {1000});
  array_base y = contiguous(dtype::float32, {1000});
  array_base out = run_saxpy(x, y, 1.75f);
  EXPECT_EQ(out.shape(), (shape{1000}));
  EXPECT_TRUE(out.is_contiguous());
  EXPECT_EQ(out.device(), device::host());
  EXPECT_EQ(calls.variants, std::vector<int>{0});
  expect_saxpy(out, x, y, 1.75f);
}

TEST_F(LaunchElementwise, LengthNotAMultipleOfVectorWidthStillContig) {
  array_base x = contiguous(dtype::float32, {7, 9});
  array_base y = contiguous(dtype::float32, {7, 9});
  array_base out = run_saxpy(x, y, -0.5f);
  EXPECT_EQ(out.shape(), (shape{7, 9}));
  EXPECT_EQ(calls.variants,
            std::vector<int>{0}); // 63 elements: the kernel does the tail
  expect_saxpy(out, x, y, -0.5f);
}

TEST_F(LaunchElementwise, CallFusedAsKilncEmitsIt) {
  using kiln::detail::in;
  using kiln::detail::scalar;
  array_base x = contiguous(dtype::float32, {6, 5});
  array_base y = make_view(dtype::float32, {5}, {}, {-1}).array;
  kiln::array<float> out = kiln::detail::call_fused<float>(
      saxpy_kernel, {in(x), in(y)}, {scalar(2.5f)});
  EXPECT_EQ(out.shape(), (shape{6, 5}));
  EXPECT_EQ(calls.variants, std::vector<int>{2});
  expect_saxpy(out, x, y, 2.5f);
}

TEST_F(LaunchElementwise, ContiguousNdArraysCoalesceToContig) {
  array_base x = contiguous(dtype::float32, {4, 5, 6});
  array_base y = contiguous(dtype::float32, {4, 5, 6});
  array_base out = run_saxpy(x, y, 3.0f);
  EXPECT_EQ(out.shape(), (shape{4, 5, 6}));
  EXPECT_EQ(calls.variants, std::vector<int>{0});
  expect_saxpy(out, x, y, 3.0f);
}

//===----------------------------------------------------------------------===//
// The same-shape contiguous fast path (it must lay out and check exactly as
// the general path)
//===----------------------------------------------------------------------===//

TEST_F(LaunchElementwise, SameShapeWithOddSizeOneStridesRunsContig) {
  // C-contiguous, but the size-1 axes carry strides no C layout would give:
  // the fast path accepts them (their strides never matter) and runs
  // `_contig`, as coalesce() would.
  array_base x = contiguous(dtype::float32, {3, 1, 8});
  array_base y = contiguous(dtype::float32, {3, 1, 8});
  array_base odd = array_base::from_parts(y.storage(), y.dtype(), y.device(), y.shape(), shape{8, 1000, 1}, 0);
  ASSERT_TRUE(odd.is_contiguous());
  array_base out = run_saxpy(x, odd, 0.5f);
  EXPECT_EQ(out.shape(), (shape{3, 1, 8}));
  EXPECT_TRUE(out.is_contiguous());
  EXPECT_EQ(calls.variants, std::vector<int>{0});
  expect_saxpy(out, x, odd, 0.5f);
}

TEST_F(LaunchElementwise, SameShapeZeroDimensionalRunsContigOnce) {
  array_base x = contiguous(dtype::float32, {});
  array_base y = contiguous(dtype::float32, {});
  array_base out = run_saxpy(x, y, 2.0f);
  EXPECT_EQ(out.shape(), shape{});
  EXPECT_EQ(calls.variants, std::vector<int>{0});
  expect_saxpy(out, x, y, 2.0f);
}

TEST_F(LaunchElementwise, SameShapeGivenContiguousOutputIsWrittenInPlace) {
  array_base x = contiguous(dtype::float32, {5, 7});
  array_base y = contiguous(dtype::float32, {5, 7});
  array_base given = contiguous(dtype::float32, {5, 7});
  const void *where = given.data();
  array_base out = run_saxpy(x, y, 1.5f, given);
  EXPECT_EQ(out.data(), where);
  EXPECT_EQ(calls.variants, std::vector<int>{0});
  expect_saxpy(given, x, y, 1.5f);
}

TEST_F(LaunchElementwise, SameShapeNonContiguousInputTakesGeneralPath) {
  array_base x = make_view(dtype::float32, {6, 5}, {1, 0}).array; // transposed
  array_base y = contiguous(dtype::float32, {6, 5});
  array_base out = run_saxpy(x, y, 2.0f);
  EXPECT_TRUE(out.is_contiguous());
  EXPECT_EQ(calls.variants, std::vector<int>{2});
  expect_saxpy(out, x, y, 2.0f);
}

//===----------------------------------------------------------------------===//
// Grid and block of a GPU launch (pure arithmetic: runs without a GPU)
//===----------------------------------------------------------------------===//

TEST(ElementwiseDims, OneVectorAThreadInFullBlocks) {
  using kiln::detail::launch::elementwise_dims;
  // 2^20 float32, 4-wide vectors: 1024 blocks of 256.
  auto d = elementwise_dims(i64(1) << 20, 0, 4, 256, 132);
  EXPECT_EQ(d.grid, 1024u);
  EXPECT_EQ(d.block, 256u);
  // _strided1: one element a thread.
  d = elementwise_dims(i64(1) << 20, 1, 4, 256, 132);
  EXPECT_EQ(d.grid, 4096u);
  EXPECT_EQ(d.block, 256u);
  // A function that allows fewer threads.
  d = elementwise_dims(i64(1) << 20, 0, 4, 128, 132);
  EXPECT_EQ(d.grid, 2048u);
  EXPECT_EQ(d.block, 128u);
  // Small calls keep full blocks (measured faster than spreading them over
  // every SM in smaller blocks): 2^16 float32 is 64 blocks of 256.
  d = elementwise_dims(i64(1) << 16, 0, 4, 256, 132);
  EXPECT_EQ(d.grid, 64u);
  EXPECT_EQ(d.block, 256u);
  d = elementwise_dims(1, 0, 4, 256, 132);
  EXPECT_EQ(d.grid, 1u);
  EXPECT_EQ(d.block, 256u);
  // _strided2: 512-thread blocks, 8 elements a thread (a 64x64 tile a
  // block), at most 1024 threads a multiprocessor.
  d = elementwise_dims(64 * 64 * 4, 2, 4, 512, 132);
  EXPECT_EQ(d.block, 512u);
  EXPECT_EQ(d.grid, 4u);
  d = elementwise_dims(i64(1) << 28, 2, 4, 512, 132);
  EXPECT_EQ(d.grid, 264u);
  // Every vector has a thread, and no block is idle.
  for (i64 n : {i64(1), i64(31), i64(4097), i64(1) << 14, i64(33791), i64(1) << 17, i64(1) << 18}) {
    for (int variant : {0, 1, 3, 4, 5}) {
      d = elementwise_dims(n, variant, 4, 256, 132);
      const i64 w = variant == 0 || variant == 5 ? 4 : 1;
      const i64 threads = (n + w - 1) / w;
      EXPECT_GE(i64(d.grid) * d.block, threads) << n << " " << variant;
      EXPECT_LT(i64(d.grid - 1) * d.block, threads) << n << " " << variant;
    }
  }
}

TEST(StagedTile, SquareNarrowOrShallow) {
  using kiln::detail::launch::staged_tile;
  auto shape = [](i64 rows, i64 cols) {
    const auto t = staged_tile(rows, cols);
    EXPECT_EQ(t.rows * t.cols, 4096) << rows << " x " << cols;
    return std::pair<i64, i64>(t.rows, t.cols);
  };
  using S = std::pair<i64, i64>;
  EXPECT_EQ(shape(16384, 16384), S(64, 64));
  EXPECT_EQ(shape(64, 64), S(64, 64));
  // Fewer than 64 columns: the edge from 8 to 64 that pads them least, the
  // longer on a tie.
  EXPECT_EQ(shape(5425588, 3), S(512, 8));
  EXPECT_EQ(shape(1000, 1), S(512, 8));
  EXPECT_EQ(shape(3096045, 16), S(256, 16));
  EXPECT_EQ(shape(525159, 33), S(512, 8));  // 5 tiles of 8, not 1 of 64
  EXPECT_EQ(shape(525159, 48), S(256, 16)); // 3 of 16
  EXPECT_EQ(shape(9, 63), S(64, 64));
  EXPECT_EQ(shape(9, 32), S(128, 32));
  // Fewer than 64 rows (and 64 columns or more): likewise.
  EXPECT_EQ(shape(5, 262144), S(8, 512));
  EXPECT_EQ(shape(20, 100), S(8, 512)); // 3 of 8 rows, not 1 of 32
  EXPECT_EQ(shape(36, 262144), S(8, 512));
  EXPECT_EQ(shape(60, 262144), S(64, 64));
}

TEST(StagedSharedBytes, TransposedInputsInOrderWhileTheyFit) {
  using kiln::detail::launch::staged_shared_bytes;
  // (outer, inner) strides of each input over a rows x cols walk, and its
  // item size.
  auto bytes = [](i64 rows, i64 cols, std::initializer_list<std::array<i64, 3>> inputs) {
    std::vector<i64> strides, item; // a pitch of 3: (outer, inner, unused) an input
    for (const auto &in : inputs) {
      strides.insert(strides.end(), {in[0], in[1], -7});
      item.push_back(in[2]);
    }
    return staged_shared_bytes(rows, cols, static_cast<int>(inputs.size()), strides.data(), 3, item.data());
  };
  const i64 tile = 64 * 65, n = 4096;
  // Along the walk (row order), broadcast rows or columns and scalars: none.
  EXPECT_EQ(bytes(n, n, {{4096, 1, 4}, {0, 1, 8}, {1, 0, 4}, {0, 0, 16}, {8192, 2, 4}}), 0u);
  // A transposed view, and one walked backwards: a tile each.
  EXPECT_EQ(bytes(n, n, {{1, 4096, 4}, {4096, 1, 4}}), unsigned(tile * 4));
  EXPECT_EQ(bytes(n, n, {{-1, -4096, 8}, {1, 300, 1}}), unsigned(tile * 9));
  // complex128 (65 KiB a tile) and a float64 fit 99 KiB (97.5 KiB); a
  // float32 and an int8 after them no longer do, a float32 instead of the
  // float64 leaves room for an int8.
  EXPECT_EQ(bytes(n, n, {{1, 100, 16}, {1, 100, 8}, {1, 100, 4}, {1, 100, 1}}), unsigned(tile * 24));
  EXPECT_EQ(bytes(n, n, {{1, 100, 16}, {100, 1, 8}, {1, 100, 4}, {1, 100, 1}}), unsigned(tile * 21));
  // Two complex128 tiles never: the first only.
  EXPECT_EQ(bytes(n, n, {{1, 100, 16}, {1, 100, 16}}), unsigned(tile * 16));
  // Within the budget whatever the inputs: three float64 tiles of four.
  EXPECT_LE(bytes(n, n, {{1, 9, 8}, {1, 9, 8}, {1, 9, 8}, {1, 9, 8}}), 99u * 1024);
  EXPECT_EQ(bytes(n, n, {{1, 9, 8}, {1, 9, 8}, {1, 9, 8}, {1, 9, 8}}), unsigned(tile * 8 * 3));
  // Three columns: 512 x 8 tiles, padded to 512 x 9.
  EXPECT_EQ(bytes(5425588, 3, {{1, 5425588, 1}, {3, 1, 16}}), unsigned(512 * 9));
  // Five rows: 8 x 512 tiles, padded to 8 x 513.
  EXPECT_EQ(bytes(5, 262144, {{1, 5, 4}}), unsigned(8 * 513 * 4));
}

TEST_F(LaunchElementwise, MisalignedViewFallsBackToStrided) {
  // Element 0 one float after a 64-byte boundary: unit strides, not 16-byte
  // aligned.
  array_base x = make_view(dtype::float32, {1000}, {}, {}, 1).array;
  array_base y = contiguous(dtype::float32, {1000});
  array_base out = run_saxpy(x, y, 2.0f);
  EXPECT_EQ(calls.variants, std::vector<int>{1});
  expect_saxpy(out, x, y, 2.0f);

  // Four floats on: aligned again.
  calls.clear();
  array_base x4 = make_view(dtype::float32, {1000}, {}, {}, 4).array;
  out = run_saxpy(x4, y, 2.0f);
  EXPECT_EQ(calls.variants, std::vector<int>{0});
  expect_saxpy(out, x4, y, 2.0f);
}

TEST_F(LaunchElementwise, AlignmentIsPerOperandItemsize) {
  // fake_mix has vector width 2: float64 needs 16 bytes, float32 and int32 8,
  // bool 2. An int32 input two elements on (8 bytes) is aligned for it.
  array_base x = contiguous(dtype::float64, {33});
  array_base y = make_view(dtype::float32, {33}, {}, {}, 2).array;
  array_base z = make_view(dtype::int32, {33}, {}, {}, 2).array;
  const array_base *in[] = {&x, &y, &z};
  array_base outs[2];
  launch_elementwise(mix_kernel, in, {}, outs);
  EXPECT_EQ(calls.variants, std::vector<int>{0});
  EXPECT_EQ(calls.violations, 0);

  // One float64 on (8 bytes) is not: strided.
  calls.clear();
  array_base x1 = make_view(dtype::float64, {33}, {}, {}, 1).array;
  const array_base *in1[] = {&x1, &y, &z};
  array_base outs1[2];
  launch_elementwise(mix_kernel, in1, {}, outs1);
  EXPECT_EQ(calls.variants, std::vector<int>{1});
  EXPECT_EQ(calls.violations, 0);
  for (i64 i = 0; i < 33; ++i) {
    const double xv = get(x1, &i), yv = get(y, &i), zv = get(z, &i);
    EXPECT_NEAR(get(outs1[0], &i), xv * yv + zv, 1e-12);
    EXPECT_EQ(get(outs1[1], &i), xv > yv ? 1.0 : 0.0);
  }
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

TEST_F(LaunchElementwise, ColumnPlusRowBroadcastsToMatrix) {
  array_base col = contiguous(dtype::float32, {3, 1});
  array_base row = contiguous(dtype::float32, {1, 4});
  array_base out = run_saxpy(col, row, 0.25f);
  EXPECT_EQ(out.shape(), (shape{3, 4}));
  EXPECT_EQ(calls.variants, std::vector<int>{2});
  expect_saxpy(out, col, row, 0.25f);
}

TEST_F(LaunchElementwise, MatrixPlusVectorBroadcasts) {
  array_base m = contiguous(dtype::float32, {5, 8});
  array_base v = contiguous(dtype::float32, {8});
  array_base out = run_saxpy(m, v, -1.5f);
  EXPECT_EQ(out.shape(), (shape{5, 8}));
  EXPECT_EQ(calls.variants, std::vector<int>{2});
  expect_saxpy(out, m, v, -1.5f);
  calls.clear();
  out = run_saxpy(v, m, -1.5f); // the broadcast input first
  expect_saxpy(out, v, m, -1.5f);
}

TEST_F(LaunchElementwise, ThreeDimensionalBroadcast) {
  array_base a = contiguous(dtype::float32, {3, 1});
  array_base b = contiguous(dtype::float32, {2, 1, 4});
  array_base out = run_saxpy(a, b, 1.25f);
  EXPECT_EQ(out.shape(), (shape{2, 3, 4}));
  expect_saxpy(out, a, b, 1.25f);
}

TEST_F(LaunchElementwise, ZeroDimensionalInputBroadcastsAsScalar) {
  array_base s = contiguous(dtype::float32, {});
  array_base m = contiguous(dtype::float32, {2, 3});
  array_base out = run_saxpy(s, m, 2.0f);
  EXPECT_EQ(out.shape(), (shape{2, 3}));
  // (2,3) coalesces to one dimension; the scalar has stride 0 there.
  EXPECT_EQ(calls.variants, std::vector<int>{1});
  expect_saxpy(out, s, m, 2.0f);
}

TEST_F(LaunchElementwise, AllZeroDimensionalGivesZeroDimensional) {
  array_base a = contiguous(dtype::float32, {});
  array_base b = contiguous(dtype::float32, {});
  array_base out = run_saxpy(a, b, 4.0f);
  EXPECT_EQ(out.ndim(), 0);
  EXPECT_EQ(out.size(), 1);
  EXPECT_EQ(calls.variants, std::vector<int>{0});
  expect_saxpy(out, a, b, 4.0f);
}

TEST_F(LaunchElementwise, SizeOneArrays) {
  array_base a = contiguous(dtype::float32, {1});
  array_base b = contiguous(dtype::float32, {1, 1});
  array_base out = run_saxpy(a, b, 0.5f);
  EXPECT_EQ(out.shape(), (shape{1, 1}));
  expect_saxpy(out, a, b, 0.5f);

  calls.clear();
  array_base v = contiguous(dtype::float32, {6});
  out = run_saxpy(a, v, 0.5f);
  EXPECT_EQ(out.shape(), (shape{6}));
  EXPECT_EQ(calls.variants, std::vector<int>{1}); // a has stride 0
  expect_saxpy(out, a, v, 0.5f);
}

//===----------------------------------------------------------------------===//
// Views: transposes and slices
//===----------------------------------------------------------------------===//

TEST_F(LaunchElementwise, TransposedInput) {
  // x is the transpose of a C-ordered (6,4) array: shape (4,6), strides (1,4).
  array_base x = make_view(dtype::float32, {4, 6}, {1, 0}).array;
  array_base y = contiguous(dtype::float32, {4, 6});
  EXPECT_EQ(x.strides(), (shape{1, 4}));
  array_base out = run_saxpy(x, y, 1.5f);
  EXPECT_EQ(calls.variants, std::vector<int>{2});
  expect_saxpy(out, x, y, 1.5f);
}

TEST_F(LaunchElementwise, OutputFollowsTheInputsMemoryOrder) {
  // NumPy's order 'K': inputs that are both transposed give an F-ordered
  // result, one contiguous stream (`_contig`), not a transpose.
  array_base x = make_view(dtype::float32, {4, 6}, {1, 0}).array;
  array_base y = make_view(dtype::float32, {4, 6}, {1, 0}).array;
  array_base out = run_saxpy(x, y, 1.5f);
  EXPECT_EQ(out.strides(), (shape{1, 4}));
  EXPECT_EQ(calls.variants, std::vector<int>{0});
  expect_saxpy(out, x, y, 1.5f);
  // A 3-d permutation, and an input broadcast along the outermost memory axis.
  calls.clear();
  array_base a = make_view(dtype::float32, {3, 5, 7}, {2, 0, 1}).array;
  array_base b = make_view(dtype::float32, {3, 5, 1}, {2, 0, 1}).array; // broadcast along axis 2
  array_base c = run_saxpy(a, b, 2.0f);
  EXPECT_EQ(c.strides(), a.strides());
  expect_saxpy(c, a, b, 2.0f);
  // Inputs that disagree keep C order (NumPy's tie: no axis moves).
  calls.clear();
  array_base d = run_saxpy(x, contiguous(dtype::float32, {4, 6}), 1.0f);
  EXPECT_EQ(d.strides(), (shape{6, 1}));
  // Reversed axes keep their order, and the result its positive strides.
  calls.clear();
  array_base r = make_view(dtype::float32, {4, 6}, {1, 0}, {-1, 1}).array;
  array_base e = run_saxpy(r, r, 0.5f);
  EXPECT_EQ(e.strides(), (shape{1, 4}));
  expect_saxpy(e, r, r, 0.5f);
  // A given output sets the walk's order (an update of a transposed view
  // writes it in its own memory order): with F-ordered inputs too, one stream.
  calls.clear();
  array_base given = make_view(dtype::float32, {4, 6}, {1, 0}).array;
  run_saxpy(x, y, 0.25f, given);
  EXPECT_EQ(calls.variants, std::vector<int>{0});
  expect_saxpy(given, x, y, 0.25f);
}

TEST_F(LaunchElementwise, SlicedWithStepAndNegativeStep) {
  array_base every_other = make_view(dtype::float32, {500}, {}, {2}).array;
  array_base reversed = make_view(dtype::float32, {500}, {}, {-1}).array;
  EXPECT_EQ(every_other.strides(), (shape{2}));
  EXPECT_EQ(reversed.strides(), (shape{-1}));
  array_base out = run_saxpy(every_other, reversed, -0.75f);
  EXPECT_EQ(calls.variants, std::vector<int>{1});
  expect_saxpy(out, every_other, reversed, -0.75f);
}

TEST_F(LaunchElementwise, TwoDimensionalNegativeStepCoalescesRows) {
  // x[::-1, :]: rows reversed, each row contiguous; y contiguous.
  array_base x = make_view(dtype::float32, {5, 6}, {}, {-1, 1}).array;
  array_base y = contiguous(dtype::float32, {5, 6});
  array_base out = run_saxpy(x, y, 2.5f);
  EXPECT_EQ(calls.variants, std::vector<int>{2});
  expect_saxpy(out, x, y, 2.5f);

  // x[::-1, ::-1] of a contiguous array is one dimension of stride -1.
  calls.clear();
  array_base xr = make_view(dtype::float32, {5, 6}, {}, {-1, -1}).array;
  array_base yr = make_view(dtype::float32, {5, 6}, {}, {-1, -1}).array;
  out = run_saxpy(xr, yr, 2.5f,
                  make_view(dtype::float32, {5, 6}, {}, {-1, -1}).array);
  EXPECT_EQ(calls.variants, std::vector<int>{1});
  expect_saxpy(out, xr, yr, 2.5f);
}

TEST_F(LaunchElementwise, RanksThreeAndFourUseTheirVariants) {
  array_base x3 = make_view(dtype::float32, {3, 4, 5}, {2, 1, 0}).array;
  array_base y3 = contiguous(dtype::float32, {3, 4, 5});
  array_base out = run_saxpy(x3, y3, 1.0f);
  EXPECT_EQ(calls.variants, std::vector<int>{3});
  expect_saxpy(out, x3, y3, 1.0f);

  calls.clear();
  array_base x4 = make_view(dtype::float32, {2, 3, 4, 5}, {3, 2, 1, 0}).array;
  array_base y4 = contiguous(dtype::float32, {2, 3, 4, 5});
  out = run_saxpy(x4, y4, 1.0f);
  EXPECT_EQ(calls.variants, std::vector<int>{4});
  expect_saxpy(out, x4, y4, 1.0f);
}

TEST_F(LaunchElementwise, RankFiveLoopsOnHostOverLeadingDimension) {
  // All axes reversed in memory: no two dimensions coalesce.
  array_base x =
      make_view(dtype::float32, {2, 3, 2, 3, 2}, {4, 3, 2, 1, 0}).array;
  array_base y = contiguous(dtype::float32, {2, 3, 2, 3, 2});
  array_base out = run_saxpy(x, y, -2.0f);
  EXPECT_EQ(calls.variants, (std::vector<int>{4, 4}));
  expect_saxpy(out, x, y, -2.0f);
}

TEST_F(LaunchElementwise, RankSixLoopsOnHostOverTwoLeadingDimensions) {
  array_base x =
      make_view(dtype::float32, {3, 2, 2, 3, 2, 3}, {5, 4, 3, 2, 1, 0}).array;
  array_base y =
      make_view(dtype::float32, {3, 2, 2, 3, 2, 3}, {}, {1, -1, 1, 2, 1, -1})
          .array;
  array_base out = run_saxpy(x, y, 0.125f);
  EXPECT_EQ(calls.variants, std::vector<int>(6, 4));
  expect_saxpy(out, x, y, 0.125f);
}

TEST_F(LaunchElementwise, HighRankThatCoalescesNeedsNoHostLoop) {
  array_base x = contiguous(dtype::float32, {2, 1, 3, 2, 1, 2, 2});
  array_base y = contiguous(dtype::float32, {2, 1, 3, 2, 1, 2, 2});
  array_base out = run_saxpy(x, y, 3.0f);
  EXPECT_EQ(calls.variants, std::vector<int>{0});
  expect_saxpy(out, x, y, 3.0f);
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

TEST_F(LaunchElementwise, GivenOutputIsWrittenInPlace) {
  array_base x = contiguous(dtype::float32, {4, 6});
  array_base y = contiguous(dtype::float32, {6});
  array_base given = contiguous(dtype::float32, {4, 6});
  const void *storage = given.storage().get();
  array_base out = run_saxpy(x, y, 0.5f, given);
  EXPECT_EQ(out.storage().get(), storage);
  expect_saxpy(given, x, y, 0.5f);
}

TEST_F(LaunchElementwise, GivenTransposedOutput) {
  array_base x = contiguous(dtype::float32, {4, 6});
  array_base y = contiguous(dtype::float32, {4, 6});
  array_base given = make_view(dtype::float32, {4, 6}, {1, 0}).array;
  run_saxpy(x, y, 0.5f, given);
  EXPECT_EQ(calls.variants, std::vector<int>{2});
  expect_saxpy(given, x, y, 0.5f);
}

TEST_F(LaunchElementwise, TwoOutputsOfDifferentDtypes) {
  rng().seed(12345); // the comparison's trues and falses below: data that has both
  array_base x = make_view(dtype::float64, {3, 5}, {1, 0}).array;
  array_base y = contiguous(dtype::float32, {5});
  array_base z = contiguous(dtype::int32, {3, 1});
  const array_base *in[] = {&x, &y, &z};
  array_base outs[2];
  launch_elementwise(mix_kernel, in, {}, outs);
  ASSERT_EQ(outs[0].dtype(), dtype::float64);
  ASSERT_EQ(outs[1].dtype(), dtype::bool_);
  EXPECT_EQ(outs[0].shape(), (shape{3, 5}));
  EXPECT_EQ(outs[1].shape(), (shape{3, 5}));
  EXPECT_EQ(calls.violations, 0);
  int trues = 0;
  for_each(outs[0].shape(), [&](const i64 *i) {
    const double xv = get_broadcast(x, i, 2), yv = get_broadcast(y, i, 2),
                 zv = get_broadcast(z, i, 2);
    EXPECT_NEAR(get(outs[0], i), xv * yv + zv, 1e-12);
    EXPECT_EQ(get(outs[1], i), xv > yv ? 1.0 : 0.0);
    trues += xv > yv;
  });
  EXPECT_GT(trues, 0);
  EXPECT_LT(trues, 15);
}

TEST_F(LaunchElementwise, SizeZeroLaunchesNothing) {
  array_base empty_rows = contiguous(dtype::float32, {0, 3});
  array_base row = contiguous(dtype::float32, {3});
  array_base out = run_saxpy(empty_rows, row, 1.0f);
  EXPECT_EQ(out.shape(), (shape{0, 3}));
  EXPECT_EQ(out.size(), 0);
  EXPECT_TRUE(calls.variants.empty());

  array_base none = contiguous(dtype::float32, {0});
  array_base one = contiguous(dtype::float32, {1});
  out = run_saxpy(none, one, 1.0f);
  EXPECT_EQ(out.shape(), (shape{0}));
  EXPECT_TRUE(calls.variants.empty());
}

TEST_F(LaunchElementwise, ScalarOnlyCallRunsOnCurrentDevice) {
  const double v = 6.25;
  const void *sc[] = {&v};
  array_base outs[1];
  {
    kiln::device_scope host(device::host());
    launch_elementwise(fill_kernel, {}, sc, outs);
  }
  EXPECT_EQ(outs[0].ndim(), 0);
  EXPECT_EQ(outs[0].device(), device::host());
  EXPECT_EQ(calls.variants, std::vector<int>{0});
  EXPECT_EQ(get(outs[0], nullptr), 6.25);
}

//===----------------------------------------------------------------------===//
// Errors (and the program goes on after each)
//===----------------------------------------------------------------------===//

template <class E, class F> std::string error_of(F f) {
  try {
    f();
  } catch (const E &e) {
    return e.what();
  } catch (const std::exception &e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no exception";
}

void expect_working_launch() {
  calls.clear();
  array_base x = contiguous(dtype::float32, {10});
  array_base y = contiguous(dtype::float32, {10});
  array_base out = run_saxpy(x, y, 2.0f);
  expect_saxpy(out, x, y, 2.0f);
}

TEST_F(LaunchElementwise, SameShapeGivenOutputStillChecked) {
  // Inputs that take the fast path; outputs it must refuse with the general
  // path's errors.
  array_base x = contiguous(dtype::float32, {4, 6});
  array_base y = contiguous(dtype::float32, {4, 6});
  array_base wrong_dtype = contiguous(dtype::int32, {4, 6});
  EXPECT_EQ(error_of<kiln::value_error>([&] { run_saxpy(x, y, 1.0f, wrong_dtype); }),
            "kernel fake_saxpy: output 0 has dtype int32 but the kernel writes float32");
  array_base wrong_shape = contiguous(dtype::float32, {6, 4});
  EXPECT_EQ(error_of<kiln::shape_error>([&] { run_saxpy(x, y, 1.0f, wrong_shape); }),
            "non-broadcastable output operand with shape (6,4) doesn't match the broadcast shape (4,6)");
  EXPECT_TRUE(calls.variants.empty());
  // A transposed output of the right shape is written through its strides.
  array_base t = make_view(dtype::float32, {4, 6}, {1, 0}).array;
  run_saxpy(x, y, 1.0f, t);
  EXPECT_EQ(calls.variants, std::vector<int>{2});
  expect_saxpy(t, x, y, 1.0f);
}

TEST_F(LaunchElementwise, IncompatibleShapesThrowNumpyMessage) {
  array_base a = contiguous(dtype::float32, {3, 4});
  array_base b = contiguous(dtype::float32, {5});
  EXPECT_EQ(error_of<kiln::shape_error>([&] { run_saxpy(a, b, 1.0f); }),
            "operands could not be broadcast together with shapes (3,4) (5,)");
  EXPECT_TRUE(calls.variants.empty());
  expect_working_launch();

  // Every input shape is listed.
  array_base x = contiguous(dtype::float64, {2, 3});
  array_base y = contiguous(dtype::float32, {4, 3});
  array_base z = contiguous(dtype::int32, {3});
  const array_base *in[] = {&x, &y, &z};
  array_base outs[2];
  EXPECT_EQ(
      error_of<kiln::shape_error>(
          [&] { launch_elementwise(mix_kernel, in, {}, outs); }),
      "operands could not be broadcast together with shapes (2,3) (4,3) (3,)");
  EXPECT_FALSE(outs[0].valid()); // nothing allocated
  expect_working_launch();
}

TEST_F(LaunchElementwise, WrongInputDtypeThrowsValueError) {
  array_base x = contiguous(dtype::float32, {4});
  array_base y = contiguous(dtype::float64, {4});
  EXPECT_EQ(error_of<kiln::value_error>([&] { run_saxpy(x, y, 1.0f); }),
            "kernel fake_saxpy: input 1 has dtype float64 but the kernel takes "
            "float32");
  expect_working_launch();
}

TEST_F(LaunchElementwise, WrongOperandCountsThrowValueError) {
  array_base x = contiguous(dtype::float32, {4});
  const array_base *in[] = {&x};
  const float a = 1.0f;
  const void *sc[] = {&a};
  array_base outs[1];
  EXPECT_EQ(error_of<kiln::value_error>(
                [&] { launch_elementwise(saxpy_kernel, in, sc, outs); }),
            "kernel fake_saxpy takes 2 inputs, 1 scalars and 1 outputs; got 1 "
            "inputs, 1 scalars "
            "and 1 outputs");
  expect_working_launch();
}

TEST_F(LaunchElementwise, InvalidInputThrowsValueError) {
  array_base x; // default-constructed: no buffer
  array_base y = contiguous(dtype::float32, {});
  EXPECT_EQ(error_of<kiln::value_error>([&] { run_saxpy(x, y, 1.0f); }),
            "kernel fake_saxpy: input 0 is not an array (default-constructed "
            "or moved from)");
  expect_working_launch();
}

TEST_F(LaunchElementwise, GivenOutputOfWrongShapeThrowsShapeError) {
  array_base x = contiguous(dtype::float32, {3, 4});
  array_base y = contiguous(dtype::float32, {4});
  array_base out = contiguous(dtype::float32, {4, 3});
  EXPECT_EQ(error_of<kiln::shape_error>([&] { run_saxpy(x, y, 1.0f, out); }),
            "non-broadcastable output operand with shape (4,3) doesn't match the broadcast shape "
            "(3,4)");
  array_base bigger = contiguous(dtype::float32, {2, 3, 4});
  EXPECT_EQ(error_of<kiln::shape_error>([&] { run_saxpy(x, y, 1.0f, bigger); }),
            "non-broadcastable output operand with shape (2,3,4) doesn't match the broadcast "
            "shape (3,4)");
  EXPECT_TRUE(calls.variants.empty());
  expect_working_launch();
}

TEST_F(LaunchElementwise, GivenOutputOfWrongDtypeThrowsValueError) {
  array_base x = contiguous(dtype::float32, {3, 4});
  array_base y = contiguous(dtype::float32, {3, 4});
  array_base out = contiguous(dtype::float64, {3, 4});
  EXPECT_EQ(error_of<kiln::value_error>([&] { run_saxpy(x, y, 1.0f, out); }),
            "kernel fake_saxpy: output 0 has dtype float64 but the kernel "
            "writes float32");
  expect_working_launch();
}

TEST_F(LaunchElementwise, MissingHostVariantThrows) {
  fused_kernel gpu_only = saxpy_kernel;
  gpu_only.name = "fake_gpu_only";
  gpu_only.host_contig = nullptr;
  array_base x = contiguous(dtype::float32, {8});
  array_base y = contiguous(dtype::float32, {8});
  const array_base *in[] = {&x, &y};
  const float a = 1.0f;
  const void *sc[] = {&a};
  array_base outs[1];
  EXPECT_EQ(error_of<kiln::error>(
                [&] { launch_elementwise(gpu_only, in, sc, outs); }),
            "kernel fake_gpu_only was built without a host variant "
            "(fake_gpu_only_contig)");
  expect_working_launch();
}

TEST_F(LaunchElementwise, ArraysOnDifferentDevicesThrowDeviceError) {
  KILN_REQUIRE_GPU();
  array_base x = kiln::detail::empty(dtype::float32, shape{4}, device::cuda(0));
  array_base y = contiguous(dtype::float32, {4});
  EXPECT_EQ(error_of<kiln::device_error>([&] { run_saxpy(x, y, 1.0f); }),
            "arrays are on different devices: cuda:0 and host");
  EXPECT_EQ(error_of<kiln::device_error>([&] { run_saxpy(y, x, 1.0f); }),
            "arrays are on different devices: host and cuda:0");
  expect_working_launch();
}

//===----------------------------------------------------------------------===//
// Random shapes, broadcasts and layouts against float64 references
//===----------------------------------------------------------------------===//

/// A random view of shape `dims`: any memory order, steps of +-1 or +-2,
/// sometimes shifted off alignment.
test_view random_view(dtype t, const std::vector<i64> &dims) {
  const std::size_t r = dims.size();
  std::vector<int> order(r);
  std::iota(order.begin(), order.end(), 0);
  std::vector<i64> steps(r, 1);
  std::uniform_int_distribution<int> pick(0, 3);
  if (pick(rng()) != 0) {
    std::shuffle(order.begin(), order.end(), rng());
    for (auto &s : steps) {
      const i64 choices[] = {1, 1, 2, -1, -2};
      s = choices[std::uniform_int_distribution<int>(0, 4)(rng())];
    }
  }
  return make_view(t, dims, order, steps, pick(rng()) == 0 ? 1 : 0);
}

TEST_F(LaunchElementwise, RandomLayoutsMatchReference) {
  std::uniform_int_distribution<int> rank_of(0, 7), dim_of(1, 4), coin(0, 2);
  int variants_seen[1 + kiln::detail::max_kernel_rank] = {};
  for (int trial = 0; trial < 300; ++trial) {
    calls.clear();
    const int rank = rank_of(rng());
    std::vector<i64> out_dims(rank);
    for (auto &d : out_dims)
      d = dim_of(rng());
    auto input_dims = [&] {
      const int r = std::uniform_int_distribution<int>(0, rank)(rng());
      std::vector<i64> dims(out_dims.end() - r, out_dims.end());
      for (auto &d : dims)
        if (coin(rng()) == 0)
          d = 1;
      return dims;
    };
    array_base x = random_view(dtype::float32, input_dims()).array;
    array_base y = random_view(dtype::float32, input_dims()).array;
    const shape want = expected_broadcast({&x, &y});
    array_base given;
    if (coin(rng()) == 0)
      given = random_view(dtype::float32,
                          std::vector<i64>(want.begin(), want.end()))
                  .array;
    const float a = std::uniform_real_distribution<float>(-3, 3)(rng());
    array_base out = run_saxpy(x, y, a, given);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " +
                 kiln::to_string(x.shape()) + " " + kiln::to_string(y.shape()) +
                 " -> " + kiln::to_string(want));
    ASSERT_EQ(out.shape(), want);
    ASSERT_FALSE(calls.variants.empty());
    for (int v : calls.variants)
      ++variants_seen[v];
    expect_saxpy(out, x, y, a);
  }
  for (int v = 0; v <= kiln::detail::max_kernel_rank; ++v)
    EXPECT_GT(variants_seen[v], 0) << "variant " << v << " never chosen";
}

//===----------------------------------------------------------------------===//
// GPU: a PTX saxpy following the ABI, compared with the host variants
//===----------------------------------------------------------------------===//

/// PTX for `<name>_strided<rank>` (or `_contig` with rank 1): out = a*x + y
/// over float32, grid-stride over all elements, any strides and offsets.
std::string saxpy_ptx_entry(const std::string &entry, int rank) {
  const int f = 3 + 2 * rank; // parameters per operand
  std::ostringstream s;
  s << ".visible .entry " << entry << "(\n";
  for (int i = 0; i < 3 * f; ++i)
    s << "  .param .u64 p" << i << ",\n";
  s << "  .param .f32 pa)\n{\n"
    << "  .reg .pred %p<2>;\n  .reg .f32 %f<4>;\n  .reg .b32 %r<5>;\n  .reg "
       ".b64 %rd<64>;\n";
  for (int j = 0; j < 3; ++j) // %rd1..3: aligned + offset, in bytes
    s << "  ld.param.u64 %rd" << 1 + j << ", [p" << j * f + 1 << "];\n"
      << "  ld.param.u64 %rd60, [p" << j * f + 2 << "];\n"
      << "  shl.b64 %rd60, %rd60, 2;\n"
      << "  add.s64 %rd" << 1 + j << ", %rd" << 1 + j << ", %rd60;\n";
  s << "  ld.param.f32 %f1, [pa];\n  mov.u64 %rd4, 1;\n";
  for (int k = 0; k < rank;
       ++k) // %rd10+k: the output's sizes; %rd4: their product
    s << "  ld.param.u64 %rd" << 10 + k << ", [p" << 2 * f + 3 + k << "];\n"
      << "  mul.lo.s64 %rd4, %rd4, %rd" << 10 + k << ";\n";
  for (int j = 0; j < 3; ++j) // %rd(20 + 10j + k): stride k of operand j
    for (int k = 0; k < rank; ++k)
      s << "  ld.param.u64 %rd" << 20 + 10 * j + k << ", [p"
        << j * f + 3 + rank + k << "];\n";
  s << "  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %ntid.x;\n  mov.u32 %r3, "
       "%tid.x;\n"
    << "  mov.u32 %r4, %nctaid.x;\n  mul.wide.u32 %rd5, %r1, %r2;\n  "
       "cvt.u64.u32 %rd6, %r3;\n"
    << "  add.s64 %rd5, %rd5, %rd6;\n  mul.wide.u32 %rd7, %r4, %r2;\n"
    << entry << "_loop:\n  setp.ge.s64 %p1, %rd5, %rd4;\n  @%p1 bra " << entry
    << "_done;\n"
    << "  mov.u64 %rd8, %rd5;\n  mov.u64 %rd50, 0;\n  mov.u64 %rd51, 0;\n  "
       "mov.u64 %rd52, 0;\n";
  for (int k = rank - 1; k >= 0; --k) {
    s << "  rem.s64 %rd9, %rd8, %rd" << 10 + k << ";\n  div.s64 %rd8, %rd8, %rd"
      << 10 + k << ";\n";
    for (int j = 0; j < 3; ++j)
      s << "  mad.lo.s64 %rd" << 50 + j << ", %rd9, %rd" << 20 + 10 * j + k
        << ", %rd" << 50 + j << ";\n";
  }
  for (int j = 0; j < 3; ++j)
    s << "  shl.b64 %rd" << 50 + j << ", %rd" << 50 + j << ", 2;\n  add.s64 %rd"
      << 50 + j << ", %rd" << 1 + j << ", %rd" << 50 + j << ";\n";
  s << "  ld.f32 %f2, [%rd50];\n  ld.f32 %f3, [%rd51];\n  fma.rn.f32 %f2, %f1, "
       "%f2, %f3;\n"
    << "  st.f32 [%rd52], %f2;\n  add.s64 %rd5, %rd5, %rd7;\n  bra " << entry
    << "_loop;\n"
    << entry << "_done:\n  ret;\n}\n";
  return s.str();
}

const std::string &saxpy_ptx() {
  static const std::string ptx = [] {
    std::string m = ".version 7.0\n.target sm_80\n.address_size 64\n\n";
    m += saxpy_ptx_entry("fake_saxpy_contig", 1);
    for (int r = 1; r <= kiln::detail::max_kernel_rank; ++r)
      m += saxpy_ptx_entry("fake_saxpy_strided" + std::to_string(r), r);
    return m;
  }();
  return ptx;
}

fused_kernel gpu_saxpy_kernel() {
  fused_kernel k = saxpy_kernel;
  k.ptx = saxpy_ptx().c_str();
  return k;
}

/// The same view (same strides and offset) over a copy of its buffer on GPU 0.
array_base mirror_on_gpu(const test_view &v, device gpu = device::cuda(0)) {
  const dtype t = v.array.dtype();
  array_base buf = kiln::detail::empty(t, shape{v.buffer_elems}, gpu);
  kiln::detail::copy_from_host(buf, v.array.storage().get(),
                               kiln::stream::current(gpu), false);
  return array_base::from_parts(buf.storage(), t, gpu, v.array.shape(),
                                v.array.strides(), v.array.offset());
}

std::vector<float> to_host(const array_base &a) {
  std::vector<float> v(static_cast<std::size_t>(a.size()));
  kiln::detail::copy_to_host(a, v.data(), kiln::stream::current(a.device()),
                             false);
  return v;
}

TEST_F(LaunchElementwise, PtxModuleAssemblesWithPtxas) {
  // Checks the hand-written PTX on machines without a GPU too (when the
  // toolkit's ptxas is found).
  const char *candidates[] = {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas"};
  const char *ptxas = nullptr;
  for (const char *c : candidates)
    if (std::FILE *f = std::fopen(c, "r")) {
      std::fclose(f);
      ptxas = c;
      break;
    }
  if (!ptxas)
    GTEST_SKIP() << "ptxas not found";
  const std::string path = ::testing::TempDir() + "kiln_launch_saxpy.ptx";
  {
    std::FILE *f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(saxpy_ptx().c_str(), f);
    std::fclose(f);
  }
  const std::string cmd =
      std::string(ptxas) + " -arch=sm_80 " + path + " -o " + path + ".cubin";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << saxpy_ptx();
}

TEST_F(LaunchElementwise, GpuSaxpyMatchesHostOnEveryVariant) {
  KILN_REQUIRE_GPU();
  const fused_kernel k = gpu_saxpy_kernel();
  struct layout {
    std::vector<i64> xd, yd;
    std::vector<int> xorder;
    std::vector<i64> xsteps;
    i64 xshift;
  };
  const layout cases[] = {
      {{100003}, {100003}, {}, {}, 0},                // contig, with a tail
      {{1000}, {1000}, {}, {}, 1},                    // misaligned: strided1
      {{777}, {777}, {}, {-2}, 0},                    // negative step: strided1
      {{300, 1}, {1, 200}, {}, {}, 0},                // broadcast: strided2
      {{30, 20, 10}, {30, 20, 10}, {2, 1, 0}, {}, 0}, // strided3
      {{6, 5, 4, 3}, {6, 5, 4, 3}, {3, 2, 1, 0}, {}, 0}, // strided4
      {{3, 4, 5, 6, 7},
       {3, 4, 5, 6, 7},
       {4, 3, 2, 1, 0},
       {},
       0}, // host loop of strided4
      {{2, 3, 4, 5, 6, 7}, {7}, {5, 4, 3, 2, 1, 0}, {1, -1, 1, 2, 1, -1}, 0},
      {{}, {5000}, {}, {}, 0}, // 0-d input
  };
  for (const layout &c : cases) {
    SCOPED_TRACE(::testing::Message() << "x shape rank " << c.xd.size());
    test_view x = make_view(dtype::float32, c.xd, c.xorder, c.xsteps, c.xshift);
    test_view y = make_view(dtype::float32, c.yd);
    const float a = 0.75f;
    calls.clear();
    array_base host_out = run_saxpy(x.array, y.array, a);
    const std::vector<int> host_variants = calls.variants;

    array_base gx = mirror_on_gpu(x), gy = mirror_on_gpu(y);
    const array_base *in[] = {&gx, &gy};
    const void *sc[] = {&a};
    array_base outs[1];
    calls.clear();
    launch_elementwise(k, in, sc, outs);
    EXPECT_TRUE(calls.variants.empty()); // nothing ran on the host
    ASSERT_EQ(outs[0].device(), device::cuda(0));
    ASSERT_EQ(outs[0].shape(), host_out.shape());
    const std::vector<float> got = to_host(outs[0]);
    const float *want = static_cast<const float *>(host_out.data());
    i64 bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      bad += std::abs(got[i] - want[i]) > 1e-5f * (1 + std::abs(want[i]));
    EXPECT_EQ(bad, 0) << "host variants " << host_variants.size();
  }
}

TEST_F(LaunchElementwise, GpuSecondDeviceRunsThere) {
  KILN_REQUIRE_GPUS(2);
  const fused_kernel k = gpu_saxpy_kernel();
  test_view x = make_view(dtype::float32, {40, 50}, {1, 0});
  test_view y = make_view(dtype::float32, {50});
  const float a = -1.25f;
  array_base host_out = run_saxpy(x.array, y.array, a);
  kiln::device_scope other(
      device::cuda(0)); // the current device is not the arrays'
  for (int round = 0; round < 2;
       ++round) { // the second round uses the cached module
    array_base gx = mirror_on_gpu(x, device::cuda(1)),
               gy = mirror_on_gpu(y, device::cuda(1));
    const array_base *in[] = {&gx, &gy};
    const void *sc[] = {&a};
    array_base outs[1];
    launch_elementwise(k, in, sc, outs);
    ASSERT_EQ(outs[0].device(), device::cuda(1));
    const std::vector<float> got = to_host(outs[0]);
    const float *want = static_cast<const float *>(host_out.data());
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-5f * (1 + std::abs(want[i])))
          << "element " << i;
  }
  array_base g0 =
      kiln::detail::empty(dtype::float32, shape{4}, device::cuda(0));
  array_base g1 =
      kiln::detail::empty(dtype::float32, shape{4}, device::cuda(1));
  EXPECT_EQ(error_of<kiln::device_error>([&] { run_saxpy(g0, g1, 1.0f); }),
            "arrays are on different devices: cuda:0 and cuda:1");
}

TEST_F(LaunchElementwise, GpuBadPtxReportsJitLog) {
  KILN_REQUIRE_GPU();
  fused_kernel bad = saxpy_kernel;
  bad.name = "fake_bad_ptx";
  bad.ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry "
            "fake_bad_ptx_contig() {\n"
            "  this is not ptx;\n}\n";
  array_base x =
      kiln::detail::empty(dtype::float32, shape{16}, device::cuda(0));
  array_base y =
      kiln::detail::empty(dtype::float32, shape{16}, device::cuda(0));
  const std::string msg = error_of<kiln::cuda_error>([&] {
    const array_base *in[] = {&x, &y};
    const float a = 1.0f;
    const void *sc[] = {&a};
    array_base outs[1];
    launch_elementwise(bad, in, sc, outs);
  });
  EXPECT_NE(msg.find("cuModuleLoadDataEx"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fake_bad_ptx"), std::string::npos) << msg;
  expect_working_launch();
}

TEST_F(LaunchElementwise, GpuKernelWithoutGpuCodeThrows) {
  KILN_REQUIRE_GPU();
  fused_kernel host_only = saxpy_kernel;
  host_only.name = "fake_host_only";
  array_base x =
      kiln::detail::empty(dtype::float32, shape{16}, device::cuda(0));
  array_base y =
      kiln::detail::empty(dtype::float32, shape{16}, device::cuda(0));
  const array_base *in[] = {&x, &y};
  const float a = 1.0f;
  const void *sc[] = {&a};
  array_base outs[1];
  host_only.ptx = nullptr;
  host_only.fatbin = nullptr;
  host_only.fatbin_size = 0;
  const std::string msg = error_of<kiln::device_error>(
      [&] { launch_elementwise(host_only, in, sc, outs); });
  EXPECT_NE(msg.find("kernel fake_host_only was built without GPU code (kilnc --cuda-host-only)"),
            std::string::npos) << msg;
  EXPECT_NE(msg.find("KILN_DEVICE=host"), std::string::npos) << msg;
}

} // namespace

//===----------------------------------------------------------------------===//
// The `_rows` variant (rank 2, contiguous rows, whole aligned vectors)
//===----------------------------------------------------------------------===//

constexpr int rows_variant = kiln::detail::max_kernel_rank + 1;

TEST_F(LaunchElementwise, MatrixPlusRowRunsRows) {
  array_base x = contiguous(dtype::float32, {6, 8});
  array_base y = contiguous(dtype::float32, {8});
  array_base out = run_saxpy_rows(x, y, 1.5f);
  EXPECT_EQ(out.shape(), (shape{6, 8}));
  EXPECT_EQ(calls.variants, std::vector<int>{rows_variant});
  expect_saxpy(out, x, y, 1.5f);
}

TEST_F(LaunchElementwise, RowsNeedWholeVectors) {
  array_base x = contiguous(dtype::float32, {6, 10}); // 10 % 4 != 0
  array_base y = contiguous(dtype::float32, {10});
  array_base out = run_saxpy_rows(x, y, 1.5f);
  EXPECT_EQ(calls.variants, std::vector<int>{2});
  expect_saxpy(out, x, y, 1.5f);
}

TEST_F(LaunchElementwise, RowsNeedAlignedRows) {
  test_view x = make_view(dtype::float32, {6, 8}, {}, {}, /*shift=*/1);
  array_base y = contiguous(dtype::float32, {8});
  array_base out = run_saxpy_rows(x.array, y, 1.5f);
  EXPECT_EQ(calls.variants, std::vector<int>{2});
  expect_saxpy(out, x.array, y, 1.5f);
}

TEST_F(LaunchElementwise, TransposedOperandIsNotRows) {
  test_view x = make_view(dtype::float32, {6, 8}, {1, 0});
  array_base y = contiguous(dtype::float32, {6, 8});
  array_base out = run_saxpy_rows(x.array, y, -2.0f);
  EXPECT_EQ(calls.variants, std::vector<int>{2});
  expect_saxpy(out, x.array, y, -2.0f);
}

TEST_F(LaunchElementwise, KernelWithoutRowsRunsStrided2) {
  array_base x = contiguous(dtype::float32, {6, 8});
  array_base y = contiguous(dtype::float32, {8});
  array_base out = run_saxpy(x, y, 1.5f);
  EXPECT_EQ(calls.variants, std::vector<int>{2});
  expect_saxpy(out, x, y, 1.5f);
}
