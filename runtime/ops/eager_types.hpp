//===- runtime/ops/eager_types.hpp - Dtype rules of the eager operations --===//
//
// The dtype an elementwise operation computes in (its operands are converted
// to it) and the dtype it returns. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/ops.hpp"

#include <span>

namespace kiln::detail {

struct op_types {
  dtype compute; ///< operands (but where's condition) are converted to this
  dtype result;
};

/// Number of operands `o` takes (1, 2 or 3).
int op_arity(op o) noexcept;
bool is_comparison(op o) noexcept;

/// Checks the operand count and that NumPy has a loop for the operand types
/// (value_error otherwise), and returns the computation and result dtypes.
op_types resolve_types(op o, std::span<const operand> args);

} // namespace kiln::detail
