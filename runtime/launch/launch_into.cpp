//===- runtime/launch/launch_into.cpp - A fused kernel writing in place ---===//
//
// kiln::detail::launch_elementwise_into: kilnc's in-place updates
// (`x += a * y`, `x.slice(...) -= y`, `kiln::elementwise_into(out, f, ...)`)
// run one fused kernel whose output is the destination itself. This file
// decides what NumPy's `ufunc(..., out=x)` decides before it runs: the
// broadcast shape must be the destination's, a read-only destination is an
// error, and an input that overlaps the destination is copied first unless
// it is the destination itself (each element is then read and written by
// the same thread, which is safe). launch_elementwise_assign is the same for
// `x.assign(a * y)` with setitem's shape rule. See docs/runtime-launch.md.
//
//===----------------------------------------------------------------------===//
#include "kiln/detail/fused.hpp"
#include "runtime/array/array_internal.hpp"

#include <algorithm>
#include <string>

namespace kiln::detail {
namespace {

/// NumPy's broadcast of the inputs and the destination; shape_error with
/// NumPy's message when the destination would have to grow.
void check_destination_shape(const array_base &dst, std::span<const array_base *const> inputs) {
  shape all = dst.shape();
  for (const array_base *a : inputs)
    all = broadcast_shapes(all, a->shape());
  if (all != dst.shape())
    throw shape_error("non-broadcastable output operand with shape " + to_string(dst.shape()) +
                      " doesn't match the broadcast shape " + to_string(all));
}

/// True when `a` is the destination's own elements in its own layout.
bool is_destination(const array_base &a, const array_base &dst) {
  return a.data() == dst.data() && a.dtype() == dst.dtype() && a.shape() == dst.shape() &&
         (a.strides() == dst.strides() || dst.size() <= 1);
}

/// `dst.assign(value)`'s shape rule (detail::assign's, NumPy's `dst[...] =
/// value`): the inputs broadcast together to the value's shape, which must
/// broadcast into dst's; leading axes beyond dst's rank must have size 1.
void check_assigned_shape(const array_base &dst, std::span<const array_base *const> inputs) {
  shape value;
  for (const array_base *a : inputs)
    value = broadcast_shapes(value, a->shape());
  check_assignable(value, dst.shape());
}

/// What both entry points check first: a destination and inputs that are
/// arrays, a writeable destination.
void check_operands(const fused_kernel &k, const array_base &dst, std::span<const array_base *const> inputs) {
  if (!dst.valid())
    throw value_error("kernel " + std::string(k.name ? k.name : "<unnamed>") +
                      ": the destination is not an array (default-constructed or moved from)");
  if (!dst.writeable())
    throw value_error("assignment destination is read-only");
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i] || !inputs[i]->valid())
      throw value_error("kernel " + std::string(k.name ? k.name : "<unnamed>") + ": input " + std::to_string(i) +
                        " is not an array (default-constructed or moved from)");
}

/// Runs `k` into `dst` once the shapes are known to fit.
void run_into(const fused_kernel &k, const array_base &dst, std::span<const array_base *const> inputs,
              std::span<const void *const> scalars) {
  // Inputs as the kernel reads them: broadcast to the destination's shape,
  // and copied first where they overlap it in any other way.
  std::vector<array_base> views;
  views.reserve(inputs.size());
  std::vector<const array_base *> operands(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const array_base &a = *inputs[i];
    if (a.storage() == dst.storage() && a.device() == dst.device() && may_overlap(a, dst) &&
        !is_destination(a, dst))
      views.push_back(broadcast_view(copy(a, a.dtype()), dst.shape()));
    else
      views.push_back(broadcast_view(a, dst.shape()));
    operands[i] = &views.back();
  }
  array_base out[1] = {dst};
  launch_elementwise(k, operands, scalars, out);
}

} // namespace

void launch_elementwise_into(const fused_kernel &k, const array_base &dst,
                             std::span<const array_base *const> inputs,
                             std::span<const void *const> scalars) {
  check_operands(k, dst, inputs);
  check_destination_shape(dst, inputs);
  run_into(k, dst, inputs, scalars);
}

void launch_elementwise_assign(const fused_kernel &k, const array_base &dst,
                               std::span<const array_base *const> inputs,
                               std::span<const void *const> scalars) {
  check_operands(k, dst, inputs);
  check_assigned_shape(dst, inputs);
  run_into(k, dst, inputs, scalars);
}

} // namespace kiln::detail
