//===- kiln/print.hpp - Printing arrays as NumPy does ------------*- C++
//-*-===//
//
// `std::cout << x` writes NumPy's str(x); kiln::repr(x) (np.array_repr) is
// NumPy's repr, "array([1.5, 2. ], dtype=float32)"; kiln::array_str is
// np.array_str. Any dtype, any device (a GPU array is copied to the host
// to be printed). NumPy 2's layout: the shortest digits that identify each
// float (at most `precision` after the point), one format for all elements
// (positional, or scientific when the magnitudes call for it), lines wrapped
// at `linewidth`, arrays over `threshold` elements summarized with "..."
// and `edgeitems` items at each end of each axis. kiln::set_printoptions
// changes the options (those given), as np.set_printoptions. With a
// standard library that has <format>, std::format("{}", x) is str(x).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PRINT_HPP
#define KILN_PRINT_HPP

#include "kiln/array.hpp"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>

#if __has_include(<format>)
#include <format>
#endif

namespace kiln {

/// np.get_printoptions()'s values Kiln uses (NumPy's defaults).
struct print_options {
  int precision = 8;             ///< digits after the point, at most
  std::int64_t threshold = 1000; ///< more elements than this are summarized
  int edgeitems = 3;             ///< items at each end of a summarized axis
  int linewidth = 75;            ///< characters a line
  bool suppress =
      false; ///< never scientific for small numbers (they print as 0.)
  std::string nanstr = "nan", infstr = "inf";
};

/// The options np.set_printoptions takes, each left as it is when not given:
/// kiln::set_printoptions({.precision = 3, .suppress = true}).
struct printoptions {
  std::optional<int> precision;
  std::optional<std::int64_t> threshold;
  std::optional<int> edgeitems, linewidth;
  std::optional<bool> suppress;
  std::optional<std::string> nanstr, infstr;
};

/// np.set_printoptions: changes the given options for every later print.
/// A negative precision, edgeitems or threshold, or a linewidth below 1, is
/// a value_error.
void set_printoptions(const printoptions &changes);
/// np.get_printoptions.
print_options get_printoptions();

/// np.array_str(x): what print(x) shows.
std::string array_str(const array_base &x);
/// np.array_repr(x): "array(...)", with the dtype unless NumPy implies it
/// (bool, int64, float64, complex128 that are not empty).
std::string array_repr(const array_base &x);
/// NumPy's repr(x).
inline std::string repr(const array_base &x) { return array_repr(x); }

/// Writes NumPy's str(x).
std::ostream &operator<<(std::ostream &os, const array_base &x);

} // namespace kiln

#if defined(__cpp_lib_format)
/// std::format("{}", x): NumPy's str(x).
template <class A>
requires std::is_base_of_v<kiln::array_base, A>
struct std::formatter<A, char> : std::formatter<std::string_view, char> {
  template <class Context>
  auto format(const kiln::array_base &x, Context &ctx) const {
    const std::string s = kiln::array_str(x);
    return std::formatter<std::string_view, char>::format(std::string_view(s),
                                                          ctx);
  }
};
#endif

#endif // KILN_PRINT_HPP
