//===- kiln/random.hpp - Random numbers (Philox4x32-10) ----------*- C++
//-*-===//
//
// kiln::random::default_rng(seed) gives a generator of counter-based
// Philox4x32-10 draws: element i of a call uses counter (offset + i) under a
// key made from the seed, so one seed gives bitwise the same uniform numbers
// and integers on the host and on any GPU. See docs/runtime-arrays.md.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"

#include <concepts>
#include <cstdint>
#include <type_traits>

namespace kiln::random {

namespace detail {
enum class distribution { uniform, normal, integers };
/// Fills a new C-contiguous array of dtype `t` on `dev` with draws from
/// counter `offset` on; checks the arguments (value_error).
array_base draw(distribution dist, kiln::dtype t, const shape &s, device dev,
                std::uint64_t seed, std::uint64_t offset, double mean,
                double std, std::int64_t low, std::int64_t high);
} // namespace detail

/// Element types of random() and normal().
template <class T>
concept real_floating = std::is_same_v<T, float> || std::is_same_v<T, double>;
/// Element types of integers().
template <class T>
concept random_integer =
    std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t> ||
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

/// A stream of random numbers. Each call draws size() numbers and advances
/// the generator's offset by that many counters. Not thread-safe: give each
/// thread its own generator (e.g. seeds s, s+1, ...).
class generator {
public:
  explicit generator(std::uint64_t seed) noexcept : seed_(seed) {}

  /// Uniform in [0, 1).
  template <real_floating T>
  array<T> random(const shape &s, device dev = current_device()) {
    return array<T>(
        next(detail::distribution::uniform, dtype_of<T>, s, dev, 0, 1, 0, 0));
  }
  /// Normal (Box-Muller) with mean `mean` and standard deviation `std`
  /// (value_error "scale < 0" for a negative std).
  template <real_floating T>
  array<T> normal(const shape &s, T mean = T(0), T std = T(1),
                  device dev = current_device()) {
    return array<T>(next(detail::distribution::normal, dtype_of<T>, s, dev,
                         mean, std, 0, 0));
  }
  /// Integers in [low, high) (value_error "low >= high" when empty).
  template <random_integer T>
  array<T> integers(T low, T high, const shape &s,
                    device dev = current_device()) {
    return array<T>(next(detail::distribution::integers, dtype_of<T>, s, dev, 0,
                         1, low, high));
  }

  std::uint64_t seed() const noexcept { return seed_; }
  /// The counter the next call starts at.
  std::uint64_t offset() const noexcept { return offset_; }
  /// Moves the counter (e.g. to replay a draw, or to skip ahead).
  void set_offset(std::uint64_t offset) noexcept { offset_ = offset; }

private:
  array_base next(detail::distribution dist, kiln::dtype t, const shape &s,
                  device dev, double mean, double std, std::int64_t low,
                  std::int64_t high) {
    array_base a =
        detail::draw(dist, t, s, dev, seed_, offset_, mean, std, low, high);
    offset_ += static_cast<std::uint64_t>(a.size());
    return a;
  }

  std::uint64_t seed_;
  std::uint64_t offset_ = 0;
};

/// A generator seeded with `seed` (NumPy's default_rng; the numbers differ
/// from NumPy's PCG64 stream).
inline generator default_rng(std::uint64_t seed) { return generator(seed); }

} // namespace kiln::random
