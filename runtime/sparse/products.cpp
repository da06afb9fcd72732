//===- runtime/sparse/products.cpp - Sparse times dense, sparse times sparse
//
// The product of a CSR matrix with a dense vector or row-major matrix: on
// a GPU cuSPARSE's generic SpMV / SpMM, whose descriptor and preprocessed
// buffer are kept on the matrix (compressed::state), so a matrix's later
// products skip that work; on the host a loop over rows spread over the
// host backend's threads. The product of two sparse matrices: cuSPARSE's
// SpGEMM on a GPU, Gustavson's row by row on the host; either drops the
// exact zeros that cancellation leaves, as SciPy's csr_matmat does.
//
//===----------------------------------------------------------------------===//
#include "cusparse.hpp"
#include "host_parts.hpp"

#include "kiln/error.hpp"
#include "kiln/sparse.hpp"
#include "kiln/stream.hpp"
#include "runtime/array/array_internal.hpp"
#include "runtime/cuda/driver.hpp"
#include "runtime/cuda/toolkit_library.hpp"
#include "runtime/kernels/gpu_kernels.hpp"
#include "runtime/kernels/params.hpp"
#include "runtime/parallel/thread_pool.hpp"

#include <complex>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::sparse::detail {

using kiln::detail::copy;
using kiln::detail::empty;
using kiln::detail::reshape;
using kiln::detail::slice;
namespace {

using namespace host_parts;

/// What a GPU keeps on a matrix for its products.
struct gpu_state {
  std::mutex use;
  int device = 0;
  cusparseSpMatDescr_t mat = nullptr;
  array_base spmv_buffer; ///< preprocessed (SpMV) when spmv_ready
  bool spmv_ready = false;
  array_base spmm_buffer;
  std::int64_t spmm_columns = -1; ///< the K spmm_buffer was preprocessed for
  ~gpu_state() {
    if (!mat)
      return;
    try {
      kiln::detail::cuda::make_current(device);
      kiln::detail::cusparse::require().cusparseDestroySpMat(mat);
    } catch (...) { // errors at teardown are not reportable
    }
  }
};

std::mutex &state_mutex() {
  static std::mutex m;
  return m;
}

gpu_state &state_of(const compressed &a, const kiln::detail::cusparse::api &lib) {
  std::lock_guard<std::mutex> lock(state_mutex());
  if (!a.state) {
    auto s = std::make_shared<gpu_state>();
    s->device = a.data.device().index();
    kiln::detail::cusparse::check(
        lib.cusparseCreateCsr(&s->mat, a.rows, a.cols, a.data.size(),
                              a.indptr.data(), a.indices.data(), a.data.data(),
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_BASE_ZERO,
                              kiln::detail::cuda::data_type_of(a.data.dtype())),
        "cusparseCreateCsr");
    a.state = s;
  }
  return *static_cast<gpu_state *>(a.state.get());
}

/// RAII for the dense descriptors of one call.
struct dense_vector {
  const kiln::detail::cusparse::api &lib;
  cusparseDnVecDescr_t d = nullptr;
  dense_vector(const kiln::detail::cusparse::api &l, const array_base &x) : lib(l) {
    kiln::detail::cusparse::check(
        lib.cusparseCreateDnVec(&d, x.size(), x.data(),
                                kiln::detail::cuda::data_type_of(x.dtype())),
        "cusparseCreateDnVec");
  }
  ~dense_vector() { lib.cusparseDestroyDnVec(d); }
};
struct dense_matrix {
  const kiln::detail::cusparse::api &lib;
  cusparseDnMatDescr_t d = nullptr;
  dense_matrix(const kiln::detail::cusparse::api &l, const array_base &x) : lib(l) {
    kiln::detail::cusparse::check(
        lib.cusparseCreateDnMat(
            &d, x.shape()[0], x.shape()[1], x.shape()[1], x.data(),
            kiln::detail::cuda::data_type_of(x.dtype()), CUSPARSE_ORDER_ROW),
        "cusparseCreateDnMat");
  }
  ~dense_matrix() { lib.cusparseDestroyDnMat(d); }
};

/// alpha = 1 and beta = 0 as host values for cuSPARSE's generic calls of
/// compute type `type` (a complex constant's real part serves the real types).
struct unit_scalars {
  const void *one, *zero;
};
unit_scalars units_for(cudaDataType type) {
  static const std::complex<double> one_d(1, 0), zero_d(0, 0);
  static const std::complex<float> one_f(1, 0), zero_f(0, 0);
  const bool single = type == CUDA_R_32F || type == CUDA_C_32F;
  return single ? unit_scalars{&one_f, &zero_f} : unit_scalars{&one_d, &zero_d};
}

void gpu_multiply(const compressed &a, const array_base &x, const array_base &y) {
  namespace cs = kiln::detail::cusparse;
  const device dev = a.data.device();
  kiln::detail::cuda::make_current(dev.index());
  const cs::api &lib = cs::require();
  const stream s = stream::current(dev);
  cusparseHandle_t h = cs::handle(lib, dev, s.native_handle());
  gpu_state &st = state_of(a, lib);
  std::lock_guard<std::mutex> lock(st.use);
  const cudaDataType type = kiln::detail::cuda::data_type_of(a.data.dtype());
  const auto [one, zero] = units_for(type);
  if (x.ndim() == 1) {
    const dense_vector vx(lib, x), vy(lib, y);
    if (!st.spmv_ready) {
      std::size_t bytes = 0;
      cs::check(lib.cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, st.mat, vx.d, zero, vy.d, type,
                                            CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
                "cusparseSpMV_bufferSize");
      st.spmv_buffer = empty(dtype::uint8, shape{std::int64_t(std::max<std::size_t>(bytes, 1))}, dev);
      cs::check(lib.cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, st.mat, vx.d, zero, vy.d, type,
                                            CUSPARSE_SPMV_ALG_DEFAULT, st.spmv_buffer.data()),
                "cusparseSpMV_preprocess");
      st.spmv_ready = true;
    }
    cs::check(lib.cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, st.mat, vx.d, zero, vy.d, type,
                               CUSPARSE_SPMV_ALG_DEFAULT, st.spmv_buffer.data()),
              "cusparseSpMV");
    return;
  }
  const dense_matrix mx(lib, x), my(lib, y);
  const cusparseOperation_t n = CUSPARSE_OPERATION_NON_TRANSPOSE;
  if (st.spmm_columns != x.shape()[1]) {
    std::size_t bytes = 0;
    cs::check(lib.cusparseSpMM_bufferSize(h, n, n, one, st.mat, mx.d, zero, my.d, type, CUSPARSE_SPMM_ALG_DEFAULT, &bytes),
              "cusparseSpMM_bufferSize");
    st.spmm_buffer = empty(dtype::uint8, shape{std::int64_t(std::max<std::size_t>(bytes, 1))}, dev);
    cs::check(lib.cusparseSpMM_preprocess(h, n, n, one, st.mat, mx.d, zero, my.d, type, CUSPARSE_SPMM_ALG_DEFAULT,
                                          st.spmm_buffer.data()),
              "cusparseSpMM_preprocess");
    st.spmm_columns = x.shape()[1];
  }
  cs::check(lib.cusparseSpMM(h, n, n, one, st.mat, mx.d, zero, my.d, type, CUSPARSE_SPMM_ALG_DEFAULT,
                             st.spmm_buffer.data()),
            "cusparseSpMM");
}

/// The zeros among the values of `data` (on a GPU): kiln_count_zeros, then
/// one 8-byte read.
std::int64_t zeros_on_gpu(const array_base &data) {
  const device dev = data.device();
  const stream s = stream::current(dev);
  const array_base count = empty(dtype::int64, shape{}, dev);
  const std::int64_t zero = 0;
  kiln::detail::fill(count, &zero, s);
  kiln::detail::kernels::count_zeros_params p{data.data(), count.data(),
                                              data.size()};
  kiln::detail::kernels::gpu::count_zeros(dev.index(), data.dtype(), p,
                                          s.native_handle());
  std::int64_t zeros = 0;
  kiln::detail::item(count, &zeros);
  return zeros;
}

/// A cuSPARSE CSR descriptor of one call (SpGEMM's operands and result).
struct csr_descriptor {
  const kiln::detail::cusparse::api &lib;
  cusparseSpMatDescr_t d = nullptr;
  csr_descriptor(const kiln::detail::cusparse::api &l, std::int64_t rows,
                 std::int64_t cols, const compressed *m, dtype t)
      : lib(l) {
    kiln::detail::cusparse::check(
        lib.cusparseCreateCsr(&d, rows, cols, m ? m->data.size() : 0,
                              m ? m->indptr.data() : nullptr,
                              m ? m->indices.data() : nullptr,
                              m ? m->data.data() : nullptr, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                              kiln::detail::cuda::data_type_of(t)),
        "cusparseCreateCsr");
  }
  ~csr_descriptor() { lib.cusparseDestroySpMat(d); }
};

/// a b of two canonical CSR matrices on a GPU with cuSPARSE's SpGEMM
/// (CUSPARSE_SPGEMM_DEFAULT): work estimation, compute, then the product
/// copied into arrays from Kiln's pool once its size is known. The result's
/// rows come out sorted and without duplicates (checked by the unit tests).
compressed gpu_spgemm(const compressed &a, const compressed &b) {
  namespace cs = kiln::detail::cusparse;
  const device dev = a.data.device();
  const dtype t = a.data.dtype();
  kiln::detail::cuda::make_current(dev.index());
  const cs::api &lib = cs::require();
  cusparseHandle_t h =
      cs::handle(lib, dev, stream::current(dev).native_handle());
  const cudaDataType type = kiln::detail::cuda::data_type_of(t);
  const auto [one, zero] = units_for(type);
  const csr_descriptor da(lib, a.rows, a.cols, &a, t),
      db(lib, b.rows, b.cols, &b, t), dc(lib, a.rows, b.cols, nullptr, t);
  struct spgemm_descriptor {
    const cs::api &lib;
    cusparseSpGEMMDescr_t d = nullptr;
    explicit spgemm_descriptor(const cs::api &l) : lib(l) {
      cs::check(lib.cusparseSpGEMM_createDescr(&d),
                "cusparseSpGEMM_createDescr");
    }
    ~spgemm_descriptor() { lib.cusparseSpGEMM_destroyDescr(d); }
  } g(lib);
  const cusparseOperation_t n = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
  auto buffer = [&](std::size_t bytes) {
    return empty(dtype::uint8,
                 shape{std::int64_t(std::max<std::size_t>(bytes, 1))}, dev);
  };
  std::size_t bytes1 = 0, bytes2 = 0;
  cs::check(lib.cusparseSpGEMM_workEstimation(h, n, n, one, da.d, db.d, zero,
                                              dc.d, type, alg, g.d, &bytes1,
                                              nullptr),
            "cusparseSpGEMM_workEstimation");
  const array_base work1 = buffer(bytes1);
  cs::check(lib.cusparseSpGEMM_workEstimation(h, n, n, one, da.d, db.d, zero,
                                              dc.d, type, alg, g.d, &bytes1,
                                              work1.data()),
            "cusparseSpGEMM_workEstimation");
  cs::check(lib.cusparseSpGEMM_compute(h, n, n, one, da.d, db.d, zero, dc.d,
                                       type, alg, g.d, &bytes2, nullptr),
            "cusparseSpGEMM_compute");
  const array_base work2 = buffer(bytes2);
  cs::check(lib.cusparseSpGEMM_compute(h, n, n, one, da.d, db.d, zero, dc.d,
                                       type, alg, g.d, &bytes2, work2.data()),
            "cusparseSpGEMM_compute");
  std::int64_t rows = 0, cols = 0, nnz = 0;
  cs::check(lib.cusparseSpMatGetSize(dc.d, &rows, &cols, &nnz),
            "cusparseSpMatGetSize");
  if (nnz > std::numeric_limits<index_t>::max())
    throw value_error("kiln::sparse: a product of " + std::to_string(nnz) +
                      " non-zeros is past int32 indices");
  compressed out;
  out.rows = a.rows;
  out.cols = b.cols;
  out.by_rows = true;
  out.canonical = true;
  out.indptr = empty(dtype::int32, shape{a.rows + 1}, dev);
  out.indices = empty(dtype::int32, shape{nnz}, dev);
  out.data = empty(t, shape{nnz}, dev);
  cs::check(lib.cusparseCsrSetPointers(dc.d, out.indptr.data(),
                                       out.indices.data(), out.data.data()),
            "cusparseCsrSetPointers");
  cs::check(lib.cusparseSpGEMM_copy(h, n, n, one, da.d, db.d, zero, dc.d, type,
                                    alg, g.d),
            "cusparseSpGEMM_copy");
  return out;
}

template <class V> void host_multiply(const compressed &a, const array_base &x, const array_base &y) {
  const index_t *ptr = static_cast<const index_t *>(a.indptr.data()), *idx = static_cast<const index_t *>(a.indices.data());
  const V *val = static_cast<const V *>(a.data.data()), *xv = static_cast<const V *>(x.data());
  V *yv = static_cast<V *>(y.data());
  const std::int64_t k = x.ndim() == 1 ? 1 : x.shape()[1];
  const std::int64_t grain = std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(1, k * (a.data.size() / std::max<std::int64_t>(a.rows, 1) + 1)));
  kiln::detail::parallel::parallel_for(a.rows, grain, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      V *row = yv + i * k;
      if (k == 1) {
        V sum(0);
        for (index_t p = ptr[i]; p < ptr[i + 1]; ++p)
          sum += val[p] * xv[idx[p]];
        row[0] = sum;
        continue;
      }
      std::fill(row, row + k, V(0));
      for (index_t p = ptr[i]; p < ptr[i + 1]; ++p) {
        const V v = val[p];
        const V *xr = xv + std::int64_t(idx[p]) * k;
        for (std::int64_t j = 0; j < k; ++j)
          row[j] += v * xr[j];
      }
    }
  });
}

} // namespace

array_base multiply(const compressed &a0, const array_base &x) {
  const compressed a = a0.by_rows ? a0 : reorient(a0);
  kiln::detail::check_same_device(a.data.device(), x.device());
  if (x.ndim() != 1 && x.ndim() != 2)
    throw value_error("kiln::sparse: the dense operand of a product must be 1-d or 2-d");
  if (x.shape()[0] != a.cols)
    throw value_error("dimension mismatch");
  const dtype t = a.data.dtype();
  const array_base xx = x.dtype() == t && x.is_contiguous() ? x : copy(x, t);
  const shape out_shape = x.ndim() == 1 ? shape{a.rows} : shape{a.rows, x.shape()[1]};
  array_base y = empty(t, out_shape, x.device());
  if (y.size() == 0)
    return y;
  if (a.data.size() == 0 || xx.size() == 0) {
    const std::complex<double> zero{};
    kiln::detail::fill(y, &zero, stream::current(y.device()));
    return y;
  }
  if (!x.device().is_host()) {
    gpu_multiply(a0.by_rows ? a0 : a, xx, y); // a CSR matrix keeps its GPU state
    return y;
  }
  with_value(t, [&]<class V>() { host_multiply<V>(a, xx, y); });
  return y;
}

compressed multiply(const compressed &a, const compressed &b) {
  if (a.cols != b.rows)
    throw value_error("dimension mismatch");
  if (!(a.data.device() == b.data.device()))
    throw device_error("sparse matrices on different devices: " + a.data.device().str() + " and " +
                       b.data.device().str());
  const device dev = a.data.device();
  const compressed x = a.by_rows ? a : reorient(a),
                   y = b.by_rows ? b : reorient(b);
  if (!dev.is_host() && x.data.size() > 0 && y.data.size() > 0) {
    compressed out = gpu_spgemm(x.canonical ? x : canonical(x),
                                y.canonical ? y : canonical(y));
    // SciPy keeps no zero a cancellation leaves: one count read back, and
    // only a product that has such zeros goes through eliminate_zeros.
    return zeros_on_gpu(out.data) == 0 ? out : without_zeros(out);
  }
  compressed out;
  out.rows = a.rows;
  out.cols = b.cols;
  out.by_rows = true;
  with_value(a.data.dtype(), [&]<class V>() {
    const host_matrix<V> hx = host_matrix<V>::of(x), hy = host_matrix<V>::of(y);
    // Gustavson: row i of the product accumulates rows of y.
    host_matrix<V> c;
    c.major = a.rows;
    c.ptr.push_back(0);
    std::vector<V> acc(static_cast<std::size_t>(b.cols), V(0));
    std::vector<std::int64_t> mark(static_cast<std::size_t>(b.cols), -1);
    std::vector<index_t> touched;
    for (std::int64_t i = 0; i < a.rows; ++i) {
      touched.clear();
      for (index_t p = hx.ptr[i]; p < hx.ptr[i + 1]; ++p)
        for (index_t q = hy.ptr[hx.idx[p]]; q < hy.ptr[hx.idx[p] + 1]; ++q) {
          const index_t j = hy.idx[q];
          if (mark[j] != i) {
            mark[j] = i;
            acc[j] = V(0);
            touched.push_back(j);
          }
          acc[j] += hx.val[p] * hy.val[q];
        }
      std::sort(touched.begin(), touched.end());
      for (index_t j : touched)
        if (acc[j] != V(0)) { // as SciPy's csr_matmat
          c.idx.push_back(j);
          c.val.push_back(acc[j]);
        }
      c.ptr.push_back(index_t(c.idx.size()));
    }
    c.sorted = true;
    c.store(out, dev);
  });
  return out;
}

} // namespace kiln::sparse::detail
