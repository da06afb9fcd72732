//===- runtime/kernels/cuda/runtime_kernels.cu - The runtime's own kernels ===//
//
// CUDA kernels of kiln_runtime: strided copy with conversion for all 81
// dtype pairs, fill, and Philox random draws. Compiled by nvcc at build time
// into a fatbin embedded in the library (cmake/KilnCudaKernels.cmake) and
// looked up by their extern "C" names (runtime/kernels/gpu_kernels.cpp).
//
//===----------------------------------------------------------------------===//
#include "runtime/kernels/element.hpp"
#include "runtime/kernels/params.hpp"
#include "runtime/kernels/philox.hpp"

using namespace kiln::detail::kernels;

namespace {

__device__ __forceinline__ std::int64_t first_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::int64_t grid_step() {
  return static_cast<std::int64_t>(gridDim.x) * blockDim.x;
}

template <class To, class From>
__device__ void copy_body(const copy_params &p) {
  To *dst = reinterpret_cast<To *>(p.dst);
  const From *src = reinterpret_cast<const From *>(p.src);
  for (std::int64_t i = first_index(); i < p.n; i += grid_step()) {
    std::int64_t so, dof;
    if (p.rank == 1) {
      so = i * p.src_strides[0];
      dof = i * p.dst_strides[0];
    } else {
      so = 0;
      dof = 0;
      std::int64_t rem = i;
#pragma unroll
      for (int d = max_gpu_rank - 1; d >= 0; --d) {
        if (d < p.rank) {
          std::int64_t idx = rem % p.shape[d];
          rem /= p.shape[d];
          so += idx * p.src_strides[d];
          dof += idx * p.dst_strides[d];
        }
      }
    }
    dst[dof] = convert<To>(src[so]);
  }
}

struct bytes16 {
  unsigned long long a, b;
};

template <class T> __device__ void fill_body(const fill_params &p) {
  T *dst = reinterpret_cast<T *>(p.dst);
  T value;
  memcpy(&value, p.value, sizeof(T));
  for (std::int64_t i = first_index(); i < p.n; i += grid_step()) {
    std::int64_t off;
    if (p.rank == 1) {
      off = i * p.strides[0];
    } else {
      off = 0;
      std::int64_t rem = i;
#pragma unroll
      for (int d = max_gpu_rank - 1; d >= 0; --d) {
        if (d < p.rank) {
          off += (rem % p.shape[d]) * p.strides[d];
          rem /= p.shape[d];
        }
      }
    }
    dst[off] = value;
  }
}

} // namespace

// kiln_copy_<from>_<to>
#define KILN_COPY(FN, FT, TN, TT)                                              \
  extern "C" __global__ void kiln_copy_##FN##_##TN(copy_params p) {            \
    copy_body<TT, FT>(p);                                                      \
  }
#define KILN_COPY_FROM(FN, FT)                                                 \
  KILN_COPY(FN, FT, bool, bool)                                                \
  KILN_COPY(FN, FT, int8, std::int8_t)                                         \
  KILN_COPY(FN, FT, uint8, std::uint8_t)                                       \
  KILN_COPY(FN, FT, int32, std::int32_t)                                       \
  KILN_COPY(FN, FT, int64, std::int64_t)                                       \
  KILN_COPY(FN, FT, float32, float)                                            \
  KILN_COPY(FN, FT, float64, double)                                           \
  KILN_COPY(FN, FT, complex64, complex64_t)                                    \
  KILN_COPY(FN, FT, complex128, complex128_t)
KILN_COPY_FROM(bool, bool)
KILN_COPY_FROM(int8, std::int8_t)
KILN_COPY_FROM(uint8, std::uint8_t)
KILN_COPY_FROM(int32, std::int32_t)
KILN_COPY_FROM(int64, std::int64_t)
KILN_COPY_FROM(float32, float)
KILN_COPY_FROM(float64, double)
KILN_COPY_FROM(complex64, complex64_t)
KILN_COPY_FROM(complex128, complex128_t)

// kiln_fill_<itemsize>
extern "C" __global__ void kiln_fill_1(fill_params p) {
  fill_body<unsigned char>(p);
}
extern "C" __global__ void kiln_fill_2(fill_params p) {
  fill_body<unsigned short>(p);
}
extern "C" __global__ void kiln_fill_4(fill_params p) {
  fill_body<unsigned int>(p);
}
extern "C" __global__ void kiln_fill_8(fill_params p) {
  fill_body<unsigned long long>(p);
}
extern "C" __global__ void kiln_fill_16(fill_params p) {
  fill_body<bytes16>(p);
}

// kiln_random_<distribution>_<dtype>
extern "C" __global__ void kiln_random_uniform_float32(random_params p) {
  float *out = static_cast<float *>(p.out);
  for (std::int64_t i = first_index(); i < p.n; i += grid_step())
    out[i] = draw_uniform_f32(p.offset + static_cast<std::uint64_t>(i), p.seed);
}
extern "C" __global__ void kiln_random_uniform_float64(random_params p) {
  double *out = static_cast<double *>(p.out);
  for (std::int64_t i = first_index(); i < p.n; i += grid_step())
    out[i] = draw_uniform_f64(p.offset + static_cast<std::uint64_t>(i), p.seed);
}
extern "C" __global__ void kiln_random_normal_float32(random_params p) {
  float *out = static_cast<float *>(p.out);
  float mean = static_cast<float>(p.mean), sd = static_cast<float>(p.std);
  for (std::int64_t i = first_index(); i < p.n; i += grid_step())
    out[i] = draw_normal_f32(p.offset + static_cast<std::uint64_t>(i), p.seed,
                             mean, sd);
}
extern "C" __global__ void kiln_random_normal_float64(random_params p) {
  double *out = static_cast<double *>(p.out);
  for (std::int64_t i = first_index(); i < p.n; i += grid_step())
    out[i] = draw_normal_f64(p.offset + static_cast<std::uint64_t>(i), p.seed,
                             p.mean, p.std);
}
#define KILN_INTEGERS(N, T)                                                    \
  extern "C" __global__ void kiln_random_integers_##N(random_params p) {       \
    T *out = static_cast<T *>(p.out);                                          \
    for (std::int64_t i = first_index(); i < p.n; i += grid_step())            \
      out[i] = static_cast<T>(draw_integer(                                    \
          p.offset + static_cast<std::uint64_t>(i), p.seed, p.low, p.range));  \
  }
KILN_INTEGERS(int8, std::int8_t)
KILN_INTEGERS(uint8, std::uint8_t)
KILN_INTEGERS(int32, std::int32_t)
KILN_INTEGERS(int64, std::int64_t)
