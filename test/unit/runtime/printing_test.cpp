// kiln/print.hpp beyond what test/printing/print_test.py compares with NumPy
// (str and repr of thousands of random arrays): the options' semantics (only
// the given ones change; NumPy's errors for bad values), `<<` equal to
// array_str, and a GPU array printing as its host copy does.
#include "expect.hpp"
#include "gpu.hpp"

#include <kiln/kiln.hpp>
#include <kiln/print.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace {

/// Restores NumPy's defaults when a test ends.
struct default_options : ::testing::Test {
  void TearDown() override {
    kiln::set_printoptions({.precision = 8,
                            .threshold = 1000,
                            .edgeitems = 3,
                            .linewidth = 75,
                            .suppress = false,
                            .nanstr = "nan",
                            .infstr = "inf"});
  }
};

using PrintOptions = default_options;
using PrintGpu = default_options;

TEST_F(PrintOptions, OnlyTheGivenOnesChange) {
  const kiln::print_options before = kiln::get_printoptions();
  EXPECT_EQ(before.precision, 8);
  EXPECT_EQ(before.threshold, 1000);
  EXPECT_EQ(before.linewidth, 75);
  kiln::set_printoptions({.precision = 3});
  kiln::set_printoptions({.suppress = true, .nanstr = "NaN"});
  const kiln::print_options after = kiln::get_printoptions();
  EXPECT_EQ(after.precision, 3);
  EXPECT_TRUE(after.suppress);
  EXPECT_EQ(after.nanstr, "NaN");
  EXPECT_EQ(after.threshold, before.threshold);
  EXPECT_EQ(after.edgeitems, before.edgeitems);
  EXPECT_EQ(after.infstr, before.infstr);
  // The options reach the output: three digits, NaN spelled as asked.
  auto rng = kiln::random::default_rng(5);
  const kiln::array<double> x =
      rng.random<double>({4}, kiln::device::host()) + 1.0;
  const std::string s = kiln::array_str(x);
  for (const double v : x.to_vector()) {
    std::ostringstream digits;
    digits.precision(3);
    digits << std::fixed << v;
    std::string d = digits.str();
    while (d.back() == '0') // NumPy drops trailing zeros (floatmode "maxprec")
      d.pop_back();
    EXPECT_NE(s.find(d), std::string::npos) << s << " lacks " << d;
  }
  const kiln::array<double> nan =
      kiln::full<double>({2}, std::nan(""), kiln::device::host());
  EXPECT_EQ(kiln::array_str(nan), "[NaN NaN]");
}

TEST_F(PrintOptions, BadValuesAreNumPysErrors) {
  expect_message<kiln::value_error>(
      [] { kiln::set_printoptions({.precision = -1}); },
      "precision must be >= 0");
  expect_message<kiln::value_error>(
      [] { kiln::set_printoptions({.linewidth = 0}); },
      "linewidth must be >= 1");
  expect_message<kiln::value_error>(
      [] { kiln::set_printoptions({.edgeitems = -2}); },
      "edgeitems must be >= 0");
  // A refused call changes nothing.
  EXPECT_EQ(kiln::get_printoptions().precision, 8);
}

TEST_F(PrintOptions, StreamIsArrayStr) {
  auto rng = kiln::random::default_rng(6);
  const kiln::array<float> x = rng.random<float>({3, 4}, kiln::device::host());
  std::ostringstream os;
  os << x << "|" << kiln::array<float>(x.T());
  EXPECT_EQ(os.str(), kiln::array_str(x) + "|" + kiln::array_str(x.T()));
  EXPECT_EQ(kiln::repr(x), kiln::array_repr(x));
  EXPECT_EQ(kiln::repr(x).rfind("array(", 0), 0u);
}

TEST_F(PrintGpu, AsItsHostCopy) {
  KILN_REQUIRE_GPU();
  const kiln::device gpu = kiln::device::cuda(0);
  auto rng = kiln::random::default_rng(7);
  const kiln::array<double> big =
      rng.random<double>({50, 60}, gpu); // summarized
  const kiln::array<double> host = big.to(kiln::device::host());
  EXPECT_EQ(kiln::array_str(big), kiln::array_str(host));
  EXPECT_EQ(kiln::repr(big), kiln::repr(host));
  const kiln::array<double> view = big.T();
  EXPECT_EQ(kiln::array_str(view), kiln::array_str(host.T()));
  EXPECT_NE(kiln::repr(big).find("shape=(50, 60)"), std::string::npos);
}

} // namespace
