// A kiln::raw_module whose CUDA source is a string literal: kilnc compiles it
// with NVRTC when the program is built and embeds the module (PTX, cubins
// for --cuda-arch, the lowered names of the name expressions), so the
// program never compiles CUDA source: nvrtc_compile_count() stays 0 and
// NVRTC is never loaded. kilnc compiles the same source for the host too
// (kiln/cuda_host.hpp), so every kernel here runs on both devices and is
// checked against double references on random data: a grid-stride saxpy, a
// block sum through dynamic shared memory and __syncthreads, a kernel
// template at two instantiations, a warp-shuffle sum with atomicAdd, a
// histogram by atomics under contention, ballots over a partial last warp,
// a block maximum through dynamic shared memory declared at namespace scope,
// a static __shared__ tile, and a template in a namespace named by a name
// expression. Kernels that use what a CPU cannot run (clock64, inline PTX)
// raise device_error on the host naming the construct, and run on a GPU.
// The sizes of a launch's arguments are checked against the kernel's
// parameters on both devices.
#include "e2e.hpp"

#include <kiln/raw_module.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

using namespace e2e;
using C = std::complex<double>;

namespace {

kiln::raw_module make_module() {
  return kiln::raw_module::from_source(R"(
extern "C" __global__ void saxpy(float a, const float *x, float *y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

extern "C" __global__ void block_sum(const double *x, double *partial, long long n) {
  extern __shared__ double s[];
  double v = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
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
)",
                                       {"-std=c++17"}, {"scale_shift<float>", "scale_shift<double>"});
}

kiln::raw_module make_warp_module() {
  return kiln::raw_module::from_source(R"(
#define WARP 32
extern __shared__ float scratch[]; // dynamic shared memory at namespace scope
extern "C" {
__global__ void block_max(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  scratch[threadIdx.x] = i < n ? x[i] : -1.0f;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k)
      scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + k]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = scratch[0];
}

__global__ void warp_sum(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int o = WARP / 2; o > 0; o /= 2)
    v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & (WARP - 1)) == 0)
    atomicAdd(out, v);
}

__global__ void histogram(const int *x, unsigned int *bins, int n, int nbins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[x[i] % nbins], 1u);
}

__global__ void ballots(const float *x, unsigned int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int b = __ballot_sync(0xffffffffu, i < n && x[i] > 0.5f);
  if ((threadIdx.x & 31) == 0)
    out[i / 32] = b;
}

__global__ void reverse_tiles(const double *x, double *y, int n) {
  __shared__ double tile[128];
  int i = blockIdx.x * 128 + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : -1.0;
  __syncthreads();
  int j = blockIdx.x * 128 + (127 - threadIdx.x);
  if (j < n)
    y[j] = tile[threadIdx.x] * 2.0;
}

__global__ void stamp(long long *out) { out[threadIdx.x] = clock64(); }

__global__ void lane_ids(unsigned int *out) {
  unsigned int lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  out[threadIdx.x] = lane;
}
}

namespace ops {
template <int P> __global__ void power(double *x, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) {
    double v = x[i], r = 1.0;
    for (int k = 0; k < P; ++k)
      r *= v;
    x[i] = r;
  }
}
} // namespace ops
)",
                                       {}, {"ops::power<3>"});
}

void check(bool ok, const std::string &what) {
  ++checks;
  if (!ok) {
    std::printf("FAIL %s\n", what.c_str());
    ++failures;
  }
}

/// No NVRTC at run time: the module was compiled by kilnc.
void check_no_nvrtc(const char *when) {
  check(kiln::detail::nvrtc_compile_count() == 0,
        std::string(when) + ": " + std::to_string(kiln::detail::nvrtc_compile_count()) + " NVRTC compilations");
  check(!kiln::detail::nvrtc_loaded(), std::string(when) + ": NVRTC was loaded");
}

void test_module(const kiln::raw_module &m) {
  check(m.valid(), "the module is valid");
  check(m.target().empty(), "an image has no NVRTC target"); // raw_module_from_image
  check(m.ptx().find(".entry saxpy(") != std::string_view::npos, "the PTX has saxpy");
  check(m.function("scale_shift<float>").symbol() == "_Z11scale_shiftIfEvPT_S0_S0_x", "scale_shift<float>'s name");
  check(m.function("scale_shift<double>").symbol() == "_Z11scale_shiftIdEvPT_S0_S0_x", "scale_shift<double>'s name");
  check(m.function("block_sum").symbol() == "block_sum", "block_sum's name");
  // The same call is the same module (the image's data are static).
  check(make_module().state() == m.state(), "the same image, the same module");
}

/// The arguments' sizes are checked against the kernel's parameters (kilnc
/// knows them): a double where the kernel takes a float is a value_error.
void test_signature(const kiln::raw_module &m) {
  kiln::array<float> x = kiln::ones<float>({16}), y = kiln::zeros<float>({16});
  bool thrown = false;
  try {
    kiln::launch(m.function("saxpy"), kiln::grid{1}, kiln::block{16}, 2.0, x, y, std::int64_t{16});
  } catch (const kiln::value_error &e) {
    thrown = std::string(e.what()).find("parameter 1 takes 4 bytes, the launch passes 8") != std::string::npos;
    if (!thrown)
      std::printf("FAIL the size check's message: %s\n", e.what());
  }
  check(thrown, "a double for a float parameter is a value_error");
  expect("y untouched", y, 16, [](std::size_t) { return C(0.0); }, 0);
}

/// What a CPU cannot run: device_error on the host naming the construct; on
/// a GPU the kernels run.
void test_gpu_only(const kiln::raw_module &w) {
  const bool host = kiln::current_device().is_host();
  kiln::array<std::int64_t> stamps = kiln::zeros<std::int64_t>({32});
  kiln::array<std::int32_t> lanes = kiln::zeros<std::int32_t>({64}); // unsigned int * in the kernel
  for (const char *name : {"stamp", "lane_ids"}) {
    std::string message;
    try {
      if (std::string(name) == "stamp")
        kiln::launch(w.function(name), kiln::grid{1}, kiln::block{32}, stamps);
      else
        kiln::launch(w.function(name), kiln::grid{1}, kiln::block{64}, lanes);
    } catch (const kiln::device_error &e) {
      message = e.what();
    }
    const char *construct = std::string(name) == "stamp" ? "clock64" : "inline PTX asm";
    if (host)
      check(message.find(construct) != std::string::npos && message.find("raw_module.cpp:") != std::string::npos,
            std::string(name) + " on the host: a device_error naming " + construct + " and its line (got: " + message +
                ")");
    else
      check(message.empty(), std::string(name) + " runs on a GPU (got: " + message + ")");
  }
  if (!host) {
    expect("lane ids", lanes, 64, [](std::size_t i) { return C(double(i % 32)); }, 0);
    std::vector<std::int64_t> s = stamps.to_vector();
    check(std::all_of(s.begin(), s.end(), [](std::int64_t t) { return t > 0; }), "clock64 stamps are positive");
  }
}

void test_run(const kiln::raw_module &m, const kiln::raw_module &w) {
  const std::int64_t n = 100003; // not a multiple of any block
  auto rng = kiln::random::default_rng(20261124);

  kiln::array<float> x = rng.random<float>({n}), y = rng.random<float>({n});
  const std::vector<float> xv = x.to_vector(), yv = y.to_vector();
  kiln::launch(m.function("saxpy"), kiln::grid{40}, kiln::block{256}, 2.5f, x, y, n);
  expect("saxpy", y, n, [&](std::size_t i) { return C(2.5 * double(xv[i]) + double(yv[i])); }, 1e-6);

  kiln::array<double> xd = rng.random<double>({n}) * 2.0 - 1.0;
  const std::vector<double> xdv = xd.to_vector();
  const int blocks = 57, threads = 256;
  kiln::array<double> partial = kiln::zeros<double>({blocks});
  kiln::launch(m.function("block_sum"), kiln::grid{blocks}, kiln::block{threads},
               kiln::shared_memory{threads * sizeof(double)}, xd, partial, n);
  double got = 0, want = 0;
  for (double p : partial.to_vector())
    got += p;
  for (double v : xdv)
    want += v;
  ++checks;
  if (!(std::abs(got - want) <= 1e-9 * (1 + std::abs(want)))) {
    std::printf("FAIL block_sum: %.17g, expected %.17g\n", got, want);
    ++failures;
  }

  kiln::array<float> sf = rng.random<float>({n});
  kiln::array<double> sd = rng.random<double>({n});
  const std::vector<float> sfv = sf.to_vector();
  const std::vector<double> sdv = sd.to_vector();
  const kiln::grid grid{(n + 255) / 256};
  kiln::launch(m.function("scale_shift<float>"), grid, kiln::block{256}, sf, -0.25f, 3.0f, n);
  kiln::launch(m.function("scale_shift<double>"), grid, kiln::block{256}, sd, -0.25, 3.0, n);
  expect("scale_shift<float>", sf, n, [&](std::size_t i) { return C(-0.25 * double(sfv[i]) + 3.0); }, 1e-6);
  expect("scale_shift<double>", sd, n, [&](std::size_t i) { return C(-0.25 * sdv[i] + 3.0); }, 1e-15);

  // A warp-shuffle sum per warp, added up with atomicAdd.
  const int wn = 100000; // a partial last warp and block
  kiln::array<float> wx = rng.random<float>({wn}) - 0.25f;
  const std::vector<float> wxv = wx.to_vector();
  kiln::array<float> total = kiln::zeros<float>({1});
  kiln::launch(w.function("warp_sum"), kiln::grid{(wn + 255) / 256}, kiln::block{256}, wx, total, wn);
  double want_sum = 0;
  for (float v : wxv)
    want_sum += v;
  expect("warp_sum", total, 1, [&](std::size_t) { return C(want_sum); }, 1e-4);

  // A block maximum through namespace-scope dynamic shared memory.
  const int mn = 5000, mblocks = (mn + 127) / 128;
  kiln::array<float> mx = rng.random<float>({mn});
  const std::vector<float> mxv = mx.to_vector();
  kiln::array<float> maxima = kiln::zeros<float>({mblocks});
  kiln::launch(w.function("block_max"), kiln::grid{mblocks}, kiln::block{128}, kiln::shared_memory{128 * 4}, mx,
               maxima, mn);
  expect("block_max", maxima, mblocks, [&](std::size_t b) {
    float m = -1.0f;
    for (std::size_t i = b * 128; i < std::min<std::size_t>(mxv.size(), (b + 1) * 128); ++i)
      m = std::max(m, mxv[i]);
    return C(double(m));
  }, 0);

  // A histogram: atomics under contention from every block.
  const int hn = 1 << 20, nbins = 7;
  kiln::array<std::int32_t> keys = rng.integers<std::int32_t>(0, 1000, {hn});
  const std::vector<std::int32_t> kv = keys.to_vector();
  kiln::array<std::int32_t> bins = kiln::zeros<std::int32_t>({nbins});
  kiln::launch(w.function("histogram"), kiln::grid{64}, kiln::block{256}, keys, bins, hn, nbins);
  std::vector<double> want_bins(nbins);
  for (std::int32_t k : kv)
    want_bins[k % nbins] += 1;
  expect("histogram", bins, nbins, [&](std::size_t i) { return C(want_bins[i]); }, 0);

  // Ballots over a partial last warp (lanes past n vote false).
  const int bn = 1000;
  kiln::array<float> bx = rng.random<float>({bn});
  const std::vector<float> bxv = bx.to_vector();
  const int warps = (bn + 31) / 32;
  kiln::array<std::int32_t> votes = kiln::zeros<std::int32_t>({warps}); // the ballots' bits
  kiln::launch(w.function("ballots"), kiln::grid{warps}, kiln::block{32}, bx, votes, bn);
  expect("ballots", votes, warps, [&](std::size_t wi) {
    std::uint32_t bits = 0;
    for (int l = 0; l < 32; ++l) {
      const std::size_t i = wi * 32 + l;
      if (i < bxv.size() && bxv[i] > 0.5f)
        bits |= 1u << l;
    }
    return C(double(std::int32_t(bits)));
  }, 0);

  // A static __shared__ tile, reversed within each block.
  const int rn = 1000;
  kiln::array<double> rx = rng.random<double>({rn});
  const std::vector<double> rxv = rx.to_vector();
  kiln::array<double> ry = kiln::zeros<double>({rn});
  kiln::launch(w.function("reverse_tiles"), kiln::grid{(rn + 127) / 128}, kiln::block{128}, rx, ry, rn);
  expect("reverse_tiles", ry, rn, [&](std::size_t j) {
    const std::size_t b = j / 128, t = 127 - j % 128, i = b * 128 + t;
    return C(i < rxv.size() ? 2.0 * rxv[i] : -2.0);
  }, 0);

  // A template in a namespace, by its name expression.
  kiln::array<double> px = rng.random<double>({n}) * 2.0 - 1.0;
  const std::vector<double> pxv = px.to_vector();
  kiln::launch(w.function("ops::power<3>"), grid, kiln::block{256}, px, n);
  expect("ops::power<3>", px, n, [&](std::size_t i) { return C(pxv[i] * pxv[i] * pxv[i]); }, 1e-15);
}

} // namespace

int main() {
  kiln::raw_module m;
  try {
    m = make_module();
  } catch (const kiln::compile_error &e) { // kilnc left the call to run time, where NVRTC is missing
    std::printf("FAIL the CUDA literal was not compiled by kilnc (was NVRTC missing at build time?): %s\n", e.what());
    return 1;
  }
  const kiln::raw_module w = make_warp_module();
  check_no_nvrtc("after from_source");
  test_module(m);
  test_signature(m);
  test_run(m, w);
  test_gpu_only(w);
  kiln::synchronize();
  check_no_nvrtc("at the end");
  return finish("raw_module");
}
