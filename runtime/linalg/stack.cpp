//===- runtime/linalg/stack.cpp - Stacks of column-major matrices ---------===//
#include "stack.hpp"

#include "solver_types.hpp"

#include "kiln/error.hpp"
#include "kiln/stream.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/kernels/gpu_kernels.hpp"
#include "runtime/parallel/thread_pool.hpp"

#include <complex>
#include <numeric>
#include <vector>

namespace kiln::detail::linalg_stack {
namespace {

using namespace linalg_types;

/// The axes of an n-d array with its last two swapped.
std::vector<std::int64_t> swap_last(std::int64_t ndim) {
  std::vector<std::int64_t> axes(static_cast<std::size_t>(ndim));
  std::iota(axes.begin(), axes.end(), std::int64_t{0});
  std::swap(axes[axes.size() - 1], axes[axes.size() - 2]);
  return axes;
}

template <class R> R conj_of(R v) {
  if constexpr (std::is_same_v<R, c64> || std::is_same_v<R, c128>)
    return std::conj(v);
  else
    return v;
}

} // namespace

void check_matrices(const array_base &a, bool square) {
  if (a.ndim() < 2)
    throw linalg_error(std::to_string(a.ndim()) +
                       "-dimensional array given. Array must be at least two-dimensional");
  if (square && a.shape()[a.ndim() - 2] != a.shape()[a.ndim() - 1])
    throw linalg_error("Last 2 dimensions of the array must be square");
}

shape batch_of(const array_base &a) {
  shape batch;
  for (std::int64_t d = 0; d + 2 < a.ndim(); ++d)
    batch.push_back(a.shape()[static_cast<std::size_t>(d)]);
  return batch;
}

shape with_matrix(shape batch, std::int64_t a, std::int64_t b) {
  batch.push_back(a);
  batch.push_back(b);
  return batch;
}

shape with_vector(shape batch, std::int64_t a) {
  batch.push_back(a);
  return batch;
}

stack make_stack(kiln::dtype t, std::int64_t count, std::int64_t rows, std::int64_t cols, device dev) {
  return {empty(t, shape{count, cols, rows}, dev), count, rows, cols};
}

stack as_transposes(const array_base &a, kiln::dtype t) {
  const std::int64_t m = a.shape()[a.ndim() - 2], n = a.shape()[a.ndim() - 1], count = batch_of(a).numel();
  return {reshape(copy(a, t), shape{count, m, n}), count, n, m};
}

stack as_columns(const array_base &a, kiln::dtype t) {
  const std::int64_t m = a.shape()[a.ndim() - 2], n = a.shape()[a.ndim() - 1], count = batch_of(a).numel();
  const std::vector<std::int64_t> axes = swap_last(a.ndim());
  return {reshape(copy(transpose(a, axes), t), shape{count, n, m}), count, m, n};
}

array_base matrix_map(const array_base &x, const element_map &m) {
  const std::int64_t count = x.shape()[0], rows = x.shape()[1], cols = x.shape()[2];
  array_base out = empty(x.dtype(), shape{count, rows, cols}, x.device());
  if (out.size() == 0)
    return out;
  kernels::matrix_map_params p{};
  p.in = x.data();
  p.out = out.data();
  p.scale = m.scale ? m.scale->data() : nullptr;
  p.batch = count;
  p.rows = rows;
  p.cols = cols;
  p.in_batch = x.strides()[0];
  p.in_row = x.strides()[1];
  p.in_col = x.strides()[2];
  p.scale_batch = m.scale ? m.scale->strides()[0] : 0;
  p.band_lo = m.band_lo;
  p.band_hi = m.band_hi;
  p.conj = m.conj;
  p.unit_diagonal = m.unit_diagonal;
  if (!x.device().is_host()) {
    cuda::make_current(x.device().index());
    kernels::gpu::matrix_map(x.device().index(), x.dtype(), p, stream::current(x.device()).native_handle());
    return out;
  }
  with_type(x.dtype(), [&]<class R>() {
    using V = decltype(std::abs(R()));
    const R *in = static_cast<const R *>(p.in);
    R *o = static_cast<R *>(p.out);
    const V *scale = static_cast<const V *>(p.scale);
    parallel::parallel_for(count * rows, std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(cols, 1)),
                           [&](std::int64_t begin, std::int64_t end) {
                             for (std::int64_t r = begin; r < end; ++r) {
                               const std::int64_t b = r / rows, i = r % rows;
                               for (std::int64_t j = 0; j < cols; ++j) {
                                 R v;
                                 if (j - i < p.band_lo || j - i > p.band_hi)
                                   v = R(0);
                                 else if (p.unit_diagonal && i == j)
                                   v = R(1);
                                 else {
                                   v = in[b * p.in_batch + i * p.in_row + j * p.in_col];
                                   if (p.conj)
                                     v = conj_of(v);
                                   if (scale)
                                     v *= scale[b * p.scale_batch + j];
                                 }
                                 o[r * cols + j] = v;
                               }
                             }
                           });
  });
  return out;
}

array_base to_rows(const stack &s, const shape &batch, std::int64_t rows, std::int64_t cols, const element_map &m) {
  // Matrix b's element (i, j) is at b * rows * cols + j * rows + i.
  const array_base view = array_base::from_parts(s.data.storage(), s.dtype(), s.where(), shape{s.count, rows, cols},
                                                 shape{s.rows * s.cols, 1, s.rows}, s.data.offset());
  return reshape(matrix_map(view, m), with_matrix(batch, rows, cols));
}

array_base transposes_of(const stack &s, const shape &batch) {
  return reshape(s.data, with_matrix(batch, s.cols, s.rows));
}

int lapack_size(std::int64_t n, const char *what) {
  if (n > std::numeric_limits<int>::max())
    throw value_error(std::string("kiln::linalg: ") + what + " of " + std::to_string(n) +
                      " are past LAPACK's 32-bit sizes");
  return static_cast<int>(n);
}

} // namespace kiln::detail::linalg_stack
