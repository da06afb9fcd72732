// The performance campaign's harness (benchmarks/campaign/): what every
// generated batch's main() runs around its programs. For each program: build
// its inputs (the generated code, fused by kilnc), run it once and print a
// checksum of its result (statistics of every element and a deterministic
// sample, which campaign.py compares with NumPy's), then time it: the median
// of several repetitions after warm-up, with kiln::event on a GPU (the
// repetitions queued back to back, so no launch gap is timed) and a host
// timer around kiln::synchronize() on the host. An update is timed on the
// same data every time: its destination is restored before each repetition,
// outside the timed span. The device copy bandwidth is measured by the same
// binary, before and after the programs (x.copy() of a float32 array,
// counting read + write).
//
// Output: one JSON line per record (device, copy, start, program, error).
//
//   ./campaign [--only 3,17] [--reps N] [--warmup N] [--copy-mib M] [--no-time]
#pragma once

#include <kiln/kiln.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace campaign {

/// Milliseconds of each of `reps` runs of `run`, after `warmup` runs;
/// `restore` runs before each, untimed.
template <class Run, class Restore>
std::vector<double> time_reps(Run &&run, Restore &&restore, int reps, int warmup) {
  for (int i = 0; i < warmup; ++i) {
    restore();
    run();
  }
  kiln::synchronize();
  std::vector<double> ms;
  if (kiln::current_device().is_host()) {
    for (int i = 0; i < reps; ++i) {
      restore();
      kiln::synchronize();
      const auto t0 = std::chrono::steady_clock::now();
      run();
      kiln::synchronize();
      const auto t1 = std::chrono::steady_clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
  } else {
    // Queued back to back: the GPU never waits for the host between the
    // events, so each span is the program's time on the GPU.
    std::vector<kiln::event> start(reps), stop(reps);
    for (int i = 0; i < reps; ++i) {
      restore();
      start[i].record();
      run();
      stop[i].record();
    }
    stop.back().synchronize();
    for (int i = 0; i < reps; ++i)
      ms.push_back(kiln::elapsed_ms(start[i], stop[i]));
  }
  return ms;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// A double as JSON (NaN and infinities as Python's json reads them).
inline std::string num(double v) {
  if (std::isnan(v))
    return "NaN";
  if (std::isinf(v))
    return v > 0 ? "Infinity" : "-Infinity";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

inline std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += (c == '\n' || c == '\t') ? ' ' : c;
  }
  return out + "\"";
}

template <class T> double real_part(const T &v) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
    return static_cast<double>(v.real());
  else
    return static_cast<double>(v);
}

template <class T> double imag_part(const T &v) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
    return static_cast<double>(v.imag());
  else
    return 0.0;
}

/// Flat index k of the sample of `count` elements out of n (campaign's
/// oracle.py computes the same): spread evenly, jittered within each stride.
inline std::int64_t sample_index(std::int64_t k, std::int64_t count, std::int64_t n) {
  const std::int64_t stride = n / count;
  return (k * n) / count + static_cast<std::int64_t>((static_cast<std::uint64_t>(k) * 2654435761ULL) %
                                                     static_cast<std::uint64_t>(stride));
}

constexpr std::int64_t sample_size = 512;

/// The checksum of a result: element count, NaN and infinity counts, sums
/// of the finite real and imaginary parts and of their magnitudes (in
/// double), and a sample of elements.
template <class T> std::string checksum(const kiln::array<T> &r) {
  const auto v = r.to_vector();
  const auto n = static_cast<std::int64_t>(v.size());
  double sum_re = 0, sum_im = 0, abs_re = 0, abs_im = 0;
  std::int64_t nans = 0, infs = 0;
  for (const auto &x : v) {
    const double re = real_part<T>(x), im = imag_part<T>(x);
    if (std::isnan(re) || std::isnan(im)) {
      ++nans;
      continue;
    }
    if (std::isinf(re) || std::isinf(im)) {
      ++infs;
      continue;
    }
    sum_re += re;
    sum_im += im;
    abs_re += std::fabs(re);
    abs_im += std::fabs(im);
  }
  std::string out = "\"dtype\": \"" + std::string(kiln::name(r.dtype())) + "\", \"shape\": [";
  for (std::size_t i = 0; i < r.shape().size(); ++i)
    out += (i ? ", " : "") + std::to_string(r.shape()[i]);
  out += "], \"stats\": {\"count\": " + std::to_string(n) + ", \"nan\": " + std::to_string(nans) +
         ", \"inf\": " + std::to_string(infs) + ", \"sum\": [" + num(sum_re) + ", " + num(sum_im) +
         "], \"abs\": [" + num(abs_re) + ", " + num(abs_im) + "]}, \"sample\": [";
  const std::int64_t count = std::min(n, sample_size);
  for (std::int64_t k = 0; k < count; ++k) {
    const auto &x = v[static_cast<std::size_t>(sample_index(k, count, n))];
    out += k ? ", " : "";
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
      out += "[" + num(x.real()) + ", " + num(x.imag()) + "]";
    else if constexpr (std::is_floating_point_v<T>)
      out += num(static_cast<double>(x));
    else
      out += std::to_string(static_cast<long long>(x));
  }
  return out + "]";
}

class session {
public:
  session(int argc, char **argv, int reps, int warmup, int copy_mib)
      : reps_(reps), warmup_(warmup), copy_mib_(copy_mib) {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
      if (a == "--only") {
        const std::string list = next();
        for (std::size_t p = 0; p < list.size();) {
          only_.push_back(std::atoi(list.c_str() + p));
          const std::size_t comma = list.find(',', p);
          p = comma == std::string::npos ? list.size() : comma + 1;
        }
      } else if (a == "--reps") {
        reps_ = std::max(1, std::atoi(next().c_str()));
      } else if (a == "--warmup") {
        warmup_ = std::max(0, std::atoi(next().c_str()));
      } else if (a == "--copy-mib") {
        copy_mib_ = std::max(1, std::atoi(next().c_str()));
      } else if (a == "--no-time") {
        time_ = false;
      } else {
        std::fprintf(stderr, "campaign: unknown argument '%s'\n", a.c_str());
        std::exit(2);
      }
    }
    std::printf("{\"device\": %s, \"reps\": %d, \"warmup\": %d}\n", quoted(kiln::current_device().str()).c_str(),
                reps_, warmup_);
    std::fflush(stdout);
  }

  bool wanted(int id) const { return only_.empty() || std::find(only_.begin(), only_.end(), id) != only_.end(); }

  /// The device copy: `x.copy()` of copy_mib MiB of float32, read + write.
  void copy_bandwidth(const char *when) {
    if (!time_)
      return;
    const std::int64_t n = std::int64_t(copy_mib_) << 18;
    kiln::array<float> x = kiln::full<float>({n}, 1.5f);
    const auto ms = time_reps([&] { kiln::array<float> y = x.copy(); }, [] {}, std::max(reps_, 10), 2);
    const double bytes = 2.0 * double(n) * 4.0, med = median(ms);
    std::printf("{\"copy\": \"%s\", \"bytes\": %.0f, \"ms\": %s, \"gbps\": %s}\n", when, bytes, num(med).c_str(),
                num(bytes / (med * 1e-3) / 1e9).c_str());
    std::fflush(stdout);
    release();
  }

  /// A program that returns its result.
  template <class F> void value(int id, double bytes, F &&f) {
    start(id);
    std::string check;
    {
      const auto r = f();
      check = checksum(r);
    }
    finish(id, bytes, check, [&] { const auto r = f(); }, [] {});
  }

  /// A program that writes into `dest` (restored before every run).
  template <class T, class F> void update(int id, double bytes, kiln::array<T> &dest, F &&f) {
    start(id);
    const kiln::array<T> pristine = dest.copy();
    f();
    const std::string check = checksum(dest);
    finish(id, bytes, check, f, [&] { dest.assign(pristine); });
  }

  void error(int id, const char *what) {
    std::printf("{\"id\": %d, \"error\": %s}\n", id, quoted(what).c_str());
    std::fflush(stdout);
    release();
  }

private:
  void start(int id) {
    std::printf("{\"start\": %d}\n", id);
    std::fflush(stdout);
  }

  template <class Run, class Restore>
  void finish(int id, double bytes, const std::string &check, Run &&run, Restore &&restore) {
    std::string times = "[]";
    double med = 0;
    if (time_) {
      const auto ms = time_reps(run, restore, reps_, warmup_);
      med = median(ms);
      times = "[";
      for (std::size_t i = 0; i < ms.size(); ++i)
        times += (i ? ", " : "") + num(ms[i]);
      times += "]";
    }
    std::printf("{\"id\": %d, \"ms\": %s, \"times\": %s, \"bytes\": %.0f, %s}\n", id, num(med).c_str(), times.c_str(),
                bytes, check.c_str());
    std::fflush(stdout);
    release();
  }

  /// Gives the pool's cached blocks back, so that one program's sizes do
  /// not crowd the next one's.
  static void release() {
    kiln::synchronize();
    kiln::get_default_memory_pool(kiln::current_device()).free_all_blocks();
  }

  std::vector<int> only_;
  int reps_, warmup_, copy_mib_;
  bool time_ = true;
};

} // namespace campaign
