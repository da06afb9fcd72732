// Tests of NumPy type promotion (kiln/promote.hpp): the array-array table,
// weak scalars, the result types of the operators of kiln/ops.hpp, and that
// the runtime's dtype rules agree with the compile-time traits.
#include <kiln/array.hpp>
#include <kiln/linalg.hpp>
#include <kiln/ops.hpp>
#include <kiln/promote.hpp>

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;
using std::int32_t, std::int64_t, std::int8_t, std::uint8_t;
using std::is_same_v;

// Array-array: NumPy's promote_types.
static_assert(is_same_v<kiln::promote_t<int32_t, float>, double>);
static_assert(is_same_v<kiln::promote_t<int64_t, float>, double>);
static_assert(is_same_v<kiln::promote_t<int8_t, float>, float>);
static_assert(is_same_v<kiln::promote_t<uint8_t, float>, float>);
static_assert(is_same_v<kiln::promote_t<float, c64>, c64>);
static_assert(is_same_v<kiln::promote_t<double, c64>, c128>);
static_assert(is_same_v<kiln::promote_t<int32_t, c64>, c128>);
static_assert(is_same_v<kiln::promote_t<int8_t, c64>, c64>);
static_assert(
    is_same_v<kiln::promote_t<uint8_t, int8_t>, int32_t>); // NumPy: int16
static_assert(is_same_v<kiln::promote_t<uint8_t, int32_t>, int32_t>);
static_assert(is_same_v<kiln::promote_t<int32_t, int64_t>, int64_t>);
static_assert(is_same_v<kiln::promote_t<bool, int8_t>, int8_t>);
static_assert(is_same_v<kiln::promote_t<bool, bool>, bool>);
static_assert(is_same_v<kiln::promote_t<float, double>, double>);
static_assert(is_same_v<kiln::promote_t<c64, c128>, c128>);

// Weak scalars (NEP 50).
static_assert(is_same_v<kiln::scalar_promote_t<float, double>, float>);
static_assert(is_same_v<kiln::scalar_promote_t<float, int>, float>);
static_assert(is_same_v<kiln::scalar_promote_t<int32_t, int>, int32_t>);
static_assert(is_same_v<kiln::scalar_promote_t<int32_t, long long>, int32_t>);
static_assert(is_same_v<kiln::scalar_promote_t<int8_t, int>, int8_t>);
static_assert(is_same_v<kiln::scalar_promote_t<uint8_t, int>, uint8_t>);
static_assert(is_same_v<kiln::scalar_promote_t<int32_t, double>, double>);
static_assert(is_same_v<kiln::scalar_promote_t<int8_t, float>, double>);
static_assert(is_same_v<kiln::scalar_promote_t<float, c128>, c64>);
static_assert(is_same_v<kiln::scalar_promote_t<double, c64>, c128>);
static_assert(is_same_v<kiln::scalar_promote_t<int32_t, c64>, c128>);
static_assert(is_same_v<kiln::scalar_promote_t<bool, int>, int64_t>);
static_assert(is_same_v<kiln::scalar_promote_t<bool, bool>, bool>);
static_assert(is_same_v<kiln::scalar_promote_t<bool, float>, double>);
static_assert(is_same_v<kiln::scalar_promote_t<int64_t, bool>, int64_t>);

// Operation result types.
static_assert(is_same_v<kiln::true_divide_t<int32_t>, double>);
static_assert(is_same_v<kiln::true_divide_t<bool>, double>);
static_assert(is_same_v<kiln::true_divide_t<float>, float>);
static_assert(is_same_v<kiln::float_result_t<int32_t>, double>);
static_assert(is_same_v<kiln::float_result_t<int64_t>, double>);
static_assert(is_same_v<kiln::float_result_t<int8_t>, float>);
static_assert(is_same_v<kiln::float_result_t<float>, float>);
static_assert(is_same_v<kiln::float_result_t<c64>, c64>);
static_assert(is_same_v<kiln::real_result_t<c64>, float>);
static_assert(is_same_v<kiln::real_result_t<c128>, double>);
static_assert(is_same_v<kiln::real_result_t<int32_t>, int32_t>);
static_assert(is_same_v<kiln::arg_result_t<int32_t>, double>);
static_assert(is_same_v<kiln::arg_result_t<c64>, float>);
static_assert(is_same_v<kiln::no_bool_result_t<bool>, int8_t>);

// The operators' declared types.
template <class T> using arr = kiln::array<T>;
static_assert(is_same_v<decltype(arr<float>() * 2.0), arr<float>>);
static_assert(is_same_v<decltype(2.0 * arr<float>()), arr<float>>);
static_assert(is_same_v<decltype(arr<int32_t>() * 2), arr<int32_t>>);
static_assert(is_same_v<decltype(arr<int32_t>() * 2.5), arr<double>>);
static_assert(is_same_v<decltype(arr<float>() * c128(1, 1)), arr<c64>>);
static_assert(is_same_v<decltype(arr<int32_t>() + arr<float>()), arr<double>>);
static_assert(
    is_same_v<decltype(arr<int32_t>() / arr<int32_t>()), arr<double>>);
static_assert(is_same_v<decltype(arr<float>() / 2), arr<float>>);
static_assert(is_same_v<decltype(arr<int64_t>() % 3), arr<int64_t>>);
static_assert(is_same_v<decltype(arr<float>() < 1.0), arr<bool>>);
static_assert(is_same_v<decltype(arr<c64>() == arr<float>()), arr<bool>>);
static_assert(is_same_v<decltype(kiln::exp(arr<int32_t>())), arr<double>>);
static_assert(is_same_v<decltype(kiln::exp(arr<float>())), arr<float>>);
static_assert(is_same_v<decltype(kiln::abs(arr<c64>())), arr<float>>);
static_assert(is_same_v<decltype(kiln::abs(arr<int32_t>())), arr<int32_t>>);
static_assert(is_same_v<decltype(kiln::real(arr<c128>())), arr<double>>);
static_assert(is_same_v<decltype(kiln::imag(arr<float>())), arr<float>>);
static_assert(is_same_v<decltype(kiln::arg(arr<c64>())), arr<float>>);
static_assert(is_same_v<decltype(kiln::isnan(arr<double>())), arr<bool>>);
static_assert(is_same_v<decltype(kiln::pow(arr<int32_t>(), 2)), arr<int32_t>>);
static_assert(is_same_v<decltype(kiln::pow(arr<float>(), 0.5)), arr<float>>);
static_assert(is_same_v<decltype(kiln::maximum(arr<int8_t>(), arr<uint8_t>())),
                        arr<int32_t>>);
static_assert(
    is_same_v<decltype(kiln::where(arr<bool>(), arr<float>(), 0)), arr<float>>);
static_assert(
    is_same_v<decltype(kiln::where(arr<bool>(), 1.0f, 0.0f)), arr<float>>);
static_assert(
    is_same_v<decltype(kiln::where(arr<bool>(), 1, 2.0)), arr<double>>);
static_assert(
    is_same_v<decltype(kiln::clip(arr<float>(), 0, 1.0)), arr<float>>);
static_assert(is_same_v<decltype(kiln::clip(arr<int32_t>(), arr<int64_t>(), 5)),
                        arr<int64_t>>);
static_assert(is_same_v<decltype(arr<bool>() && arr<bool>()), arr<bool>>);
static_assert(is_same_v<decltype(kiln::matmul(arr<int32_t>(), arr<float>())),
                        arr<double>>);
static_assert(
    is_same_v<decltype(kiln::dot(arr<c64>(), arr<double>())), arr<c128>>);

// What NumPy rejects does not type-check.
template <class A, class B>
concept can_subtract = requires(A a, B b) {
  a - b;
};
template <class A>
concept can_negate = requires(A a) {
  -a;
};
template <class A, class B>
concept can_mod = requires(A a, B b) {
  a % b;
};
template <class A>
concept can_floor = requires(A a) {
  kiln::floor(a);
};
template <class A, class B>
concept can_and = requires(A a, B b) {
  a &&b;
};
template <class A, class B>
concept can_add = requires(A a, B b) {
  a + b;
};
static_assert(!can_subtract<arr<bool>, arr<bool>>);
static_assert(can_subtract<arr<bool>, arr<int32_t>>);
static_assert(!can_negate<arr<bool>>);
static_assert(can_negate<arr<int8_t>>);
static_assert(!can_mod<arr<c64>, arr<float>>);
static_assert(!can_floor<arr<c128>>);
static_assert(!can_and<arr<float>, arr<bool>>);
static_assert(can_and<arr<bool>, bool>);
static_assert(can_add<arr<float>, c64>);

constexpr kiln::dtype all_dtypes[] = {
    kiln::dtype::bool_,   kiln::dtype::int8,      kiln::dtype::uint8,
    kiln::dtype::int32,   kiln::dtype::int64,     kiln::dtype::float32,
    kiln::dtype::float64, kiln::dtype::complex64, kiln::dtype::complex128,
};

TEST(Promote, TableIsSymmetricAndIdempotent) {
  for (kiln::dtype a : all_dtypes) {
    EXPECT_EQ(kiln::promote_types(a, a), a);
    for (kiln::dtype b : all_dtypes) {
      EXPECT_EQ(kiln::promote_types(a, b), kiln::promote_types(b, a))
          << name(a) << " " << name(b);
      // The result holds both kinds.
      kiln::dtype r = kiln::promote_types(a, b);
      EXPECT_GE(static_cast<int>(kiln::kind_of(r)),
                static_cast<int>(kiln::kind_of(a)));
      EXPECT_GE(static_cast<int>(kiln::kind_of(r)),
                static_cast<int>(kiln::kind_of(b)));
      // Associative over three, except where int8 and uint8 meet (their
      // int32 stands in for NumPy's int16, see docs/operations.md).
      for (kiln::dtype c : all_dtypes) {
        auto has = [&](kiln::dtype t) { return a == t || b == t || c == t; };
        if (has(kiln::dtype::int8) && has(kiln::dtype::uint8))
          continue;
        EXPECT_EQ(kiln::promote_types(kiln::promote_types(a, b), c),
                  kiln::promote_types(a, kiln::promote_types(b, c)))
            << name(a) << " " << name(b) << " " << name(c);
      }
    }
  }
}

TEST(Promote, RuntimeRulesAgreeWithTraits) {
  namespace d = kiln::detail;
  std::vector<kiln::array_base> arrays;
  for (kiln::dtype t : all_dtypes)
    arrays.push_back(d::empty(t, kiln::shape{2}, kiln::device::host()));
  for (const auto &a : arrays)
    for (const auto &b : arrays) {
      kiln::dtype p = kiln::promote_types(a.dtype(), b.dtype());
      EXPECT_EQ(
          d::eager_result_dtype(d::op::add, std::vector<d::operand>{a, b}), p);
      EXPECT_EQ(
          d::eager_result_dtype(d::op::less, std::vector<d::operand>{a, b}),
          kiln::dtype::bool_);
      EXPECT_EQ(d::eager_result_dtype(d::op::true_divide,
                                      std::vector<d::operand>{a, b}),
                kiln::true_divide_type(p));
    }
  for (const auto &a : arrays) {
    kiln::dtype t = a.dtype();
    EXPECT_EQ(
        d::eager_result_dtype(d::op::multiply, std::vector<d::operand>{a, 2.0}),
        kiln::promote_weak(t, kiln::scalar_kind::floating));
    EXPECT_EQ(
        d::eager_result_dtype(d::op::multiply, std::vector<d::operand>{a, 2}),
        kiln::promote_weak(t, kiln::scalar_kind::integer));
    EXPECT_EQ(d::eager_result_dtype(d::op::multiply,
                                    std::vector<d::operand>{a, c64(1, 2)}),
              kiln::promote_weak(t, kiln::scalar_kind::complex));
    EXPECT_EQ(d::eager_result_dtype(d::op::exp, std::vector<d::operand>{a}),
              kiln::float_type(t));
    EXPECT_EQ(d::eager_result_dtype(d::op::abs, std::vector<d::operand>{a}),
              kiln::real_type(t));
    EXPECT_EQ(d::eager_result_dtype(d::op::arg, std::vector<d::operand>{a}),
              kiln::arg_type(t));
    EXPECT_EQ(d::eager_result_dtype(d::op::isnan, std::vector<d::operand>{a}),
              kiln::dtype::bool_);
  }
  // Weak-scalar results of the examples in docs/operations.md.
  EXPECT_EQ(
      kiln::promote_weak(kiln::dtype::float32, kiln::scalar_kind::floating),
      kiln::dtype::float32);
  EXPECT_EQ(kiln::promote_weak(kiln::dtype::int32, kiln::scalar_kind::floating),
            kiln::dtype::float64);
  EXPECT_EQ(
      kiln::promote_weak(kiln::dtype::float32, kiln::scalar_kind::complex),
      kiln::dtype::complex64);
}

TEST(Promote, RuntimeRejectsWhatNumPyRejects) {
  namespace d = kiln::detail;
  auto b = d::empty(kiln::dtype::bool_, kiln::shape{3}, kiln::device::host());
  auto c =
      d::empty(kiln::dtype::complex64, kiln::shape{3}, kiln::device::host());
  try {
    d::eager_result_dtype(d::op::subtract, std::vector<d::operand>{b, b});
    FAIL() << "bool subtract accepted";
  } catch (const kiln::type_error &e) { // NumPy's TypeError
    EXPECT_NE(std::string(e.what()).find("numpy boolean subtract"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(
      d::eager_result_dtype(d::op::negative, std::vector<d::operand>{b}),
      kiln::type_error);
  try {
    d::eager_result_dtype(d::op::remainder, std::vector<d::operand>{c, c});
    FAIL() << "complex remainder accepted";
  } catch (const kiln::type_error &e) {
    EXPECT_STREQ(
        e.what(),
        "ufunc 'remainder' not supported for the input type complex64");
  }
  EXPECT_THROW(d::eager_result_dtype(d::op::floor, std::vector<d::operand>{c}),
               kiln::type_error);
  EXPECT_THROW(d::eager_result_dtype(d::op::add, std::vector<d::operand>{b}),
               kiln::value_error);
  // The program goes on.
  EXPECT_EQ(d::eager_result_dtype(d::op::add, std::vector<d::operand>{b, c}),
            kiln::dtype::complex64);
}

} // namespace
