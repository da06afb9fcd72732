//===- runtime/launch/gpu_launch.cpp - Module cache and cuLaunchKernel ----===//
//
// A fused kernel's module is loaded once per (kernel, GPU) (cubin from the
// fatbin when one fits the GPU, else the PTX, JIT-compiled by the driver) and
// kept for the life of the process. Entries sit in a fixed open-addressing
// table of atomic pointers: a launch finds its entry with a few loads and no
// lock; only the first launch of a kernel on a GPU takes a mutex.
//
//===----------------------------------------------------------------------===//
#include "runtime/launch/gpu_launch.hpp"

#include "kiln/error.hpp"
#include "runtime/cuda/driver.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::detail::launch {
namespace {

constexpr int num_variants = max_entries; // elementwise: contig, strided1..4, rows, lines2
static_assert(3 + max_kernel_rank <= max_entries);
constexpr int default_block = 256;
/// _strided2's tile (64x64 elements) and block: the kernel declares its block
/// size (PTX .maxntid, compiler/Transforms/GenerateVariants.cpp), which
/// cuFuncGetAttribute reads back, up to this.
constexpr std::int64_t staged_tile_elements = 64 * 64;
constexpr int staged_block = 512;

/// What one (kernel, GPU) pair needs at launch time. Never freed: modules
/// live as long as the process (the driver releases them at exit).
struct gpu_kernel {
  const void *kernel = nullptr; ///< kernel_image::key
  kernel_image image{};
  int ordinal = 0;
  CUmodule module = nullptr;
  int multiprocessors = 1;
  /// Resolved lazily; `block` is written before `function` is published.
  std::atomic<CUfunction> function[num_variants] = {};
  std::atomic<int> block[num_variants] = {};
  /// Dynamic shared memory each variant was allowed beyond the default
  /// (launch_entry_3d); 0: the default.
  std::atomic<unsigned> shared_limit[num_variants] = {};
  /// `<name><suffix>` of each variant, for fault reports (written before
  /// `function` is published).
  std::string names[num_variants];
  /// Whether each variant's code was compiled from PTX for sm_90 or later
  /// (written before `function` is published): for an elementwise variant,
  /// code that begins with griddepcontrol.wait (kilnc's
  /// Target/PTX/ProgrammaticLaunch.cpp), so it may launch before the kernel
  /// ahead of it on the stream has finished.
  bool sm90_code[num_variants] = {};
};

constexpr std::size_t table_size = 4096; // a power of two
constexpr std::size_t table_fill_limit = table_size / 2;
std::atomic<gpu_kernel *> table[table_size];
std::mutex insert_mutex;            // guards insertion, `filled` and `overflow`
std::size_t filled = 0;             // entries in `table`
std::vector<gpu_kernel *> overflow; // entries once the table is half full

std::size_t slot_of(const void *k, int ordinal) noexcept {
  std::uint64_t h =
      reinterpret_cast<std::uintptr_t>(k) ^
      (static_cast<std::uint64_t>(ordinal) * 0x9E3779B97F4A7C15ull);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return static_cast<std::size_t>(h) & (table_size - 1);
}

gpu_kernel *find_in_table(const void *k, int ordinal) noexcept {
  std::size_t s = slot_of(k, ordinal);
  for (std::size_t i = 0; i < table_size; ++i, s = (s + 1) & (table_size - 1)) {
    gpu_kernel *e = table[s].load(std::memory_order_acquire);
    if (!e)
      return nullptr;
    if (e->kernel == k && e->ordinal == ordinal)
      return e;
  }
  return nullptr;
}

std::string kernel_name(const kernel_image &k) {
  return k.name ? k.name : "<unnamed>";
}

/// Throws the cuda_error check() makes for `r`, with `context` appended.
[[noreturn]] void fail(CUresult r, const char *call,
                       const std::string &context) {
  try {
    cuda::check(r, call);
  } catch (const cuda_error &e) {
    throw cuda_error(std::string(e.what()) + context, e.code());
  }
  throw cuda_error(std::string(call) + " failed (" + std::to_string(r) + ")" +
                       context,
                   static_cast<int>(r));
}

CUmodule load_module(const cuda::driver_api &api, const kernel_image &k) {
  CUmodule module = nullptr;
  if (k.fatbin && k.fatbin_size) {
    CUresult r = api.cuModuleLoadData(&module, k.fatbin);
    if (r == CUDA_SUCCESS)
      return module;
    if (!k.ptx) // no PTX to fall back on (e.g. no cubin for this GPU's arch)
      fail(r, "cuModuleLoadData", " (cubins of kernel " + kernel_name(k) + ")");
  }
  if (!k.ptx)
    throw device_error("kernel " + kernel_name(k) +
                       " was built without GPU code (kilnc --cuda-host-only): rebuild it without "
                       "--cuda-host-only to run it on a GPU, or run it on the host (KILN_DEVICE=host)");

  char error_log[16384] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {
      error_log,
      reinterpret_cast<void *>(static_cast<std::uintptr_t>(sizeof error_log))};
  CUresult r = api.cuModuleLoadDataEx(&module, k.ptx, 2, options, values);
  if (r != CUDA_SUCCESS) {
    error_log[sizeof error_log - 1] = '\0';
    std::string context =
        " while JIT-compiling the PTX of kernel " + kernel_name(k);
    if (error_log[0])
      context += ":\n" + std::string(error_log);
    fail(r, "cuModuleLoadDataEx", context);
  }
  return module;
}

/// Modules already loaded, by (image, GPU): kilnc puts every kernel of a
/// source file in one PTX/fatbin image, which is loaded (and JIT-compiled)
/// once per GPU, not once per kernel. Guarded by insert_mutex.
struct loaded_module {
  const void *image;
  int ordinal;
  CUmodule module;
};
std::vector<loaded_module> loaded_modules;

CUmodule module_for(const cuda::driver_api &api, const kernel_image &k, int ordinal) {
  const void *image = k.fatbin && k.fatbin_size ? static_cast<const void *>(k.fatbin)
                                                : static_cast<const void *>(k.ptx);
  for (const loaded_module &m : loaded_modules)
    if (image && m.image == image && m.ordinal == ordinal)
      return m.module;
  CUmodule module = load_module(api, k);
  loaded_modules.push_back({image, ordinal, module});
  return module;
}

/// The entry of (k, ordinal), loading the module on first use.
gpu_kernel &entry_of(const cuda::driver_api &api, const kernel_image &k,
                     int ordinal) {
  if (gpu_kernel *e = find_in_table(k.key, ordinal))
    return *e;
  std::lock_guard<std::mutex> lock(insert_mutex);
  if (gpu_kernel *e = find_in_table(k.key, ordinal))
    return *e;
  for (gpu_kernel *e : overflow)
    if (e->kernel == k.key && e->ordinal == ordinal)
      return *e;

  auto e = std::make_unique<gpu_kernel>();
  e->kernel = k.key;
  e->image = k;
  e->ordinal = ordinal;
  CUdevice dev = 0;
  KILN_CU(api, cuDeviceGet, &dev, ordinal);
  KILN_CU(api, cuDeviceGetAttribute, &e->multiprocessors,
          CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  e->multiprocessors = std::max(e->multiprocessors, 1);
  e->module = module_for(api, k, ordinal);

  gpu_kernel *raw = e.release();
  if (filled < table_fill_limit) {
    std::size_t s = slot_of(k.key, ordinal);
    while (table[s].load(std::memory_order_relaxed))
      s = (s + 1) & (table_size - 1);
    table[s].store(raw, std::memory_order_release);
    ++filled;
  } else {
    overflow.push_back(raw); // rare: thousands of kernels; found under the lock
  }
  return *raw;
}

/// The function of `slot` (entry point `<name><suffix>`) and its block size.
/// The hot path is two atomic loads; `suffix` is read only on the first use.
CUfunction function_of(const cuda::driver_api &api, gpu_kernel &e, int slot, const char *suffix, int &block,
                       int widest = default_block) {
  CUfunction f = e.function[slot].load(std::memory_order_acquire);
  if (f) [[likely]] {
    block = e.block[slot].load(std::memory_order_relaxed);
    return f;
  }
  std::lock_guard<std::mutex> lock(insert_mutex);
  f = e.function[slot].load(std::memory_order_acquire);
  if (!f) {
    std::string name = kernel_name(e.image) + suffix;
    CUresult r = api.cuModuleGetFunction(&f, e.module, name.c_str());
    if (r != CUDA_SUCCESS)
      fail(r, "cuModuleGetFunction", " (variant " + name + ")");
    int max_threads = default_block;
    KILN_CU(api, cuFuncGetAttribute, &max_threads,
            CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
    int b = std::clamp(max_threads, 1, widest);
    if (b >= 32)
      b &= ~31; // whole warps
    int ptx_version = 0;
    KILN_CU(api, cuFuncGetAttribute, &ptx_version, CU_FUNC_ATTRIBUTE_PTX_VERSION, f);
    e.sm90_code[slot] = ptx_version >= 90;
    e.block[slot].store(b, std::memory_order_relaxed);
    e.names[slot] = name;
    e.function[slot].store(f, std::memory_order_release);
  }
  block = e.block[slot].load(std::memory_order_relaxed);
  return f;
}

/// Lets `f` (cached in `slot` of `e`) use `shared_bytes` of dynamic shared
/// memory, above the default a function may use without opting in; once per
/// new high-water mark.
void raise_shared_limit(const cuda::driver_api &api, gpu_kernel &e, int slot, CUfunction f, unsigned shared_bytes) {
  constexpr unsigned default_shared = 48 * 1024;
  if (shared_bytes <= default_shared || shared_bytes <= e.shared_limit[slot].load(std::memory_order_acquire))
    return;
  std::lock_guard<std::mutex> lock(insert_mutex);
  if (shared_bytes > e.shared_limit[slot].load(std::memory_order_relaxed)) {
    KILN_CU(api, cuFuncSetAttribute, f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            static_cast<int>(shared_bytes));
    e.shared_limit[slot].store(shared_bytes, std::memory_order_release);
  }
}

/// The symbol suffixes of the elementwise variants, by variant number.
constexpr const char *elementwise_suffixes[] = {"_contig",   "_strided1", "_strided2", "_strided3",
                                                "_strided4", "_rows",     "_lines2"};
static_assert(std::size(elementwise_suffixes) == lines_variant + 1);

} // namespace

std::string variant_suffix(int variant) {
  if (variant >= 0 && variant <= lines_variant)
    return elementwise_suffixes[variant];
  return "_variant" + std::to_string(variant);
}

launch_dims elementwise_dims(std::int64_t n, int variant, int vector_width, int max_block,
                             int multiprocessors) noexcept {
  // Elements a thread takes per pass: a vector for _contig and _rows; for
  // _strided2, whose blocks stage 64x64 tiles (4096 elements), a tile's share
  // (8 for its 512 threads).
  const std::int64_t width = variant == contig_variant || variant == rows_variant ? std::max(vector_width, 1)
                             : variant == 2             ? std::max<std::int64_t>(staged_tile_elements / std::max(max_block, 1), 1)
                             : variant == lines_variant ? lines_run
                                                        : 1;
  const std::int64_t threads = std::max<std::int64_t>((n + width - 1) / width, 1);
  // A small call keeps full blocks even when that leaves SMs idle: 2^16
  // float32 as 64 blocks of 256 measured 3.46 us of device time on an H100,
  // against 3.62 us as 171 blocks of 96 spread over all 132 SMs and 3.78 us
  // as 512 one-warp blocks (benchmarks/launch_overhead.cpp, 2026-11-25): at
  // this size a kernel's time is its fixed launch cost, which more blocks
  // only raise.
  const std::int64_t block = std::max(max_block, 1);
  const std::int64_t sms = std::max(multiprocessors, 1);
  // One vector access per thread measured fastest on an H100 (1.02 of the
  // device copy for saxpy, against 0.97 at 16 blocks per SM); the kernels
  // loop grid-stride past grid.x's limit.
  std::int64_t wanted = (threads + block - 1) / block;
  // _strided2 loops over its tiles: a persistent grid of 1024 threads a
  // multiprocessor keeps the transposing reads and writes of a few tiles in
  // flight on each (0.92 of the device copy for x.T() * 2 + 1 on an H100,
  // against 0.89 with one block a tile).
  if (variant == 2)
    wanted = std::min(wanted, sms * std::max<std::int64_t>(1024 / block, 1));
  const std::int64_t cap = std::numeric_limits<std::int32_t>::max();
  return {static_cast<unsigned>(std::clamp<std::int64_t>(wanted, 1, cap)), static_cast<unsigned>(block)};
}

/// The image of an elementwise kernel.
static kernel_image image_of(const fused_kernel &k) {
  return {&k, k.name, k.ptx, k.fatbin, k.fatbin_size};
}

/// cuLaunchKernelEx of `f` over a 1-D grid of 1-D blocks with one launch
/// attribute.
static CUresult launch_with(const cuda::driver_api &api, CUfunction f, unsigned grid, unsigned block,
                            unsigned shared_bytes, void *stream, CUlaunchAttribute attribute, void **args) {
  CUlaunchConfig config{};
  config.gridDimX = grid;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = block;
  config.blockDimY = config.blockDimZ = 1;
  config.sharedMemBytes = shared_bytes;
  config.hStream = static_cast<CUstream>(stream);
  config.attrs = &attribute;
  config.numAttrs = 1;
  return api.cuLaunchKernelEx(&config, f, args, nullptr);
}

/// Whether elementwise kernels compiled for sm_90 launch with programmatic
/// stream serialization: yes unless KILN_PROGRAMMATIC_LAUNCH=0 (read once).
static bool programmatic_launch_enabled() {
  static const bool on = [] {
    const char *v = std::getenv("KILN_PROGRAMMATIC_LAUNCH");
    return !(v && std::string(v) == "0");
  }();
  return on;
}

staged_tile_shape staged_tile(std::int64_t rows, std::int64_t cols) noexcept {
  constexpr int all = 12, square = 6, least = 3; // staged_tile_elements, 64 x 64, edges of 8 at least
  static_assert(std::int64_t(1) << all == staged_tile_elements);
  // Of the edges from 8 to 64, the one that pads `n` least, the longer on a tie.
  auto fitted_log = [](std::int64_t n) {
    int best = square;
    std::int64_t padded = std::int64_t(1) << square;
    for (int log = square - 1; log >= least; --log) {
      const std::int64_t edge = std::int64_t(1) << log, mine = (n + edge - 1) & ~(edge - 1);
      if (mine < padded) {
        best = log;
        padded = mine;
      }
    }
    return best;
  };
  const int log_cols = cols < (1 << square)   ? fitted_log(cols)
                       : rows < (1 << square) ? all - fitted_log(rows)
                                              : square;
  return {std::int64_t(1) << (all - log_cols), std::int64_t(1) << log_cols};
}

unsigned staged_shared_bytes(std::int64_t rows, std::int64_t cols, int num_inputs, const std::int64_t *strides,
                             int pitch, const std::int64_t *item) noexcept {
  const staged_tile_shape tile = staged_tile(rows, cols);
  std::int64_t used = 0;
  for (int j = 0; j < num_inputs; ++j) {
    const std::int64_t bytes = tile.rows * (tile.cols + 1) * item[j];
    const std::int64_t outer = strides[j * pitch], inner = strides[j * pitch + 1];
    const bool across = outer != 0 && std::abs(outer) < std::abs(inner);
    if (across && used + bytes <= staged_budget)
      used += bytes;
  }
  return static_cast<unsigned>(used);
}

void launch_on_gpu(const fused_kernel &k, int ordinal, int variant, std::int64_t n, void **args, void *stream,
                   unsigned shared_bytes) {
  const cuda::driver_api &api = cuda::require_driver();
  gpu_kernel &e = entry_of(api, image_of(k), ordinal);
  int block = default_block;
  CUfunction f = function_of(api, e, variant, elementwise_suffixes[variant], block,
                             variant == 2 ? staged_block : default_block);
  raise_shared_limit(api, e, variant, f, shared_bytes);
  const launch_dims d = elementwise_dims(n, variant, k.vector_width, block, e.multiprocessors);
  const bool programmatic = e.sm90_code[variant] && programmatic_launch_enabled();
  CUresult r;
  if (programmatic) {
    // Programmatic dependent launch: the kernel's launch and block
    // scheduling overlap the end of the kernel before it on the stream; its
    // griddepcontrol.wait holds every memory access until that kernel has
    // finished (docs/runtime-launch.md). In a graph the edge stays
    // programmatic: 100 small calls replay about a quarter faster.
    CUlaunchAttribute attribute{};
    attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    r = launch_with(api, f, d.grid, d.block, shared_bytes, stream, attribute, args);
  } else {
    r = api.cuLaunchKernel(f, d.grid, 1, 1, d.block, 1, 1, shared_bytes, static_cast<CUstream>(stream), args,
                           nullptr);
  }
  if (r != CUDA_SUCCESS) [[unlikely]]
    fail(r, programmatic ? "cuLaunchKernelEx" : "cuLaunchKernel",
         " (kernel " + kernel_name(e.image) + elementwise_suffixes[variant] + ", grid " + std::to_string(d.grid) +
             ", block " + std::to_string(d.block) + ")");
  cuda::launched(api, ordinal, e.names[variant].c_str(),
                 static_cast<CUstream>(stream));
}

void launch_entry(const kernel_image &image, int ordinal, int slot, const char *suffix, unsigned grid,
                  unsigned block, unsigned shared_bytes, void **args, void *stream) {
  const cuda::driver_api &api = cuda::require_driver();
  gpu_kernel &e = entry_of(api, image, ordinal);
  int max_block = default_block;
  CUfunction f = function_of(api, e, slot, suffix, max_block);
  CUresult r = api.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shared_bytes, static_cast<CUstream>(stream), args,
                                  nullptr);
  if (r != CUDA_SUCCESS)
    fail(r, "cuLaunchKernel",
         " (kernel " + kernel_name(image) + suffix + ", grid " + std::to_string(grid) + ", block " +
             std::to_string(block) + ")");
  cuda::launched(api, ordinal, e.names[slot].c_str(), static_cast<CUstream>(stream));
}

void launch_cluster_entry(const kernel_image &image, int ordinal, int slot, const char *suffix, unsigned grid,
                          unsigned block, unsigned cluster, unsigned shared_bytes, void **args, void *stream) {
  const cuda::driver_api &api = cuda::require_driver();
  gpu_kernel &e = entry_of(api, image, ordinal);
  int max_block = default_block;
  CUfunction f = function_of(api, e, slot, suffix, max_block);
  raise_shared_limit(api, e, slot, f, shared_bytes);
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = cluster;
  attribute.value.clusterDim.y = 1;
  attribute.value.clusterDim.z = 1;
  CUresult r = launch_with(api, f, grid, block, shared_bytes, stream, attribute, args);
  if (r != CUDA_SUCCESS)
    fail(r, "cuLaunchKernelEx",
         " (kernel " + kernel_name(image) + suffix + ", grid " + std::to_string(grid) + ", block " +
             std::to_string(block) + ", cluster " + std::to_string(cluster) + ", " + std::to_string(shared_bytes) +
             " bytes of shared memory)");
  cuda::launched(api, ordinal, e.names[slot].c_str(), static_cast<CUstream>(stream));
}

void launch_entry_3d(const kernel_image &image, int ordinal, int slot, const char *suffix, raw_dims grid,
                     raw_dims block, unsigned shared_bytes, void **args, void *stream) {
  const cuda::driver_api &api = cuda::require_driver();
  gpu_kernel &e = entry_of(api, image, ordinal);
  int max_block = default_block;
  CUfunction f = function_of(api, e, slot, suffix, max_block);
  raise_shared_limit(api, e, slot, f, shared_bytes);
  CUresult r = api.cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared_bytes,
                                  static_cast<CUstream>(stream), args, nullptr);
  if (r != CUDA_SUCCESS) {
    auto dims = [](raw_dims d) {
      return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
    };
    fail(r, "cuLaunchKernel",
         " (kernel " + kernel_name(image) + suffix + ", grid " + dims(grid) + ", block " + dims(block) + ", " +
             std::to_string(shared_bytes) + " bytes of shared memory)");
  }
  cuda::launched(api, ordinal, e.names[slot].c_str(), static_cast<CUstream>(stream));
}

int blocks_per_multiprocessor(const kernel_image &image, int ordinal, int slot, const char *suffix, unsigned block,
                              unsigned shared_bytes) {
  const cuda::driver_api &api = cuda::require_driver();
  gpu_kernel &e = entry_of(api, image, ordinal);
  int max_block = default_block;
  CUfunction f = function_of(api, e, slot, suffix, max_block);
  int n = 1;
  KILN_CU(api, cuOccupancyMaxActiveBlocksPerMultiprocessor, &n, f, static_cast<int>(block), shared_bytes);
  return std::max(n, 1);
}

int compute_capability(int ordinal) {
  static std::atomic<int> cached[64] = {};
  if (ordinal >= 0 && ordinal < 64)
    if (int cc = cached[ordinal].load(std::memory_order_relaxed))
      return cc;
  const cuda::driver_api &api = cuda::require_driver();
  CUdevice dev = 0;
  KILN_CU(api, cuDeviceGet, &dev, ordinal);
  int major = 0, minor = 0;
  KILN_CU(api, cuDeviceGetAttribute, &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  KILN_CU(api, cuDeviceGetAttribute, &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  int cc = 10 * major + minor;
  if (ordinal >= 0 && ordinal < 64)
    cached[ordinal].store(cc, std::memory_order_relaxed);
  return cc;
}

int max_shared_per_block(int ordinal) {
  static std::atomic<int> cached[64] = {};
  if (ordinal >= 0 && ordinal < 64)
    if (int n = cached[ordinal].load(std::memory_order_relaxed))
      return n;
  const cuda::driver_api &api = cuda::require_driver();
  CUdevice dev = 0;
  KILN_CU(api, cuDeviceGet, &dev, ordinal);
  int n = 0;
  KILN_CU(api, cuDeviceGetAttribute, &n, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
  n = std::max(n, 48 * 1024); // every GPU since Kepler allows the default
  if (ordinal >= 0 && ordinal < 64)
    cached[ordinal].store(n, std::memory_order_relaxed);
  return n;
}

int multiprocessor_count(int ordinal) {
  static std::atomic<int> cached[64] = {};
  if (ordinal >= 0 && ordinal < 64)
    if (int n = cached[ordinal].load(std::memory_order_relaxed))
      return n;
  const cuda::driver_api &api = cuda::require_driver();
  CUdevice dev = 0;
  KILN_CU(api, cuDeviceGet, &dev, ordinal);
  int n = 1;
  KILN_CU(api, cuDeviceGetAttribute, &n, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  n = std::max(n, 1);
  if (ordinal >= 0 && ordinal < 64)
    cached[ordinal].store(n, std::memory_order_relaxed);
  return n;
}

} // namespace kiln::detail::launch
