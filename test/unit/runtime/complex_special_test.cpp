// The eager complex operations on the grid of special parts (zeros, inf,
// NaN, large values) against NumPy's answers (test/common/complex_special.hpp):
// the compiled kernels are checked on the same grid by
// test/e2e/difftest_regressions.cpp, so both paths agree with NumPy.
#include <kiln/kiln.hpp>

#include <gtest/gtest.h>

#include "test/common/complex_special.hpp"

#include <complex>
#include <cstdint>
#include <functional>
#include <span>

namespace {

namespace cs = complex_special;

template <class R> class ComplexSpecial : public ::testing::Test {};
using Parts = ::testing::Types<double, float>;
TYPED_TEST_SUITE(ComplexSpecial, Parts);

template <class R>
void expectGrid(const char *what, const std::function<kiln::array<std::complex<R>>(const kiln::array<std::complex<R>> &)> &f,
                const std::function<std::complex<R>(std::complex<R>)> &ref) {
  using Z = std::complex<R>;
  const std::vector<Z> hz = cs::grid<R>();
  auto z = kiln::asarray<Z>(std::span<const Z>(hz), {std::int64_t(hz.size())});
  std::vector<Z> got = f(z).to_vector();
  ASSERT_EQ(got.size(), hz.size());
  for (std::size_t k = 0; k < hz.size(); ++k)
    EXPECT_TRUE(cs::same(ref(hz[k]), got[k]))
        << what << " of " << cs::show(hz[k]) << ": got " << cs::show(got[k]) << ", NumPy " << cs::show(ref(hz[k]));
}

TYPED_TEST(ComplexSpecial, FunctionsFollowAnnexG) {
  using R = TypeParam;
  using Z = std::complex<R>;
  using A = kiln::array<Z>;
  expectGrid<R>("exp", [](const A &z) { return kiln::exp(z); }, [](Z v) { return std::exp(v); });
  expectGrid<R>("log", [](const A &z) { return kiln::log(z); }, [](Z v) { return std::log(v); });
  expectGrid<R>("sqrt", [](const A &z) { return kiln::sqrt(z); }, [](Z v) { return std::sqrt(v); });
  expectGrid<R>("sin", [](const A &z) { return kiln::sin(z); }, [](Z v) { return std::sin(v); });
  expectGrid<R>("cos", [](const A &z) { return kiln::cos(z); }, [](Z v) { return std::cos(v); });
  expectGrid<R>("tan", [](const A &z) { return kiln::tan(z); }, [](Z v) { return std::tan(v); });
  expectGrid<R>("tanh", [](const A &z) { return kiln::tanh(z); }, [](Z v) { return std::tanh(v); });
}

TYPED_TEST(ComplexSpecial, SignMultiplyAndDivideAsNumPy) {
  using R = TypeParam;
  using Z = std::complex<R>;
  using A = kiln::array<Z>;
  const Z d(1.5, -2.0);
  expectGrid<R>("sign", [](const A &z) { return kiln::sign(z); }, [](Z v) { return cs::sign(v); });
  expectGrid<R>("z * z", [](const A &z) { return z * z; }, [](Z v) { return cs::multiply(v, v); });
  expectGrid<R>("z / d", [&](const A &z) { return z / d; }, [&](Z v) { return cs::divide(v, d); });
  expectGrid<R>("d / z", [&](const A &z) { return d / z; }, [&](Z v) { return cs::divide(d, v); });
  expectGrid<R>("z / z", [](const A &z) { return z / z; }, [](Z v) { return cs::divide(v, v); });
  for (Z e : {Z(1), Z(2), Z(3), Z(-1), Z(-2), Z(5), Z(0.5), Z(1.5, -2.0)})
    expectGrid<R>("pow", [&](const A &z) { return kiln::pow(z, e); }, [&](Z v) { return cs::pow(v, e); });
  expectGrid<R>("pow(d, z)", [&](const A &z) { return kiln::pow(d, z); }, [&](Z v) { return cs::pow(d, v); });
  expectGrid<R>("pow(0, z)", [&](const A &z) { return kiln::pow(kiln::zeros_like(z), z); },
                [&](Z v) { return cs::pow(Z(0), v); });
}

} // namespace
