// kiln::raw_module: the time from CUDA source to a kernel that has been
// launched, on each path: cold (empty disk cache: an NVRTC compilation), warm
// disk cache in this process (in-memory cache cleared) and in a new process
// (which must not load NVRTC: the key names it by its library file), and a
// precompiled image (what kilnc will emit
// for string literals: no NVRTC at all). Each row: from_source (or
// raw_module_from_image), function(), the first kiln::launch (which loads the
// module on the GPU) and the total until the launch returned; then the
// kernel's result is checked. One JSON line per row, then a table.
// benchmarks/raw_module_cupy.py measures CuPy's RawModule the same way.
//
// Usage: bench_raw_module            (the child mode --warm-child DIR is internal)
#include "bench.hpp"

#include <kiln/raw_module.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

constexpr const char *source = R"(
extern "C" __global__ void saxpy(float a, const float *x, float *y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}
template <class T> __global__ void scale(T *x, T a, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= a;
}
)";
const std::vector<std::string> options = {"-std=c++17"};
const std::vector<std::string> names = {"scale<float>"};
constexpr std::int64_t n = std::int64_t(1) << 20;

struct row {
  std::string name;
  double nvrtc_load = 0, module = 0, function = 0, launch = 0, total = 0;
};

void emit(const row &r) {
  std::printf("{\"suite\": \"raw_module\", \"name\": \"%s\", \"ms\": %.4f, \"nvrtc_load_ms\": %.4f, "
              "\"module_ms\": %.4f, \"function_ms\": %.4f, \"launch_ms\": %.4f}\n",
              r.name.c_str(), r.total, r.nvrtc_load, r.module, r.function, r.launch);
  std::fflush(stdout);
}

/// The arrays of one measurement: y = 2 x + y, then checked.
struct data {
  kiln::array<float> x = kiln::random::default_rng(1).random<float>({n});
  kiln::array<float> y = kiln::random::default_rng(2).random<float>({n});
  std::vector<float> x0 = x.to_vector(), y0 = y.to_vector();

  bool check(const char *what) const {
    const std::vector<float> got = y.to_vector();
    for (std::int64_t i = 0; i < n; ++i) {
      const double want = 2.0 * x0[i] + y0[i];
      if (!(std::abs(got[i] - want) <= 1e-6 * (1 + std::abs(want)))) {
        std::printf("%s: y[%lld] = %g, want %g\n", what, static_cast<long long>(i), got[i], want);
        return false;
      }
    }
    return true;
  }
};

/// Times make() + function("saxpy") + the first launch.
template <class Make> row measure(const char *name, Make make, data &d) {
  kiln::synchronize();
  row r;
  r.name = name;
  const auto t0 = clock_type::now();
  const kiln::raw_module m = make();
  r.module = ms_since(t0);
  const auto t1 = clock_type::now();
  const kiln::raw_function f = m.function("saxpy");
  r.function = ms_since(t1);
  const auto t2 = clock_type::now();
  kiln::launch(f, kiln::grid{1024}, kiln::block{256}, 2.0f, d.x, d.y, n);
  r.launch = ms_since(t2);
  r.total = ms_since(t0);
  kiln::synchronize();
  return r;
}

/// The warm measurement in a fresh process: CUDA initialized first (as a
/// program has by the time it compiles kernels), then from_source over the
/// disk cache filled by the parent, which must neither compile nor load
/// NVRTC (the NVRTC load column stays 0).
int warm_child() {
  data d;
  kiln::synchronize();
  const row r =
      measure("warm_new_process.kiln", [] { return kiln::raw_module::from_source(source, options, names); }, d);
  emit(r);
  const bool loaded = kiln::detail::nvrtc_loaded();
  if (loaded)
    std::printf("warm, new process: NVRTC was loaded on a disk cache hit\n");
  return d.check("warm, new process") && kiln::detail::nvrtc_compile_count() == 0 && !loaded ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 3 && std::strcmp(argv[1], "--warm-child") == 0) {
    setenv("KILN_CACHE_DIR", argv[2], 1);
    return warm_child();
  }
  if (kiln::current_device().is_host()) {
    std::printf("{\"suite\": \"raw_module\", \"skipped\": \"no GPU\"}\n");
    return 0;
  }
  char tmpl[] = "/tmp/kiln-bench-raw-module-XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string cache = tmpl;
  setenv("KILN_CACHE_DIR", cache.c_str(), 1);
  bool ok = true;
  std::vector<row> rows;
  data d;

  // NVRTC's load, once per process (part of the first compilation).
  const auto t0 = clock_type::now();
  if (kiln::detail::nvrtc_version().empty()) {
    std::printf("{\"suite\": \"raw_module\", \"skipped\": \"no NVRTC (set KILN_NVRTC)\"}\n");
    return 1;
  }
  const double nvrtc_load = ms_since(t0);

  // Cold: an empty cache folder, one NVRTC compilation.
  const std::size_t compiles = kiln::detail::nvrtc_compile_count();
  rows.push_back(measure("cold.kiln", [] { return kiln::raw_module::from_source(source, options, names); }, d));
  rows.back().nvrtc_load = nvrtc_load;
  rows.back().total += nvrtc_load;
  ok &= d.check("cold") && kiln::detail::nvrtc_compile_count() == compiles + 1;
  const std::string target(kiln::raw_module::from_source(source, options, names).target());

  // Warm disk cache, this process: the in-memory cache forgotten, so the
  // module is read from disk and loaded on the GPU again. Median of 9.
  std::vector<row> warm;
  for (int i = 0; i < 9; ++i) {
    d = data();
    kiln::detail::raw_module_clear_memory_cache();
    warm.push_back(measure("warm_disk.kiln", [] { return kiln::raw_module::from_source(source, options, names); }, d));
    ok &= d.check("warm disk");
  }
  std::sort(warm.begin(), warm.end(), [](const row &a, const row &b) { return a.total < b.total; });
  rows.push_back(warm[warm.size() / 2]);
  ok &= kiln::detail::nvrtc_compile_count() == compiles + 1;

  // In memory: the same source again (module and function already loaded).
  d = data();
  rows.push_back(measure("warm_memory.kiln", [] { return kiln::raw_module::from_source(source, options, names); }, d));
  ok &= d.check("in memory");

  // A precompiled image, as kilnc will emit: the PTX (and cubin, when NVRTC
  // made one for this GPU) of a compilation, as static data.
  {
    const kiln::raw_module compiled = kiln::raw_module::from_source(source, options, names);
    static const std::string ptx(compiled.ptx());
    static const std::vector<unsigned char> cubin(compiled.fatbin().begin(), compiled.fatbin().end());
    static const std::string lowered(compiled.function("scale<float>").symbol());
    static const char *const expressions[] = {"scale<float>"};
    static const char *const lowered_names[] = {lowered.c_str()};
    static const kiln::detail::raw_module_image image{ptx.c_str(), cubin.empty() ? nullptr : cubin.data(),
                                                      cubin.size(), expressions, lowered_names, 1, "bench"};
    d = data();
    const std::size_t before = kiln::detail::nvrtc_compile_count();
    rows.push_back(measure("image.kiln", [] { return kiln::detail::raw_module_from_image(image); }, d));
    ok &= d.check("image") && kiln::detail::nvrtc_compile_count() == before;
  }
  for (const row &r : rows)
    emit(r);

  // Warm disk cache in a new process (this binary, --warm-child).
  std::fflush(stdout);
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string cmd = "'" + self + "' --warm-child '" + cache + "'";
  if (FILE *p = popen(cmd.c_str(), "r")) {
    char line[1024];
    while (std::fgets(line, sizeof line, p)) {
      std::fputs(line, stdout);
      double ms = 0, load = 0, module = 0, function = 0, launch = 0;
      if (const char *s = std::strstr(line, "\"ms\": "))
        if (std::sscanf(s, "\"ms\": %lf, \"nvrtc_load_ms\": %lf, \"module_ms\": %lf, \"function_ms\": %lf, "
                           "\"launch_ms\": %lf",
                        &ms, &load, &module, &function, &launch) == 5)
          rows.push_back({"warm_new_process.kiln", load, module, function, launch, ms});
    }
    ok &= pclose(p) == 0;
  } else {
    ok = false;
  }

  std::printf("\nkiln::raw_module on %s (target %s, NVRTC %s): ms from source to a launched kernel\n\n",
              kiln::current_device().str().c_str(), target.c_str(), kiln::detail::nvrtc_version().c_str());
  std::printf("| path | NVRTC load | from_source / image | function() | first launch | total |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const row &r : rows)
    std::printf("| %s | %.3f | %.3f | %.3f | %.3f | %.3f |\n", r.name.c_str(), r.nvrtc_load, r.module, r.function,
                r.launch, r.total);
  std::printf("\nwarm goal: < 2 ms until the kernel is launchable (warm_disk, warm_new_process: NVRTC not loaded)\n");
  std::error_code ec;
  std::filesystem::remove_all(cache, ec);
  if (!ok)
    std::printf("raw_module benchmark: a check failed\n");
  return ok ? 0 : 1;
}
