//===- runtime/blas/host_matmul.cpp - Matrix products on the host ---------===//
//
// Float and complex products run in the CPU BLAS when one is loaded
// (host_blas.hpp: OpenBLAS's gemm), each matrix of a batch passed where it
// lies when its rows or columns are contiguous (as is, or transposed) and
// its type is the result's, packed otherwise. Everything else — integers,
// bools, no BLAS — is a cache-blocked product: each matrix of a batch is
// packed into contiguous row-major buffers of the result type, then
// multiplied in blocks, accumulating in the result type (integers wrap,
// bools are or-of-ands, as NumPy).
//
//===----------------------------------------------------------------------===//
#include "host_blas.hpp"
#include "matmul_plan.hpp"

#include "runtime/ops/host_loop.hpp"
#include "runtime/ops/scalar_math.hpp"

#include <algorithm>
#include <complex>
#include <limits>
#include <memory>
#include <type_traits>
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
inline constexpr bool blas_type =
    std::is_same_v<R, float> || std::is_same_v<R, double> ||
    std::is_same_v<R, std::complex<float>> || std::is_same_v<R, std::complex<double>>;

/// One operand matrix (rows x cols) as gemm takes it: where it lies when
/// one of its dimensions is contiguous and its type is R (transposed when
/// its columns are), else packed into `buffer` (made on first use).
template <class R> struct gemm_operand {
  const R *data = nullptr;
  int ld = 0;
  int op = host_blas::no_trans;
};

template <class R>
gemm_operand<R> gemm_view(const array_base &x, std::int64_t offset, std::int64_t rows, std::int64_t cols,
                          std::int64_t rs, std::int64_t cs, std::unique_ptr<R[]> &buffer) {
  constexpr std::int64_t int_max = std::numeric_limits<int>::max();
  if (x.dtype() == dtype_of<R>) {
    const R *base = static_cast<const R *>(x.data()) + offset;
    if (cs == 1 && rs >= std::max<std::int64_t>(cols, 1) && rs <= int_max)
      return {base, static_cast<int>(rs), host_blas::no_trans};
    if (rs == 1 && cs >= std::max<std::int64_t>(rows, 1) && cs <= int_max)
      return {base, static_cast<int>(cs), host_blas::trans};
  }
  if (!buffer)
    buffer = std::make_unique<R[]>(static_cast<std::size_t>(rows * cols));
  pack<R>(x, offset, rows, cols, rs, cs, buffer.get());
  return {buffer.get(), static_cast<int>(std::max<std::int64_t>(cols, 1)), host_blas::no_trans};
}

template <class R>
void gemm(const host_blas::api &blas, int n, int m, int k, const gemm_operand<R> &a, const gemm_operand<R> &b, R *c) {
  const int ldc = std::max(m, 1);
  if constexpr (std::is_same_v<R, float>) {
    blas.sgemm(host_blas::row_major, a.op, b.op, n, m, k, 1.0f, a.data, a.ld, b.data, b.ld, 0.0f, c, ldc);
  } else if constexpr (std::is_same_v<R, double>) {
    blas.dgemm(host_blas::row_major, a.op, b.op, n, m, k, 1.0, a.data, a.ld, b.data, b.ld, 0.0, c, ldc);
  } else {
    const R one(1), zero(0);
    auto *fn = std::is_same_v<R, std::complex<float>> ? blas.cgemm : blas.zgemm;
    fn(host_blas::row_major, a.op, b.op, n, m, k, &one, a.data, a.ld, b.data, b.ld, &zero, c, ldc);
  }
}

/// The next batch index (C order), moving both operands' offsets.
void next_batch(const matmul_plan &p, const operand_layout &la, const operand_layout &lb,
                std::vector<std::int64_t> &idx, std::int64_t &aoff, std::int64_t &boff) {
  for (std::size_t d = p.batch.size(); d-- > 0;) {
    aoff += la.batch_strides[d];
    boff += lb.batch_strides[d];
    if (++idx[d] < p.batch[d])
      return;
    aoff -= la.batch_strides[d] * p.batch[d];
    boff -= lb.batch_strides[d] * p.batch[d];
    idx[d] = 0;
  }
}

/// The product through the BLAS; false when it cannot take it (a dimension
/// past 32-bit CBLAS's reach).
template <class R>
bool run_blas(const host_blas::api &blas, const matmul_plan &p, const array_base &a, const array_base &b,
              const array_base &out) {
  constexpr std::int64_t int_max = std::numeric_limits<int>::max();
  if (p.n > int_max || p.m > int_max || p.k > int_max)
    return false;
  const operand_layout la = layout_of(a, true, p), lb = layout_of(b, false, p);
  R *c = static_cast<R *>(out.data());
  const std::int64_t count = p.batch.numel(), nm = p.n * p.m;
  if (count == 0 || nm == 0)
    return true;
  if (p.k == 0) {
    std::fill(c, c + count * nm, R(0));
    return true;
  }
  std::unique_ptr<R[]> abuf, bbuf; // made when an operand must be packed
  std::vector<std::int64_t> idx(p.batch.size(), 0);
  std::int64_t aoff = 0, boff = 0;
  for (std::int64_t t = 0; t < count; ++t) {
    const gemm_operand<R> ga = gemm_view<R>(a, aoff, p.n, p.k, la.row_stride, la.col_stride, abuf);
    const gemm_operand<R> gb = gemm_view<R>(b, boff, p.k, p.m, lb.row_stride, lb.col_stride, bbuf);
    gemm<R>(blas, int(p.n), int(p.m), int(p.k), ga, gb, c + t * nm);
    next_batch(p, la, lb, idx, aoff, boff);
  }
  return true;
}

template <class R>
void run(const matmul_plan &p, const array_base &a, const array_base &b,
         const array_base &out) {
  if constexpr (blas_type<R>)
    if (const host_blas::api *blas = host_blas::get())
      if (run_blas<R>(*blas, p, a, b, out))
        return;
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
    next_batch(p, la, lb, idx, aoff, boff);
  }
}

} // namespace

void host_matmul(const matmul_plan &p, const array_base &a, const array_base &b,
                 const array_base &out) {
  host::dispatch(p.result, [&]<class R>() { run<R>(p, a, b, out); });
}

} // namespace kiln::detail::blas
