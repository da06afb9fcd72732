// A reference for reductions in the end-to-end programs: NumPy's semantics
// computed in double (complex<double>) by plain loops over a host copy, for
// any shape, any set of axes and keepdims. Kept elements come out in C order.
#pragma once

#include "e2e.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace e2e {

enum class red { sum, prod, mean, max, min, argmax, argmin, all, any, var, std, count_nonzero, norm };

/// The values of `x` (any view) in C order, widened, with its shape.
template <class T> struct host_nd {
  std::vector<std::complex<double>> v;
  std::vector<std::int64_t> shape;
};

template <class T> host_nd<T> host_of(const kiln::array<T> &x) {
  host_nd<T> h;
  for (auto d : x.shape())
    h.shape.push_back(d);
  for (const T &e : x.to_vector())
    h.v.push_back(widen(e));
  return h;
}

inline bool cnan(std::complex<double> z) { return std::isnan(z.real()) || std::isnan(z.imag()); }

/// a > b lexicographically (real parts, then imaginary), for non-NaN values.
inline bool greater(std::complex<double> a, std::complex<double> b) {
  return a.real() > b.real() || (a.real() == b.real() && a.imag() > b.imag());
}

/// Reduces `h` over the axes in `mask` (bit d = axis d) with NumPy's rules.
/// `ddof` for var/std, `p` for norm (a vector norm of order p; 2 also for
/// the Frobenius norm).
template <class T>
std::vector<std::complex<double>> reduce_ref(const host_nd<T> &h, std::uint64_t mask, red op, std::int64_t ddof = 0,
                                             double p = 2) {
  const std::size_t rank = h.shape.size();
  std::vector<std::int64_t> keptDims, redDims;
  for (std::size_t d = 0; d < rank; ++d)
    ((mask >> d & 1) ? redDims : keptDims).push_back(std::int64_t(d));
  std::int64_t nk = 1, nr = 1;
  for (auto d : keptDims)
    nk *= h.shape[d];
  for (auto d : redDims)
    nr *= h.shape[d];
  std::vector<std::int64_t> strides(rank, 1);
  for (int d = int(rank) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * h.shape[d + 1];
  auto offset = [&](std::int64_t k, std::int64_t r) {
    std::int64_t off = 0;
    for (int i = int(keptDims.size()) - 1; i >= 0; --i) {
      std::int64_t d = keptDims[i];
      off += (k % h.shape[d]) * strides[d];
      k /= h.shape[d];
    }
    for (int i = int(redDims.size()) - 1; i >= 0; --i) {
      std::int64_t d = redDims[i];
      off += (r % h.shape[d]) * strides[d];
      r /= h.shape[d];
    }
    return off;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::complex<double>> out(static_cast<std::size_t>(nk));
  for (std::int64_t k = 0; k < nk; ++k) {
    std::complex<double> acc = op == red::prod || op == red::all ? 1.0 : 0.0;
    std::complex<double> best = 0;
    std::int64_t bestAt = -1;
    std::complex<double> mean = 0;
    if (op == red::var || op == red::std) {
      for (std::int64_t r = 0; r < nr; ++r)
        mean += h.v[offset(k, r)];
      mean /= double(nr);
    }
    for (std::int64_t r = 0; r < nr; ++r) {
      std::complex<double> x = h.v[offset(k, r)];
      switch (op) {
      case red::sum:
      case red::mean:
        acc += x;
        break;
      case red::prod:
        acc *= x;
        break;
      case red::count_nonzero:
        acc += x != 0.0 ? 1.0 : 0.0;
        break;
      case red::all:
        acc = acc != 0.0 && x != 0.0 ? 1.0 : 0.0;
        break;
      case red::any:
        acc = acc != 0.0 || x != 0.0 ? 1.0 : 0.0;
        break;
      case red::var:
      case red::std:
        acc += std::norm(x - mean);
        break;
      case red::norm:
        if (p == 0)
          acc += x != 0.0 ? 1.0 : 0.0;
        else if (std::isinf(p))
          acc = r == 0 ? std::abs(x) : (p > 0 ? std::max(acc.real(), std::abs(x)) : std::min(acc.real(), std::abs(x)));
        else
          acc += std::pow(std::abs(x), p);
        break;
      case red::max:
      case red::min:
      case red::argmax:
      case red::argmin: {
        bool wantMax = op == red::max || op == red::argmax;
        bool take = bestAt < 0 || (!cnan(best) && (cnan(x) || (wantMax ? greater(x, best) : greater(best, x))));
        if (take) {
          best = x;
          bestAt = r;
        }
        break;
      }
      }
    }
    switch (op) {
    case red::mean: // 0/0 is nan, and nan+nanj for complex (NumPy's complex division)
      out[k] = nr ? acc / double(nr) : std::complex<double>(nan, kiln::is_std_complex<T>::value ? nan : 0.0);
      break;
    case red::var:
    case red::std: {
      double dof = std::max<double>(double(nr - ddof), 0.0);
      double v = acc.real() / dof;
      if (nr == 0)
        v = nan;
      out[k] = op == red::std ? std::sqrt(v) : v;
      break;
    }
    case red::norm:
      out[k] = p == 0 || std::isinf(p) || p == 1 ? acc.real() : std::pow(acc.real(), 1.0 / p);
      break;
    case red::max:
    case red::min:
      out[k] = best;
      break;
    case red::argmax:
    case red::argmin:
      out[k] = double(bestAt);
      break;
    default:
      out[k] = acc;
    }
  }
  return out;
}

/// Random data of dtype T with zeros and ties (small integers) for the
/// integer, bool and all/any cases, normals for floats and complex.
template <class T> kiln::array<T> random_array(kiln::random::generator &rng, const kiln::shape &s) {
  if constexpr (std::is_same_v<T, bool>) {
    return rng.random<double>(s) > 0.5;
  } else if constexpr (std::is_integral_v<T>) {
    return rng.integers<T>(std::is_signed_v<T> ? -3 : 0, 4, s);
  } else if constexpr (kiln::is_std_complex<T>::value) {
    using R = typename T::value_type;
    auto re = rng.normal<R>(s, 0.0, 1.0), im = rng.normal<R>(s, 0.0, 1.0);
    return re.template astype<T>() + im.template astype<T>() * T(0, 1);
  } else {
    return rng.normal<T>(s, 0.5, 2.0);
  }
}

/// The bit mask of NumPy axes: every axis, or `list` normalized for `rank`.
inline std::uint64_t axes_mask(std::initializer_list<std::int64_t> list, std::size_t rank, bool all = false) {
  if (all)
    return rank >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << rank) - 1;
  std::uint64_t m = 0;
  for (auto a : list)
    m |= std::uint64_t(1) << (a < 0 ? a + std::int64_t(rank) : a);
  return m;
}

/// Compares `got` (the fused result) with a reference over the kept
/// elements; checks the shape NumPy gives (keepdims or not).
template <class R, class T>
void expect_reduction(const std::string &what, const kiln::array<R> &got, const host_nd<T> &in, std::uint64_t mask,
                      bool keepdims, const std::vector<std::complex<double>> &ref, double tol) {
  std::vector<std::int64_t> want;
  for (std::size_t d = 0; d < in.shape.size(); ++d)
    if (!(mask >> d & 1))
      want.push_back(in.shape[d]);
    else if (keepdims)
      want.push_back(1);
  std::vector<std::int64_t> have(got.shape().begin(), got.shape().end());
  if (have != want) {
    ++checks;
    ++failures;
    std::printf("FAIL %s: shape %s, expected rank %zu\n", what.c_str(), kiln::to_string(got.shape()).c_str(),
                want.size());
    return;
  }
  expect(what, got, ref.size(), [&](std::size_t i) { return ref[i]; }, tol);
}

} // namespace e2e
