//===- runtime/blas/gpu_matmul.cpp - Matrix products with cuBLAS ----------===//
//
// Row-major products through column-major cuBLAS: C = A B is computed as
// C^T = B^T A^T. Operands that are row-major or transposed (column-major)
// views are passed as they are with the matching transpose flag; other
// layouts, and batches whose strides do not collapse to one, are copied
// contiguous first. Batches run as one strided-batched GEMM on the current
// stream of the device.
//
//===----------------------------------------------------------------------===//
#include "cublas.hpp"
#include "matmul_plan.hpp"

#include "kiln/error.hpp"
#include "runtime/cuda/driver.hpp"

#include <climits>
#include <complex>
#include <optional>
#include <string>

namespace kiln::detail::blas {
namespace {

/// One operand as cuBLAS sees it (column-major).
struct gemm_operand {
  cublasOperation_t op = CUBLAS_OP_N;
  std::int64_t ld = 1;
  std::int64_t batch_stride = 0;
  const char *ptr = nullptr;
};

/// The stride s with offset(flat batch index t) = t * s, if one exists.
std::optional<std::int64_t> collapse_batch(const shape &batch,
                                           const shape &strides) {
  std::int64_t s = 0;
  for (std::size_t d = batch.size(); d-- > 0;)
    if (batch[d] != 1) {
      s = strides[d];
      break;
    }
  std::int64_t expected = s;
  for (std::size_t d = batch.size(); d-- > 0;) {
    if (batch[d] != 1 && strides[d] != expected)
      return std::nullopt;
    expected *= batch[d];
  }
  return s;
}

/// The rows x cols matrix with strides (rs, cs) as a column-major cuBLAS
/// operand of the transposed product: a row-major matrix is its own
/// transpose in column-major order (op N), a column-major one needs op T.
std::optional<std::pair<cublasOperation_t, std::int64_t>>
classify(std::int64_t rows, std::int64_t cols, std::int64_t rs,
         std::int64_t cs) {
  if (cols <= 1 || cs == 1) {
    std::int64_t ld = rows <= 1 ? std::max<std::int64_t>(cols, 1) : rs;
    if (ld >= std::max<std::int64_t>(cols, 1))
      return std::make_pair(CUBLAS_OP_N, ld);
  }
  if (rows <= 1 || rs == 1) {
    std::int64_t ld = cols <= 1 ? std::max<std::int64_t>(rows, 1) : cs;
    if (ld >= std::max<std::int64_t>(rows, 1))
      return std::make_pair(CUBLAS_OP_T, ld);
  }
  return std::nullopt;
}

/// Describes `x` for cuBLAS, first copying it contiguous (and, when its batch
/// strides do not collapse, broadcast to the full batch) where needed.
/// `keep` holds any copy alive.
gemm_operand prepare(const array_base &x, bool first, const matmul_plan &p,
                     array_base &keep) {
  const std::int64_t rows = first ? p.n : p.k, cols = first ? p.k : p.m;
  auto attempt = [&](const array_base &y) -> std::optional<gemm_operand> {
    operand_layout l = layout_of(y, first, p);
    auto mat = classify(rows, cols, l.row_stride, l.col_stride);
    auto bs = collapse_batch(p.batch, l.batch_strides);
    if (!mat || !bs)
      return std::nullopt;
    gemm_operand g;
    g.op = mat->first;
    g.ld = mat->second;
    g.batch_stride = *bs;
    g.ptr = static_cast<const char *>(y.data());
    return g;
  };
  if (auto g = attempt(x))
    return *g;
  // Contiguous copy; broadcast over the batch first where that is what
  // keeps the batch strides from collapsing.
  keep = detail::copy(x, p.result);
  if (auto g = attempt(keep))
    return *g;
  shape full = p.batch;
  if (x.ndim() == 1) {
    full.push_back(x.shape()[0]);
  } else {
    full.push_back(x.shape()[x.ndim() - 2]);
    full.push_back(x.shape()[x.ndim() - 1]);
  }
  keep = detail::copy(detail::broadcast_to(x, full), p.result);
  if (auto g = attempt(keep))
    return *g;
  throw value_error(
      "internal error: matmul operand layout not usable by cuBLAS");
}

void check_int(std::int64_t v, const char *what) {
  if (v > INT_MAX)
    throw value_error(std::string("matmul: ") + what + " of " +
                      std::to_string(v) +
                      " exceeds what cuBLAS takes (2^31 - 1)");
}

template <class R> struct gemm_fns;
template <> struct gemm_fns<float> {
  static auto one(const cublas::api &l) { return l.cublasSgemm_v2; }
  static auto batched(const cublas::api &l) {
    return l.cublasSgemmStridedBatched;
  }
  static constexpr const char *one_name = "cublasSgemm_v2",
                              *batched_name = "cublasSgemmStridedBatched";
  using native = float;
};
template <> struct gemm_fns<double> {
  static auto one(const cublas::api &l) { return l.cublasDgemm_v2; }
  static auto batched(const cublas::api &l) {
    return l.cublasDgemmStridedBatched;
  }
  static constexpr const char *one_name = "cublasDgemm_v2",
                              *batched_name = "cublasDgemmStridedBatched";
  using native = double;
};
template <> struct gemm_fns<std::complex<float>> {
  static auto one(const cublas::api &l) { return l.cublasCgemm_v2; }
  static auto batched(const cublas::api &l) {
    return l.cublasCgemmStridedBatched;
  }
  static constexpr const char *one_name = "cublasCgemm_v2",
                              *batched_name = "cublasCgemmStridedBatched";
  using native = cuComplex;
};
template <> struct gemm_fns<std::complex<double>> {
  static auto one(const cublas::api &l) { return l.cublasZgemm_v2; }
  static auto batched(const cublas::api &l) {
    return l.cublasZgemmStridedBatched;
  }
  static constexpr const char *one_name = "cublasZgemm_v2",
                              *batched_name = "cublasZgemmStridedBatched";
  using native = cuDoubleComplex;
};

template <class R>
void run(const cublas::api &lib, cublasHandle_t h, const matmul_plan &p,
         const gemm_operand &ga, const gemm_operand &gb,
         const array_base &out) {
  using F = gemm_fns<R>;
  using N = typename F::native;
  static_assert(sizeof(N) == sizeof(R));
  const R one(1), zero(0);
  const auto *alpha = reinterpret_cast<const N *>(&one);
  const auto *beta = reinterpret_cast<const N *>(&zero);
  const auto *A = reinterpret_cast<const N *>(gb.ptr); // cuBLAS's A is our B
  const auto *B = reinterpret_cast<const N *>(ga.ptr);
  auto *C = static_cast<N *>(out.data());
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n),
            k = static_cast<int>(p.k);
  const std::int64_t count = p.batch.numel();
  if (count == 1) {
    cublas::check(lib,
                  F::one(lib)(h, gb.op, ga.op, m, n, k, alpha, A,
                              static_cast<int>(gb.ld), B,
                              static_cast<int>(ga.ld), beta, C, m),
                  F::one_name);
  } else {
    cublas::check(lib,
                  F::batched(lib)(h, gb.op, ga.op, m, n, k, alpha, A,
                                  static_cast<int>(gb.ld), gb.batch_stride, B,
                                  static_cast<int>(ga.ld), ga.batch_stride,
                                  beta, C, m, static_cast<long long>(p.n * p.m),
                                  static_cast<int>(count)),
                  F::batched_name);
  }
}

} // namespace

void gpu_matmul(const matmul_plan &p, const array_base &a, const array_base &b,
                const array_base &out) {
  const std::int64_t count = p.batch.numel();
  if (count == 0 || p.n == 0 || p.m == 0)
    return;
  const stream s = stream::current(p.dev);
  if (p.k == 0) { // an empty sum: zeros
    std::complex<double> zero{};
    detail::fill(out, &zero,
                 s); // zero bytes are 0 in every float and complex dtype
    return;
  }
  check_int(p.n, "dimension n");
  check_int(p.k, "dimension k");
  check_int(p.m, "dimension m");
  check_int(count, "batch count");
  cuda::make_current(p.dev.index());
  const cublas::api &lib = cublas::require();
  cublasHandle_t h = cublas::handle(lib, p.dev);
  cublas::check(
      lib,
      lib.cublasSetStream_v2(h, static_cast<cudaStream_t>(s.native_handle())),
      "cublasSetStream_v2");

  array_base keep_a, keep_b;
  const array_base &a2 =
      a.dtype() == p.result ? a : (keep_a = detail::copy(a, p.result));
  const array_base &b2 =
      b.dtype() == p.result ? b : (keep_b = detail::copy(b, p.result));
  array_base copy_a, copy_b;
  const gemm_operand ga = prepare(a2, true, p, copy_a);
  const gemm_operand gb = prepare(b2, false, p, copy_b);
  check_int(ga.ld, "leading dimension");
  check_int(gb.ld, "leading dimension");
  switch (p.result) {
  case dtype::float32:
    run<float>(lib, h, p, ga, gb, out);
    break;
  case dtype::float64:
    run<double>(lib, h, p, ga, gb, out);
    break;
  case dtype::complex64:
    run<std::complex<float>>(lib, h, p, ga, gb, out);
    break;
  case dtype::complex128:
    run<std::complex<double>>(lib, h, p, ga, gb, out);
    break;
  default:
    throw value_error("internal error: cuBLAS matmul on " +
                      std::string(name(p.result)));
  }
  // Temporaries (keep_*, copy_*) return to the stream-ordered pool here; work
  // queued later on the same stream may reuse them safely.
}

} // namespace kiln::detail::blas
