//===- runtime/launch/launch_stencil.cpp - Running a stencil kernel -------===//
//
// kiln::detail::run_stencil: the checks that decide whether a call fits a
// stencil kernel (kiln/detail/stencil.hpp), the choice of variant, the
// parameter values and the launch, through launch_raw on either device;
// otherwise the group's unfused form: the producer's elementwise kernel,
// the runtime's convolve2d, the consumer's elementwise kernel.
//
//===----------------------------------------------------------------------===//
#include "kiln/detail/stencil.hpp"

#include "kiln/error.hpp"
#include "kiln/signal.hpp"
#include "runtime/launch/gpu_launch.hpp"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

namespace kiln::detail {
namespace {

/// Whether the tiled kernel can copy every input's window in 4-element
/// pieces: contiguous rows, each starting 4-element aligned.
bool tiled_fits(std::span<const array_base *const> inputs) {
  for (const array_base *a : inputs) {
    const std::size_t piece =
        std::min<std::size_t>(16, 4 * itemsize(a->dtype()));
    if (a->strides()[1] != 1 || a->strides()[0] % 4 != 0 ||
        reinterpret_cast<std::uintptr_t>(a->data()) % piece != 0)
      return false;
  }
  return true;
}

/// Runs the kernel of the filter's size; false (nothing launched) when the
/// call does not fit one.
bool launch_stencil(const stencil_kernel &k,
                    std::span<const array_base *const> inputs,
                    const array_base &given_taps,
                    std::span<const void *const> scalars, array_base &out) {
  if (inputs.size() != k.num_inputs || scalars.size() != k.num_scalars)
    throw error(std::string("kiln: stencil kernel '") + k.name +
                "' called with " + std::to_string(inputs.size()) +
                " arrays and " + std::to_string(scalars.size()) +
                " scalars (kilnc and the runtime disagree)");
  if (inputs.empty() || !given_taps.valid() || given_taps.ndim() != 2 ||
      given_taps.size() == 0)
    return false;
  const array_base &first = *inputs.front();
  if (!first.valid() || first.ndim() != 2 || first.size() == 0)
    return false;
  const device dev = first.device();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const array_base &a = *inputs[i];
    if (!a.valid() || a.shape() != first.shape() || a.device() != dev)
      return false; // broadcasting, another rank or device: the unfused form
    if (a.dtype() != k.operand_dtypes[i])
      throw error(std::string("kiln: stencil kernel '") + k.name + "': input " +
                  std::to_string(i) +
                  " has the wrong dtype (kilnc and the runtime disagree)");
  }
  if (given_taps.device() != dev ||
      given_taps.dtype() != k.operand_dtypes[inputs.size()])
    return false;
  const std::int64_t h = first.shape()[0], w = first.shape()[1];
  const std::int64_t kh = given_taps.shape()[0], kw = given_taps.shape()[1];
  if (h < kh || w < kw)
    return false; // the kernels fold an index outside the image once (and SciPy
                  // swaps nothing in mode same)

  const stencil_variant *v = nullptr;
  for (const stencil_variant &candidate : k.variants)
    if (candidate.kernel && candidate.kh == kh && candidate.kw == kw)
      v = &candidate;
  if (!v)
    return false; // a filter without a kernel of its size
  // The kernels read the filter C-contiguous (a few taps: copied if not).
  const array_base taps = given_taps.is_contiguous()
                              ? given_taps
                              : copy(given_taps, given_taps.dtype());

  out = empty(k.operand_dtypes[inputs.size() + 1], first.shape(), dev);

  // Parameter values: 8-byte slots for pointers, extents and strides, the
  // scalars' own bytes (a complex one as its two parts).
  std::vector<std::int64_t> slots;
  slots.reserve(3 + 3 * inputs.size() + 1);
  auto pointer = [](const void *p) {
    return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p));
  };
  slots.insert(slots.end(), {pointer(out.data()), h, w});
  for (const array_base *a : inputs)
    slots.insert(slots.end(),
                 {pointer(a->data()), a->strides()[0], a->strides()[1]});
  slots.push_back(pointer(taps.data()));
  std::vector<void *> args;
  for (std::int64_t &s : slots)
    args.push_back(&s);
  for (std::size_t i = 0; i < scalars.size(); ++i) {
    void *bytes = const_cast<void *>(scalars[i]);
    args.push_back(bytes);
    const dtype t = k.operand_dtypes[inputs.size() + 2 + i];
    if (is_complex(t))
      args.push_back(static_cast<unsigned char *>(bytes) + itemsize(t) / 2);
  }
  if (args.size() != v->kernel->num_params)
    throw error(std::string("kiln: stencil kernel '") + k.name + "' takes " +
                std::to_string(v->kernel->num_params) +
                " parameter values, the runtime made " +
                std::to_string(args.size()) +
                " (kilnc and the runtime disagree)");

  if (!dev.is_host() && v->tiled && tiled_fits(inputs)) {
    // Persistent blocks: as many as fit on the GPU at once (by their shared
    // memory; at most 4 a multiprocessor), none without a tile.
    const std::int64_t tiles = ((w + 127) / 128) * ((h + 31) / 32);
    const std::int64_t shared = v->tiled->static_shared_bytes + 1024;
    const std::int64_t per_sm = std::clamp<std::int64_t>(
        (launch::max_shared_per_block(dev.index()) + 1024) / shared, 1, 4);
    const std::int64_t blocks = std::min<std::int64_t>(
        tiles, per_sm * launch::multiprocessor_count(dev.index()));
    launch_raw(*v->tiled, dev, {static_cast<std::uint32_t>(blocks), 1, 1},
               {128, 1, 1}, 0, nullptr, args.data());
    return true;
  }
  // 128 threads a block across columns (32 when the image is narrow), each
  // `rows` output rows; rows beyond the grid's 65535 blocks loop.
  const std::uint32_t bx = w >= 96 ? 128 : 32, by = 128 / bx;
  const std::int64_t row_blocks = (h + v->rows * by - 1) / (v->rows * by);
  raw_dims grid{
      static_cast<std::uint32_t>((w + bx - 1) / bx),
      static_cast<std::uint32_t>(std::min<std::int64_t>(row_blocks, 65535)), 1};
  raw_dims block{bx, by, 1};
  launch_raw(*v->kernel, dev, grid, block, 0, nullptr, args.data());
  return true;
}

/// A scalar operand (fused_scalar bytes of dtype t) as a complex<double>.
std::complex<double> scalar_value(const void *bytes, dtype t) {
  auto get = [&](auto v) {
    std::memcpy(&v, bytes, sizeof(v));
    return v;
  };
  switch (t) {
  case dtype::bool_:
    return get(std::uint8_t{}) != 0;
  case dtype::int8: // fused_scalar holds small integers as int32
  case dtype::uint8:
  case dtype::int32:
    return static_cast<double>(get(std::int32_t{}));
  case dtype::int64:
    return static_cast<double>(get(std::int64_t{}));
  case dtype::float32:
    return get(float{});
  case dtype::float64:
    return get(double{});
  case dtype::complex64:
    return get(std::complex<float>{});
  case dtype::complex128:
    return get(std::complex<double>{});
  default:
    throw error("kiln: a stencil kernel's fill value has dtype " +
                std::string(kiln::name(t)) +
                " (kilnc and the runtime disagree)");
  }
}

/// One side of the unfused form: its kernel on its operands.
array_base run_part(const stencil_part &part,
                    std::span<const array_base *const> inputs,
                    std::span<const void *const> scalars,
                    const array_base *result) {
  std::vector<const array_base *> in;
  for (int i = 0; i < part.num_inputs; ++i)
    in.push_back(part.inputs[i] < 0
                     ? result
                     : inputs[static_cast<std::size_t>(part.inputs[i])]);
  std::vector<const void *> sc;
  for (int i = 0; i < part.num_scalars; ++i)
    sc.push_back(scalars[static_cast<std::size_t>(part.scalars[i])]);
  array_base out[1];
  launch_elementwise(*part.kernel, in, sc, out);
  return std::move(out[0]);
}

} // namespace

array_base run_stencil(const stencil_kernel &k,
                       std::span<const array_base *const> inputs,
                       const array_base &taps,
                       std::span<const void *const> scalars) {
  array_base out;
  if (launch_stencil(k, inputs, taps, scalars, out))
    return out;
  // The unfused form: each side's kernel broadcasts as NumPy does, the
  // convolution raises SciPy's errors.
  const array_base image =
      k.producer.kernel
          ? run_part(k.producer, inputs, scalars, nullptr)
          : *inputs[static_cast<std::size_t>(k.producer.inputs[0])];
  const std::complex<double> fill =
      k.fill_scalar >= 0
          ? scalar_value(
                scalars[static_cast<std::size_t>(k.fill_scalar)],
                k.operand_dtypes[k.num_inputs + 2 +
                                 static_cast<std::size_t>(k.fill_scalar)])
          : std::complex<double>(k.fill_re, k.fill_im);
  const array_base conv = kiln::signal::detail::convolve2d(
      image, taps, kiln::signal::mode::same,
      static_cast<kiln::signal::boundary>(k.boundary), fill, k.correlate);
  return k.consumer.kernel ? run_part(k.consumer, inputs, scalars, &conv)
                           : conv;
}

} // namespace kiln::detail
