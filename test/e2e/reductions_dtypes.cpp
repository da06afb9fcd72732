// Every reduction on every dtype, fused by kilnc (one kernel per reduction
// and dtype: the axes and keepdims are run-time values), against double or
// exact references (reduce_ref.hpp) on random data: contiguous, transposed,
// stepped (negative steps), broadcast and offset views; every axis, negative
// axes, pairs, kiln::all and {} of ranks 1-4; keepdims on and off; odd sizes.
#include "reduce_ref.hpp"

using namespace e2e;
using C = std::complex<double>;

namespace {

template <class T> double tolerance(e2e::red op) {
  if constexpr (std::is_same_v<T, bool> || std::is_integral_v<T>) {
    // Integer results are exact; means and moments are computed in float64
    // (the sequential float64 reference itself drifts ~1e-12 over 2^20).
    return op == red::mean || op == red::var || op == red::std || op == red::norm ? 1e-10 : 0;
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>>) {
    return op == red::var || op == red::std || op == red::prod ? 2e-4 : 2e-5;
  } else {
    return 1e-10;
  }
}

/// Every reduction of `x` over `ax` (whose bit mask is `mask`), keepdims
/// `kd`, against the reference.
template <class T>
void check(const std::string &label, const kiln::array<T> &x, const kiln::axes &ax, std::uint64_t mask, bool kd,
           bool withProd) {
  host_nd<T> h = host_of(x);
  auto ref = [&](red op, std::int64_t ddof = 0, double p = 2) { return reduce_ref(h, mask, op, ddof, p); };
  auto name = [&](const char *op) { return label + " " + op + (kd ? " keepdims" : ""); };
  std::int64_t reduced = 1;
  for (std::size_t d = 0; d < h.shape.size(); ++d)
    if (mask >> d & 1)
      reduced *= h.shape[d];
  expect_reduction(name("sum"), kiln::sum(x, ax, kd), h, mask, kd, ref(red::sum), tolerance<T>(red::sum));
  if (withProd)
    expect_reduction(name("prod"), kiln::prod(x, ax, kd), h, mask, kd, ref(red::prod), tolerance<T>(red::prod));
  expect_reduction(name("mean"), kiln::mean(x, ax, kd), h, mask, kd, ref(red::mean), tolerance<T>(red::mean));
  expect_reduction(name("count_nonzero"), kiln::count_nonzero(x, ax, kd), h, mask, kd, ref(red::count_nonzero), 0);
  expect_reduction(name("all"), kiln::all(x, ax, kd), h, mask, kd, ref(red::all), 0);
  expect_reduction(name("any"), x.any(ax, kd), h, mask, kd, ref(red::any), 0);
  expect_reduction(name("var"), kiln::var(x, ax, kd), h, mask, kd, ref(red::var), tolerance<T>(red::var));
  expect_reduction(name("std ddof=1"), kiln::std(x, ax, kiln::ddof(1), kd), h, mask, kd, ref(red::std, 1),
                   tolerance<T>(red::std));
  if (reduced == 0)
    return; // max/min/arg* of an empty axis raise (reductions_fused.cpp)
  expect_reduction(name("max"), kiln::max(x, ax, kd), h, mask, kd, ref(red::max), 0);
  expect_reduction(name("min"), x.min(ax, kd), h, mask, kd, ref(red::min), 0);
  int bits = 0;
  for (std::uint64_t m = mask; m; m >>= 1)
    bits += m & 1;
  if (ax.is_all() || ax.list().size() == 1) {
    expect_reduction(name("argmax"), kiln::argmax(x, ax, kd), h, mask, kd, ref(red::argmax), 0);
    expect_reduction(name("argmin"), x.argmin(ax, kd), h, mask, kd, ref(red::argmin), 0);
  }
  if (ax.list().size() == 1)
    expect_reduction(name("norm inf"), kiln::linalg::norm(x, kiln::linalg::inf, ax, kd), h, mask, kd,
                     ref(red::norm, 0, std::numeric_limits<double>::infinity()), tolerance<T>(red::norm));
  (void)bits;
}

/// The axes cases of a rank-`rank` array: every axis, each axis (positive
/// and negative), the first and last together, and no axis.
template <class T> void every_axis(const std::string &label, const kiln::array<T> &x, bool withProd) {
  const std::size_t rank = x.shape().size();
  for (bool kd : {false, true}) {
    check(label + " all", x, kiln::all, axes_mask({}, rank, true), kd, withProd);
    for (std::int64_t a = 0; a < std::int64_t(rank); ++a) {
      check(label + " axis " + std::to_string(a), x, kiln::axes(a), axes_mask({a}, rank), kd, withProd);
      check(label + " axis " + std::to_string(a - std::int64_t(rank)), x, kiln::axes(a - std::int64_t(rank)),
            axes_mask({a}, rank), kd, withProd);
    }
    if (rank >= 2)
      check(label + " axes {0,-1}", x, kiln::axes({0, -1}), axes_mask({0, -1}, rank), kd, withProd);
  }
  check(label + " axes {}", x, kiln::axes({}), 0, false, withProd);
}

template <class T> void run(const char *dtype, std::uint64_t seed) {
  auto rng = kiln::random::default_rng(seed);
  std::string t = dtype;
  for (std::int64_t n : {1, 31, 1023})
    every_axis(t + " (" + std::to_string(n) + ")", random_array<T>(rng, {n}), n <= 31);
  kiln::array<T> big = random_array<T>(rng, {(1 << 20) + 7});
  check(t + " (2^20+7) all", big, kiln::all, 1, false, false);
  kiln::array<T> m = random_array<T>(rng, {5, 7});
  every_axis(t + " (5,7)", m, true);
  every_axis(t + " (5,7).T", m.T(), true);
  every_axis(t + " (5,7)[::-1, ::2]", m.slice({kiln::range(std::nullopt, std::nullopt, -1), kiln::range(0, 7, 2)}),
             true);
  every_axis(t + " broadcast (1,7)->(5,7)", kiln::broadcast_to(m.slice({kiln::range(1, 2), kiln::all}), {5, 7}), true);
  kiln::array<T> wide = random_array<T>(rng, {3, 2500});
  every_axis(t + " (3,2500)[:,1:]", wide.slice({kiln::all, kiln::range(1, std::nullopt)}), false);
  every_axis(t + " (2500,3)", random_array<T>(rng, {2500, 3}), false);
  kiln::array<T> cube = random_array<T>(rng, {4, 6, 5});
  every_axis(t + " (4,6,5)", cube, false);
  every_axis(t + " (4,6,5) transposed {2,0,1}", cube.transpose({2, 0, 1}), false);
  every_axis(t + " (2,3,4,5)", random_array<T>(rng, {2, 3, 4, 5}), false);
  every_axis(t + " (3,0,4) empty", random_array<T>(rng, {3, 0, 4}), false);
}

} // namespace

int main() {
  run<bool>("bool", 1);
  run<std::int8_t>("int8", 2);
  run<std::uint8_t>("uint8", 3);
  run<std::int32_t>("int32", 4);
  run<std::int64_t>("int64", 5);
  run<float>("float32", 6);
  run<double>("float64", 7);
  run<std::complex<float>>("complex64", 8);
  run<std::complex<double>>("complex128", 9);
  return finish("reductions_dtypes");
}
