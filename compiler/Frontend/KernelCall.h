//===- Frontend/KernelCall.h - The C++ that calls a kernel -----*- C++ -*-===//
//
// The text that replaces a fused group's expression in the rewritten source.
// An elementwise group becomes a kiln::detail::call_fused(...) call (or
// call_fused_into(...), writing into an update's destination). A
// reduction group becomes an immediately invoked lambda that evaluates each
// leaf once and calls kiln::detail::call_reduction(...) with the axes,
// keepdims and an eager fallback: the same expression over the evaluated
// leaves, which the runtime runs when a call's shapes do not fit the
// kernel's iteration space (docs/runtime-launch.md).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_KERNELCALL_H
#define KILN_FRONTEND_KERNELCALL_H

#include "Frontend/ArrayExpr.h"

#include <functional>
#include <string>

namespace kiln::frontend {

/// The rewritten source text of an expression (with the rewrites so far).
using TextOf = std::function<std::string(const clang::Expr *)>;

/// The call replacing group `g`: `outType` is the C++ element type of the
/// result, `kernelRef` an expression naming the kernel descriptor.
std::string kernelCallText(const FusedGroup &g, const std::string &outType, const std::string &kernelRef,
                           const TextOf &textOf);

/// The call of elementwise group `g` writing into `dst` in place
/// (kiln::detail::call_fused_into, or call_fused_assign for `x.assign(value)`
/// with array::assign's shape rule): the root of an update (InPlaceUpdate.h).
std::string kernelCallIntoText(const FusedGroup &g, const std::string &dst, const std::string &kernelRef,
                               const TextOf &textOf, bool assign = false);

/// The text of a leaf as passed to the kernel: its source text (plus the
/// member it reads, for var's ddof).
std::string leafText(const Node &leaf, const TextOf &textOf);

} // namespace kiln::frontend

#endif
