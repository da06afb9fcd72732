//===- runtime/launch/launch_raw.cpp - Launching a raw kernel -------------===//
//
// kiln::detail::launch_raw: checks a raw kernel's launch shape against
// CUDA's limits on both devices (so that a launch that runs on the host
// also runs on a GPU), then runs it on the host (raw_host.cpp) or queues it
// on a GPU stream through the module cache of gpu_launch.cpp, with the
// block's shared memory as one dynamic allocation (the PTX's single extern
// shared array: static part, then the launch's dynamic part at the next
// multiple of 16 bytes). See docs/kernel-abi.md, "Raw kernels".
//
//===----------------------------------------------------------------------===//
#include "kiln/detail/raw_kernel.hpp"
#include "kiln/error.hpp"
#include "kiln/kernel.hpp"
#include "kiln/stream.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/launch/gpu_launch.hpp"
#include "runtime/launch/raw_host.hpp"

#include <string>
#include <string_view>

namespace kiln::detail {
namespace {

/// CUDA's limits on a launch's shape (every GPU since compute capability 3.0).
constexpr std::int64_t max_grid[3] = {2147483647, 65535, 65535};
constexpr std::int64_t max_block[3] = {1024, 1024, 64};
constexpr std::int64_t max_block_threads = 1024;
/// Shared memory per block on the host: the most any current GPU allows
/// (227 KiB with opt-in on compute capability 9.0 and 10.0).
constexpr std::size_t host_max_shared = 227 * 1024;

std::string kernel_name(const raw_kernel &k) { return k.name ? k.name : "<unnamed>"; }

/// value_error unless every extent of a grid (`is_grid`) or block is within
/// CUDA's limits.
void check_extents(const raw_kernel &k, bool is_grid, std::int64_t x, std::int64_t y, std::int64_t z) {
  const char *what = is_grid ? "grid" : "block";
  const std::int64_t *limit = is_grid ? max_grid : max_block;
  const std::int64_t extent[3] = {x, y, z};
  for (int d = 0; d < 3; ++d) {
    if (extent[d] >= 1 && extent[d] <= limit[d]) [[likely]]
      continue; // the message is built only for an error: a launch costs no allocation
    const std::string dimension =
        "kernel '" + kernel_name(k) + "': " + what + " dimension " + "xyz"[d] + " is " + std::to_string(extent[d]);
    if (extent[d] < 1)
      throw value_error(dimension + " (every dimension of a grid or block is at least 1)");
    throw value_error(dimension + ", above CUDA's limit of " + std::to_string(limit[d]));
  }
  if (!is_grid && x * y * z > max_block_threads)
    throw value_error("kernel '" + kernel_name(k) + "': a block of " + std::to_string(x * y * z) + " threads (" +
                      std::to_string(x) + " x " + std::to_string(y) + " x " + std::to_string(z) +
                      ") is above CUDA's limit of " + std::to_string(max_block_threads) + " threads per block");
}

/// value_error unless the block's shared memory fits `limit` bytes of
/// `where` ("the host", "cuda:0").
void check_shared(const raw_kernel &k, std::size_t static_bytes, std::size_t dynamic_bytes, std::size_t limit,
                  device dev) {
  if (dynamic_bytes <= limit && static_bytes + dynamic_bytes <= limit) [[likely]]
    return;
  const std::string where = dev.is_host() ? "the host" : dev.str();
  throw value_error("kernel '" + kernel_name(k) + "': " + std::to_string(static_bytes + dynamic_bytes) +
                    " bytes of shared memory per block (" + std::to_string(static_bytes) + " static + " +
                    std::to_string(dynamic_bytes) + " dynamic) are above the limit of " + std::to_string(limit) +
                    " bytes on " + where);
}

} // namespace

raw_dims raw_launch_dims(const raw_kernel &k, const char *what, const launch_extents &e) {
  check_extents(k, std::string_view(what) == "grid", e.x, e.y, e.z);
  return {static_cast<std::uint32_t>(e.x), static_cast<std::uint32_t>(e.y), static_cast<std::uint32_t>(e.z)};
}

std::size_t raw_launch_shared(const raw_kernel &k, std::int64_t bytes) {
  if (bytes < 0)
    throw value_error("kernel '" + kernel_name(k) + "': " + std::to_string(bytes) +
                      " bytes of dynamic shared memory (the size is at least 0)");
  return static_cast<std::size_t>(bytes);
}

void launch_raw(const raw_kernel &k, device dev, raw_dims grid, raw_dims block, std::size_t dynamic_shared,
                const stream *s, void **args) {
  check_extents(k, true, grid.x, grid.y, grid.z);
  check_extents(k, false, block.x, block.y, block.z);
  if (s && s->get_device() != dev)
    throw device_error("kernel '" + kernel_name(k) + "': a stream of " + s->get_device().str() +
                       " cannot run a launch on " + dev.str());
  const std::size_t static_shared = (std::size_t{k.static_shared_bytes} + 15) / 16 * 16;

  if (dev.is_host()) {
    if (!k.host && !k.host_block)
      throw device_error("kernel '" + kernel_name(k) + "' has no host code");
    check_shared(k, static_shared, dynamic_shared, host_max_shared, dev);
    raw::run_on_host(k, grid, block, static_shared + dynamic_shared, args);
    return;
  }

  if (!k.ptx && !(k.fatbin && k.fatbin_size))
    throw device_error("kernel '" + kernel_name(k) +
                       "' has no GPU code (it was compiled with --cuda-host-only; rebuild without it to run it on "
                       "a GPU, or run it on the host with KILN_DEVICE=host)");
  cuda::make_current(dev.index());
  check_shared(k, static_shared, dynamic_shared, static_cast<std::size_t>(launch::max_shared_per_block(dev.index())),
               dev);
  void *handle = s ? s->native_handle() : kiln::stream::current(dev).native_handle();
  const launch::kernel_image image{&k, k.symbol, k.ptx, k.fatbin, k.fatbin_size};
  try {
    launch::launch_entry_3d(image, dev.index(), 0, "", grid, block,
                            static_cast<unsigned>(static_shared + dynamic_shared), args, handle);
  } catch (const cuda_error &e) {
    // The messages name the PTX entry; lead with the C++ function.
    throw cuda_error("kernel '" + kernel_name(k) + "': " + e.what(), e.code());
  }
}

} // namespace kiln::detail
