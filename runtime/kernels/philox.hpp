//===- runtime/kernels/philox.hpp - Philox4x32-10 for host and GPU --------===//
//
// The counter-based generator behind kiln::random, written once for the host
// loops and the CUDA kernels so that both give bitwise the same bits: element
// i of a draw is philox(counter = offset + i, key = seed), and the same
// integer-to-float conversions follow on both. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/kernels/element.hpp"

#include <cstdint>

#if !defined(__CUDACC__)
#include <cmath>
#endif

namespace kiln::detail::kernels {

struct philox_out {
  std::uint32_t w[4];
};

KILN_HD std::uint32_t mulhi32(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) * b) >> 32);
#endif
}

KILN_HD std::uint64_t mulhi64(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >>
                                    64);
#endif
}

/// Philox4x32-10 (Salmon et al., SC'11) of counter {lo(ctr), hi(ctr), 0, 0}
/// under key {lo(seed), hi(seed)}.
KILN_HD philox_out philox4x32_10(std::uint64_t ctr, std::uint64_t seed) {
  constexpr std::uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
  constexpr std::uint32_t w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;
  std::uint32_t c0 = static_cast<std::uint32_t>(ctr),
                c1 = static_cast<std::uint32_t>(ctr >> 32);
  std::uint32_t c2 = 0, c3 = 0;
  std::uint32_t k0 = static_cast<std::uint32_t>(seed),
                k1 = static_cast<std::uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    if (r) {
      k0 += w0;
      k1 += w1;
    }
    std::uint32_t hi0 = mulhi32(m0, c0), lo0 = m0 * c0;
    std::uint32_t hi1 = mulhi32(m1, c2), lo1 = m1 * c2;
    std::uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
  }
  return {{c0, c1, c2, c3}};
}

/// Uniform in [0, 1): the top 24 bits of a word (float) or 53 bits of two.
KILN_HD float uniform_f32(std::uint32_t a) {
  return static_cast<float>(a >> 8) * 0x1p-24f;
}
KILN_HD double uniform_f64(std::uint32_t a, std::uint32_t b) {
  std::uint64_t x = (static_cast<std::uint64_t>(a) << 32) | b;
  return static_cast<double>(x >> 11) * 0x1p-53;
}
/// Uniform in (0, 1], for log() in Box-Muller.
KILN_HD float uniform_open_f32(std::uint32_t a) {
  return static_cast<float>((a >> 8) + 1u) * 0x1p-24f;
}
KILN_HD double uniform_open_f64(std::uint32_t a, std::uint32_t b) {
  std::uint64_t x = (static_cast<std::uint64_t>(a) << 32) | b;
  return static_cast<double>((x >> 11) + 1u) * 0x1p-53;
}

KILN_HD float draw_uniform_f32(std::uint64_t ctr, std::uint64_t seed) {
  return uniform_f32(philox4x32_10(ctr, seed).w[0]);
}
KILN_HD double draw_uniform_f64(std::uint64_t ctr, std::uint64_t seed) {
  philox_out o = philox4x32_10(ctr, seed);
  return uniform_f64(o.w[0], o.w[1]);
}

/// Box-Muller (cosine branch only; one normal per counter).
KILN_HD float draw_normal_f32(std::uint64_t ctr, std::uint64_t seed, float mean,
                              float std_) {
  philox_out o = philox4x32_10(ctr, seed);
  float u1 = uniform_open_f32(o.w[0]), u2 = uniform_f32(o.w[1]);
  constexpr float two_pi = 6.28318530717958647692f;
#if defined(__CUDA_ARCH__)
  float z = sqrtf(-2.0f * logf(u1)) * cosf(two_pi * u2);
#else
  float z = std::sqrt(-2.0f * std::log(u1)) * std::cos(two_pi * u2);
#endif
  return mean + std_ * z;
}
KILN_HD double draw_normal_f64(std::uint64_t ctr, std::uint64_t seed,
                               double mean, double std_) {
  philox_out o = philox4x32_10(ctr, seed);
  double u1 = uniform_open_f64(o.w[0], o.w[1]),
         u2 = uniform_f64(o.w[2], o.w[3]);
  constexpr double two_pi = 6.28318530717958647692;
#if defined(__CUDA_ARCH__)
  double z = sqrt(-2.0 * log(u1)) * cos(two_pi * u2);
#else
  double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2);
#endif
  return mean + std_ * z;
}

/// low + floor(r * range / 2^64) for a 64-bit r: in [low, low + range).
/// `range` is high - low as an unsigned number (bias at most range / 2^64).
KILN_HD std::int64_t draw_integer(std::uint64_t ctr, std::uint64_t seed,
                                  std::int64_t low, std::uint64_t range) {
  philox_out o = philox4x32_10(ctr, seed);
  std::uint64_t r = (static_cast<std::uint64_t>(o.w[0]) << 32) | o.w[1];
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) +
                                   mulhi64(r, range));
}

} // namespace kiln::detail::kernels
