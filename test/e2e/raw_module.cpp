// A kiln::raw_module whose CUDA source is a string literal: kilnc compiles it
// with NVRTC when the program is built and embeds the module (PTX, cubins
// for --cuda-arch, the lowered names of the name expressions), so the
// program never compiles CUDA source: nvrtc_compile_count() stays 0 and
// NVRTC is never loaded. Two extern "C" kernels (a grid-stride saxpy, a
// block sum through dynamic shared memory) and a kernel template at two
// instantiations. On the host device (CI) launching is a device_error; on a
// GPU (scripts/device-check.sh) the kernels run and match double references
// on random data.
#include "e2e.hpp"

#include <kiln/raw_module.hpp>

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

void test_host(const kiln::raw_module &m) {
  kiln::array<float> x = kiln::ones<float>({16}), y = kiln::zeros<float>({16});
  bool thrown = false;
  try {
    kiln::launch(m.function("saxpy"), kiln::grid{1}, kiln::block{16}, 2.0f, x, y, std::int64_t{16});
  } catch (const kiln::device_error &e) {
    thrown = std::string(e.what()).find("runs only on a CUDA GPU") != std::string::npos;
    if (!thrown)
      std::printf("FAIL the host launch's message: %s\n", e.what());
  }
  check(thrown, "launching CUDA source on the host is a device_error");
  expect("y untouched", y, 16, [](std::size_t) { return C(0.0); }, 0);
}

void test_gpu(const kiln::raw_module &m) {
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
  check_no_nvrtc("after from_source");
  test_module(m);
  if (kiln::current_device().is_host())
    test_host(m);
  else
    test_gpu(m);
  kiln::synchronize();
  check_no_nvrtc("at the end");
  return finish("raw_module");
}
