// Every layout the variants choose between (issue 11): column broadcasts and
// outer products through `_rows` (an input with inner stride 0), rows whose
// length is not a whole number of vectors, permutations of ranks 2 to 5
// through the tiled strided loops (and the host's 8 x 8 blocks of transposes),
// every dtype's vector width, and sizes big
// enough that the host backend splits the work across its threads. Each
// result is compared element by element with a double reference computed
// here from the same random inputs.
//
// `layouts --hash` prints one FNV-1a hash of every result's bits instead:
// test/e2e/same_bits.cmake runs it under several KILN_NUM_THREADS and
// requires the same hash (the split must not change a single bit).
#include "e2e.hpp"

#include <cstdint>
#include <cstring>
#include <numeric>

using namespace e2e;
using C = std::complex<double>;

namespace {

bool hashing = false;
std::uint64_t fnv = 1469598103934665603ull;

/// Checks `got` against ref(i) (or, with --hash, folds its bits into fnv).
template <class R>
void check(const std::string &what, const kiln::array<R> &got, std::size_t n,
           const std::function<C(std::size_t)> &ref, double tol) {
  if (!hashing)
    return expect(what, got, n, ref, tol);
  for (R value : got.to_vector()) { // (std::vector<bool> has no data())
    unsigned char bytes[sizeof(R)];
    std::memcpy(bytes, &value, sizeof(R));
    for (unsigned char byte : bytes)
      fnv = (fnv ^ byte) * 1099511628211ull;
  }
}

/// The element of a C-order array of `dims` at flat index k of its
/// permutation `perm` (result dimension d is source dimension perm[d]).
std::size_t permuted_source(std::size_t k, const std::vector<std::int64_t> &dims,
                            const std::vector<std::int64_t> &perm) {
  const std::size_t rank = dims.size();
  std::vector<std::int64_t> idx(rank);
  for (std::size_t d = rank; d-- > 0;) {
    const std::int64_t extent = dims[perm[d]];
    idx[perm[d]] = static_cast<std::int64_t>(k % extent);
    k /= extent;
  }
  std::size_t src = 0;
  for (std::size_t d = 0; d < rank; ++d)
    src = src * dims[d] + idx[d];
  return src;
}

template <class T> void column_broadcasts(kiln::random::generator &rng, const char *type, double tol) {
  // 300 x 512: 153,600 elements (the host splits them); 512 columns are
  // whole vectors for every width, so `_rows` runs with a column input.
  const std::int64_t r = 300, c = 512;
  kiln::array<T> m = rng.random<T>({r, c}), col = rng.random<T>({r, 1}), row = rng.random<T>({c});
  std::vector<T> hm = m.to_vector(), hcol = col.to_vector(), hrow = row.to_vector();
  const std::string t = type;
  check(t + " m * col + 1", m * col + T(1), r * c,
        [&](auto k) { return C(double(hm[k]) * double(hcol[k / c]) + 1); }, tol);
  check(t + " outer product col * row", col * row, r * c,
        [&](auto k) { return C(double(hcol[k / c]) * double(hrow[k % c])); }, tol);
  check(t + " (m - col) / (col + 1) + row", (m - col) / (col + T(1)) + row, r * c,
        [&](auto k) { return C((double(hm[k]) - hcol[k / c]) / (double(hcol[k / c]) + 1) + hrow[k % c]); }, tol);
  // 301 x 13: rows that are not whole vectors (the strided loops), odd sizes.
  kiln::array<T> n = rng.random<T>({301, 13}), ncol = rng.random<T>({301, 1});
  std::vector<T> hn = n.to_vector(), hncol = ncol.to_vector();
  check(t + " 301x13 m * col", n * ncol, 301 * 13, [&](auto k) { return C(double(hn[k]) * hncol[k / 13]); }, tol);
  // A column of a 3-d tensor's middle axis: (a, 1, c) against (a, b, c).
  kiln::array<T> cube = rng.random<T>({7, 40, 96}), mid = rng.random<T>({7, 1, 96});
  std::vector<T> hc = cube.to_vector(), hmid = mid.to_vector();
  check(t + " middle-axis broadcast", cube - mid, 7 * 40 * 96,
        [&](auto k) { return C(double(hc[k]) - hmid[(k / (40 * 96)) * 96 + k % 96]); }, tol);
}

template <class T> void permutations(kiln::random::generator &rng, const char *type, double tol) {
  const std::vector<std::vector<std::int64_t>> shapes = {
      {333, 211}, {37, 45, 41}, {9, 11, 13, 17}, {5, 6, 7, 8, 9}};
  for (const auto &dims : shapes) {
    kiln::array<T> x = rng.random<T>(kiln::shape(dims));
    std::vector<T> hx = x.to_vector();
    std::vector<std::int64_t> perm(dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    // Every rotation (the last axis moves first: the classic hard case) and
    // the full reversal.
    std::vector<std::vector<std::int64_t>> perms;
    for (std::size_t s = 1; s < dims.size(); ++s) {
      std::vector<std::int64_t> p(dims.size());
      for (std::size_t d = 0; d < dims.size(); ++d)
        p[d] = perm[(d + dims.size() - s) % dims.size()];
      perms.push_back(p);
    }
    perms.emplace_back(perm.rbegin(), perm.rend());
    for (const auto &p : perms) {
      std::string what = std::string(type) + " rank " + std::to_string(dims.size()) + " perm (";
      for (auto d : p) what += std::to_string(d) + ",";
      what.back() = ')';
      kiln::array<T> v = x.transpose(p);
      check(what + " * 2 + 1", v * T(2) + T(1), hx.size(),
            [&](auto k) { return C(2.0 * double(hx[permuted_source(k, dims, p)]) + 1); }, tol);
    }
  }
  // A transposed view beside a contiguous one (operands disagree).
  kiln::array<T> a = rng.random<T>({257, 257}), b = rng.random<T>({257, 257});
  std::vector<T> ha = a.to_vector(), hb = b.to_vector();
  check(std::string(type) + " a.T() + b", a.T() + b, 257 * 257,
        [&](auto k) { return C(double(ha[(k % 257) * 257 + k / 257]) + hb[k]); }, tol);
}

/// The host's 8 x 8 blocks (the rows of a transposing loop's 512 x 16 tiles
/// whose columns are whole, GenerateVariants.cpp buildHostBlock), with edge
/// tiles and the rows % 8 left beside them: every
/// way an operand's block is reached (along rows, along columns, a column
/// broadcast splat), a transposed destination, and a rank-3 batch.
template <class T> void blocks(kiln::random::generator &rng, const char *type, double tol) {
  const std::string t = type;
  const std::int64_t r = 261, c = 139; // 32 block rows and 5 left, 8 whole tile columns and 11 left
  kiln::array<T> a = rng.random<T>({c, r}), b = rng.random<T>({r, c});
  kiln::array<T> col = rng.random<T>({r, 1}), row = rng.random<T>({c});
  const std::vector<T> ha = a.to_vector(), hb = b.to_vector(), hcol = col.to_vector(), hrow = row.to_vector();
  auto at = [&](std::size_t k) { return double(ha[(k % c) * r + k / c]); }; // a.T()[k / c, k % c]
  check(t + " 261x139 a.T() * 2 + 1", a.T() * T(2) + T(1), r * c, [&](auto k) { return C(2 * at(k) + 1); }, tol);
  check(t + " 261x139 a.T() * b - col + row", a.T() * b - col + row, r * c,
        [&](auto k) { return C(at(k) * hb[k] - hcol[k / c] + hrow[k % c]); }, tol);
  // The destination's columns are contiguous: the block is transposed back.
  kiln::array<T> d = b.T().copy();
  kiln::array<T> dt = d.T();
  dt += b * T(3);
  check(t + " 139x261 d.T() += b * 3 (d = b.T())", d, r * c, [&](auto k) { return C(4.0 * hb[(k % r) * c + k / r]); }, tol);
  // Rank 3: a batch of transposes.
  kiln::array<T> x = rng.random<T>({3, 136, 256});
  const std::vector<T> hx = x.to_vector();
  check(t + " 3x256x136 x.transpose({0,2,1}) + 1", x.transpose({0, 2, 1}) + T(1), 3 * 256 * 136, [&](auto k) {
    const std::size_t batch = k / (256 * 136), i = k / 136 % 256, j = k % 136;
    return C(double(hx[(batch * 136 + j) * 256 + i]) + 1);
  }, tol);
  // Negative strides (flipped views) on either axis, read and written: the
  // GPU's staged tiles address each operand from its offset and strides.
  check(t + " 261x139 flip(a.T(), 0) * 2 + 1", kiln::flip(a.T(), 0) * T(2) + T(1), r * c,
        [&](auto k) { return C(2 * double(ha[(k % c) * r + (r - 1 - k / c)]) + 1); }, tol);
  check(t + " 261x139 flip(a.T(), 1) + b", kiln::flip(a.T(), 1) + b, r * c,
        [&](auto k) { return C(double(ha[(c - 1 - k % c) * r + k / c]) + hb[k]); }, tol);
  kiln::array<T> e = b.T().copy(); // c x r
  kiln::array<T> ef = kiln::flip(e.T(), 1); // r x c, strides (1, -r)
  ef += b * T(3);
  check(t + " 139x261 flip(e.T(), 1) += b * 3 (e = b.T())", e, r * c, [&](auto k) {
    const std::size_t p = k / r, q = k % r; // e[p][q] = b[q][p] + 3 b[q][c - 1 - p]
    return C(double(hb[q * c + p]) + 3.0 * hb[q * c + (c - 1 - p)]);
  }, tol);
}

/// Operands in both orders in one kernel, with the GPU's `_strided2` staging
/// the tiles of the transposed ones in dynamic shared memory while they fit
/// its 99 KiB: complex128 (65 KiB a tile) beside float64, int8 and float32,
/// row and column broadcasts (never staged), inputs past the budget read
/// directly, a transposed destination, and edge tiles on both axes; square
/// tiles, and the narrow (few columns) and shallow (few rows) ones.
void mixed_orders(kiln::random::generator &rng, std::int64_t r, std::int64_t c) {
  using Z = std::complex<double>;
  kiln::array<double> zre = rng.random<double>({c, r}), zim = rng.random<double>({c, r});
  kiln::array<Z> z = zre.astype<Z>() + zim.astype<Z>() * Z(0, 1); // read as z.T()
  kiln::array<double> f = rng.random<double>({c, r}), f2 = rng.random<double>({c, r}), f3 = rng.random<double>({c, r});
  kiln::array<std::int8_t> h = rng.integers<std::int8_t>(-9, 10, {c, r});
  kiln::array<float> g = rng.random<float>({r, c}), col = rng.random<float>({r, 1});
  kiln::array<Z> row = rng.random<double>({c}).astype<Z>() * Z(1, -2);
  const std::vector<Z> hz = z.to_vector(), hrow = row.to_vector();
  const std::vector<double> hf = f.to_vector(), hf2 = f2.to_vector(), hf3 = f3.to_vector();
  const std::vector<std::int8_t> hh = h.to_vector();
  const std::vector<float> hg = g.to_vector(), hcol = col.to_vector();
  auto t = [&](std::size_t k) { return (k % c) * r + k / c; }; // x.T()[k / c, k % c] of a c x r x
  // complex128 and float64 staged (97.5 KiB), g read along the walk, row broadcast.
  expect(std::to_string(r) + "x" + std::to_string(c) + " z.T() * f.T() + g - row", z.T() * f.T() + g - row, r * c,
         [&](auto k) { return hz[t(k)] * hf[t(k)] + double(hg[k]) - hrow[k % c]; }, 1e-13);
  // int8 past the budget: read directly, across the walk; column broadcast.
  expect(std::to_string(r) + "x" + std::to_string(c) + " z.T() + f.T() * h.T() + col", z.T() + f.T() * h.T() + col, r * c,
         [&](auto k) { return hz[t(k)] + hf[t(k)] * double(hh[t(k)]) + double(hcol[k / c]); }, 1e-13);
  // Three float64 tiles fit, the fourth input is read directly.
  expect(std::to_string(r) + "x" + std::to_string(c) + " f.T() - f2.T() * f3.T() + h.T()", f.T() - f2.T() * f3.T() + h.T(), r * c,
         [&](auto k) { return Z(hf[t(k)] - hf2[t(k)] * hf3[t(k)] + hh[t(k)]); }, 1e-13);
  // A transposed destination: the walk follows its memory, so the
  // C-order operands are the transposed ones.
  kiln::array<double> dst = f2.copy(); // c x r
  kiln::array<double> dt = dst.T();
  kiln::array<Z> zc = z.T().copy(); // r x c, C order
  dt += kiln::abs(zc) * 2.0 + g;
  expect(std::to_string(r) + "x" + std::to_string(c) + " dst.T() += abs(zc) * 2 + g", dst, r * c, [&](auto k) {
    const std::size_t p = k / r, q = k % r; // dst[p][q] += abs(z.T()[q][p]) * 2 + g[q][p]
    return Z(hf2[k] + std::abs(hz[k]) * 2.0 + double(hg[q * c + p]));
  }, 1e-13);
}

} // namespace

int main(int argc, char **argv) {
  hashing = argc > 1 && std::strcmp(argv[1], "--hash") == 0;
  auto rng = kiln::random::default_rng(2026);
  column_broadcasts<float>(rng, "float32", 1e-6);
  column_broadcasts<double>(rng, "float64", 1e-14);
  permutations<float>(rng, "float32", 1e-6);
  permutations<double>(rng, "float64", 1e-14);
  blocks<float>(rng, "float32", 1e-6);
  blocks<double>(rng, "float64", 1e-14);
  if (!hashing) // results r x c: square tiles with edges, narrow ones (3 to 33 columns), shallow ones
    for (auto [r, c] : {std::pair<std::int64_t, std::int64_t>{261, 139}, {20011, 3}, {3001, 16}, {2001, 33},
                        {5, 30011}, {36, 5003}})
      mixed_orders(rng, r, c);

  // Narrow and wide vector widths: int8 (16 a vector), complex (1).
  {
    const std::int64_t r = 300, c = 512;
    kiln::array<std::int8_t> m = rng.integers<std::int8_t>(-9, 10, {r, c}), col = rng.integers<std::int8_t>(-9, 10, {r, 1});
    std::vector<std::int8_t> hm = m.to_vector(), hcol = col.to_vector();
    check("int8 m * col (wraps)", m * col, r * c,
          [&](auto k) { return C(double(std::int8_t(hm[k] * hcol[k / c]))); }, 0);
    kiln::array<std::complex<float>> z = m.astype<std::complex<float>>() * std::complex<float>(0.5f, 1.0f);
    kiln::array<std::complex<float>> zc = col.astype<std::complex<float>>();
    check("complex64 z * col", z * zc, r * c, [&](auto k) {
      return C(hm[k] * 0.5, hm[k] * 1.0) * double(hcol[k / c]);
    }, 1e-6);
    kiln::array<bool> big = m > std::int8_t(0), bcol = col > std::int8_t(0);
    check("bool m && col", big && bcol, r * c, [&](auto k) { return C(double(hm[k] > 0 && hcol[k / c] > 0)); }, 0);
    // Transposed, in 8 x 8 blocks of 1-byte elements.
    check("int8 m.T() * 3", m.T() * std::int8_t(3), r * c,
          [&](auto k) { return C(double(std::int8_t(hm[(k % r) * c + k / r] * 3))); }, 0);
    check("bool !m.T()", !big.T(), r * c, [&](auto k) { return C(double(!(hm[(k % r) * c + k / r] > 0))); }, 0);
  }
  if (hashing) {
    std::printf("%016llx\n", static_cast<unsigned long long>(fnv));
    return 0;
  }
  return finish("layouts");
}
