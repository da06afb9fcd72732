//===- runtime/array/array_internal.hpp - Helpers of runtime/array --------===//
//
// Small helpers the array functions share: allocation on a given stream,
// device/stream checks with their device_error messages, and the memory
// extent of a strided array (for overlap tests). Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"

#include <cstdint>
#include <utility>

namespace kiln::detail {

/// A C-contiguous array of `s` on `dev`, its memory allocated for use on `st`.
array_base allocate(kiln::dtype t, const kiln::shape &s, device dev,
                    const stream &st);

/// device_error unless a and b are the same device.
void check_same_device(device a, device b);

/// A shape as Python prints a tuple, "(3, 5)" or "(4,)": SciPy's messages.
std::string shape_repr(const kiln::shape &s);

/// device_error when `s` is a GPU stream of another device than `dev`.
void check_stream(device dev, const stream &s);

/// [first byte, one past the last byte) that `x` may touch.
std::pair<const char *, const char *> byte_extent(const array_base &x);

/// True when x and y share memory (conservatively, by extent).
bool may_overlap(const array_base &x, const array_base &y);

/// NumPy's setitem rule (`x[...] = value`): `from` broadcasts into `to`, its
/// axes beyond to's rank of size 1; else shape_error "could not broadcast
/// input array from shape F into shape T".
void check_assignable(const shape &from, const shape &to);

/// `a` viewed with `target`'s shape: stride 0 where it broadcasts, its axes
/// beyond target's rank (of size 1) dropped. The shapes must broadcast.
array_base broadcast_view(const array_base &a, const shape &target);

} // namespace kiln::detail
