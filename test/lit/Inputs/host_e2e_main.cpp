// Calls the `_host` wrappers of Inputs/mix.mlir directly, packing arguments
// as docs/kernel-abi.md says (one pointer per descriptor field and scalar),
// on random data, and checks them against a float64 reference.
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

extern "C" {
void mix_contig_host(void **);
void mix_strided2_host(void **);
void cfma_contig_host(void **);
void cfma_strided2_host(void **);
}

namespace {

/// An expanded memref descriptor of rank <= 4.
struct Desc {
  void *allocated;
  void *aligned;
  std::int64_t offset;
  std::int64_t sizes[4];
  std::int64_t strides[4];
};

template <class T>
Desc desc(T *base, std::int64_t offset, std::vector<std::int64_t> sizes,
          std::vector<std::int64_t> strides) {
  Desc d{base, base, offset, {}, {}};
  for (size_t i = 0; i < sizes.size(); ++i) {
    d.sizes[i] = sizes[i];
    d.strides[i] = strides[i];
  }
  return d;
}

void pack(std::vector<void *> &args, Desc &d, int rank) {
  args.push_back(&d.allocated);
  args.push_back(&d.aligned);
  args.push_back(&d.offset);
  for (int i = 0; i < rank; ++i)
    args.push_back(&d.sizes[i]);
  for (int i = 0; i < rank; ++i)
    args.push_back(&d.strides[i]);
}

int failures = 0;
void check(bool ok, const char *what, long i) {
  if (!ok && failures++ < 10)
    std::printf("FAIL %s at %ld\n", what, i);
}

std::mt19937_64 rng(42);
double uniform(double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

void mixReference(float x, double y, bool m, double a, bool flag, double &r,
                  bool &c) {
  double t = double(x) * a + y;
  r = m ? std::sqrt(std::fabs(t)) : -t;
  c = (t > 1.0) != flag;
}

bool close(double got, double want) {
  return std::fabs(got - want) <= 1e-12 * (1 + std::fabs(want));
}

void testMixContig() {
  const long n = 1037; // not a multiple of the vector width: exercises the tail
  std::vector<float> x(n);
  std::vector<double> y(n), r(n, -7);
  std::vector<std::uint8_t> m(n), c(n, 7);
  for (long i = 0; i < n; ++i) {
    x[i] = float(uniform(-3, 3));
    y[i] = uniform(-2, 2);
    m[i] = rng() % 2;
  }
  double a = 1.75;
  bool flag = true;
  Desc dx = desc(x.data(), 0, {n}, {1}), dy = desc(y.data(), 0, {n}, {1}),
       dm = desc(m.data(), 0, {n}, {1}), dr = desc(r.data(), 0, {n}, {1}),
       dc = desc(c.data(), 0, {n}, {1});
  std::vector<void *> args;
  for (Desc *d : {&dx, &dy, &dm, &dr, &dc})
    pack(args, *d, 1);
  args.push_back(&a);
  args.push_back(&flag);
  mix_contig_host(args.data());
  for (long i = 0; i < n; ++i) {
    double wr;
    bool wc;
    mixReference(x[i], y[i], m[i], a, flag, wr, wc);
    check(close(r[i], wr), "mix_contig r", i);
    check(c[i] == std::uint8_t(wc), "mix_contig c", i);
  }
}

void testMixStrided2() {
  const long rows = 37, cols = 53;
  std::vector<float> x(cols);          // broadcast over rows: strides (0, 1)
  std::vector<double> yT(cols * rows); // stored transposed: strides (1, rows)
  std::vector<std::uint8_t> m(5 + rows * cols); // offset 5
  std::vector<double> r(3 + rows * cols, -7);   // offset 3
  std::vector<std::uint8_t> c(rows * cols, 7);
  for (auto &v : x)
    v = float(uniform(-3, 3));
  for (auto &v : yT)
    v = uniform(-2, 2);
  for (auto &v : m)
    v = rng() % 2;
  double a = -0.5;
  bool flag = false;
  Desc dx = desc(x.data(), 0, {rows, cols}, {0, 1});
  Desc dy = desc(yT.data(), 0, {rows, cols}, {1, rows});
  Desc dm = desc(m.data(), 5, {rows, cols}, {cols, 1});
  Desc dr = desc(r.data(), 3, {rows, cols}, {cols, 1});
  Desc dc = desc(c.data(), 0, {rows, cols}, {cols, 1});
  std::vector<void *> args;
  for (Desc *d : {&dx, &dy, &dm, &dr, &dc})
    pack(args, *d, 2);
  args.push_back(&a);
  args.push_back(&flag);
  mix_strided2_host(args.data());
  check(r[0] == -7 && r[1] == -7 && r[2] == -7,
        "mix_strided2 wrote before its offset", 0);
  for (long i = 0; i < rows; ++i)
    for (long j = 0; j < cols; ++j) {
      double wr;
      bool wc;
      mixReference(x[j], yT[j * rows + i], m[5 + i * cols + j], a, flag, wr,
                   wc);
      check(close(r[3 + i * cols + j], wr), "mix_strided2 r", i * cols + j);
      check(c[i * cols + j] == std::uint8_t(wc), "mix_strided2 c",
            i * cols + j);
    }
}

void testComplex() {
  using cf = std::complex<float>;
  using cd = std::complex<double>;
  const long rows = 9, cols = 13, n = rows * cols;
  std::vector<cf> z(n), w(n), out(n), outT(n);
  for (long i = 0; i < n; ++i) {
    z[i] = cf(float(uniform(-1, 1)), float(uniform(-1, 1)));
    w[i] = cf(float(uniform(-1, 1)), float(uniform(-1, 1)));
  }
  cf s(0.25f, -0.5f);
  auto reference = [&](cf zi, cf wi) {
    return std::exp(cd(zi) * cd(wi) + cd(s));
  };
  auto near = [](cf got, cd want) {
    return std::abs(cd(got) - want) <= 1e-5 * (1 + std::abs(want));
  };
  {
    Desc dz = desc(z.data(), 0, {n}, {1}), dw = desc(w.data(), 0, {n}, {1}),
         d0 = desc(out.data(), 0, {n}, {1});
    std::vector<void *> args;
    for (Desc *d : {&dz, &dw, &d0})
      pack(args, *d, 1);
    args.push_back(&s);
    cfma_contig_host(args.data());
    for (long i = 0; i < n; ++i)
      check(near(out[i], reference(z[i], w[i])), "cfma_contig", i);
  }
  { // output written transposed
    Desc dz = desc(z.data(), 0, {rows, cols}, {cols, 1}),
         dw = desc(w.data(), 0, {rows, cols}, {cols, 1}),
         d0 = desc(outT.data(), 0, {rows, cols}, {1, rows});
    std::vector<void *> args;
    for (Desc *d : {&dz, &dw, &d0})
      pack(args, *d, 2);
    args.push_back(&s);
    cfma_strided2_host(args.data());
    for (long i = 0; i < rows; ++i)
      for (long j = 0; j < cols; ++j)
        check(near(outT[j * rows + i],
                   reference(z[i * cols + j], w[i * cols + j])),
              "cfma_strided2", i * cols + j);
  }
}

} // namespace

int main() {
  testMixContig();
  testMixStrided2();
  testComplex();
  if (failures) {
    std::printf("%d failures\n", failures);
    return 1;
  }
  std::printf("host e2e OK\n");
  return 0;
}
