// Tests of kiln::matmul and kiln::dot (kiln/linalg.hpp, runtime/blas/):
// host products for every dtype against a naive double reference, NumPy's
// 1-d, batched and broadcast cases, views, the shape errors, and on a GPU the
// cuBLAS path for the four float types against the host result.
#include "gpu.hpp"

#include <kiln/array.hpp>
#include <kiln/linalg.hpp>
#include <kiln/ops.hpp>

#include <gtest/gtest.h>

#include "host_arrays.hpp"
#include "runtime/blas/host_blas.hpp"

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;
using std::int32_t, std::int64_t, std::int8_t;


std::mt19937 &rng() {
  static std::mt19937 g(2024);
  return g;
}

template <class T> kiln::array<T> random_array(const kiln::shape &s) {
  std::vector<T> v(static_cast<std::size_t>(s.numel()));
  if constexpr (std::is_same_v<T, bool>) {
    std::bernoulli_distribution d(0.3);
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = d(rng());
  } else if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int> d(-9, 9);
    for (auto &x : v)
      x = static_cast<T>(d(rng()));
  } else if constexpr (is_cplx<T>) {
    std::uniform_real_distribution<double> d(-1, 1);
    for (auto &x : v)
      x = T(static_cast<typename T::value_type>(d(rng())),
            static_cast<typename T::value_type>(d(rng())));
  } else {
    std::uniform_real_distribution<double> d(-1, 1);
    for (auto &x : v)
      x = static_cast<T>(d(rng()));
  }
  return make(v, s);
}

template <class T> c128 as_c(T v) {
  if constexpr (is_cplx<T>)
    return c128(v.real(), v.imag());
  else
    return c128(static_cast<double>(v), 0);
}

/// Element at multi-index `idx` of a host array (any strides), as
/// complex<double>.
template <class T>
c128 at(const kiln::array<T> &x, const std::vector<int64_t> &idx) {
  int64_t off = 0;
  for (std::size_t d = 0; d < idx.size(); ++d)
    off += idx[d] * x.strides()[d];
  return as_c(x.data()[off]);
}

/// Naive np.matmul in complex<double>: returns the flat C-order result and its
/// shape.
template <class A, class B>
std::pair<std::vector<c128>, kiln::shape>
reference_matmul(const kiln::array<A> &a, const kiln::array<B> &b) {
  const bool av = a.ndim() == 1, bv = b.ndim() == 1;
  const kiln::shape &as = a.shape(), &bs = b.shape();
  const int64_t n = av ? 1 : as[as.size() - 2], k = as.back(),
                m = bv ? 1 : bs.back();
  kiln::shape abatch, bbatch;
  for (std::size_t i = 0; i + (av ? 1 : 2) < as.size(); ++i)
    abatch.push_back(as[i]);
  for (std::size_t i = 0; i + (bv ? 1 : 2) < bs.size(); ++i)
    bbatch.push_back(bs[i]);
  kiln::shape batch = kiln::broadcast_shapes(abatch, bbatch);
  kiln::shape out = batch;
  if (!av)
    out.push_back(n);
  if (!bv)
    out.push_back(m);
  std::vector<c128> r;
  for (int64_t t = 0; t < batch.numel(); ++t) {
    std::vector<int64_t> bidx(batch.size());
    for (int64_t rem = t, d = static_cast<int64_t>(batch.size()) - 1; d >= 0;
         --d) {
      bidx[d] = rem % batch[d];
      rem /= batch[d];
    }
    auto sub = [&](const kiln::shape &xb) {
      std::vector<int64_t> idx;
      for (std::size_t d = 0; d < xb.size(); ++d) {
        int64_t c = bidx[batch.size() - xb.size() + d];
        idx.push_back(xb[d] == 1 ? 0 : c);
      }
      return idx;
    };
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        c128 acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          auto ia = sub(abatch), ib = sub(bbatch);
          if (!av)
            ia.push_back(i);
          ia.push_back(p);
          ib.push_back(p);
          if (!bv)
            ib.push_back(j);
          acc += at(a, ia) * at(b, ib);
        }
        r.push_back(acc);
      }
  }
  return {r, out};
}

template <class T> std::vector<c128> as_cvec(const kiln::array<T> &x) {
  std::vector<c128> out;
  for (auto v : x.to_vector())
    out.push_back(as_c(static_cast<T>(v)));
  return out;
}

void expect_close(const std::vector<c128> &got, const std::vector<c128> &want,
                  double rtol, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 0;
  for (auto w : want)
    scale = std::max(scale, std::abs(w));
  int failures = 0;
  for (std::size_t i = 0; i < got.size() && failures < 5; ++i)
    if (std::abs(got[i] - want[i]) > rtol * std::max(1.0, scale)) {
      ++failures;
      ADD_FAILURE() << what << " element " << i << ": got " << got[i]
                    << ", want " << want[i];
    }
}

template <class T> double tol() {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, c64>)
    return 1e-5;
  else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, c128>)
    return 1e-12;
  else
    return 0;
}

template <class A, class B>
void check(const kiln::array<A> &a, const kiln::array<B> &b,
           const std::string &what) {
  using R = kiln::promote_t<A, B>;
  auto r = kiln::matmul(a, b);
  static_assert(std::is_same_v<decltype(r), kiln::array<R>>);
  auto [want, shape] = reference_matmul(a, b);
  EXPECT_EQ(r.shape(), shape)
      << what << ": shape " << kiln::to_string(r.shape()) << " want "
      << kiln::to_string(shape);
  EXPECT_EQ(r.dtype(), kiln::dtype_of<R>);
  expect_close(as_cvec(r), want, tol<R>() * 10, what);
}

template <class T> void check_all_shapes() {
  const std::string t(kiln::name(kiln::dtype_of<T>));
  check(random_array<T>({5, 7}), random_array<T>({7, 3}), t + " 2-d");
  check(random_array<T>({70, 130}), random_array<T>({130, 300}),
        t + " 2-d across blocks");
  check(random_array<T>({7}), random_array<T>({7, 3}), t + " 1-d @ 2-d");
  check(random_array<T>({5, 7}), random_array<T>({7}), t + " 2-d @ 1-d");
  check(random_array<T>({7}), random_array<T>({7}), t + " 1-d @ 1-d");
  check(random_array<T>({2, 3, 4, 5}), random_array<T>({3, 5, 6}),
        t + " batched, broadcast leading");
  check(random_array<T>({2, 1, 4, 5}), random_array<T>({1, 3, 5, 2}),
        t + " batched, broadcast both");
  check(random_array<T>({4, 5}), random_array<T>({3, 5, 2}),
        t + " 2-d @ batched");
  check(random_array<T>({3, 4, 5}), random_array<T>({5}), t + " batched @ 1-d");
  check(random_array<T>({5}), random_array<T>({2, 5, 3}), t + " 1-d @ batched");
}

TEST(Matmul, HostAllDtypesAndShapes) {
  check_all_shapes<float>();
  check_all_shapes<double>();
  check_all_shapes<c64>();
  check_all_shapes<c128>();
  check_all_shapes<int32_t>();
  check_all_shapes<int64_t>();
}

TEST(Matmul, HostMixedDtypesAndBool) {
  check(random_array<int32_t>({4, 6}), random_array<float>({6, 3}),
        "int32 @ float32 -> float64");
  check(random_array<float>({4, 6}), random_array<c128>({6, 3}),
        "float32 @ complex128");
  check(random_array<int8_t>({4, 6}), random_array<int32_t>({6, 3}),
        "int8 @ int32");
  // bool @ bool is bool: or of ands.
  auto a = random_array<bool>({5, 6}), b = random_array<bool>({6, 4});
  auto r = kiln::matmul(a, b);
  static_assert(std::is_same_v<decltype(r), kiln::array<bool>>);
  auto rv = r.to_vector();
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j) {
      bool want = false;
      for (int p = 0; p < 6; ++p)
        want = want || (a.data()[i * 6 + p] && b.data()[p * 4 + j]);
      EXPECT_EQ(rv[i * 4 + j], want);
    }
  // Integer products wrap as NumPy's.
  auto big = make<int8_t>({100, 100}, {1, 2});
  auto col = make<int8_t>({2, 1}, {2, 1});
  EXPECT_EQ(kiln::matmul(big, col).to_vector(),
            (std::vector<int8_t>{static_cast<int8_t>(300 - 256)}));
}

TEST(Matmul, HostViews) {
  auto a = random_array<double>({6, 4}), b = random_array<double>({5, 6});
  check(a.T(), b.T(), "transposed operands");
  auto big = random_array<float>({8, 9});
  auto s = big.slice(
      {kiln::range(1, 7, 2), kiln::range(0, std::nullopt, 3)}); // (3,3) strided
  check(s, random_array<float>({3, 2}), "sliced operand");
  auto row = random_array<c64>({4});
  check(kiln::broadcast_to(row, {3, 4}), random_array<c64>({4, 2}),
        "broadcast operand");
  auto stack = random_array<double>({3, 4, 5});
  check(stack.transpose({0, 2, 1}), random_array<double>({4, 2}),
        "batch of transposed matrices");
}

// The layouts the CPU BLAS takes where they lie (rows or columns
// contiguous, a leading dimension past the row: a slice of columns) and
// those it needs packed (stepped both ways, another dtype), for each BLAS
// type, at sizes past its blocking. Run again with KILN_BLAS=none (ctest
// runtime.matmul.no_blas): Kiln's own loop, the same answers.
template <class T> void check_blas_layouts() {
  const std::string t(kiln::name(kiln::dtype_of<T>));
  auto a = random_array<T>({129, 257}), b = random_array<T>({257, 65});
  check(a, b, t + " contiguous");
  check(random_array<T>({257, 129}).T(), b, t + " a transposed");
  check(a, random_array<T>({65, 257}).T(), t + " b transposed");
  check(random_array<T>({257, 129}).T(), random_array<T>({65, 257}).T(), t + " both transposed");
  auto wide = random_array<T>({40, 90});
  check(wide.slice({kiln::all, kiln::range(3, 73)}), random_array<T>({70, 33}), t + " a slice of columns (lda > k)");
  check(wide.slice({kiln::range(0, std::nullopt, 2), kiln::range(0, std::nullopt, 3)}), random_array<T>({30, 7}),
        t + " stepped both ways (packed)");
  check(random_array<int32_t>({9, 17}), random_array<T>({17, 5}), t + " with an int32 operand (packed)");
  check(random_array<T>({3, 4, 50, 60}), random_array<T>({4, 60, 20}), t + " batched, broadcast");
}

TEST(Matmul, HostBlasLayouts) {
  check_blas_layouts<float>();
  check_blas_layouts<double>();
  check_blas_layouts<c64>();
  check_blas_layouts<c128>();
}

TEST(Matmul, HostBlasIsLoadedUnlessTurnedOff) {
  const char *env = std::getenv("KILN_BLAS");
  const bool off = env && std::string(env) == "none";
  const kiln::detail::host_blas::api *blas = kiln::detail::host_blas::get();
  if (off) {
    EXPECT_EQ(blas, nullptr);
    EXPECT_EQ(kiln::detail::host_blas::unavailable_reason(), "KILN_BLAS=none");
  } else if (!blas) {
    GTEST_SKIP() << "no CPU BLAS here: " << kiln::detail::host_blas::unavailable_reason();
  } else {
    EXPECT_FALSE(blas->path.empty());
  }
}

TEST(Matmul, EmptyProducts) {
  auto r =
      kiln::matmul(random_array<float>({3, 0}), random_array<float>({0, 4}));
  EXPECT_EQ(r.shape(), (kiln::shape{3, 4}));
  EXPECT_EQ(r.to_vector(), std::vector<float>(12, 0.0f));
  auto e =
      kiln::matmul(random_array<double>({0, 5}), random_array<double>({5, 2}));
  EXPECT_EQ(e.shape(), (kiln::shape{0, 2}));
}

TEST(Matmul, ShapeErrorsHaveNumPysMessages) {
  try {
    (void)kiln::matmul(random_array<float>({3, 4}),
                       random_array<float>({5, 2}));
    FAIL() << "core mismatch accepted";
  } catch (const kiln::shape_error &e) {
    EXPECT_STREQ(e.what(),
                 "matmul: Input operand 1 has a mismatch in its core dimension "
                 "0, with gufunc signature "
                 "(n?,k),(k,m?)->(n?,m?) (size 5 is different from 4)");
  }
  try {
    (void)kiln::matmul(make<float>({1.0f}, kiln::shape{}),
                       random_array<float>({1, 2}));
    FAIL() << "0-d operand accepted";
  } catch (const kiln::shape_error &e) {
    EXPECT_STREQ(e.what(), "matmul: Input operand 0 does not have enough "
                           "dimensions (has 0, gufunc core with "
                           "signature (n?,k),(k,m?)->(n?,m?) requires 1)");
  }
  try {
    (void)kiln::matmul(random_array<float>({2, 3, 4}),
                       random_array<float>({3, 4, 5}));
    FAIL() << "batch mismatch accepted";
  } catch (const kiln::shape_error &e) {
    EXPECT_STREQ(e.what(),
                 "operands could not be broadcast together with remapped "
                 "shapes [original->remapped]: "
                 "(2,3,4)->(2,newaxis,newaxis) (3,4,5)->(3,newaxis,newaxis)  "
                 "and requested shape (3,5)");
  }
  // The program goes on.
  check(random_array<float>({3, 4}), random_array<float>({4, 2}),
        "after errors");
}

//===----------------------------------------------------------------------===//
// dot
//===----------------------------------------------------------------------===//

TEST(Dot, NumPyCases) {
  // 1-d . 1-d: a 0-d inner product.
  auto u = random_array<double>({9}), v = random_array<double>({9});
  auto d = kiln::dot(u, v);
  EXPECT_EQ(d.ndim(), 0);
  c128 want = 0;
  for (int i = 0; i < 9; ++i)
    want += as_c(u.data()[i]) * as_c(v.data()[i]);
  EXPECT_NEAR(d.item(), want.real(), 1e-12);
  // 2-d . 2-d and n-d . 1-d are matmul.
  auto a = random_array<float>({4, 9}), b = random_array<float>({9, 3});
  expect_close(as_cvec(kiln::dot(a, b)), reference_matmul(a, b).first, 1e-5,
               "2-d dot");
  auto s = random_array<c64>({2, 3, 9});
  auto sv = kiln::dot(s, random_array<c64>({9}));
  EXPECT_EQ(sv.shape(), (kiln::shape{2, 3}));
  // n-d . m-d: sum over a's last and b's second-to-last axis.
  auto x = random_array<double>({2, 3, 4}), y = random_array<double>({5, 4, 6});
  auto r = kiln::dot(x, y);
  ASSERT_EQ(r.shape(), (kiln::shape{2, 3, 5, 6}));
  auto rv = r.to_vector();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 5; ++k)
        for (int m = 0; m < 6; ++m) {
          double w = 0;
          for (int p = 0; p < 4; ++p)
            w += at(x, {i, j, p}).real() * at(y, {k, p, m}).real();
          EXPECT_NEAR(rv[((i * 3 + j) * 5 + k) * 6 + m], w, 1e-12);
        }
  // 1-d . n-d.
  auto q =
      kiln::dot(random_array<int32_t>({4}), random_array<int32_t>({2, 4, 3}));
  EXPECT_EQ(q.shape(), (kiln::shape{2, 3}));
  // 0-d: a product.
  auto z = kiln::dot(make<float>({2.0f}, kiln::shape{}),
                     make<int32_t>({1, 2, 3}, {3}));
  static_assert(std::is_same_v<decltype(z), kiln::array<double>>);
  EXPECT_EQ(z.to_vector(), (std::vector<double>{2, 4, 6}));
}

TEST(Dot, ShapeErrorHasNumPysMessage) {
  try {
    (void)kiln::dot(random_array<float>({2, 3}), random_array<float>({4, 5}));
    FAIL() << "misaligned dot accepted";
  } catch (const kiln::shape_error &e) {
    EXPECT_STREQ(e.what(),
                 "shapes (2,3) and (4,5) not aligned: 3 (dim 1) != 4 (dim 0)");
  }
  try {
    (void)kiln::dot(random_array<float>({3}), random_array<float>({2, 4, 5}));
    FAIL() << "misaligned dot accepted";
  } catch (const kiln::shape_error &e) {
    EXPECT_STREQ(e.what(),
                 "shapes (3,) and (2,4,5) not aligned: 3 (dim 0) != 4 (dim 1)");
  }
  EXPECT_EQ(
      kiln::dot(random_array<float>({3}), random_array<float>({3})).ndim(), 0);
}

//===----------------------------------------------------------------------===//
// GPU: cuBLAS against the host
//===----------------------------------------------------------------------===//

template <class T>
void check_gpu(const kiln::array<T> &a, const kiln::array<T> &b,
               const std::string &what) {
  const auto gpu = kiln::device::cuda(0);
  auto host = kiln::matmul(a, b);
  auto dev = kiln::matmul(a.to(gpu), b.to(gpu));
  EXPECT_EQ(dev.device(), gpu) << what;
  EXPECT_EQ(dev.shape(), host.shape()) << what;
  expect_close(as_cvec(dev), as_cvec(host), tol<T>() * 10, what);
}

template <class T> void check_gpu_shapes() {
  const std::string t(kiln::name(kiln::dtype_of<T>));
  const auto gpu = kiln::device::cuda(0);
  check_gpu(random_array<T>({33, 65}), random_array<T>({65, 17}), t + " 2-d");
  check_gpu(random_array<T>({65}), random_array<T>({65, 17}), t + " 1-d @ 2-d");
  check_gpu(random_array<T>({33, 65}), random_array<T>({65}), t + " 2-d @ 1-d");
  check_gpu(random_array<T>({65}), random_array<T>({65}), t + " 1-d @ 1-d");
  check_gpu(random_array<T>({4, 9, 12}), random_array<T>({4, 12, 5}),
            t + " batched");
  check_gpu(random_array<T>({2, 3, 9, 12}), random_array<T>({12, 5}),
            t + " batched @ 2-d (stride 0)");
  check_gpu(random_array<T>({2, 1, 9, 12}), random_array<T>({1, 3, 12, 5}),
            t + " broadcast batches");
  check_gpu(random_array<T>({3, 0}), random_array<T>({0, 5}),
            t + " k = 0 (zeros)");
  check_gpu(random_array<T>({0, 4}), random_array<T>({4, 5}), t + " n = 0");
  // Transposed operands go to cuBLAS as they are (transpose flags).
  auto a = random_array<T>({20, 30}), b = random_array<T>({40, 20});
  check_gpu(a.T(), b.T(), t + " both transposed");
  // Views made on the device: both operands transposed (CUBLAS_OP_T).
  auto bb = random_array<T>({7, 20});
  auto r = kiln::matmul(a.to(gpu).T(), bb.to(gpu).T());
  EXPECT_EQ(r.shape(), (kiln::shape{30, 7}));
  expect_close(as_cvec(r), as_cvec(kiln::matmul(a.T(), bb.T())), tol<T>() * 10,
               t + " transposed views on the device");
  auto col = random_array<T>({20, 7}); // column 3: a 1-d view of stride 7
  auto r1 = kiln::matmul(a.to(gpu).T(), col.to(gpu).slice({kiln::all, 3}));
  expect_close(as_cvec(r1),
               as_cvec(kiln::matmul(a.T(), col.slice({kiln::all, 3}))),
               tol<T>() * 10, t + " strided 1-d operand on the device");
  auto stack = random_array<T>({3, 12, 9}).to(gpu);
  auto rs = kiln::matmul(stack.transpose({0, 2, 1}),
                         random_array<T>({3, 12, 4}).to(gpu));
  EXPECT_EQ(rs.shape(), (kiln::shape{3, 9, 4}));
  // Non-contiguous views on the device are copied first.
  auto big = random_array<T>({16, 18}).to(gpu);
  auto sl = big.slice({kiln::range(0, std::nullopt, 2),
                       kiln::range(0, std::nullopt, 3)}); // (8, 6)
  auto rr = kiln::matmul(sl, random_array<T>({6, 5}).to(gpu));
  EXPECT_EQ(rr.shape(), (kiln::shape{8, 5}));
}

TEST(MatmulGpu, CublasMatchesHost) {
  KILN_REQUIRE_GPU();
  check_gpu_shapes<float>();
  check_gpu_shapes<double>();
  check_gpu_shapes<c64>();
  check_gpu_shapes<c128>();
}

TEST(MatmulGpu, ViewsAndMixedDtypesMatchHost) {
  KILN_REQUIRE_GPU();
  const auto gpu = kiln::device::cuda(0);
  auto a = random_array<float>({3, 12, 9});
  auto b = random_array<float>({3, 12, 4});
  auto dev = kiln::matmul(a.to(gpu).transpose({0, 2, 1}), b.to(gpu));
  auto host = kiln::matmul(a.transpose({0, 2, 1}), b);
  expect_close(as_cvec(dev), as_cvec(host), 1e-4,
               "batch of transposed matrices");
  auto big = random_array<double>({16, 18});
  auto sl = [](const kiln::array<double> &x) {
    return x.slice(
        {kiln::range(0, std::nullopt, 2), kiln::range(0, std::nullopt, 3)});
  };
  auto c = random_array<double>({6, 5});
  expect_close(as_cvec(kiln::matmul(sl(big.to(gpu)), c.to(gpu))),
               as_cvec(kiln::matmul(sl(big), c)), 1e-11, "sliced operand");
  // Mixed dtypes convert on the device; integer products fall back to the host.
  auto i = random_array<int32_t>({5, 6});
  auto f = random_array<float>({6, 3});
  auto mixed = kiln::matmul(i.to(gpu), f.to(gpu));
  static_assert(std::is_same_v<decltype(mixed), kiln::array<double>>);
  expect_close(as_cvec(mixed), as_cvec(kiln::matmul(i, f)), 1e-11,
               "int32 @ float32 on the GPU");
  auto ii = kiln::matmul(i.to(gpu), random_array<int32_t>({6, 2}).to(gpu));
  EXPECT_EQ(ii.device(), gpu);
  EXPECT_EQ(ii.shape(), (kiln::shape{5, 2}));
  // dot of n-d arrays on the device.
  auto x = random_array<double>({2, 3, 4}), y = random_array<double>({5, 4, 6});
  expect_close(as_cvec(kiln::dot(x.to(gpu), y.to(gpu))),
               as_cvec(kiln::dot(x, y)), 1e-11, "n-d dot on the GPU");
}

TEST(MatmulGpu, OperandsOnTwoDevicesThrowDeviceError) {
  KILN_REQUIRE_GPU();
  auto h = random_array<float>({3, 3});
  auto d = h.to(kiln::device::cuda(0));
  try {
    (void)kiln::matmul(d, h);
    FAIL() << "operands on two devices accepted";
  } catch (const kiln::device_error &e) {
    EXPECT_STREQ(e.what(), "arrays are on different devices: cuda:0 and host");
  }
  EXPECT_THROW((void)kiln::dot(h, d), kiln::device_error);
  // The program goes on.
  EXPECT_EQ(kiln::matmul(d, d).device(), kiln::device::cuda(0));
}

} // namespace
