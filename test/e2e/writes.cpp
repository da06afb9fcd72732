// Writes into arrays in code kilnc compiles (issue 10): every compound
// assignment is one fused kernel that writes its destination in place
// (`x += a * y` reads x and y once), on named arrays and on views, with
// conversion to the destination's dtype, broadcasting, overlap (the
// destination read through another view is copied first), a reduction on
// the right, `&=`/`|=` on bool arrays and `&= |= ^= <<= >>=` on integer arrays, kiln::elementwise_into into a view of
// another dtype, inside KILN_FUSE functions and templates; plus assign and
// fill. On the current device (host in CI, the GPU under
// scripts/device-check.sh), against double references on random data.
#include "e2e.hpp"

#include <cstdint>

using namespace e2e;

KILN_FUSE kiln::array<float> scaled_update(const kiln::array<float> &x, const kiln::array<float> &y) {
  auto t = x * 2.0f; // kept as storage: updated below
  t += kiln::exp(y) * 0.5f;
  return t;
}

// A KILN_FUSE function that writes into its argument: locals are not
// inlined past the write (u reads x before it changes).
KILN_FUSE kiln::array<float> update_then_read(kiln::array<float> x, const kiln::array<float> &y) {
  auto u = x * 3.0f;
  x -= y;
  return u + x;
}

template <class T> void axpy_in_place(kiln::array<T> &x, T a, const kiln::array<T> &y) { x += a * y; }

template <class T> std::vector<double> widen_all(const kiln::array<T> &x) {
  std::vector<double> out;
  for (T v : x.to_vector())
    out.push_back(double(v));
  return out;
}

template <class E> void expect_throws(const char *what, const std::string &message, const std::function<void()> &f) {
  ++checks;
  try {
    f();
  } catch (const E &e) {
    if (e.what() == message)
      return;
    std::printf("FAIL %s: message '%s', expected '%s'\n", what, e.what(), message.c_str());
    ++failures;
    return;
  }
  std::printf("FAIL %s: no exception\n", what);
  ++failures;
}

int main() {
  const std::int64_t m = 33, n = 65;
  auto rng = kiln::random::default_rng(17);
  kiln::array<float> x = rng.normal<float>({m, n}, 0.0, 1.0), y = rng.normal<float>({m, n}, 0.0, 1.0);
  const std::vector<float> hx = x.to_vector(), hy = y.to_vector();
  const std::size_t count = static_cast<std::size_t>(m * n);
  auto rx = [&](std::size_t i) { return double(hx[i]); };
  auto ry = [&](std::size_t i) { return double(hy[i]); };

  // Every operator, in place.
  auto z = x.copy();
  auto alias = z; // another handle of z's buffer sees the update
  z += 2.5f * y;   // saxpy in place
  expect("x += a * y", alias, count, [&](std::size_t i) { return rx(i) + 2.5 * ry(i); }, 1e-6);
  z = x.copy();
  z -= kiln::exp(y);
  expect("x -= exp(y)", z, count, [&](std::size_t i) { return rx(i) - std::exp(ry(i)); }, 1e-6);
  z = x.copy();
  z *= y * y + 1.0f;
  expect("x *= y*y + 1", z, count, [&](std::size_t i) { return rx(i) * (ry(i) * ry(i) + 1); }, 1e-6);
  z = x.copy();
  z /= kiln::abs(y) + 0.5f;
  expect("x /= |y| + 0.5", z, count, [&](std::size_t i) { return rx(i) / (std::abs(ry(i)) + 0.5); }, 1e-6);
  z = x.copy();
  z += z; // the destination as its own operand
  expect("x += x", z, count, [&](std::size_t i) { return 2 * rx(i); }, 1e-7);

  // Integers: % and the same_kind conversion within a kind (int64 -> int32).
  kiln::array<std::int32_t> k = rng.integers<std::int32_t>(-1000, 1000, {m, n});
  kiln::array<std::int64_t> big = rng.integers<std::int64_t>(1, 50, {m, n});
  const std::vector<double> hk = widen_all(k), hbig = widen_all(big);
  auto k2 = k.copy();
  k2 %= big; // int64 result written into int32
  expect("int32 %= int64", k2, count, [&](std::size_t i) {
    double r = std::fmod(hk[i], hbig[i]);
    return r != 0 && (r < 0) != (hbig[i] < 0) ? r + hbig[i] : r;
  }, 0);
  // float64 result into float32 (same kind), broadcasting a row.
  kiln::array<double> row = rng.normal<double>({n}, 0.0, 1.0);
  const std::vector<double> hrow = row.to_vector();
  z = x.copy();
  z += row * 2.0;
  expect("float32 += float64 row", z, count, [&](std::size_t i) { return double(float(rx(i) + 2 * hrow[i % n])); },
         1e-6);

  // Views as destinations: every other column, and a transposed view.
  z = x.copy();
  z.slice({kiln::all, kiln::range(0, n, 2)}) *= 3.0f;
  expect("view *= 3", z, count, [&](std::size_t i) { return (i % n) % 2 == 0 ? 3 * rx(i) : rx(i); }, 1e-7);
  auto sq = rng.normal<float>({n, n}, 0.0, 1.0);
  const std::vector<float> hsq = sq.to_vector();
  auto sq2 = sq.copy();
  sq2.T() += y.slice({kiln::range(0, 1), kiln::all}); // column j of sq2 gets y[0, :]... transposed
  expect("transposed view += row", sq2, static_cast<std::size_t>(n * n), [&](std::size_t i) {
    std::size_t r = i / n; // sq2[r, c] = sq2.T()[c, r] += y[0, r]
    return double(hsq[i]) + ry(r);
  }, 1e-6);

  // Overlap: NumPy's answers, reading through another view of the destination.
  auto sym = sq.copy();
  sym += sym.T();
  expect("m += m.T()", sym, static_cast<std::size_t>(n * n), [&](std::size_t i) {
    std::size_t r = i / n, c = i % n;
    return double(hsq[i]) + double(hsq[c * n + r]);
  }, 1e-6);
  auto v = x.reshape({m * n}).copy();
  v.slice({kiln::range(1, m * n)}) += v.slice({kiln::range(0, m * n - 1)});
  expect("shifted self-update", v, count, [&](std::size_t i) { return i == 0 ? rx(0) : rx(i) + rx(i - 1); }, 1e-6);

  // A reduction on the right: its kernel allocates; the update is written after.
  z = x.copy();
  z -= kiln::mean(z, -1, true);
  expect("x -= mean(x, -1, keepdims)", z, count, [&](std::size_t i) {
    double s = 0;
    for (std::int64_t j = 0; j < n; ++j)
      s += rx(i / n * n + j);
    return rx(i) - s / n;
  }, 1e-5);

  // &= and |= on bool arrays.
  auto pos = x > 0.0f;
  pos &= y > 0.0f;
  expect("mask &= mask", pos, count, [&](std::size_t i) { return double(hx[i] > 0 && hy[i] > 0); }, 0);
  auto neg = x < 0.0f;
  neg |= y < -1.0f;
  expect("mask |= mask", neg, count, [&](std::size_t i) { return double(hx[i] < 0 || hy[i] < -1); }, 0);

  // &= |= ^= <<= >>= on integer arrays (NumPy's bitwise ufuncs; shifts past
  // the width give 0, or -1 for a negative value shifted right).
  {
    auto bits = kiln::random::default_rng(5).integers<std::int32_t>(-1000, 1000, {m, n});
    auto counts = kiln::random::default_rng(6).integers<std::int32_t>(0, 40, {m, n});
    const std::vector<std::int32_t> hb = bits.to_vector(), hc = counts.to_vector();
    auto w = bits.copy();
    w &= 0x5a5;
    expect("int &= scalar", w, count, [&](std::size_t i) { return double(hb[i] & 0x5a5); }, 0);
    w = bits.copy();
    w |= counts;
    expect("int |= array", w, count, [&](std::size_t i) { return double(hb[i] | hc[i]); }, 0);
    w = bits.copy();
    w ^= counts * 3;
    expect("int ^= expression", w, count, [&](std::size_t i) { return double(hb[i] ^ (hc[i] * 3)); }, 0);
    w = bits.copy();
    w <<= counts;
    expect("int <<= counts", w, count, [&](std::size_t i) {
      return double(hc[i] < 32 ? static_cast<std::int32_t>(static_cast<std::uint32_t>(hb[i]) << hc[i]) : 0);
    }, 0);
    w = bits.copy();
    w >>= counts;
    expect("int >>= counts", w, count, [&](std::size_t i) {
      return double(hc[i] < 32 ? hb[i] >> hc[i] : (hb[i] < 0 ? -1 : 0));
    }, 0);
  }

  // Templates and KILN_FUSE functions.
  z = x.copy();
  axpy_in_place(z, 0.25f, y);
  expect("template x += a * y", z, count, [&](std::size_t i) { return rx(i) + 0.25 * ry(i); }, 1e-6);
  expect("KILN_FUSE local updated in place", scaled_update(x, y), count,
         [&](std::size_t i) { return 2.0 * rx(i) + 0.5 * std::exp(ry(i)); }, 1e-5);
  z = x.copy();
  expect("KILN_FUSE writes its argument", update_then_read(z, y), count,
         [&](std::size_t i) { return 3 * rx(i) + rx(i) - ry(i); }, 1e-5);
  expect("KILN_FUSE argument written", z, count, [&](std::size_t i) { return rx(i) - ry(i); }, 1e-6);

  // elementwise_into: a float lambda into every other column of a double array.
  auto d = kiln::zeros<double>({m, n});
  kiln::elementwise_into(d.slice({kiln::all, kiln::range(1, n, 2)}), [](float a, float b) { return a * b - 1.0f; },
                         x.slice({kiln::all, kiln::range(1, n, 2)}), y.slice({kiln::all, kiln::range(1, n, 2)}));
  expect("elementwise_into a view", d, count, [&](std::size_t i) {
    return (i % n) % 2 == 1 ? double(float(hx[i] * hy[i] - 1.0f)) : 0.0;
  }, 1e-6);

  // Errors, as NumPy's.
  expect_throws<kiln::shape_error>("x += larger", "non-broadcastable output operand with shape (65,) doesn't match "
                                                  "the broadcast shape (33,65)",
                                   [&] { auto r = row.copy(); r += y * 1.0f; });
  expect_throws<kiln::value_error>("write into broadcast_to", "assignment destination is read-only", [&] {
    auto b = kiln::broadcast_to(row, kiln::shape{m, n});
    b += 1.0;
  });

  // Assign and fill.
  d = kiln::ones<double>({m, n});
  d.slice({kiln::range(0, m, 2), kiln::all}).assign(y.slice({kiln::range(0, 1), kiln::all}));
  expect("assign into a view", d, count, [&](std::size_t i) { return (i / n) % 2 == 0 ? ry(i % n) : 1.0; }, 0);
  d.fill(-3);
  expect("fill", d, count, [](std::size_t) { return -3.0; }, 0);

  // assign of an array operation: one kernel computing into the destination.
  z = x.copy();
  auto z_alias = z;
  const kiln::array<float> &same = z.assign(kiln::exp(y) - x * 0.5f);
  ++checks;
  if (&same != &z) {
    ++failures;
    std::printf("FAIL assign returns its destination\n");
  }
  expect("assign(exp(y) - x*0.5)", z_alias, count, [&](std::size_t i) { return std::exp(ry(i)) - 0.5 * rx(i); }, 1e-6);
  d.assign(x * y + 1.0f); // float32 value into float64
  expect("assign float32 value into float64", d, count, [&](std::size_t i) { return double(hx[i] * hy[i] + 1.0f); }, 1e-6);
  kiln::array<std::int32_t> ki = kiln::zeros<std::int32_t>({m, n});
  ki.assign(y * 100.0f); // setitem's unsafe casting: truncation toward zero
  expect("assign float32 value into int32", ki, count,
         [&](std::size_t i) { return double(std::int32_t(hy[i] * 100.0f)); }, 0);
  z.assign(row * 2.0); // a row broadcast into every row, float64 into float32
  expect("assign broadcast row", z, count, [&](std::size_t i) { return double(float(hrow[i % n] * 2.0)); }, 1e-6);
  d.slice({kiln::all, kiln::range(0, n, 2)}).assign(x.slice({kiln::all, kiln::range(0, n, 2)}) * 3.0f);
  expect("assign into a strided view", d, count, [&](std::size_t i) {
    return (i % n) % 2 == 0 ? 3.0 * rx(i) : double(hx[i] * hy[i] + 1.0f);
  }, 1e-6);
  // The destination read through another layout is copied first (NumPy's
  // answer for `s[...] = s.T * 2 + s`).
  kiln::array<float> s2 = rng.normal<float>({n, n}, 0.0, 1.0);
  const std::vector<float> hs2 = s2.to_vector();
  s2.assign(s2.T() * 2.0f + s2);
  expect("assign(s.T() * 2 + s)", s2, std::size_t(n * n), [&](std::size_t i) {
    return 2.0 * hs2[(i % n) * n + i / n] + hs2[i];
  }, 1e-6);
  expect_throws<kiln::shape_error>("assign larger", "could not broadcast input array from shape (33,65) into shape (65,)",
                                   [&] { auto r = kiln::zeros<float>({n}); r.assign(y * 1.0f); });
  expect_throws<kiln::value_error>("fused assign into broadcast_to", "assignment destination is read-only", [&] {
    auto b = kiln::broadcast_to(row, kiln::shape{m, n});
    b.assign(y * 2.0);
  });
  // A value with a leading axis of size 1 beyond the destination's rank (NumPy strips it).
  auto r1 = kiln::zeros<float>({n});
  r1.assign(y.slice({kiln::range(2, 3), kiln::all}) * 2.0f);
  expect("assign (1,n) value into (n,)", r1, std::size_t(n), [&](std::size_t i) { return 2.0 * ry(2 * n + i); }, 1e-6);
  return finish("writes");
}
