//===- test/unit/runtime/launch_reduction_test.cpp - launch_reduction -----===//
//
// Tests kiln::detail::launch_reduction with a reduction kernel written by
// hand in this file: a row sum whose host `_rrows` variant reads the
// parameters of docs/kernel-abi.md ("Reduction kernels") and records what it
// was asked to do. kilnc-built kernels are tested end to end in
// test/e2e/reductions_*.cpp; this pins the runtime's side of the ABI (the
// iteration space it plans, the control block, the errors it raises, and
// when it declines a call so that the caller falls back to the eager form).
//
//===----------------------------------------------------------------------===//
#include "kiln/detail/reduction.hpp"

#include "expect.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using kiln::array_base;
using kiln::device;
using kiln::dtype;
using kiln::shape;
using kiln::detail::launch_reduction;
using kiln::detail::reduction_kernel;
using kiln::detail::reduction_phase;
using kiln::detail::reduction_stage;
using i64 = std::int64_t;

/// What the hand-written variant saw, over all its calls.
struct call_log {
  int calls = 0;
  i64 blocks = 0;       ///< virtual blocks run
  int bad_control = 0;  ///< calls with a phase, level or split the test did not expect
  i64 kept = -1, reduced = -1;
  void clear() { *this = call_log{}; }
};
call_log seen;

template <class T, int R> struct memref {
  T *allocated;
  T *aligned;
  i64 offset;
  i64 sizes[R];
  i64 strides[R];
};

/// Reads an expanded memref descriptor of rank R starting at args[i].
template <class T, int R> memref<T, R> read_memref(void **args, int &i) {
  memref<T, R> m{};
  m.allocated = *static_cast<T **>(args[i++]);
  m.aligned = *static_cast<T **>(args[i++]);
  m.offset = *static_cast<i64 *>(args[i++]);
  for (int d = 0; d < R; ++d)
    m.sizes[d] = *static_cast<i64 *>(args[i++]);
  for (int d = 0; d < R; ++d)
    m.strides[d] = *static_cast<i64 *>(args[i++]);
  return m;
}

/// `_rrows` of sum(x, axis) for float32 x: full input [kept, reduced]
/// (reduced stride 1), kept output [kept], no scalars, then the control block.
void row_sum_rrows_host(void **args) {
  int i = 0;
  auto x = read_memref<float, 2>(args, i);
  auto out = read_memref<float, 1>(args, i);
  (void)read_memref<std::uint8_t, 1>(args, i); // workspace
  const auto phase = *static_cast<std::int32_t *>(args[i++]);
  const auto level = *static_cast<std::int32_t *>(args[i++]);
  const auto split = *static_cast<std::int32_t *>(args[i++]);
  (void)*static_cast<std::int32_t *>(args[i++]); // flags
  const i64 first = *static_cast<i64 *>(args[i++]);
  const i64 count = *static_cast<i64 *>(args[i++]);
  // Test-only bookkeeping; the runtime may run blocks on several threads,
  // so the log is only read after the call (the counts race benignly in a
  // way the assertions below tolerate: they are set, not accumulated).
  if (phase != static_cast<std::int32_t>(reduction_phase::whole) || level != 0 || split != 1 ||
      x.strides[1] != 1)
    seen.bad_control = 1;
  seen.kept = x.sizes[0];
  seen.reduced = x.sizes[1];
  for (i64 k = first; k < first + count; ++k) {
    double s = 0;
    for (i64 r = 0; r < x.sizes[1]; ++r)
      s += x.aligned[x.offset + k * x.strides[0] + r];
    out.aligned[out.offset + k * out.strides[0]] = static_cast<float>(s);
  }
  seen.calls = 1;
}

const std::uint8_t sum_state_bytes[] = {4};
const reduction_stage sum_stage{/*full_inputs=*/1, /*level=*/0, /*num_components=*/1, sum_state_bytes};
const dtype sum_dtypes[] = {dtype::float32, dtype::float32};

reduction_kernel row_sum_kernel() {
  reduction_kernel k{};
  k.name = "test_row_sum";
  k.host[0] = row_sum_rrows_host; // no `_rcols` or `_rgeneral`
  k.num_inputs = 1;
  k.operand_dtypes = sum_dtypes;
  k.kept_output = true;
  k.num_stages = 1;
  k.stages = &sum_stage;
  k.num_levels = 1;
  k.vector_width = 4;
  return k;
}

array_base random_matrix(shape s, unsigned seed) {
  array_base a = kiln::detail::empty(dtype::float32, s, device::host());
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  float *p = static_cast<float *>(a.data());
  for (i64 i = 0; i < a.size(); ++i)
    p[i] = u(gen);
  return a;
}

class LaunchReduction : public ::testing::Test {
protected:
  void SetUp() override { seen.clear(); }
  reduction_kernel k = row_sum_kernel();
};

TEST_F(LaunchReduction, RowSumsMatchADoubleReference) {
  array_base x = random_matrix({37, 1000}, 1);
  const array_base *in[] = {&x};
  array_base out;
  ASSERT_TRUE(launch_reduction(k, in, {}, {}, kiln::axes(-1), false, out));
  EXPECT_EQ(seen.bad_control, 0);
  EXPECT_EQ(seen.kept, 37);
  EXPECT_EQ(seen.reduced, 1000);
  ASSERT_EQ(out.shape(), (shape{37}));
  ASSERT_EQ(out.dtype(), dtype::float32);
  const float *xs = static_cast<const float *>(x.data());
  const float *o = static_cast<const float *>(out.data());
  for (i64 r = 0; r < 37; ++r) {
    double s = 0;
    for (i64 c = 0; c < 1000; ++c)
      s += xs[r * 1000 + c];
    EXPECT_NEAR(o[r], s, 1e-5 * (1 + std::fabs(s))) << "row " << r;
  }
}

TEST_F(LaunchReduction, KeepdimsKeepsTheAxisAsLengthOne) {
  array_base x = random_matrix({5, 7}, 2);
  const array_base *in[] = {&x};
  array_base out;
  ASSERT_TRUE(launch_reduction(k, in, {}, {}, kiln::axes(1), true, out));
  EXPECT_EQ(out.shape(), (shape{5, 1}));
}

TEST_F(LaunchReduction, LeadingAxesMergeIntoOneKeptExtent) {
  array_base x = random_matrix({3, 4, 50}, 3);
  const array_base *in[] = {&x};
  array_base out;
  ASSERT_TRUE(launch_reduction(k, in, {}, {}, kiln::axes(-1), false, out));
  EXPECT_EQ(seen.kept, 12);
  EXPECT_EQ(seen.reduced, 50);
  EXPECT_EQ(out.shape(), (shape{3, 4}));
  const float *xs = static_cast<const float *>(x.data());
  double s = 0;
  for (i64 c = 0; c < 50; ++c)
    s += xs[11 * 50 + c];
  EXPECT_NEAR(static_cast<const float *>(out.data())[11], s, 1e-5);
}

TEST_F(LaunchReduction, ReducingEveryAxisOfAContiguousArrayIsOneRow) {
  array_base x = random_matrix({6, 9}, 4);
  const array_base *in[] = {&x};
  array_base out;
  ASSERT_TRUE(launch_reduction(k, in, {}, {}, kiln::axes(kiln::all), false, out));
  EXPECT_EQ(out.shape(), (shape{}));
  EXPECT_EQ(seen.kept, 1);
  EXPECT_EQ(seen.reduced, 54);
}

TEST_F(LaunchReduction, ColumnLayoutWithoutItsHostVariantIsAnError) {
  array_base x = random_matrix({8, 64}, 5);
  const array_base *in[] = {&x};
  array_base out;
  expect_message<kiln::error>([&] { launch_reduction(k, in, {}, {}, kiln::axes(0), false, out); },
                 "kernel test_row_sum was built without host variants");
}

TEST_F(LaunchReduction, WrongOperandCountsAreValueErrors) {
  array_base x = random_matrix({2, 3}, 6);
  const array_base *two[] = {&x, &x};
  array_base out;
  expect_message<kiln::value_error>([&] { launch_reduction(k, two, {}, {}, kiln::axes(-1), false, out); },
                 "kernel test_row_sum takes 1 inputs, 0 kept inputs and 0 scalars; got 2, 0 and 0");
  EXPECT_EQ(seen.calls, 0);
}

TEST_F(LaunchReduction, WrongDtypeIsAValueError) {
  array_base x = kiln::detail::empty(dtype::float64, shape{2, 3}, device::host());
  const array_base *in[] = {&x};
  array_base out;
  expect_message<kiln::value_error>([&] { launch_reduction(k, in, {}, {}, kiln::axes(-1), false, out); },
                 "kernel test_row_sum: input 0 has dtype float64 but the kernel takes float32");
}

TEST_F(LaunchReduction, MovedFromArrayIsAValueError) {
  array_base x = random_matrix({2, 3}, 7);
  array_base gone = std::move(x);
  (void)gone;
  const array_base *in[] = {&x};
  array_base out;
  expect_message<kiln::value_error>([&] { launch_reduction(k, in, {}, {}, kiln::axes(-1), false, out); },
                                    "kernel test_row_sum: input 0 is not an array (default-constructed or moved from)");
}

TEST_F(LaunchReduction, EmptyReducedExtentRaisesTheKernelsError) {
  reduction_kernel max_like = k;
  max_like.empty_error = "zero-size array to reduction operation maximum which has no identity";
  array_base x = kiln::detail::empty(dtype::float32, shape{4, 0}, device::host());
  const array_base *in[] = {&x};
  array_base out;
  expect_message<kiln::value_error>([&] { launch_reduction(max_like, in, {}, {}, kiln::axes(-1), false, out); },
                 "zero-size array to reduction operation maximum which has no identity");
  // With an identity (a sum), the same call runs: every row sums to 0.
  ASSERT_TRUE(launch_reduction(k, in, {}, {}, kiln::axes(-1), false, out));
  ASSERT_EQ(out.shape(), (shape{4}));
  for (i64 r = 0; r < 4; ++r)
    EXPECT_EQ(static_cast<const float *>(out.data())[r], 0.0f);
}

TEST_F(LaunchReduction, EmptyKeptExtentRunsNothing) {
  array_base x = kiln::detail::empty(dtype::float32, shape{0, 5}, device::host());
  const array_base *in[] = {&x};
  array_base out;
  ASSERT_TRUE(launch_reduction(k, in, {}, {}, kiln::axes(-1), false, out));
  EXPECT_EQ(out.shape(), (shape{0}));
  EXPECT_EQ(seen.calls, 0);
}

TEST_F(LaunchReduction, ListOfAxesForASingleAxisKernelIsDeclined) {
  reduction_kernel argmax_like = k;
  argmax_like.single_axis = true;
  array_base x = random_matrix({2, 3}, 8);
  const array_base *in[] = {&x};
  array_base out;
  // The eager form raises NumPy's error; the launcher only declines.
  EXPECT_FALSE(launch_reduction(argmax_like, in, {}, {}, kiln::axes({0, 1}), false, out));
  EXPECT_EQ(seen.calls, 0);
}

TEST_F(LaunchReduction, AxisOutOfRangeIsAnIndexError) {
  array_base x = random_matrix({2, 3}, 9);
  const array_base *in[] = {&x};
  array_base out;
  expect_message<kiln::index_error>([&] { launch_reduction(k, in, {}, {}, kiln::axes(2), false, out); },
                 "axis 2 is out of bounds for array of dimension 2");
}

} // namespace
