//===- runtime/kernels/gpu_kernels.cpp - Launching the embedded kernels ---===//
//
// The runtime's CUDA module (runtime/kernels/cuda/*.cu, embedded as a
// fatbin at build time) is loaded with cuModuleLoadData on the first use on
// each GPU; functions are looked up by extern "C" name and cached. Strided
// launches of more than max_gpu_rank merged dimensions loop over the leading
// dimensions on the host, one launch per leading index.
//
//===----------------------------------------------------------------------===//
#include "runtime/kernels/gpu_kernels.hpp"

#include "kiln/error.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/kernels/params.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

extern "C" const unsigned char kiln_runtime_kernels[];
extern "C" const std::size_t kiln_runtime_kernels_size;

namespace kiln::detail::kernels::gpu {
namespace {

constexpr int block_size = 256;
constexpr int blocks_per_sm = 32;

struct module_state {
  CUmodule module = nullptr;
  int multiprocessors = 1;
  std::map<std::string, CUfunction> functions;
  std::map<std::string, int>
      resident; ///< blocks of a persistent kernel that fit on one SM
};

std::mutex cache_mutex;
std::map<int, module_state> modules; // by GPU ordinal; never unloaded

struct function_info {
  CUfunction f;
  int multiprocessors;
  const char *name; ///< the map's key: lives as long as the process
};

function_info function_of(const cuda::driver_api &api, int ordinal,
                          const std::string &name) {
  std::lock_guard<std::mutex> lock(cache_mutex);
  module_state &m = modules[ordinal];
  if (!m.module) {
    CUdevice dev = 0;
    KILN_CU(api, cuDeviceGet, &dev, ordinal);
    KILN_CU(api, cuDeviceGetAttribute, &m.multiprocessors,
            CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    m.multiprocessors = std::max(m.multiprocessors, 1);
    CUmodule mod = nullptr;
    KILN_CU(api, cuModuleLoadData, &mod,
            static_cast<const void *>(kiln_runtime_kernels));
    m.module = mod;
  }
  auto it = m.functions.find(name);
  if (it == m.functions.end()) {
    CUfunction f = nullptr;
    CUresult r = api.cuModuleGetFunction(&f, m.module, name.c_str());
    if (r != CUDA_SUCCESS) {
      try {
        cuda::check(r, "cuModuleGetFunction");
      } catch (const cuda_error &e) {
        throw cuda_error(
            std::string(e.what()) + " (runtime kernel " + name + ")", e.code());
      }
    }
    it = m.functions.emplace(name, f).first;
  }
  return {it->second, m.multiprocessors, it->first.c_str()};
}

/// Launches `name` with one parameter struct: `grid` blocks of `block`
/// threads, or (grid 0) enough grid-stride blocks for `n`.
void launch_params(int ordinal, const std::string &name, std::int64_t n,
                   void *params, void *stream, unsigned fixed_grid = 0,
                   unsigned block = block_size) {
  if (n <= 0 && fixed_grid == 0)
    return;
  const cuda::driver_api &api = cuda::require_driver();
  function_info fi = function_of(api, ordinal, name);
  std::int64_t wanted = (n + block - 1) / block;
  std::int64_t cap =
      static_cast<std::int64_t>(fi.multiprocessors) * blocks_per_sm;
  unsigned grid = fixed_grid ? fixed_grid :
      static_cast<unsigned>(std::clamp<std::int64_t>(wanted, 1, cap));
  void *args[] = {params};
  CUresult r = api.cuLaunchKernel(fi.f, grid, 1, 1, block, 1, 1, 0,
                                  static_cast<CUstream>(stream), args, nullptr);
  if (r != CUDA_SUCCESS) {
    try {
      cuda::check(r, "cuLaunchKernel");
    } catch (const cuda_error &e) {
      throw cuda_error(std::string(e.what()) + " (runtime kernel " + name + ")",
                       e.code());
    }
  }
  cuda::launched(api, ordinal, fi.name, static_cast<CUstream>(stream));
}

/// How many blocks of `block` threads of the persistent kernel `name` one
/// launch should have to fill the GPU: as many as are resident at once.
unsigned persistent_grid(int ordinal, const std::string &name, unsigned block) {
  const cuda::driver_api &api = cuda::require_driver();
  function_info fi = function_of(api, ordinal, name);
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto [it, inserted] = modules[ordinal].resident.emplace(name, 1);
  if (inserted) {
    int n = 1;
    KILN_CU(api, cuOccupancyMaxActiveBlocksPerMultiprocessor, &n, fi.f,
            static_cast<int>(block), 0);
    it->second = std::max(n, 1);
  }
  return static_cast<unsigned>(it->second * fi.multiprocessors);
}

template <class Params>
void launch(int ordinal, const std::string &name, std::int64_t n, Params &p,
            void *stream) {
  launch_params(ordinal, name, n, &p, stream);
}

/// Calls f(byte offset of each operand, inner layout) once per index of the
/// dimensions beyond max_gpu_rank (once when there are none).
template <class F>
void for_each_leading(const loop_layout &l, std::size_t item0,
                      std::size_t item1, F &&f) {
  int rank = l.rank();
  int lead = std::max(0, rank - max_gpu_rank);
  kiln::shape idx = kiln::shape::filled(static_cast<std::size_t>(lead), 0);
  std::int64_t inner_n = 1;
  for (int d = lead; d < rank; ++d)
    inner_n *= l.shape[d];
  while (true) {
    std::int64_t o0 = 0, o1 = 0;
    for (int d = 0; d < lead; ++d) {
      o0 += idx[d] * l.strides[0][d];
      o1 += idx[d] * l.strides[1][d];
    }
    f(o0 * static_cast<std::int64_t>(item0),
      o1 * static_cast<std::int64_t>(item1), lead, inner_n);
    int d = lead - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < l.shape[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

const char *type_name(dtype t) {
  switch (t) {
  case dtype::bool_:
    return "bool";
  case dtype::int8:
    return "int8";
  case dtype::uint8:
    return "uint8";
  case dtype::int32:
    return "int32";
  case dtype::int64:
    return "int64";
  case dtype::float32:
    return "float32";
  case dtype::float64:
    return "float64";
  case dtype::complex64:
    return "complex64";
  case dtype::complex128:
    return "complex128";
  }
  return "?";
}

} // namespace

void copy(int ordinal, const loop_layout &l, void *dst, dtype to,
          const void *src, dtype from, void *stream) {
  if (l.n == 0)
    return;
  std::string name =
      std::string("kiln_copy_") + type_name(from) + "_" + type_name(to);
  for_each_leading(l, itemsize(to), itemsize(from),
                   [&](std::int64_t dst_off, std::int64_t src_off, int lead,
                       std::int64_t n) {
                     copy_params p{};
                     p.dst = static_cast<char *>(dst) + dst_off;
                     p.src = static_cast<const char *>(src) + src_off;
                     p.n = n;
                     p.rank = std::max(l.rank() - lead, 1);
                     if (l.rank() == 0) {
                       p.shape[0] = 1;
                     }
                     for (int d = lead; d < l.rank(); ++d) {
                       p.shape[d - lead] = l.shape[d];
                       p.dst_strides[d - lead] = l.strides[0][d];
                       p.src_strides[d - lead] = l.strides[1][d];
                     }
                     launch(ordinal, name, n, p, stream);
                   });
}

void fill(int ordinal, const loop_layout &l, void *dst, std::size_t itemsize,
          const void *value, void *stream) {
  if (l.n == 0)
    return;
  std::string name = "kiln_fill_" + std::to_string(itemsize);
  for_each_leading(
      l, itemsize, 0,
      [&](std::int64_t dst_off, std::int64_t, int lead, std::int64_t n) {
        fill_params p{};
        p.dst = static_cast<char *>(dst) + dst_off;
        p.n = n;
        p.rank = std::max(l.rank() - lead, 1);
        if (l.rank() == 0)
          p.shape[0] = 1;
        for (int d = lead; d < l.rank(); ++d) {
          p.shape[d - lead] = l.shape[d];
          p.strides[d - lead] = l.strides[0][d];
        }
        std::memcpy(p.value, value, itemsize);
        launch(ordinal, name, n, p, stream);
      });
}

void random(int ordinal, void *out, dtype t, std::int64_t n, const draw &d,
            void *stream) {
  random_params p{};
  p.out = out;
  p.n = n;
  p.seed = d.seed;
  p.offset = d.offset;
  p.mean = d.mean;
  p.std = d.std;
  p.low = d.low;
  p.range = d.range;
  const char *dist = d.dist == distribution::uniform  ? "uniform"
                     : d.dist == distribution::normal ? "normal"
                                                      : "integers";
  launch(ordinal, std::string("kiln_random_") + dist + "_" + type_name(t), n, p,
         stream);
}

void launch_indexing(int ordinal, const char *name, std::int64_t n, void *params, void *stream,
                     unsigned grid) {
  launch_params(ordinal, name, n, params, stream, grid);
}

void matrix_map(int ordinal, dtype t, const matrix_map_params &p, void *stream) {
  matrix_map_params copy = p;
  launch(ordinal, std::string("kiln_matrix_map_") + type_name(t), copy.batch * copy.rows * copy.cols, copy, stream);
}

void scale(int ordinal, dtype t, const scale_params &p, void *stream) {
  scale_params copy = p;
  launch(ordinal, std::string("kiln_scale_") + type_name(t), copy.n, copy, stream);
}

void cg_update(int ordinal, dtype t, bool step, const cg_params &p, void *stream) {
  cg_params copy = p;
  launch(ordinal, std::string(step ? "kiln_cg_step_" : "kiln_cg_direction_") + type_name(t), copy.n, copy, stream);
}

void count_zeros(int ordinal, dtype t, const count_zeros_params &p,
                 void *stream) {
  count_zeros_params copy = p;
  launch(ordinal, std::string("kiln_count_zeros_") + type_name(t), copy.n, copy,
         stream);
}

void conv2d(int ordinal, dtype t, int k, const conv2d_params &p, void *stream) {
  conv2d_params copy = p;
  if (p.tiles <= 0)
    return;
  const std::string name =
      std::string("kiln_conv2d_") + type_name(t) + "_" + std::to_string(k);
  if (k == 0) { // a block a tile
    launch_params(ordinal, name, p.tiles, &copy, stream,
                  static_cast<unsigned>(p.tiles));
    return;
  }
  constexpr unsigned square_block = 128; // signal_kernels.cu's sq_warps
  const auto grid = static_cast<unsigned>(std::min<std::int64_t>(
      p.tiles, persistent_grid(ordinal, name, square_block)));
  launch_params(ordinal, name, p.tiles, &copy, stream, grid, square_block);
}

void multiply(int ordinal, dtype t, const multiply_params &p, void *stream) {
  multiply_params copy = p;
  launch(ordinal, std::string("kiln_multiply_") + type_name(t), copy.n, copy, stream);
}

void matrix_addresses(int ordinal, const matrix_addresses_params &p, void *stream) {
  matrix_addresses_params copy = p;
  launch(ordinal, "kiln_matrix_addresses", copy.count, copy, stream);
}

} // namespace kiln::detail::kernels::gpu
