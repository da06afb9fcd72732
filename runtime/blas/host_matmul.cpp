//===- runtime/blas/host_matmul.cpp - Matrix products on the host ---------===//
//
// A cache-blocked matrix product for every dtype: each matrix of a batch is
// packed into contiguous row-major buffers of the result type, then
// multiplied in blocks, accumulating in the result type (integers wrap,
// bools are or-of-ands, as NumPy).
//
//===----------------------------------------------------------------------===//
#include "matmul_plan.hpp"

#include "runtime/ops/host_loop.hpp"
#include "runtime/ops/scalar_math.hpp"

#include <algorithm>
#include <complex>
#include <memory>
#include <vector>

namespace kiln::detail::blas {
namespace {

/// c + a * b in the result type.
template <class R> inline R multiply_add(R c, R a, R b) {
  if constexpr (host::is_complex_v<R>) {
    // Plain complex product (as BLAS): no C99 inf/NaN recovery.
    using V = typename R::value_type;
    const V ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
    return R(c.real() + (ar * br - ai * bi), c.imag() + (ar * bi + ai * br));
  } else {
    return math::add(c, math::multiply(a, b));
  }
}

/// C (n x m) += A (n x k) B (k x m), all C-contiguous.
template <class R>
void blocked_gemm(std::int64_t n, std::int64_t k, std::int64_t m, const R *A,
                  const R *B, R *C) {
  constexpr std::int64_t bi = 64, bk = 128, bj = 256;
  for (std::int64_t i0 = 0; i0 < n; i0 += bi)
    for (std::int64_t p0 = 0; p0 < k; p0 += bk)
      for (std::int64_t j0 = 0; j0 < m; j0 += bj) {
        const std::int64_t i1 = std::min(n, i0 + bi), p1 = std::min(k, p0 + bk),
                           j1 = std::min(m, j0 + bj);
        for (std::int64_t i = i0; i < i1; ++i) {
          R *c = C + i * m;
          for (std::int64_t p = p0; p < p1; ++p) {
            const R a = A[i * k + p];
            const R *b = B + p * m;
            for (std::int64_t j = j0; j < j1; ++j)
              c[j] = multiply_add(c[j], a, b[j]);
          }
        }
      }
}

/// Copies the rows x cols matrix at element `offset` of `x` (strides rs, cs)
/// into `dst` (row-major), converting to R.
template <class R>
void pack(const array_base &x, std::int64_t offset, std::int64_t rows,
          std::int64_t cols, std::int64_t rs, std::int64_t cs, R *dst) {
  host::dispatch(x.dtype(), [&]<class S>() {
    const S *src = static_cast<const S *>(x.data()) + offset;
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        dst[i * cols + j] = host::convert<R>(src[i * rs + j * cs]);
  });
}

template <class R>
void run(const matmul_plan &p, const array_base &a, const array_base &b,
         const array_base &out) {
  const operand_layout la = layout_of(a, true, p), lb = layout_of(b, false, p);
  R *c = static_cast<R *>(out.data());
  const std::int64_t count = p.batch.numel(), nm = p.n * p.m;
  std::fill(c, c + count * nm, R(0));
  if (count == 0 || nm == 0 || p.k == 0)
    return;
  auto abuf = std::make_unique<R[]>(static_cast<std::size_t>(p.n * p.k));
  auto bbuf = std::make_unique<R[]>(static_cast<std::size_t>(p.k * p.m));
  std::vector<std::int64_t> idx(p.batch.size(), 0);
  std::int64_t aoff = 0, boff = 0;
  for (std::int64_t t = 0; t < count; ++t) {
    pack<R>(a, aoff, p.n, p.k, la.row_stride, la.col_stride, abuf.get());
    pack<R>(b, boff, p.k, p.m, lb.row_stride, lb.col_stride, bbuf.get());
    blocked_gemm<R>(p.n, p.k, p.m, abuf.get(), bbuf.get(), c + t * nm);
    // Next batch index (C order).
    for (std::size_t d = p.batch.size(); d-- > 0;) {
      aoff += la.batch_strides[d];
      boff += lb.batch_strides[d];
      if (++idx[d] < p.batch[d])
        break;
      aoff -= la.batch_strides[d] * p.batch[d];
      boff -= lb.batch_strides[d] * p.batch[d];
      idx[d] = 0;
    }
  }
}

} // namespace

void host_matmul(const matmul_plan &p, const array_base &a, const array_base &b,
                 const array_base &out) {
  host::dispatch(p.result, [&]<class R>() { run<R>(p, a, b, out); });
}

} // namespace kiln::detail::blas
