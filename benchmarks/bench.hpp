// Shared by Kiln's GPU benchmarks: median timing of device work with
// kiln::event, and one JSON line per measurement for benchmarks/report.py.
#pragma once

#include <kiln/kiln.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
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

/// One result: name, milliseconds, bytes moved (0 if not a bandwidth figure).
inline void emit(const char *suite, const char *name, double ms, double bytes, const char *extra = "") {
  double gbs = bytes > 0 ? bytes / (ms * 1e-3) / 1e9 : 0;
  std::printf("{\"suite\": \"%s\", \"name\": \"%s\", \"ms\": %.6f, \"bytes\": %.0f, \"gbps\": %.2f%s}\n", suite, name,
              ms, bytes, gbs, extra);
  std::fflush(stdout);
}

} // namespace bench
