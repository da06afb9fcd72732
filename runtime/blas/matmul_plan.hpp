//===- runtime/blas/matmul_plan.hpp - Shapes and strides of a matmul ------===//
//
// np.matmul's shape rules: the checks (with NumPy's messages), the broadcast
// batch shape, the result shape, and each operand's matrix and batch
// strides. Shared by the host and the cuBLAS implementations. Internal.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"

#include <cstdint>

namespace kiln::detail::blas {

/// Where the matrices of one operand lie: element (batch b, row i, col j)
/// is at offset sum(b_d * batch_strides[d]) + i * row_stride + j * col_stride.
struct operand_layout {
  std::int64_t row_stride = 0;
  std::int64_t col_stride = 0;
  shape batch_strides; ///< aligned to the plan's batch shape, 0 where broadcast
};

struct matmul_plan {
  dtype result = dtype::float32;
  device dev;
  bool a_vector = false; ///< a is 1-d: a row vector (n = 1)
  bool b_vector = false; ///< b is 1-d: a column vector (m = 1)
  std::int64_t n = 0, k = 0, m = 0;
  shape batch;     ///< broadcast leading dimensions
  shape out_shape; ///< batch + (n) + (m), without the vectors' axes
};

/// Checks devices and shapes (device_error, shape_error with NumPy's
/// messages) and plans a @ b.
matmul_plan plan_matmul(const array_base &a, const array_base &b);

/// Layout of `x` (a with first = true, else b) for the plan's batch shape.
operand_layout layout_of(const array_base &x, bool first, const matmul_plan &p);

/// a @ b into `out` (C-contiguous, p.out_shape, dtype p.result); all on the
/// host.
void host_matmul(const matmul_plan &p, const array_base &a, const array_base &b,
                 const array_base &out);

/// a @ b into `out` with cuBLAS; all on p.dev, p.result a float or complex
/// dtype.
void gpu_matmul(const matmul_plan &p, const array_base &a, const array_base &b,
                const array_base &out);

} // namespace kiln::detail::blas
