// The CuPy tutorials' raw kernels, in Kiln: CUDA C++ source in a string
// literal, compiled by kilnc when the program is built, for the GPU (NVRTC)
// and for the host (C++ with Kiln's CUDA built-ins), so the same program
// runs on a machine with or without a GPU.
//
//   add_kernel = cupy.RawKernel(src, 'my_add'); add_kernel((5,), (5,), (x1, x2, y))
//   module = cupy.RawModule(code=src); module.get_function('test_sum')(...)
//   saxpy_kernel((blocks,), (threads,), (2.0, x, y, out, n))
//
// Each result is checked against a float64 reference (example::report);
// the program exits non-zero on a mismatch.
#include "check.hpp"

#include <kiln/raw_module.hpp>

#include <vector>

namespace {

// CuPy's RawKernel: one kernel, found by its extern "C" name.
int my_add() {
  const kiln::raw_function add_kernel = kiln::raw_module::from_source(R"(
extern "C" __global__
void my_add(const float* x1, const float* x2, float* y) {
    int idx = threadIdx.x + blockDim.x * blockIdx.x;
    y[idx] = x1[idx] + x2[idx];
}
)").function("my_add");

  kiln::array<float> x1 = kiln::arange<float>(25).reshape({5, 5});
  kiln::array<float> x2 = kiln::arange<float>(25).reshape({5, 5});
  kiln::array<float> y = kiln::zeros<float>({5, 5});
  kiln::launch(add_kernel, kiln::grid{5}, kiln::block{5}, x1, x2, y); // 5 blocks of 5 threads

  std::vector<double> ref(25);
  for (std::size_t i = 0; i < ref.size(); ++i)
    ref[i] = 2.0 * double(i);
  return example::report("my_add", example::relative_error(y.to_vector(), ref), 0, ref.size());
}

// CuPy's RawModule: several kernels of one source, in an extern "C" block.
int test_sum_multiply() {
  const kiln::raw_module module = kiln::raw_module::from_source(R"(
extern "C"{
__global__ void test_sum(const float* x1, const float* x2, float* y, unsigned int N) {
    unsigned int idx = threadIdx.x + blockDim.x * blockIdx.x;
    if (idx < N)
        y[idx] = x1[idx] + x2[idx];
}

__global__ void test_multiply(const float* x1, const float* x2, float* y, unsigned int N){
    unsigned int idx = threadIdx.x + blockDim.x * blockIdx.x;
    if (idx < N)
        y[idx] = x1[idx] * x2[idx];
}
})");
  const kiln::raw_function ker_sum = module.function("test_sum");
  const kiln::raw_function ker_times = module.function("test_multiply");

  const unsigned int N = 10;
  auto rng = kiln::random::default_rng(2026);
  kiln::array<float> x1 = rng.random<float>({N, N}) * 10.0f;
  kiln::array<float> x2 = rng.random<float>({N, N}) + 0.5f;
  kiln::array<float> y = kiln::zeros<float>({N, N});
  const std::vector<float> a = x1.to_vector(), b = x2.to_vector();

  std::vector<double> sum(a.size()), product(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    sum[i] = double(a[i]) + double(b[i]);
    product[i] = double(a[i]) * double(b[i]);
  }
  kiln::launch(ker_sum, kiln::grid{N}, kiln::block{N}, x1, x2, y, N * N); // y = x1 + x2
  int failed = example::report("test_sum", example::relative_error(y.to_vector(), sum), 1e-7, sum.size());
  kiln::launch(ker_times, kiln::grid{N}, kiln::block{N}, x1, x2, y, N * N); // y = x1 * x2
  failed |= example::report("test_multiply", example::relative_error(y.to_vector(), product), 1e-7, sum.size());
  return failed;
}

// The saxpy RawKernel of the performance tutorial (int n, a float scalar).
int saxpy() {
  const kiln::raw_function saxpy_kernel = kiln::raw_module::from_source(R"(
extern "C" __global__
void saxpy(const float a, const float* __restrict__ x,
           const float* __restrict__ y, float* __restrict__ out, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
)").function("saxpy");

  const int n = 1'000'000;
  auto rng = kiln::random::default_rng(7);
  kiln::array<float> x = rng.random<float>({n});
  kiln::array<float> y = rng.random<float>({n});
  kiln::array<float> out = kiln::empty_like(x);
  const int threads = 256, blocks = (n + threads - 1) / threads;
  kiln::launch(saxpy_kernel, kiln::grid{blocks}, kiln::block{threads}, 2.0f, x, y, out, n);

  const std::vector<float> hx = x.to_vector(), hy = y.to_vector();
  std::vector<double> ref(hx.size());
  for (std::size_t i = 0; i < ref.size(); ++i)
    ref[i] = 2.0 * double(hx[i]) + double(hy[i]);
  return example::report("saxpy", example::relative_error(out.to_vector(), ref), 1e-7, ref.size());
}

} // namespace

int main() { return my_add() | test_sum_multiply() | saxpy(); }
