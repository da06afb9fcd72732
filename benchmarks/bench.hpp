// Shared by Kiln's GPU benchmarks: median timing of device work with
// kiln::event, and one JSON line per measurement for benchmarks/report.py.
#pragma once

#include <kiln/kiln.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace bench {

/// Median milliseconds of `f` over `reps` runs after `warmup` runs, timed
/// with events on the current stream.
inline double median_ms(const std::function<void()> &f, int reps = 30, int warmup = 3) {
  for (int i = 0; i < warmup; ++i) f();
  kiln::synchronize();
  std::vector<double> ts;
  kiln::event start, stop;
  for (int i = 0; i < reps; ++i) {
    start.record();
    f();
    stop.record();
    stop.synchronize();
    ts.push_back(kiln::elapsed_ms(start, stop));
  }
  std::nth_element(ts.begin(), ts.begin() + ts.size() / 2, ts.end());
  return ts[ts.size() / 2];
}

/// Median wall-clock milliseconds of `f` over `reps` runs after `warmup`
/// runs: host work (the host backend's benchmarks).
inline double host_median_ms(const std::function<void()> &f, int reps = 9,
                             int warmup = 2) {
  for (int i = 0; i < warmup; ++i)
    f();
  std::vector<double> ts;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ts.push_back(std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - t0)
                     .count());
  }
  std::nth_element(ts.begin(), ts.begin() + ts.size() / 2, ts.end());
  return ts[ts.size() / 2];
}

/// One result: name, milliseconds, bytes moved (0 if not a bandwidth figure).
inline void emit(const char *suite, const char *name, double ms, double bytes, const char *extra = "") {
  double gbs = bytes > 0 ? bytes / (ms * 1e-3) / 1e9 : 0;
  std::printf("{\"suite\": \"%s\", \"name\": \"%s\", \"ms\": %.6f, \"bytes\": %.0f, \"gbps\": %.2f%s}\n", suite, name,
              ms, bytes, gbs, extra);
  std::fflush(stdout);
}

/// The host backend's benchmarks (host_*.cpp, beside NumPy in
/// host_peers.py): median milliseconds of `f` over `reps` runs after
/// `warmup` runs with a host timer.
template <class F> double median_host_ms(F &&f, int reps = 15, int warmup = 2) {
  for (int i = 0; i < warmup; ++i)
    f();
  kiln::synchronize();
  std::vector<double> ts;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    kiln::synchronize();
    const auto t1 = std::chrono::steady_clock::now();
    ts.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::nth_element(ts.begin(), ts.begin() + ts.size() / 2, ts.end());
  return ts[ts.size() / 2];
}

/// One host result (suite "host") with its workload name, for report.py to
/// pair with NumPy's, and the machine: its CPUs and KILN_NUM_THREADS.
inline void emit_host(const std::string &workload, double ms, double bytes, const std::string &more = "") {
  static const std::string machine = [] {
    const char *env = std::getenv("KILN_NUM_THREADS");
    return ", \"cpus\": " + std::to_string(std::thread::hardware_concurrency()) + ", \"kiln_num_threads\": \"" +
           (env ? env : "") + "\"";
  }();
  const std::string extra = ", \"workload\": \"" + workload + "\", \"impl\": \"kiln\"" + machine + more;
  emit("host", ("kiln host " + workload).c_str(), ms, bytes, extra.c_str());
}

} // namespace bench
