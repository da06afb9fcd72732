//===- runtime/launch/launch_stencil.cpp - Running a stencil kernel -------===//
//
// kiln::detail::launch_stencil: the checks that decide whether a call fits
// a stencil kernel (kiln/detail/stencil.hpp), the choice of variant, the
// parameter values and the launch, through launch_raw on either device.
//
//===----------------------------------------------------------------------===//
#include "kiln/detail/stencil.hpp"

#include "kiln/error.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kiln::detail {

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
      return false; // broadcasting, another rank or device: the eager form
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

  // Parameter values: 8-byte slots for pointers and extents, the scalars'
  // own bytes (a complex one as its two parts).
  std::vector<std::int64_t> slots;
  slots.reserve(3 + 3 * inputs.size() + 5);
  auto pointer = [](const void *p) {
    return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p));
  };
  slots.insert(slots.end(), {pointer(out.data()), h, w});
  for (const array_base *a : inputs)
    slots.insert(slots.end(),
                 {pointer(a->data()), a->strides()[0], a->strides()[1]});
  slots.insert(slots.end(), {pointer(taps.data()), kh, kw});
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

} // namespace kiln::detail
