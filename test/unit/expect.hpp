// Test helpers shared by the unit tests: an exception of a given type with
// an exact message, and reproducible random data.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

/// `f()` throws an `E` whose what() is exactly `msg`.
template <class E, class F> void expect_message(F &&f, const std::string &msg) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected: " << msg;
  } catch (const E &e) {
    EXPECT_EQ(std::string(e.what()), msg);
  }
}

/// `n` doubles uniform in [-10, 10) from `seed`.
inline std::vector<double> random_doubles(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-10.0, 10.0);
  std::vector<double> v(n);
  for (auto &x : v)
    x = u(gen);
  return v;
}
