// Float64 host references for the reduction benchmarks (reductions.cpp on
// the GPU, host_reductions.cpp on the host): each check_* compares a result
// copied to the host with a float64 computation on the same input and
// returns the worst error as a fraction of its tolerance (<= 1 passes; a NaN
// or an out-of-range index is infinite). Plain C++ on std::vector data,
// spread over the machine's cores with std::thread.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <thread>
#include <vector>

namespace refs {

using i64 = std::int64_t;
inline constexpr double inf = std::numeric_limits<double>::infinity();

/// f(begin, end) over [0, n) split into one range per hardware thread.
template <class F> void parallel_ranges(i64 n, F f) {
  const i64 t = std::max<i64>(1, std::min<i64>(std::thread::hardware_concurrency(), n));
  std::vector<std::thread> ts;
  for (i64 k = 0; k < t; ++k)
    ts.emplace_back([&f, n, t, k] { f(n * k / t, n * (k + 1) / t); });
  for (auto &th : ts)
    th.join();
}

/// |got - ref| / (atol + rtol * scale); infinite for NaN or inf.
inline double rel_err(double got, double ref, double scale, double rtol, double atol) {
  if (!std::isfinite(got))
    return inf;
  return std::abs(got - ref) / (atol + rtol * std::abs(scale));
}

/// The largest value of per-row errors `e` (NaN counts as infinite).
inline double worst_of(const std::vector<double> &e) {
  double w = 0;
  for (double v : e)
    w = std::isnan(v) ? inf : std::max(w, v);
  return w;
}

/// Per-row worst errors of a rows result: err(row) for each row, in parallel.
template <class F> double rows_worst(i64 rows, F err) {
  std::vector<double> e(static_cast<std::size_t>(rows));
  parallel_ranges(rows, [&](i64 b, i64 end) {
    for (i64 r = b; r < end; ++r)
      e[r] = err(r);
  });
  return worst_of(e);
}

// Tolerances: float32 results of float32 inputs (sums are pairwise in
// float32, so rtol 1e-5 of the sum of |terms| leaves a wide margin).
inline constexpr double sum_rtol = 1e-5;

/// sum(x * y, -1) of R x C row-major x and y.
inline double check_sum_xy(const float *x, const float *y, i64 R, i64 C, const float *got) {
  return rows_worst(R, [&](i64 r) {
    double s = 0, a = 0;
    for (i64 c = 0; c < C; ++c) {
      const double p = double(x[r * C + c]) * double(y[r * C + c]);
      s += p;
      a += std::abs(p);
    }
    return rel_err(got[r], s, a, sum_rtol, 1e-30);
  });
}

/// mean(x, 0) of R x C row-major x. rtol 2e-5: a column mean that adds
/// row after row in float32 (NumPy's x.mean(0), and Kiln's host `_rcols`)
/// is off by up to 0.66e-5 of the mean over 16k uniform rows; one dropped
/// element would be 6e-5.
inline constexpr double mean0_rtol = 2e-5;
inline double check_mean0(const float *x, i64 R, i64 C, const float *got) {
  std::vector<double> e(static_cast<std::size_t>(C));
  parallel_ranges(C, [&](i64 c0, i64 c1) {
    std::vector<double> s(c1 - c0, 0.0), a(c1 - c0, 0.0);
    for (i64 r = 0; r < R; ++r)
      for (i64 c = c0; c < c1; ++c) {
        s[c - c0] += x[r * C + c];
        a[c - c0] += std::abs(double(x[r * C + c]));
      }
    for (i64 c = c0; c < c1; ++c)
      e[c] = rel_err(got[c], s[c - c0] / double(R), a[c - c0] / double(R), mean0_rtol, 1e-30);
  });
  return worst_of(e);
}

/// sum(x) of n elements.
inline double check_full_sum(const float *x, i64 n, float got) {
  const i64 parts = 64;
  std::vector<double> s(parts, 0.0), a(parts, 0.0);
  parallel_ranges(parts, [&](i64 p0, i64 p1) {
    for (i64 p = p0; p < p1; ++p)
      for (i64 i = n * p / parts; i < n * (p + 1) / parts; ++i) {
        s[p] += x[i];
        a[p] += std::abs(double(x[i]));
      }
  });
  double S = 0, A = 0;
  for (i64 p = 0; p < parts; ++p) {
    S += s[p];
    A += a[p];
  }
  return rel_err(got, S, A, sum_rtol, 1e-30);
}

/// linalg::norm(x, 2, -1): sqrt(sum(x^2)) of each row.
inline double check_l2_rows(const float *x, i64 R, i64 C, const float *got) {
  return rows_worst(R, [&](i64 r) {
    double s = 0;
    for (i64 c = 0; c < C; ++c)
      s += double(x[r * C + c]) * double(x[r * C + c]);
    return rel_err(got[r], std::sqrt(s), std::sqrt(s), sum_rtol, 1e-30);
  });
}

/// argmax(x, -1): exactly NumPy's index (the first largest; no NaN inputs).
inline double check_argmax_rows(const float *x, i64 R, i64 C, const std::int64_t *got) {
  return rows_worst(R, [&](i64 r) {
    i64 best = 0;
    for (i64 c = 1; c < C; ++c)
      if (x[r * C + c] > x[r * C + best])
        best = c;
    return got[r] == best ? 0.0 : inf;
  });
}

/// var(x, -1), ddof 0 (two-pass in float64).
inline double check_var_rows(const float *x, i64 R, i64 C, const float *got) {
  return rows_worst(R, [&](i64 r) {
    double m = 0;
    for (i64 c = 0; c < C; ++c)
      m += x[r * C + c];
    m /= double(C);
    double v = 0;
    for (i64 c = 0; c < C; ++c)
      v += (x[r * C + c] - m) * (x[r * C + c] - m);
    v /= double(C);
    return rel_err(got[r], v, v, sum_rtol, 1e-30);
  });
}

/// softmax over the last axis, element by element (rtol 1e-4: float32 exp).
inline double check_softmax_rows(const float *x, i64 R, i64 C, const float *got) {
  return rows_worst(R, [&](i64 r) {
    const float *xr = x + r * C;
    double mx = xr[0];
    for (i64 c = 1; c < C; ++c)
      mx = std::max(mx, double(xr[c]));
    double s = 0;
    for (i64 c = 0; c < C; ++c)
      s += std::exp(xr[c] - mx);
    double w = 0;
    for (i64 c = 0; c < C; ++c) {
      const double ref = std::exp(xr[c] - mx) / s;
      w = std::max(w, rel_err(got[r * C + c], ref, ref, 1e-4, 1e-12));
    }
    return w;
  });
}

/// (x - mean) / sqrt(var + eps) * gamma + beta over the last axis.
inline double check_layer_norm_rows(const float *x, const float *gamma, const float *beta, i64 R, i64 C,
                                    double eps, const float *got) {
  return rows_worst(R, [&](i64 r) {
    const float *xr = x + r * C;
    double m = 0;
    for (i64 c = 0; c < C; ++c)
      m += xr[c];
    m /= double(C);
    double v = 0;
    for (i64 c = 0; c < C; ++c)
      v += (xr[c] - m) * (xr[c] - m);
    v /= double(C);
    const double inv = 1.0 / std::sqrt(v + eps);
    double w = 0;
    for (i64 c = 0; c < C; ++c) {
      const double ref = (xr[c] - m) * inv * gamma[c] + beta[c];
      w = std::max(w, rel_err(got[r * C + c], ref, ref, 1e-4, 1e-5));
    }
    return w;
  });
}

/// x - mean(x, 0): each element less its column's mean (issue 24).
inline double check_center_cols(const float *x, i64 R, i64 C, const float *got) {
  std::vector<double> mean(static_cast<std::size_t>(C), 0.0);
  parallel_ranges(C, [&](i64 c0, i64 c1) {
    for (i64 r = 0; r < R; ++r)
      for (i64 c = c0; c < c1; ++c)
        mean[c] += x[r * C + c];
    for (i64 c = c0; c < c1; ++c)
      mean[c] /= double(R);
  });
  return rows_worst(R, [&](i64 r) {
    double w = 0;
    for (i64 c = 0; c < C; ++c) {
      const double ref = x[r * C + c] - mean[c];
      // The mean's float32 rounding, relative to the element's scale.
      w = std::max(w, rel_err(got[r * C + c], ref, std::abs(double(x[r * C + c])) + std::abs(mean[c]), 1e-5, 1e-7));
    }
    return w;
  });
}

/// log(sum(exp(x - max))) + max of each row.
inline double check_logsumexp_rows(const float *x, i64 R, i64 C, const float *got) {
  return rows_worst(R, [&](i64 r) {
    const float *xr = x + r * C;
    double mx = xr[0];
    for (i64 c = 1; c < C; ++c)
      mx = std::max(mx, double(xr[c]));
    double s = 0;
    for (i64 c = 0; c < C; ++c)
      s += std::exp(xr[c] - mx);
    const double ref = std::log(s) + mx;
    return rel_err(got[r], ref, std::abs(ref) + 1.0, 1e-5, 1e-7);
  });
}

/// std(x, 0), ddof 0 (two-pass in float64).
inline double check_std0(const float *x, i64 R, i64 C, const float *got) {
  std::vector<double> e(static_cast<std::size_t>(C));
  parallel_ranges(C, [&](i64 c0, i64 c1) {
    std::vector<double> m(c1 - c0, 0.0), v(c1 - c0, 0.0);
    for (i64 r = 0; r < R; ++r)
      for (i64 c = c0; c < c1; ++c)
        m[c - c0] += x[r * C + c];
    for (i64 c = c0; c < c1; ++c)
      m[c - c0] /= double(R);
    for (i64 r = 0; r < R; ++r)
      for (i64 c = c0; c < c1; ++c) {
        const double d = x[r * C + c] - m[c - c0];
        v[c - c0] += d * d;
      }
    for (i64 c = c0; c < c1; ++c) {
      const double sd = std::sqrt(v[c - c0] / double(R));
      e[c] = rel_err(got[c], sd, sd, sum_rtol, 1e-30);
    }
  });
  return worst_of(e);
}

/// Prints the outcome of one check; returns whether it passed.
inline bool verdict(const char *what, double worst) {
  const bool ok = worst <= 1.0;
  std::printf("check %s: %s (worst error %.3g of the tolerance)\n", what, ok ? "ok" : "FAIL", worst);
  std::fflush(stdout);
  return ok;
}

} // namespace refs
