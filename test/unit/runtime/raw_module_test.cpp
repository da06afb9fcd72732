//===- test/unit/runtime/raw_module_test.cpp - CUDA source through NVRTC --===//
//
// kiln::raw_module (kiln/raw_module.hpp): compiling CUDA source with NVRTC,
// name expressions, the in-memory and disk caches (hits, corrupt and foreign
// files, several threads and processes, unwritable folders), compile errors,
// unknown kernel names, modules from precompiled images without NVRTC, and
// the errors of launches that cannot run (the host device, bad shapes,
// arrays of another device). These need NVRTC but no GPU. The GPU tests
// launch kernels of one module against double-precision references on
// random data; they skip themselves where no GPU is present.
//
// Each test gets its own KILN_CACHE_DIR (a fresh temporary folder) and an
// empty in-memory cache.
//
//===----------------------------------------------------------------------===//
#include "kiln/kiln.hpp"
#include "kiln/raw_module.hpp"

#include "expect.hpp"
#include "gpu.hpp"
#include "runtime/nvrtc/nvrtc_library.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <spawn.h>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace {

namespace fs = std::filesystem;
using kiln::device;
using kiln::raw_function;
using kiln::raw_module;
using kiln::detail::nvrtc_compile_count;

template <class E, class F> std::string message_of(F &&f) {
  try {
    f();
  } catch (const E &e) {
    return e.what();
  }
  return "";
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

/// A module of two extern "C" kernels, one using dynamic shared memory, a
/// kernel template, a kernel taking a span (data, size) and one taking a
/// struct by value.
constexpr const char *kernels_source = R"(
struct affine { float a; float b; };

extern "C" __global__ void saxpy(float a, const float *x, float *y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

extern "C" __global__ void block_sum(const double *x, double *partial, long long n) {
  extern __shared__ double s[];
  double v = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    v += x[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k)
      s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = s[0];
}

template <class T> __global__ void scale_shift(T *x, T a, T b, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = a * x[i] + b;
}

extern "C" __global__ void reverse_span(const float *data, long long size, float *out) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < size)
    out[i] = data[size - 1 - i];
}

extern "C" __global__ void apply_affine(affine p, float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = p.a * x[i] + p.b;
}
)";

const std::vector<std::string> kernels_names = {"scale_shift<float>", "scale_shift<double>"};

/// An environment variable set (or unset) for one test, then restored.
class scoped_env {
public:
  scoped_env(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old, had_ = true;
    set(value);
  }
  ~scoped_env() { set(had_ ? old_.c_str() : nullptr); }
  void set(const char *value) {
    if (value)
      setenv(name_.c_str(), value, 1);
    else
      unsetenv(name_.c_str());
  }
  scoped_env(const scoped_env &) = delete;
  scoped_env &operator=(const scoped_env &) = delete;

private:
  std::string name_, old_;
  bool had_ = false;
};

/// Where the CUDA 13 toolkit keeps NVRTC: when it is there, NVRTC must load.
constexpr const char *toolkit_nvrtc = "/usr/local/cuda/lib64/libnvrtc.so.13";

/// A fresh cache folder and an empty in-memory cache for each test; no
/// NVRTC needed (modules from images).
class RawModuleImage : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kiln-raw-module-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    cache_dir_.set(dir_.c_str());
    kiln::detail::raw_module_clear_memory_cache();
  }
  void TearDown() override {
    kiln::detail::raw_module_clear_memory_cache();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  /// The files of the cache folder (names), sorted.
  std::vector<std::string> cache_files() const { return files_in(dir_ + "/raw_modules"); }
  static std::vector<std::string> files_in(const std::string &d) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(d, ec))
      out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string only_cache_file() const {
    const auto files = cache_files();
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? std::string() : dir_ + "/raw_modules/" + files[0];
  }
  static std::string read(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void write(const std::string &path, const std::string &data) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << data;
  }

  std::string dir_;
  scoped_env cache_dir_{"KILN_CACHE_DIR", nullptr};
  scoped_env disk_cache_{"KILN_DISK_CACHE", nullptr};
};

/// As RawModuleImage, for tests that compile: skipped where NVRTC is not
/// installed, failed where the toolkit's NVRTC is but does not load.
class RawModule : public RawModuleImage {
protected:
  void SetUp() override {
    RawModuleImage::SetUp();
    if (kiln::detail::nvrtc_version().empty()) {
      if (fs::exists(toolkit_nvrtc))
        FAIL() << toolkit_nvrtc << " exists but NVRTC does not load: " << kiln::detail::nvrtc::unavailable_reason();
      GTEST_SKIP() << "no NVRTC here: " << kiln::detail::nvrtc::unavailable_reason();
    }
  }
};

//===----------------------------------------------------------------------===//
// Compiling, names
//===----------------------------------------------------------------------===//

TEST_F(RawModule, CompilesToPtxWithEntriesAndLoweredNames) {
  const std::size_t before = nvrtc_compile_count();
  const raw_module m = raw_module::from_source(kernels_source, {"-std=c++17"}, kernels_names);
  EXPECT_EQ(nvrtc_compile_count(), before + 1);
  ASSERT_TRUE(m.valid());
  EXPECT_TRUE(contains(m.ptx(), ".entry saxpy("));
  EXPECT_TRUE(contains(m.ptx(), ".entry block_sum("));

  const raw_function saxpy = m.function("saxpy");
  EXPECT_EQ(saxpy.name(), "saxpy");
  EXPECT_EQ(saxpy.symbol(), "saxpy");
  // Name expressions map to NVRTC's lowered (Itanium-mangled) names.
  const raw_function sf = m.function("scale_shift<float>");
  const raw_function sd = m.function("scale_shift<double>");
  EXPECT_EQ(sf.name(), "scale_shift<float>");
  EXPECT_EQ(sf.symbol(), "_Z11scale_shiftIfEvPT_S0_S0_x");
  EXPECT_EQ(sd.symbol(), "_Z11scale_shiftIdEvPT_S0_S0_x");
  EXPECT_TRUE(contains(m.ptx(), std::string(".entry ") + std::string(sf.symbol()) + "("));
  // A kernel is also found by its mangled name; the same name gives the same function.
  EXPECT_EQ(m.function("_Z11scale_shiftIdEvPT_S0_S0_x").symbol(), sd.symbol());
  EXPECT_EQ(m.function("saxpy").state(), saxpy.state());

  std::vector<std::string> names = m.kernel_names();
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names[0], "scale_shift<float>");
  EXPECT_EQ(names[1], "scale_shift<double>");
  std::sort(names.begin() + 2, names.end());
  EXPECT_EQ(std::vector<std::string>(names.begin() + 2, names.end()),
            (std::vector<std::string>{"apply_affine", "block_sum", "reverse_span", "saxpy"}));
}

TEST_F(RawModule, TargetIsPtxForCompute80WithoutAGpuOrTheGpusArchAndUserArchWins) {
  const raw_module m = raw_module::from_source(kernels_source, {}, kernels_names);
  if (kiln::cuda_device_count() == 0) {
    EXPECT_EQ(m.target(), "compute_80");
    EXPECT_TRUE(contains(m.ptx(), ".target sm_80"));
  } else {
    EXPECT_EQ(m.target().substr(0, 3), "sm_") << m.target();
  }
  const raw_module user = raw_module::from_source(kernels_source, {"-arch=compute_86"});
  EXPECT_EQ(user.target(), "compute_86");
  EXPECT_TRUE(contains(user.ptx(), ".target sm_86"));
  const raw_module user2 = raw_module::from_source(kernels_source, {"--gpu-architecture=compute_90"});
  EXPECT_EQ(user2.target(), "compute_90");
  EXPECT_TRUE(contains(user2.ptx(), ".target sm_90"));
}

TEST_F(RawModule, ARealArchitectureGivesACubinBesideThePtx) {
  const raw_module m = raw_module::from_source(kernels_source, {"-arch=sm_90"}, kernels_names);
  EXPECT_EQ(m.target(), "sm_90");
  ASSERT_GT(m.fatbin().size(), 4u);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(m.fatbin().data()), 4), "\x7f" "ELF");
  EXPECT_TRUE(contains(m.ptx(), ".target sm_90"));
  if (kiln::cuda_device_count() == 0) { // the default target: PTX only
    EXPECT_TRUE(raw_module::from_source(kernels_source).fatbin().empty());
  }
  // The cubin travels through the disk cache.
  kiln::detail::raw_module_clear_memory_cache();
  const std::size_t before = nvrtc_compile_count();
  const raw_module again = raw_module::from_source(kernels_source, {"-arch=sm_90"}, kernels_names);
  EXPECT_EQ(nvrtc_compile_count(), before);
  ASSERT_EQ(again.fatbin().size(), m.fatbin().size());
  EXPECT_TRUE(std::equal(m.fatbin().begin(), m.fatbin().end(), again.fatbin().begin()));
}

TEST_F(RawModule, OptionsReachNvrtc) {
  // A macro from -D decides which kernel exists.
  constexpr const char *src = R"(
#ifdef WITH_B
extern "C" __global__ void kernel_b(float *x) { x[threadIdx.x] = 2.0f; }
#else
extern "C" __global__ void kernel_a(float *x) { x[threadIdx.x] = 1.0f; }
#endif
)";
  const raw_module a = raw_module::from_source(src);
  const raw_module b = raw_module::from_source(src, {"-DWITH_B", "--use_fast_math"});
  EXPECT_EQ(a.kernel_names(), std::vector<std::string>{"kernel_a"});
  EXPECT_EQ(b.kernel_names(), std::vector<std::string>{"kernel_b"});
  EXPECT_THROW(a.function("kernel_b"), kiln::error);
  EXPECT_EQ(b.function("kernel_b").symbol(), "kernel_b");
}

TEST_F(RawModule, UnknownKernelNamesAreErrorsNamingTheModulesKernels) {
  constexpr const char *src = R"(
extern "C" __global__ void first(float *x) { x[0] = 1; }
__global__ void not_extern_c(float *x) { x[0] = 2; }
template <class T> __global__ void tmpl(T *x) { x[0] = 3; }
)";
  const raw_module m = raw_module::from_source(src, {}, {"tmpl<int>"});
  const std::string msg = message_of<kiln::error>([&] { m.function("nope"); });
  EXPECT_TRUE(contains(msg, "raw_module has no kernel 'nope' (its kernels: tmpl<int>, ")) << msg;
  EXPECT_TRUE(contains(msg, "first")) << msg;
  EXPECT_TRUE(contains(msg, "_Z12not_extern_cPf (not_extern_c(float*))")) << msg;
  EXPECT_TRUE(contains(msg, "declare it extern \"C\", or give it")) << msg;
  // A kernel without extern "C" is not found by its plain name...
  EXPECT_THROW(m.function("not_extern_c"), kiln::error);
  // ... but by its mangled one, and an instantiation not asked for does not exist.
  EXPECT_EQ(m.function("_Z12not_extern_cPf").symbol(), "_Z12not_extern_cPf");
  EXPECT_THROW(m.function("tmpl<float>"), kiln::error);
  // An empty module.
  EXPECT_TRUE(contains(message_of<kiln::value_error>([] { raw_module().function("first"); }), "the module is empty"));
}

TEST_F(RawModule, CompileErrorsCarryNvrtcsLogWithTheLineNumber) {
  constexpr const char *src = "extern \"C\" __global__ void broken(float *x) {\n"
                              "  int i = threadIdx.x;\n"
                              "  x[i] = undefined_name * 2.0f;\n"
                              "}\n";
  const std::size_t before = nvrtc_compile_count();
  const std::string msg = message_of<kiln::compile_error>([&] { raw_module::from_source(src); });
  EXPECT_TRUE(contains(msg, "NVRTC could not compile the CUDA source")) << msg;
  EXPECT_TRUE(contains(msg, "raw_module.cu(3): error")) << msg;
  EXPECT_TRUE(contains(msg, "undefined_name")) << msg;
  EXPECT_EQ(nvrtc_compile_count(), before + 1);
  // A compile_error is a kiln::error; failures are not cached: the next call compiles again.
  EXPECT_THROW(raw_module::from_source(src), kiln::error);
  EXPECT_EQ(nvrtc_compile_count(), before + 2);
  EXPECT_TRUE(cache_files().empty());
}

TEST_F(RawModule, BadOptionsAndNameExpressionsAreCompileErrors) {
  const std::string option =
      message_of<kiln::compile_error>([] { raw_module::from_source(kernels_source, {"--no-such-option"}); });
  EXPECT_TRUE(contains(option, "--no-such-option")) << option;
  const std::string name = message_of<kiln::compile_error>(
      [] { raw_module::from_source(kernels_source, {}, {"no_such_template<float>"}); });
  EXPECT_TRUE(contains(name, "no_such_template")) << name;
}

//===----------------------------------------------------------------------===//
// Caches
//===----------------------------------------------------------------------===//

TEST_F(RawModule, SecondCallIsAnInMemoryHitAndANewProcessADiskHit) {
  const std::size_t before = nvrtc_compile_count();
  const raw_module first = raw_module::from_source(kernels_source, {}, kernels_names);
  EXPECT_EQ(nvrtc_compile_count(), before + 1);
  const std::string file = only_cache_file();
  EXPECT_EQ(file.substr(file.size() - 5), ".kiln");

  // In memory: the same module, no compilation, no file read.
  const raw_module again = raw_module::from_source(kernels_source, {}, kernels_names);
  EXPECT_EQ(again.state(), first.state());
  EXPECT_EQ(nvrtc_compile_count(), before + 1);

  // As a new process: the disk cache, the same code and names.
  kiln::detail::raw_module_clear_memory_cache();
  const raw_module disk = raw_module::from_source(kernels_source, {}, kernels_names);
  EXPECT_EQ(nvrtc_compile_count(), before + 1);
  EXPECT_NE(disk.state(), first.state());
  EXPECT_EQ(disk.ptx(), first.ptx());
  EXPECT_EQ(disk.target(), first.target());
  EXPECT_EQ(disk.function("scale_shift<double>").symbol(), "_Z11scale_shiftIdEvPT_S0_S0_x");
  // The first module stays valid.
  EXPECT_EQ(first.function("saxpy").symbol(), "saxpy");
  EXPECT_EQ(cache_files().size(), 1u);
}

TEST_F(RawModule, TheKeyCoversSourceOptionsAndNameExpressions) {
  const std::size_t before = nvrtc_compile_count();
  raw_module::from_source(kernels_source);
  raw_module::from_source(kernels_source, {"--use_fast_math"});
  raw_module::from_source(kernels_source, {}, {"scale_shift<float>"});
  raw_module::from_source(kernels_source, {}, kernels_names);
  raw_module::from_source(std::string(kernels_source) + "\n// another source\n");
  EXPECT_EQ(nvrtc_compile_count(), before + 5);
  EXPECT_EQ(cache_files().size(), 5u);
  kiln::detail::raw_module_clear_memory_cache();
  raw_module::from_source(kernels_source, {"--use_fast_math"});
  raw_module::from_source(kernels_source, {}, {"scale_shift<float>"});
  EXPECT_EQ(nvrtc_compile_count(), before + 5);
}

TEST_F(RawModule, ATruncatedOrCorruptCacheFileIsRecompiledAndRewritten) {
  const raw_module m = raw_module::from_source(kernels_source, {}, kernels_names);
  const std::string file = only_cache_file();
  const std::string good = read(file);
  ASSERT_GT(good.size(), 1000u);

  std::mt19937 gen(11);
  const std::vector<std::string> bad = {
      good.substr(0, good.size() / 2),                                // truncated
      good.substr(0, good.size() - 1),                                // one byte short
      std::string(),                                                  // empty
      std::string(good).replace(good.size() / 2, 1, 1, good[good.size() / 2] ^ 0x20), // a flipped bit in the PTX
      std::string(good.size(), 'x'),                                  // garbage
  };
  for (std::size_t i = 0; i < bad.size(); ++i) {
    SCOPED_TRACE("corruption " + std::to_string(i));
    write(file, bad[i]);
    kiln::detail::raw_module_clear_memory_cache();
    const std::size_t before = nvrtc_compile_count();
    const raw_module again = raw_module::from_source(kernels_source, {}, kernels_names);
    EXPECT_EQ(nvrtc_compile_count(), before + 1);
    EXPECT_EQ(again.ptx(), m.ptx());
    EXPECT_EQ(again.function("scale_shift<float>").symbol(), "_Z11scale_shiftIfEvPT_S0_S0_x");
    // Rewritten whole: the next process hits.
    EXPECT_EQ(read(file), good);
    kiln::detail::raw_module_clear_memory_cache();
    raw_module::from_source(kernels_source, {}, kernels_names);
    EXPECT_EQ(nvrtc_compile_count(), before + 1);
  }
}

TEST_F(RawModule, AFileOfAnotherKeyIsAMissNeverAWrongKernel) {
  // As if two keys had the same hash: the file of one stands where the
  // other's would be. The full key stored in the file tells them apart.
  constexpr const char *src_a = "extern \"C\" __global__ void only_in_a(float *x) { x[0] = 1; }\n";
  constexpr const char *src_b = "extern \"C\" __global__ void only_in_b(float *x) { x[0] = 2; }\n";
  raw_module::from_source(src_a);
  const std::string file_a = only_cache_file();
  const std::string a_bytes = read(file_a);
  raw_module::from_source(src_b);
  std::vector<std::string> files = cache_files();
  ASSERT_EQ(files.size(), 2u);
  const std::string file_b =
      dir_ + "/raw_modules/" + (dir_ + "/raw_modules/" + files[0] == file_a ? files[1] : files[0]);
  write(file_b, a_bytes);

  kiln::detail::raw_module_clear_memory_cache();
  const std::size_t before = nvrtc_compile_count();
  const raw_module b = raw_module::from_source(src_b);
  EXPECT_EQ(nvrtc_compile_count(), before + 1);
  EXPECT_EQ(b.kernel_names(), std::vector<std::string>{"only_in_b"});
  EXPECT_NE(read(file_b), a_bytes); // rewritten with b's code
}

TEST_F(RawModule, ThreadsCompilingOneSourceShareOneCompilation) {
  const std::size_t before = nvrtc_compile_count();
  constexpr int n = 8;
  std::vector<raw_module> got(n);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < n) {
      }
      got[t] = raw_module::from_source(kernels_source, {}, kernels_names);
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(nvrtc_compile_count(), before + 1);
  for (int t = 0; t < n; ++t) {
    EXPECT_EQ(got[t].state(), got[0].state());
  }
  EXPECT_EQ(got[0].function("scale_shift<float>").symbol(), "_Z11scale_shiftIfEvPT_S0_S0_x");
  EXPECT_EQ(cache_files().size(), 1u); // no temporary file left
}

TEST_F(RawModule, ThreadsCompileDistinctSourcesAtOnce) {
  const std::size_t before = nvrtc_compile_count();
  constexpr int n = 4;
  std::vector<raw_module> got(n);
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      const std::string src = "extern \"C\" __global__ void k" + std::to_string(t) + "(float *x) { x[0] = " +
                              std::to_string(t) + "; }\n";
      for (int rep = 0; rep < 3; ++rep) { // the first compiles, the others hit
        got[t] = raw_module::from_source(src);
        got[t].function("k" + std::to_string(t));
      }
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(nvrtc_compile_count(), before + n);
  for (int t = 0; t < n; ++t)
    EXPECT_EQ(got[t].kernel_names(), std::vector<std::string>{"k" + std::to_string(t)});
  EXPECT_EQ(cache_files().size(), static_cast<std::size_t>(n));
}

/// Run by ProcessesSharingTheCacheFolder in child processes: compiles the
/// source in $KILN_TEST_CHILD_SOURCE into the shared cache.
TEST(RawModuleChild, DISABLED_CompileIntoTheSharedCache) {
  const char *src = std::getenv("KILN_TEST_CHILD_SOURCE");
  ASSERT_NE(src, nullptr);
  const raw_module m = raw_module::from_source(src);
  EXPECT_EQ(m.kernel_names(), std::vector<std::string>{"shared_by_processes"});
}

TEST_F(RawModule, ProcessesSharingTheCacheFolderLeaveOneWholeFile) {
  const std::string src = "extern \"C\" __global__ void shared_by_processes(float *x) { x[0] = 7; }\n";
  scoped_env child_source("KILN_TEST_CHILD_SOURCE", src.c_str());
  std::string self = fs::read_symlink("/proc/self/exe").string();
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    const char *argv[] = {self.c_str(), "--gtest_filter=RawModuleChild.DISABLED_CompileIntoTheSharedCache",
                          "--gtest_also_run_disabled_tests", nullptr};
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, self.c_str(), nullptr, nullptr, const_cast<char **>(argv), environ), 0);
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a child failed: status " << status;
  }
  EXPECT_EQ(cache_files().size(), 1u); // one file, no temporaries
  const std::size_t before = nvrtc_compile_count();
  const raw_module m = raw_module::from_source(src);
  EXPECT_EQ(nvrtc_compile_count(), before); // the children's file is whole
  EXPECT_EQ(m.kernel_names(), std::vector<std::string>{"shared_by_processes"});
}

TEST_F(RawModule, AnUnwritableCacheFolderMeansNoCachingNotAnError) {
  const std::string file = dir_ + "/a-file";
  write(file, "not a folder");
  const std::string below_a_file = file + "/cache";
  cache_dir_.set(below_a_file.c_str());
  const std::size_t before = nvrtc_compile_count();
  const raw_module m = raw_module::from_source(kernels_source, {}, kernels_names);
  EXPECT_EQ(m.function("saxpy").symbol(), "saxpy");
  EXPECT_EQ(nvrtc_compile_count(), before + 1);
  kiln::detail::raw_module_clear_memory_cache();
  raw_module::from_source(kernels_source, {}, kernels_names);
  EXPECT_EQ(nvrtc_compile_count(), before + 2); // nothing was cached
}

TEST_F(RawModule, KilnDiskCache0TurnsTheDiskCacheOff) {
  disk_cache_.set("0");
  const std::size_t before = nvrtc_compile_count();
  raw_module::from_source(kernels_source);
  raw_module::from_source(kernels_source); // still cached in memory
  EXPECT_EQ(nvrtc_compile_count(), before + 1);
  kiln::detail::raw_module_clear_memory_cache();
  raw_module::from_source(kernels_source);
  EXPECT_EQ(nvrtc_compile_count(), before + 2);
  EXPECT_FALSE(fs::exists(dir_ + "/raw_modules"));
}

TEST_F(RawModule, WithoutKilnCacheDirTheCacheIsUnderXdgCacheHomeElseHome) {
  cache_dir_.set(nullptr);
  const std::string xdg = dir_ + "/xdg", home = dir_ + "/home";
  {
    scoped_env x("XDG_CACHE_HOME", xdg.c_str());
    raw_module::from_source(kernels_source);
    EXPECT_EQ(files_in(xdg + "/kiln/raw_modules").size(), 1u);
  }
  kiln::detail::raw_module_clear_memory_cache();
  {
    scoped_env x("XDG_CACHE_HOME", nullptr);
    scoped_env h("HOME", home.c_str());
    raw_module::from_source(kernels_source);
    EXPECT_EQ(files_in(home + "/.cache/kiln/raw_modules").size(), 1u);
  }
}

/// Puts NVRTC back as found (loaded again at the next use) when a test that
/// refused loading it ends, however it ends.
struct restore_nvrtc {
  ~restore_nvrtc() { kiln::detail::nvrtc::reset_for_testing(); }
};

TEST_F(RawModule, ADiskHitNeverLoadsNvrtc) {
  // Compiled (NVRTC loaded); the file records which NVRTC compiled it.
  const raw_module first = raw_module::from_source(kernels_source, {}, kernels_names);
  const std::string version = kiln::detail::nvrtc_version();
  ASSERT_TRUE(kiln::detail::nvrtc_loaded());
  const std::string bytes = read(only_cache_file());
  EXPECT_EQ(bytes.substr(0, 8), "KILNRMC2");
  EXPECT_TRUE(contains(bytes, "nvrtc file " + kiln::detail::nvrtc::file_identity())) << "the key names the library";
  EXPECT_TRUE(contains(bytes, std::string(1, static_cast<char>(version.size())) + std::string(7, '\0') + version))
      << "the version is a field of the file";

  // As a new process in which NVRTC cannot be loaded: found without it.
  const restore_nvrtc restore;
  kiln::detail::nvrtc::reset_for_testing(/*refuse_loading=*/true);
  kiln::detail::raw_module_clear_memory_cache();
  EXPECT_FALSE(kiln::detail::nvrtc_loaded());
  const std::size_t attempts = kiln::detail::nvrtc::load_attempts();
  const std::size_t before = nvrtc_compile_count();
  const raw_module hit = raw_module::from_source(kernels_source, {}, kernels_names);
  EXPECT_EQ(kiln::detail::nvrtc::load_attempts(), attempts) << "a disk hit tried to load NVRTC";
  EXPECT_FALSE(kiln::detail::nvrtc_loaded());
  EXPECT_EQ(nvrtc_compile_count(), before);
  EXPECT_EQ(hit.ptx(), first.ptx());
  EXPECT_EQ(hit.target(), first.target()); // stored in the file
  EXPECT_EQ(hit.function("scale_shift<double>").symbol(), "_Z11scale_shiftIdEvPT_S0_S0_x");
  // In memory too.
  EXPECT_EQ(raw_module::from_source(kernels_source, {}, kernels_names).state(), hit.state());
  EXPECT_EQ(kiln::detail::nvrtc::load_attempts(), attempts);

  // What is not cached must be compiled: only then is NVRTC looked for.
  const std::string msg = message_of<kiln::compile_error>(
      [] { raw_module::from_source("extern \"C\" __global__ void not_cached(float *x) { x[0] = 1; }\n"); });
  EXPECT_TRUE(contains(msg, "cannot compile CUDA source: NVRTC could not be loaded")) << msg;
  EXPECT_EQ(kiln::detail::nvrtc::load_attempts(), attempts + 1);
  EXPECT_EQ(nvrtc_compile_count(), before);
}

TEST_F(RawModule, TheKeyNamesTheNvrtcLibraryFileByItsCanonicalPathSizeAndTime) {
  raw_module::from_source(kernels_source);
  ASSERT_EQ(cache_files().size(), 1u);
  const kiln::detail::nvrtc::library *lib = kiln::detail::nvrtc::loaded();
  ASSERT_NE(lib, nullptr);
  // The file found without loading is the file the loader opened.
  const std::string loaded_identity = lib->identity;
  ASSERT_FALSE(loaded_identity.empty());
  kiln::detail::nvrtc::reset_for_testing();
  EXPECT_EQ(kiln::detail::nvrtc::file_identity(), loaded_identity);
  EXPECT_FALSE(kiln::detail::nvrtc_loaded());
  const std::string real_path = loaded_identity.substr(0, loaded_identity.rfind(' ', loaded_identity.rfind(' ') - 1));
  ASSERT_TRUE(fs::is_regular_file(real_path)) << real_path;
  EXPECT_EQ(real_path, fs::canonical(real_path).string());

  const restore_nvrtc restore;
  // KILN_NVRTC naming a link to the same file: the same file, a hit.
  const std::string link = dir_ + "/libnvrtc-link.so";
  fs::create_symlink(real_path, link);
  {
    scoped_env nvrtc("KILN_NVRTC", link.c_str());
    kiln::detail::nvrtc::reset_for_testing(/*refuse_loading=*/true);
    kiln::detail::raw_module_clear_memory_cache();
    const std::size_t attempts = kiln::detail::nvrtc::load_attempts();
    EXPECT_EQ(kiln::detail::nvrtc::file_identity(), loaded_identity);
    EXPECT_TRUE(raw_module::from_source(kernels_source).valid());
    EXPECT_EQ(kiln::detail::nvrtc::load_attempts(), attempts);
  }
  // Another file: a miss, so NVRTC must be loaded (here: refused).
  const std::string other = dir_ + "/libnvrtc-other.so";
  write(other, "not a library");
  {
    scoped_env nvrtc("KILN_NVRTC", other.c_str());
    kiln::detail::nvrtc::reset_for_testing(/*refuse_loading=*/true);
    kiln::detail::raw_module_clear_memory_cache();
    const std::string id = kiln::detail::nvrtc::file_identity();
    EXPECT_EQ(id, fs::canonical(other).string() + " 13 " + id.substr(id.rfind(' ') + 1));
    const std::size_t attempts = kiln::detail::nvrtc::load_attempts();
    EXPECT_THROW(raw_module::from_source(kernels_source), kiln::compile_error);
    EXPECT_EQ(kiln::detail::nvrtc::load_attempts(), attempts + 1);
    // Loading it for real fails too (not a library): a compile_error.
    kiln::detail::nvrtc::reset_for_testing();
    const std::string msg = message_of<kiln::compile_error>([] { raw_module::from_source(kernels_source); });
    EXPECT_TRUE(contains(msg, "NVRTC could not be loaded (tried " + other)) << msg;

    // The same path with another modification time or size is another
    // library: another key.
    struct timespec times[2] = {{0, UTIME_OMIT}, {1000000000, 123}};
    ASSERT_EQ(utimensat(AT_FDCWD, other.c_str(), times, 0), 0);
    kiln::detail::nvrtc::reset_for_testing(true);
    const std::string touched = kiln::detail::nvrtc::file_identity();
    EXPECT_EQ(touched, fs::canonical(other).string() + " 13 1000000000.123");
    write(other, "not a library either");
    kiln::detail::nvrtc::reset_for_testing(true);
    EXPECT_NE(kiln::detail::nvrtc::file_identity(), touched);
  }
  // No file at all: no identity; then only compiling needs NVRTC.
  {
    const std::string missing = dir_ + "/no-such-libnvrtc.so";
    scoped_env nvrtc("KILN_NVRTC", missing.c_str());
    kiln::detail::nvrtc::reset_for_testing();
    EXPECT_EQ(kiln::detail::nvrtc::file_identity(), "");
  }
}

//===----------------------------------------------------------------------===//
// Precompiled images, and no NVRTC
//===----------------------------------------------------------------------===//

// A module as kilnc would emit it: static PTX, a name expression and its
// lowered name.
constexpr char image_ptx[] = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .entry image_plain(
	.param .u64 image_plain_param_0
)
{
	ret;
}

.visible .entry _Z10image_tmplIfEvPT_(
	.param .u64 _Z10image_tmplIfEvPT__param_0
)
{
	ret;
}
)";
constexpr const char *image_names[] = {"image_tmpl<float>"};
constexpr const char *image_lowered[] = {"_Z10image_tmplIfEvPT_"};
constexpr kiln::detail::raw_module_image image = {image_ptx, nullptr, 0, image_names, image_lowered, 1, "test.cpp:1"};

TEST_F(RawModuleImage, FromImageMakesAModuleWithoutCompiling) {
  const std::size_t before = nvrtc_compile_count();
  const raw_module m = kiln::detail::raw_module_from_image(image);
  EXPECT_EQ(nvrtc_compile_count(), before);
  EXPECT_EQ(m.target(), "");
  EXPECT_EQ(m.ptx(), std::string_view(image_ptx));
  EXPECT_EQ(m.kernel_names(), (std::vector<std::string>{"image_tmpl<float>", "image_plain"}));
  EXPECT_EQ(m.function("image_tmpl<float>").symbol(), "_Z10image_tmplIfEvPT_");
  EXPECT_EQ(m.function("image_plain").symbol(), "image_plain");
  EXPECT_TRUE(contains(message_of<kiln::error>([&] { m.function("missing"); }),
                       "raw_module has no kernel 'missing' (its kernels: image_tmpl<float>, image_plain)"));
  // The same image data is the same module.
  EXPECT_EQ(kiln::detail::raw_module_from_image(image).state(), m.state());
  EXPECT_TRUE(cache_files().empty());
  EXPECT_EQ(nvrtc_compile_count(), before);

  // A fatbin-only image: its entry points are only known to the driver.
  static const unsigned char fake_fatbin[16] = {1};
  const raw_module f = kiln::detail::raw_module_from_image({nullptr, fake_fatbin, sizeof fake_fatbin, nullptr, nullptr, 0, nullptr});
  EXPECT_EQ(f.function("anything").symbol(), "anything");
  EXPECT_TRUE(f.kernel_names().empty());
  EXPECT_THROW(kiln::detail::raw_module_from_image({nullptr, nullptr, 0, nullptr, nullptr, 0, nullptr}),
               kiln::value_error);
  EXPECT_THROW(kiln::detail::raw_module_from_image({image_ptx, nullptr, 0, nullptr, nullptr, 2, nullptr}),
               kiln::value_error);
}

// An image with host code (kilnc's table, written here by hand: a kernel
// that doubles, one that is GPU-only): the host launch runs it, the
// arguments' sizes are checked, a kernel without a host form says why.
void host_double(void **args, kiln::detail::raw_thread_ctx *ctx) {
  float *x = *static_cast<float **>(args[0]);
  const long long n = *static_cast<long long *>(args[1]);
  const long long i = ctx->block_idx[0] * (long long)ctx->block_dim[0] + ctx->thread_idx[0];
  if (i < n)
    x[i] *= 2.0f;
}
void host_double_block(void **args, kiln::detail::raw_thread_ctx *ctx) {
  for (std::uint32_t t = 0; t < ctx->block_dim[0]; ++t) {
    ctx->thread_idx[0] = t;
    host_double(args, ctx);
  }
}
constexpr std::uint32_t host_params[] = {8, 8};
constexpr kiln::detail::raw_host_entry host_entries[] = {
    {"twice", "twice", &host_double, &host_double_block, 2, host_params, "twice(float *x, long long n)", nullptr},
    {nullptr, "_Z5stampPx", nullptr, nullptr, 1, host_params, "stamp(long long *t)", "clock64 at app.cpp:9:20"},
};
constexpr kiln::detail::raw_host_module host_table = {host_entries, 2};

TEST_F(RawModuleImage, AnImageWithHostCodeRunsOnTheHost) {
  const kiln::device_scope on_host(device::host());
  // Host code and a source only (kilnc without NVRTC): no GPU code yet.
  static constexpr const char *options[] = {"-DTWICE=1"};
  static const kiln::detail::raw_module_image host_only = {
      nullptr, nullptr, 0, nullptr, nullptr, 0, "app.cpp:3", &host_table, nullptr,
      "extern \"C\" __global__ void twice(float *x, long long n) {}", options, 1};
  const raw_module m = kiln::detail::raw_module_from_image(host_only);
  EXPECT_EQ(m.ptx(), "");
  EXPECT_EQ(m.kernel_names(), (std::vector<std::string>{"twice", "_Z5stampPx"}));
  EXPECT_TRUE(contains(message_of<kiln::error>([&] { m.function("missing"); }),
                       "raw_module has no kernel 'missing' (its kernels: twice, _Z5stampPx (stamp(long long*)))"));

  const std::vector<double> xs = random_doubles(100, 5);
  auto x = kiln::asarray<float>(std::vector<float>(xs.begin(), xs.end()), device::host());
  kiln::launch(m.function("twice"), kiln::grid{4}, kiln::block{32}, x, std::int64_t{100});
  const std::vector<float> got = x.to_vector();
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], 2.0f * float(xs[i])) << i;

  // The sizes of the values against the parameters.
  const std::string size = message_of<kiln::value_error>(
      [&] { kiln::launch(m.function("twice"), kiln::grid{1}, kiln::block{32}, x, 100); });
  EXPECT_TRUE(contains(size, "kiln::launch of kernel 'twice' (twice(float *x, long long n)): parameter 2 takes 8 "
                             "bytes, the launch passes 4"))
      << size;
  const std::string count = message_of<kiln::value_error>(
      [&] { kiln::launch(m.function("twice"), kiln::grid{1}, kiln::block{32}, x); });
  EXPECT_TRUE(contains(count, "it takes 2 parameters, the launch passes 1 values")) << count;

  // A GPU-only kernel (by its mangled name): the host launch says why.
  kiln::array<std::int64_t> t = kiln::zeros<std::int64_t>({32}, device::host());
  const std::string why = message_of<kiln::device_error>(
      [&] { kiln::launch(m.function("_Z5stampPx"), kiln::grid{1}, kiln::block{32}, t); });
  EXPECT_TRUE(contains(why, "kernel '_Z5stampPx' of a kiln::raw_module has no host code, so it runs only on a CUDA "
                            "GPU: clock64 at app.cpp:9:20"))
      << why;

  // An image whose host compilation failed: its reason.
  static const char ptx[] = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n";
  static const kiln::detail::raw_module_image no_host = {
      ptx, nullptr, 0, nullptr, nullptr, 0, "app.cpp:4", nullptr, "it does not compile for the host: nope", nullptr,
      nullptr, 0};
  const std::string rejected = message_of<kiln::device_error>(
      [&] { kiln::launch(kiln::detail::raw_module_from_image(no_host).function("k"), kiln::grid{1}, kiln::block{1}); });
  EXPECT_TRUE(contains(rejected, "runs only on a CUDA GPU: it does not compile for the host: nope")) << rejected;
}

TEST_F(RawModuleImage, WithoutNvrtcOnlyCompilingFailsAndSaysWhatToInstall) {
  const bool had_nvrtc = !kiln::detail::nvrtc_version().empty();
  const std::string missing = dir_ + "/no-such-dir/libnvrtc.so.13";
  {
    scoped_env nvrtc("KILN_NVRTC", missing.c_str());
    kiln::detail::nvrtc::reset_for_testing();
    EXPECT_EQ(kiln::detail::nvrtc::loaded(), nullptr);
    const std::string msg = message_of<kiln::compile_error>([] { raw_module::from_source(kernels_source); });
    EXPECT_TRUE(contains(msg, "cannot compile CUDA source: NVRTC could not be loaded (tried " + missing)) << msg;
    EXPECT_TRUE(contains(msg, "install NVRTC")) << msg;
    // Precompiled modules and the rest of the runtime work.
    const raw_module m = kiln::detail::raw_module_from_image(image);
    EXPECT_EQ(m.function("image_tmpl<float>").symbol(), "_Z10image_tmplIfEvPT_");
    EXPECT_EQ(kiln::asarray<float>(std::vector<float>{1, 2}, device::host()).to_vector()[1], 2.0f);
  }
  kiln::detail::nvrtc::reset_for_testing();
  if (had_nvrtc) { // loads again once KILN_NVRTC is gone
    ASSERT_NE(kiln::detail::nvrtc::loaded(), nullptr);
    EXPECT_TRUE(raw_module::from_source(kernels_source).valid());
  }
}

//===----------------------------------------------------------------------===//
// Launches that cannot run (no GPU needed)
//===----------------------------------------------------------------------===//

TEST_F(RawModule, LaunchingOnTheHostIsADeviceErrorSayingItNeedsAGpu) {
  const kiln::device_scope on_host(device::host());
  const raw_module m = raw_module::from_source(kernels_source, {}, kernels_names);
  const raw_function saxpy = m.function("saxpy");
  const std::vector<double> xs = random_doubles(64, 3);
  const auto x = kiln::asarray<float>(std::vector<float>(xs.begin(), xs.end()), device::host());
  auto y = kiln::zeros<float>({64}, device::host());
  const std::string msg = message_of<kiln::device_error>(
      [&] { kiln::launch(saxpy, kiln::grid{1}, kiln::block{64}, 2.0f, x, y, std::int64_t{64}); });
  EXPECT_TRUE(contains(msg, "kernel 'saxpy' of a kiln::raw_module has no host code, so it runs only on a CUDA GPU: "
                            "its CUDA source was compiled at run time by NVRTC, which makes GPU code only"))
      << msg;
  EXPECT_TRUE(contains(msg, "The launch runs on the host: ")) << msg;
  EXPECT_TRUE(contains(msg, "KILN_RAWKERNEL")) << msg;
  if (kiln::cuda_device_count() == 0) {
    EXPECT_TRUE(contains(msg, "there is no CUDA GPU here (")) << msg;
  }
  // Every form of kiln::launch; no array: the current device (the host).
  const kiln::stream host_stream = kiln::stream::current(device::host());
  const raw_function tmpl = m.function("scale_shift<float>");
  EXPECT_THROW(kiln::launch(tmpl, 1, 64, y, 2.0f, 1.0f, 64LL), kiln::device_error);
  EXPECT_THROW(kiln::launch(tmpl, 1, 64, kiln::shared_memory{16}, y, 2.0f, 1.0f, 64LL), kiln::device_error);
  EXPECT_THROW(kiln::launch(tmpl, 1, 64, host_stream, y, 2.0f, 1.0f, 64LL), kiln::device_error);
  EXPECT_THROW(kiln::launch(tmpl, 1, 64, kiln::shared_memory{16}, host_stream, y, 2.0f, 1.0f, 64LL),
               kiln::device_error);
  EXPECT_THROW(kiln::launch(tmpl, 1, 1), kiln::device_error);
  EXPECT_THROW(kiln::launch(m.function("reverse_span"), 1, 64, kiln::span<const float>(x.data(), 64), y),
               kiln::device_error);
  // Nothing ran.
  EXPECT_EQ(y.to_vector(), std::vector<float>(64, 0.0f));
}

TEST_F(RawModule, BadShapesEmptyFunctionsAndBadArraysAreErrorsBeforeAnyLaunch) {
  const raw_module m = raw_module::from_source(kernels_source, {}, kernels_names);
  const raw_function saxpy = m.function("saxpy");
  auto y = kiln::zeros<float>({64}, device::host());
  EXPECT_EQ(message_of<kiln::value_error>([&] { kiln::launch(saxpy, kiln::grid{0}, 64, 1.0f, y, y, 64LL); }),
            "kernel 'saxpy': grid dimension x is 0 (every dimension of a grid or block is at least 1)");
  EXPECT_TRUE(contains(
      message_of<kiln::value_error>([&] { kiln::launch(saxpy, kiln::grid{1, 65536}, 64, 1.0f, y, y, 64LL); }),
      "grid dimension y is 65536, above CUDA's limit of 65535"));
  EXPECT_TRUE(contains(message_of<kiln::value_error>([&] { kiln::launch(saxpy, 1, kiln::block{64, 32}, 1.0f, y, y, 64LL); }),
                       "a block of 2048 threads (64 x 32 x 1) is above CUDA's limit of 1024 threads per block"));
  EXPECT_EQ(message_of<kiln::value_error>(
                [&] { kiln::launch(saxpy, 1, 64, kiln::shared_memory{-4}, 1.0f, y, y, 64LL); }),
            "kernel 'saxpy': -4 bytes of dynamic shared memory (the size is at least 0)");
  EXPECT_TRUE(contains(message_of<kiln::value_error>([&] { kiln::launch(raw_function(), 1, 64, y); }),
                       "the kiln::raw_function is empty"));

  // Arrays: the launch's device is the first array's (here an array that
  // claims cuda:0, never touched: the checks stop the launch first).
  const auto on_gpu = kiln::array<float>(kiln::array_base::from_parts(y.storage(), kiln::dtype::float32, device::cuda(0),
                                                                      kiln::shape{64}, kiln::shape{1}, 0));
  EXPECT_EQ(message_of<kiln::device_error>([&] { kiln::launch(saxpy, 1, 64, 1.0f, on_gpu, y, 64LL); }),
            "kernel 'saxpy': argument 2 is an array on host but the launch runs on cuda:0 (kiln::launch does not "
            "copy: move it with .to())");
  const auto strided = kiln::array<float>(kiln::array_base::from_parts(
      y.storage(), kiln::dtype::float32, device::cuda(0), kiln::shape{32}, kiln::shape{2}, 0));
  EXPECT_EQ(message_of<kiln::value_error>([&] { kiln::launch(saxpy, 1, 64, 1.0f, on_gpu, strided, 64LL); }),
            "kernel 'saxpy': argument 2 is not a C-contiguous array (a strided or transposed view, or a result laid out "
            "as its transposed input): pass a contiguous copy (.copy())");
}

//===----------------------------------------------------------------------===//
// GPU
//===----------------------------------------------------------------------===//

std::vector<float> to_floats(const std::vector<double> &v) { return std::vector<float>(v.begin(), v.end()); }

void expect_close(const std::vector<float> &got, const std::vector<double> &want, double rtol, const char *what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::abs(got[i] - want[i]) <= rtol * (1.0 + std::abs(want[i]))) && bad++ < 5)
      ADD_FAILURE() << what << "[" << i << "] = " << got[i] << ", want " << want[i];
  EXPECT_EQ(bad, 0u) << what;
}

TEST_F(RawModule, GpuTwoKernelsAndATemplateOfOneModuleMatchDoubleReferences) {
  KILN_REQUIRE_GPU();
  const device gpu = device::cuda(0);
  const raw_module m = raw_module::from_source(kernels_source, {"-std=c++17"}, kernels_names);
  const std::int64_t n = 100003; // not a multiple of any block

  // saxpy, grid-stride over fewer threads than elements.
  const std::vector<double> xs = random_doubles(n, 1), ys = random_doubles(n, 2);
  const auto x = kiln::asarray<float>(to_floats(xs), gpu);
  auto y = kiln::asarray<float>(to_floats(ys), gpu);
  kiln::launch(m.function("saxpy"), kiln::grid{40}, kiln::block{256}, 1.5f, x, y, n);
  std::vector<double> want(n);
  for (std::int64_t i = 0; i < n; ++i)
    want[i] = 1.5 * double(float(xs[i])) + double(float(ys[i]));
  expect_close(y.to_vector(), want, 1e-6, "saxpy");

  // block_sum of doubles through dynamic shared memory, on a stream of its own.
  const auto xd = kiln::asarray<double>(xs, gpu);
  const int blocks = 57, threads = 256;
  auto partial = kiln::full<double>({blocks}, std::nan(""), gpu);
  kiln::stream s(gpu);
  kiln::synchronize(gpu); // xd and partial were filled on the current stream
  kiln::launch(m.function("block_sum"), kiln::grid{blocks}, kiln::block{threads},
               kiln::shared_memory{threads * sizeof(double)}, s, xd, partial, n);
  s.synchronize();
  const std::vector<double> parts = partial.to_vector();
  double got = 0, ref = 0;
  for (double p : parts)
    got += p;
  for (double v : xs)
    ref += v;
  EXPECT_NEAR(got, ref, 1e-9 * (1 + std::abs(ref)));
  EXPECT_FALSE(std::isnan(parts[blocks - 1])); // every block wrote

  // The template, at both instantiations.
  auto yf = kiln::asarray<float>(to_floats(ys), gpu);
  auto yd = kiln::asarray<double>(ys, gpu);
  const auto grid = kiln::grid{(n + 255) / 256};
  kiln::launch(m.function("scale_shift<float>"), grid, kiln::block{256}, yf, -0.25f, 3.0f, n);
  kiln::launch(m.function("scale_shift<double>"), grid, kiln::block{256}, yd, -0.25, 3.0, n);
  std::vector<double> want_f(n), want_d(n);
  for (std::int64_t i = 0; i < n; ++i) {
    want_f[i] = -0.25 * double(float(ys[i])) + 3.0;
    want_d[i] = -0.25 * ys[i] + 3.0;
  }
  expect_close(yf.to_vector(), want_f, 1e-6, "scale_shift<float>");
  const std::vector<double> gd = yd.to_vector();
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_EQ(gd[i], want_d[i]) << i;

  // A span passes (data, size); a struct passes by value.
  auto out = kiln::zeros<float>({n}, gpu);
  kiln::launch(m.function("reverse_span"), grid, kiln::block{256}, kiln::span<const float>(x.data(), n), out);
  const std::vector<float> rev = out.to_vector(), xv = x.to_vector();
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_EQ(rev[i], xv[n - 1 - i]) << i;
  struct affine {
    float a, b;
  };
  kiln::launch(m.function("apply_affine"), grid, kiln::block{256}, affine{2.0f, -1.0f}, out, int(n));
  const std::vector<float> aff = out.to_vector();
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_EQ(aff[i], 2.0f * xv[n - 1 - i] - 1.0f) << i;
}

TEST_F(RawModule, GpuArraysOfAnotherDeviceAndShapesOverTheLimitsAreErrors) {
  KILN_REQUIRE_GPU();
  const device gpu = device::cuda(0);
  const raw_module m = raw_module::from_source(kernels_source, {}, kernels_names);
  const raw_function saxpy = m.function("saxpy");
  const auto x = kiln::ones<float>({64}, gpu);
  auto y_host = kiln::zeros<float>({64}, device::host());
  EXPECT_EQ(message_of<kiln::device_error>([&] { kiln::launch(saxpy, 1, 64, 1.0f, x, y_host, 64LL); }),
            "kernel 'saxpy': argument 2 is an array on host but the launch runs on cuda:0 (kiln::launch does not "
            "copy: move it with .to())");
  auto y = kiln::zeros<float>({64}, gpu);
  EXPECT_THROW(kiln::launch(saxpy, kiln::grid{1, 65536}, 64, 1.0f, x, y, 64LL), kiln::value_error);
  EXPECT_THROW(kiln::launch(saxpy, 1, kiln::block{2048}, 1.0f, x, y, 64LL), kiln::value_error);
  EXPECT_TRUE(contains(message_of<kiln::value_error>(
                           [&] { kiln::launch(saxpy, 1, 64, kiln::shared_memory{1 << 30}, 1.0f, x, y, 64LL); }),
                       "bytes of shared memory per block (0 static + 1073741824 dynamic) are above the limit"));
  // Nothing ran; then a good launch does.
  EXPECT_EQ(y.to_vector(), std::vector<float>(64, 0.0f));
  kiln::launch(saxpy, 1, 64, 3.0f, x, y, 64LL);
  EXPECT_EQ(y.to_vector(), std::vector<float>(64, 3.0f));
}

TEST_F(RawModule, GpuAPtxFreeImageRunsItsKernelsAndFindsUnknownNamesAtLaunch) {
  KILN_REQUIRE_GPU();
  const device gpu = device::cuda(0);
  // The cubin NVRTC made for this GPU (a module's code lives for the
  // process, as an image's static data must), as kilnc would embed it.
  const raw_module compiled = raw_module::from_source(kernels_source, {}, kernels_names);
  if (compiled.fatbin().empty())
    GTEST_SKIP() << "no cubin: NVRTC does not know this GPU's architecture (target " << compiled.target() << ")";
  static const std::string lowered(compiled.function("scale_shift<float>").symbol());
  static const char *const names[] = {"scale_shift<float>"};
  static const char *const lowered_names[] = {lowered.c_str()};
  const kiln::detail::raw_module_image cubin_only{nullptr, compiled.fatbin().data(), compiled.fatbin().size(), names,
                                                  lowered_names, 1,
                                                  "cubin-only test image"};
  const std::size_t before = nvrtc_compile_count();
  const raw_module m = kiln::detail::raw_module_from_image(cubin_only);
  EXPECT_EQ(nvrtc_compile_count(), before);

  auto y = kiln::asarray<float>(std::vector<float>{1, 2, 3, 4}, gpu);
  const raw_function missing = m.function("no_such_kernel"); // unknown until the driver is asked
  try {
    kiln::launch(missing, 1, 4, y);
    ADD_FAILURE() << "no exception";
  } catch (const kiln::cuda_error &e) {
    ADD_FAILURE() << "a cuda_error, not a raw_module error: " << e.what();
  } catch (const kiln::error &e) {
    EXPECT_TRUE(contains(e.what(), "raw_module has no kernel 'no_such_kernel': the code of cubin-only test image "
                                   "has no entry point no_such_kernel"))
        << e.what();
  }
  // The module still works, by name expression and by extern "C" name.
  kiln::launch(m.function("scale_shift<float>"), 1, 4, y, 2.0f, 1.0f, 4LL);
  const auto x = kiln::asarray<float>(std::vector<float>{1, 1, 1, 1}, gpu);
  kiln::launch(m.function("saxpy"), 1, 4, 10.0f, x, y, 4LL);
  EXPECT_EQ(y.to_vector(), (std::vector<float>{13, 15, 17, 19}));
}

TEST_F(RawModule, GpuLaunchesFromManyThreadsShareTheModule) {
  KILN_REQUIRE_GPU();
  const device gpu = device::cuda(0);
  constexpr int n = 8, len = 4096;
  std::vector<std::thread> threads;
  std::vector<std::vector<float>> got(n);
  for (int t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      const raw_module m = raw_module::from_source(kernels_source, {}, kernels_names);
      auto y = kiln::full<float>({len}, float(t), gpu);
      for (int rep = 0; rep < 10; ++rep)
        kiln::launch(m.function("scale_shift<float>"), kiln::grid{len / 128}, kiln::block{128}, y, 1.0f, 1.0f,
                     std::int64_t{len});
      got[t] = y.to_vector();
    });
  for (auto &t : threads)
    t.join();
  for (int t = 0; t < n; ++t)
    EXPECT_EQ(got[t], std::vector<float>(len, float(t + 10))) << "thread " << t;
}

} // namespace
