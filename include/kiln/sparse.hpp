//===- kiln/sparse.hpp - Sparse matrices ---------------------------*- C++ -*-===//
//
// kiln::sparse follows scipy.sparse's (and cupyx.scipy.sparse's) matrices:
// coo_matrix, csr_matrix and csc_matrix of float32, float64, complex64 or
// complex128 values with int32 indices, built from (data, (row, col)), from
// (data, indices, indptr) or from a dense array; conversions (a CSR or CSC
// matrix made from COO is canonical: sorted, duplicates summed), toarray,
// T(), sums, the diagonal, +, scalar *, the product with a dense vector or
// matrix (dot, matmul: cuSPARSE's SpMV/SpMM on a GPU, with its
// preprocessing kept on the matrix; multithreaded CSR loops on the host),
// the product of two sparse matrices, and kiln::sparse::linalg::cg. See
// docs/operations.md, "Sparse matrices".
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/promote.hpp"

#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>

namespace kiln::sparse {

/// The index type of every sparse matrix (SciPy's default).
using index_t = std::int32_t;

/// The value types a sparse matrix holds (cuSPARSE's).
template <class T>
concept value = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::complex<float>> ||
                std::is_same_v<T, std::complex<double>>;

namespace detail {
/// A compressed matrix, untyped: CSR (by_rows) or CSC. `state` holds what a
/// GPU prepared for products (cuSPARSE's descriptors and buffers).
struct compressed {
  array_base data, indices, indptr;
  std::int64_t rows = 0, cols = 0;
  bool by_rows = true;
  bool canonical = false; ///< indices sorted within each row (column), no duplicates
  mutable std::shared_ptr<void> state;
};
struct coo {
  array_base data, row, col;
  std::int64_t rows = 0, cols = 0;
};

compressed make_compressed(const array_base &data, const array_base &indices, const array_base &indptr,
                           const shape &s, bool by_rows);
coo make_coo(const array_base &data, const array_base &row, const array_base &col, const std::optional<shape> &s);
coo coo_of_dense(const array_base &dense);
compressed compress(const coo &c, bool by_rows);
coo expand(const compressed &m);
compressed reorient(const compressed &m); ///< the same matrix in the other layout, canonical
compressed canonical(const compressed &m);
compressed without_zeros(const compressed &m);
compressed transposed(const compressed &m); ///< CSR <-> CSC of the transpose, no copy
array_base to_dense(const compressed &m);
array_base to_dense(const coo &c);
compressed add(const compressed &a, const compressed &b);
compressed scaled(const compressed &a, const std::complex<double> &s);
array_base multiply(const compressed &a, const array_base &x);
compressed multiply(const compressed &a, const compressed &b);
array_base diagonal(const compressed &a);
array_base sum(const compressed &a, std::optional<int> axis);
compressed moved(const compressed &a, device dev);
coo moved(const coo &a, device dev);
compressed as_type(const compressed &a, dtype t);
} // namespace detail

template <value V> class coo_matrix;
template <value V, bool Rows> class compressed_matrix;
/// CSR: row i's values are data[indptr[i]:indptr[i+1]], in columns indices[...].
template <value T> using csr_matrix = compressed_matrix<T, true>;
/// CSC: column j's values are data[indptr[j]:indptr[j+1]], in rows indices[...].
template <value T> using csc_matrix = compressed_matrix<T, false>;

template <value V, bool Rows> class compressed_matrix {
public:
  using value_type = V;
  compressed_matrix() = default;
  /// SciPy's csr_matrix((data, indices, indptr), shape) (csc_matrix: by
  /// columns). The arrays are checked (value_error, SciPy's messages) and
  /// kept as given: duplicates and unsorted indices stay until
  /// sum_duplicates().
  compressed_matrix(const array<V> &data, const array<index_t> &indices, const array<index_t> &indptr, const shape &s)
      : m_(detail::make_compressed(data, indices, indptr, s, Rows)) {}
  /// The non-zeros of a 2-d array.
  explicit compressed_matrix(const array<V> &dense) : m_(detail::compress(detail::coo_of_dense(dense), Rows)) {}
  explicit compressed_matrix(detail::compressed m) : m_(std::move(m)) {}

  kiln::shape shape() const { return kiln::shape{m_.rows, m_.cols}; }
  std::int64_t nnz() const { return m_.data.size(); }
  kiln::device device() const { return m_.data.device(); }
  array<V> data() const { return array<V>(m_.data); }
  array<index_t> indices() const { return array<index_t>(m_.indices); }
  array<index_t> indptr() const { return array<index_t>(m_.indptr); }
  /// Sorted indices within each row (column) and no duplicates.
  bool has_canonical_format() const { return m_.canonical; }
  const detail::compressed &parts() const { return m_; }

  csr_matrix<V> tocsr() const {
    if constexpr (Rows)
      return *this;
    else
      return csr_matrix<V>(detail::reorient(m_));
  }
  csc_matrix<V> tocsc() const {
    if constexpr (!Rows)
      return *this;
    else
      return csc_matrix<V>(detail::reorient(m_));
  }
  coo_matrix<V> tocoo() const;
  array<V> toarray() const { return array<V>(detail::to_dense(m_)); }
  /// The transpose: CSR becomes CSC (and back) on the same arrays.
  compressed_matrix<V, !Rows> T() const { return compressed_matrix<V, !Rows>(detail::transposed(m_)); }
  compressed_matrix<V, !Rows> transpose() const { return T(); }
  /// The matrix on `dev` (its arrays copied).
  compressed_matrix to(kiln::device dev) const { return compressed_matrix(detail::moved(m_, dev)); }

  /// Sorts the indices and sums duplicates, in place (SciPy's).
  void sum_duplicates() {
    if (!m_.canonical)
      m_ = detail::canonical(m_);
  }
  /// Drops stored zeros, in place.
  void eliminate_zeros() { m_ = detail::without_zeros(m_); }
  /// The main diagonal, min(rows, cols) values.
  array<V> diagonal() const { return array<V>(detail::diagonal(m_)); }
  /// SciPy's sum: of every value (a 0-d array), or over axis 0 (shape (1,
  /// cols)) or 1 (shape (rows, 1)).
  array<V> sum(std::optional<int> axis = {}) const { return array<V>(detail::sum(m_, axis)); }

  /// The product with a dense vector (N,) -> (M,) or matrix (N, K) -> (M, K).
  template <element U> array<promote_t<V, U>> dot(const array<U> &x) const {
    using R = promote_t<V, U>;
    static_assert(value<R>, "kiln::sparse: products are of float and complex values");
    const detail::compressed &csr = Rows ? m_ : csr_cache();
    if constexpr (std::is_same_v<R, V>)
      return array<R>(detail::multiply(csr, x));
    else
      return array<R>(detail::multiply(detail::as_type(csr, dtype_of<R>), x));
  }
  /// The product with another sparse matrix (CSR).
  template <bool R2> csr_matrix<V> dot(const compressed_matrix<V, R2> &b) const {
    return csr_matrix<V>(detail::multiply(tocsr().parts(), b.tocsr().parts()));
  }

private:
  /// A CSC matrix's CSR form, made once and kept (its products use it).
  const detail::compressed &csr_cache() const {
    if (!csr_)
      csr_ = std::make_shared<detail::compressed>(detail::reorient(m_));
    return *csr_;
  }
  detail::compressed m_;
  mutable std::shared_ptr<detail::compressed> csr_;
};

template <value V> class coo_matrix {
public:
  using value_type = V;
  coo_matrix() = default;
  /// SciPy's coo_matrix((data, (row, col)), shape); without `shape`, the
  /// largest indices plus one. Indices are checked (value_error).
  coo_matrix(const array<V> &data, const array<index_t> &row, const array<index_t> &col,
             std::optional<kiln::shape> s = {})
      : c_(detail::make_coo(data, row, col, s)) {}
  /// The non-zeros of a 2-d array.
  explicit coo_matrix(const array<V> &dense) : c_(detail::coo_of_dense(dense)) {}
  explicit coo_matrix(detail::coo c) : c_(std::move(c)) {}

  kiln::shape shape() const { return kiln::shape{c_.rows, c_.cols}; }
  std::int64_t nnz() const { return c_.data.size(); }
  kiln::device device() const { return c_.data.device(); }
  array<V> data() const { return array<V>(c_.data); }
  array<index_t> row() const { return array<index_t>(c_.row); }
  array<index_t> col() const { return array<index_t>(c_.col); }

  /// Canonical CSR / CSC: sorted, duplicates summed.
  csr_matrix<V> tocsr() const { return csr_matrix<V>(detail::compress(c_, true)); }
  csc_matrix<V> tocsc() const { return csc_matrix<V>(detail::compress(c_, false)); }
  coo_matrix tocoo() const { return *this; }
  array<V> toarray() const { return array<V>(detail::to_dense(c_)); }
  coo_matrix T() const {
    detail::coo t = c_;
    std::swap(t.row, t.col);
    std::swap(t.rows, t.cols);
    return coo_matrix(t);
  }
  coo_matrix transpose() const { return T(); }
  coo_matrix to(kiln::device dev) const { return coo_matrix(detail::moved(c_, dev)); }
  /// Sums duplicates (as CSR, back to COO in row-major order), in place.
  void sum_duplicates() { *this = tocsr().tocoo(); }
  void eliminate_zeros() {
    auto m = tocsr();
    m.eliminate_zeros();
    *this = m.tocoo();
  }
  array<V> diagonal() const { return tocsr().diagonal(); }
  array<V> sum(std::optional<int> axis = {}) const { return tocsr().sum(axis); }
  template <element U> array<promote_t<V, U>> dot(const array<U> &x) const { return tocsr().dot(x); }

private:
  detail::coo c_;
};

template <value V, bool Rows> coo_matrix<V> compressed_matrix<V, Rows>::tocoo() const {
  return coo_matrix<V>(detail::expand(m_));
}

/// S + S of two matrices of one shape (value_error "inconsistent shapes"):
/// CSR, canonical.
template <value V, bool R1, bool R2>
csr_matrix<V> operator+(const compressed_matrix<V, R1> &a, const compressed_matrix<V, R2> &b) {
  return csr_matrix<V>(detail::add(a.tocsr().parts(), b.tocsr().parts()));
}
template <value V> csr_matrix<V> operator+(const coo_matrix<V> &a, const coo_matrix<V> &b) {
  return a.tocsr() + b.tocsr();
}

/// A scalar times a matrix (the same format); the scalar converts to V.
template <value V, bool Rows, scalar S> compressed_matrix<V, Rows> operator*(S s, const compressed_matrix<V, Rows> &a) {
  return compressed_matrix<V, Rows>(detail::scaled(a.parts(), std::complex<double>(V(s))));
}
template <value V, bool Rows, scalar S> compressed_matrix<V, Rows> operator*(const compressed_matrix<V, Rows> &a, S s) {
  return s * a;
}
template <value V, scalar S> csr_matrix<V> operator*(S s, const coo_matrix<V> &a) { return s * a.tocsr(); }

/// kiln::matmul of a sparse matrix and a dense vector or matrix, or of two
/// sparse matrices (CSR).
template <value V, bool Rows, element U> array<promote_t<V, U>> matmul(const compressed_matrix<V, Rows> &a, const array<U> &x) {
  return a.dot(x);
}
template <value V, element U> array<promote_t<V, U>> matmul(const coo_matrix<V> &a, const array<U> &x) {
  return a.dot(x);
}
template <value V, bool R1, bool R2>
csr_matrix<V> matmul(const compressed_matrix<V, R1> &a, const compressed_matrix<V, R2> &b) {
  return a.dot(b);
}

namespace linalg {

namespace detail {
/// Conjugate gradients on an untyped CSR matrix; returns (x, info).
std::pair<array_base, std::int64_t> cg(const sparse::detail::compressed &a, const array_base &b, const array_base *x0,
                                       double rtol, double atol, std::int64_t maxiter);
} // namespace detail

template <value T> struct cg_result {
  array<T> x;
  /// 0: converged; > 0: the iterations run without converging (SciPy's).
  std::int64_t info;
};

/// scipy.sparse.linalg.cg: x with A x = b for a Hermitian positive-definite
/// A, stopping when |b - A x| <= max(rtol |b|, atol), after at most
/// `maxiter` iterations (-1: 10 N, SciPy's default). Each iteration is one
/// SpMV, two inner products and two fused vector updates on A's device.
template <value T, bool Rows>
cg_result<T> cg(const compressed_matrix<T, Rows> &a, const array<T> &b, const std::optional<array<T>> &x0 = {},
                double rtol = 1e-5, double atol = 0.0, std::int64_t maxiter = -1) {
  auto [x, info] = detail::cg(a.tocsr().parts(), b, x0 ? &*x0 : nullptr, rtol, atol, maxiter);
  return {array<T>(x), info};
}

} // namespace linalg

} // namespace kiln::sparse
