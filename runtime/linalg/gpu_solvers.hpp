//===- runtime/linalg/gpu_solvers.hpp - The solvers' cuSOLVER half --------===//
//
// Each call works on a batch of `count` column-major n x n matrices (a
// C-ordered stack read column-major: the transposes, as solvers.cpp
// explains) on one GPU, in place, one cuSOLVER call per matrix on the
// current stream, and checks cuSOLVER's info once at the end (one copy to
// the host). Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"

#include <cstdint>
#include <vector>

namespace kiln::detail::gpu_linalg {

/// LU factors of each matrix (getrf); `pivots` gets the 1-based row swaps
/// (count x n, on the host). Returns getrf's info of each matrix (> 0: a
/// zero pivot, the matrix is singular).
std::vector<int> lu(const array_base &m, std::int64_t count, int n, std::vector<int> &pivots);

/// Solves (op M_i) X_i = B_i for each matrix M_i of `m` (LU factors from
/// lu()) and each column-major n x k block of `b`, in place: op is the
/// transpose when `transposed`. `pivots` as lu() gave them.
void lu_solve(const array_base &m, const std::vector<int> &pivots, const array_base &b, std::int64_t count, int n,
              int k, bool transposed);

/// Cholesky factors (potrf, upper) of each matrix; false when one is not
/// positive definite.
bool cholesky_upper(const array_base &m, std::int64_t count, int n);

} // namespace kiln::detail::gpu_linalg
