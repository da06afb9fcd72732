//===- runtime/random/generator.cpp - Random draws into new arrays --------===//
//
// kiln::random::detail::draw: checks the arguments of a generator call,
// allocates the result on the device and runs the Philox kernel
// (runtime/kernels) on the device's current stream.
//
//===----------------------------------------------------------------------===//
#include "kiln/random.hpp"
#include "runtime/array/array_internal.hpp"
#include "runtime/kernels/kernels.hpp"

#include <cmath>

namespace kiln::random::detail {

array_base draw(distribution dist, kiln::dtype t, const shape &s, device dev,
                std::uint64_t seed, std::uint64_t offset, double mean,
                double std, std::int64_t low, std::int64_t high) {
  namespace k = kiln::detail::kernels;
  k::draw d;
  d.seed = seed;
  d.offset = offset;
  switch (dist) {
  case distribution::uniform:
    d.dist = k::distribution::uniform;
    break;
  case distribution::normal:
    if (std::isnan(std) || std < 0)
      throw value_error("scale < 0");
    d.dist = k::distribution::normal;
    d.mean = mean;
    d.std = std;
    break;
  case distribution::integers:
    if (low >= high)
      throw value_error("low >= high");
    d.dist = k::distribution::integers;
    d.low = low;
    d.range =
        static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
    break;
  }
  check_device(dev);
  stream st = stream::current(dev);
  array_base out = kiln::detail::allocate(t, s, dev, st);
  k::random(out, d, st);
  return out;
}

} // namespace kiln::random::detail
