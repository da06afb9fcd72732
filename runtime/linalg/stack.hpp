//===- runtime/linalg/stack.hpp - Stacks of column-major matrices ---------===//
//
// LAPACK and cuSOLVER take matrices in column-major order. A `stack` is a
// batch of them in one C-contiguous buffer of shape (count, cols, rows): each
// matrix rows x cols with leading dimension rows. A C-ordered NumPy stack
// read that way is its transposes (as_transposes, free); as_columns makes
// the matrices themselves (one strided copy) and to_rows brings a stack back
// to NumPy's C order, conjugated, masked to a triangle or scaled on the way
// (one pass, on the stack's device: matrix_map). Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"

#include <cstdint>
#include <limits>
#include <string>

namespace kiln::detail::linalg_stack {

struct stack {
  array_base data; ///< (count, cols, rows), C-contiguous
  std::int64_t count = 0, rows = 0, cols = 0;

  device where() const noexcept { return data.device(); }
  kiln::dtype dtype() const noexcept { return data.dtype(); }
  /// Matrix `i`'s first element.
  void *matrix(std::int64_t i) const noexcept {
    return static_cast<char *>(data.data()) + i * rows * cols * static_cast<std::int64_t>(itemsize(data.dtype()));
  }
};

/// NumPy's LinAlgError for an input that is not a stack of matrices (at
/// least 2-d), and with `square`, of square ones.
void check_matrices(const array_base &a, bool square);

/// The leading (batch) dimensions of a stack of matrices.
shape batch_of(const array_base &a);

/// (..., m, n) in dtype `t` as a stack of the n x m transposes (a C-ordered
/// copy: nothing is moved).
stack as_transposes(const array_base &a, kiln::dtype t);
/// (..., m, n) in dtype `t` as a stack of the m x n matrices themselves.
stack as_columns(const array_base &a, kiln::dtype t);
/// An uninitialized stack of `count` rows x cols matrices on `dev`.
stack make_stack(kiln::dtype t, std::int64_t count, std::int64_t rows, std::int64_t cols, device dev);

/// How to_rows and matrix_map change each element on the way: conjugate,
/// multiply column j by scale[b, j] (real, shape (count, >= cols)), keep
/// only the band lo <= j - i <= hi (zeros elsewhere), put ones on the
/// diagonal.
struct element_map {
  bool conj = false;
  const array_base *scale = nullptr;
  std::int64_t band_lo = std::numeric_limits<std::int64_t>::min() / 4;
  std::int64_t band_hi = std::numeric_limits<std::int64_t>::max() / 4;
  bool unit_diagonal = false;

  static element_map lower(std::int64_t k = 0) { return {.band_hi = k}; }
  static element_map upper(std::int64_t k = 0) { return {.band_lo = k}; }
};

/// Each matrix of `x` (a (count, rows, cols) view with any strides) mapped
/// by `m`, C-contiguous, on x's device (the embedded CUDA kernel on a GPU,
/// a loop on the host).
array_base matrix_map(const array_base &x, const element_map &m = {});

/// The first `rows` x `cols` corner of each matrix of `s` in NumPy's C order
/// with leading dimensions `batch`, mapped by `m`.
array_base to_rows(const stack &s, const shape &batch, std::int64_t rows, std::int64_t cols,
                   const element_map &m = {});
/// All of each matrix.
inline array_base to_rows(const stack &s, const shape &batch, const element_map &m = {}) {
  return to_rows(s, batch, s.rows, s.cols, m);
}

/// The stack's buffer read in C order, as NumPy (..., cols, rows) matrices:
/// each the transpose of the stack's matrix (no copy).
array_base transposes_of(const stack &s, const shape &batch);

/// `batch` followed by `a` and `b` (a matrix shape).
shape with_matrix(shape batch, std::int64_t a, std::int64_t b);
/// `batch` followed by `a`.
shape with_vector(shape batch, std::int64_t a);

/// LAPACK's sizes are 32-bit on the host: a value_error past them.
int lapack_size(std::int64_t n, const char *what);

} // namespace kiln::detail::linalg_stack
