// Fusion across plain statements (issue 11, compiler/Frontend/StatementChain.h):
// chains of consecutive array statements outside KILN_FUSE become one kernel
// and must give the answers of the statements run one by one: promotion
// between statements, broadcasting, a reduction at the end, an update in
// place that reads the chain through an overlapping view, a loop that
// rebinds its variable, a scalar read between statements, a local used
// twice, and a shape error raised by the fused call. On the current device
// (host in CI, the GPU under scripts/device-check.sh), against double
// references on random data. test/lit/Frontend/statement-chains.cpp pins
// which statements fuse.
#include "e2e.hpp"

#include <cstdint>

using namespace e2e;
using f32 = kiln::array<float>;

int main() {
  const std::int64_t m = 37, n = 129;
  const std::size_t count = static_cast<std::size_t>(m * n);
  auto rng = kiln::random::default_rng(23);
  f32 x = rng.normal<float>({m, n}, 0.0, 1.0), y = rng.normal<float>({m, n}, 0.0, 1.0);
  f32 row = rng.normal<float>({n}, 0.0, 1.0), col = rng.normal<float>({m, 1}, 0.0, 1.0);
  kiln::array<std::int32_t> k = rng.integers<std::int32_t>(-50, 50, {m, n});
  const std::vector<float> hx = x.to_vector(), hy = y.to_vector(), hrow = row.to_vector(), hcol = col.to_vector();
  const std::vector<std::int32_t> hk = k.to_vector();
  auto rx = [&](std::size_t i) { return double(hx[i]); };
  auto ry = [&](std::size_t i) { return double(hy[i]); };
  const float a = 1.75f;

  { // Three dependent statements: one kernel.
    auto t = a * x;
    auto u = t + y;
    auto z = kiln::sqrt(kiln::abs(u));
    expect("sqrt(|a*x + y|)", z, count, [&](std::size_t i) { return std::sqrt(std::abs(1.75 * rx(i) + ry(i))); }, 1e-6);
  }
  { // Promotion across statements: int32 * int -> int32, then + float32 -> float64 (NumPy 2).
    auto t = k * 3;
    auto u = t + x;
    auto v = u * 0.5;
    expect("(k*3 + x) * 0.5", v, count, [&](std::size_t i) { return (3.0 * hk[i] + rx(i)) * 0.5; }, 1e-12);
  }
  { // Broadcasting: a column, then a row.
    auto t = x * col;
    auto u = t - row;
    auto w = kiln::exp(u * 0.25f);
    expect("exp((x*col - row)/4)", w, count,
           [&](std::size_t i) { return std::exp((rx(i) * hcol[i / n] - hrow[i % n]) * 0.25); }, 2e-6);
  }
  { // A reduction at the end of the chain (and one inside it).
    auto d = x - kiln::mean(x, -1, true);
    auto s = kiln::sum(d * d, -1);
    std::vector<double> want(m, 0.0);
    for (std::int64_t r = 0; r < m; ++r) {
      double mean = 0;
      for (std::int64_t c = 0; c < n; ++c) mean += hx[r * n + c];
      mean /= n;
      for (std::int64_t c = 0; c < n; ++c) want[r] += (hx[r * n + c] - mean) * (hx[r * n + c] - mean);
    }
    expect("sum((x - mean(x))^2, -1)", s, m, [&](std::size_t r) { return want[r]; }, 1e-5);
  }
  { // An update in place reading the chain through an overlapping view: the
    // chain's value is the one before the write (NumPy's answer).
    f32 z = x.copy();
    auto t = z.slice({kiln::all, kiln::range(1, n)}) * 2.0f;
    z.slice({kiln::all, kiln::range(0, n - 1)}) += t;
    expect("z[:, :-1] += 2*z[:, 1:]", z, count, [&](std::size_t i) {
      std::size_t c = i % n;
      return c + 1 < std::size_t(n) ? rx(i) + 2.0 * rx(i + 1) : rx(i);
    }, 1e-6);
  }
  { // A loop whose body rebinds its variable: one kernel an iteration.
    f32 z = x.copy();
    for (int it = 0; it < 3; ++it) {
      auto t = z * 0.5f;
      z = t + y;
    }
    expect("z = z/2 + y, 3 times", z, count, [&](std::size_t i) {
      double v = rx(i);
      for (int it = 0; it < 3; ++it) v = v * 0.5 + ry(i);
      return v;
    }, 1e-6);
  }
  { // A scalar computed between two statements, and a local used twice.
    auto t = kiln::tanh(x);
    const float s = kiln::max(y).item();
    auto u = t * t + s;
    double smax = -1e300;
    for (float v : hy) smax = std::max(smax, double(v));
    expect("tanh(x)^2 + max(y)", u, count, [&](std::size_t i) { return std::tanh(rx(i)) * std::tanh(rx(i)) + smax; },
           2e-6);
  }
  { // A shape error in a chain: raised, as kiln::shape_error, by the fused call.
    ++checks;
    f32 other = rng.normal<float>({m + 1, n}, 0.0, 1.0);
    try {
      auto t = x * 2.0f;
      auto u = t + other;
      std::printf("FAIL shape error: no exception (%zu elements)\n", u.size());
      ++failures;
    } catch (const kiln::shape_error &e) {
      if (std::string(e.what()).find("could not be broadcast") == std::string::npos) {
        std::printf("FAIL shape error: message '%s'\n", e.what());
        ++failures;
      }
    }
  }
  return finish("statement_chains");
}
