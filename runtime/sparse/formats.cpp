//===- runtime/sparse/formats.cpp - Building and converting sparse matrices
//
// scipy.sparse's constructors (with its checks and messages), conversions
// between COO, CSR and CSC (a counting sort by the major index, then each
// row or column sorted and its duplicates summed: a CSR or CSC matrix made
// here is canonical), toarray, +, scalar *, the diagonal and sums. These run
// on the host, over copies of a GPU matrix's arrays, whose results go back
// to its device (docs/operations.md, "Sparse matrices"); products are in
// products.cpp.
//
//===----------------------------------------------------------------------===//
#include "host_parts.hpp"

#include "kiln/error.hpp"
#include "kiln/sparse.hpp"
#include "kiln/stream.hpp"

#include <algorithm>
#include <complex>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace kiln::sparse::detail {

using kiln::detail::copy;
using kiln::detail::empty;
using kiln::detail::reshape;
using kiln::detail::slice;
namespace {

using namespace host_parts;

/// Index arrays as int32 host vectors; NumPy's rules on values past int32.
std::vector<index_t> host_indices(const array_base &x, const char *what) {
  if (x.ndim() != 1)
    throw value_error(std::string(what) + " must be 1-d");
  if (kind_of(x.dtype()) != scalar_kind::integer)
    throw value_error(std::string(what) + " must be an array of integers");
  const std::vector<std::int64_t> wide = values_of<std::int64_t>(x);
  std::vector<index_t> out(wide.size());
  for (std::size_t i = 0; i < wide.size(); ++i) {
    if (wide[i] > std::numeric_limits<index_t>::max() || wide[i] < std::numeric_limits<index_t>::min())
      throw value_error(std::string(what) + " values do not fit kiln::sparse's int32 indices");
    out[i] = static_cast<index_t>(wide[i]);
  }
  return out;
}

void check_value_type(dtype t) {
  if (t != dtype::float32 && t != dtype::float64 && t != dtype::complex64 && t != dtype::complex128)
    throw value_error(std::string("kiln::sparse: no sparse matrices of ") + std::string(name(t)));
}

} // namespace

compressed make_compressed(const array_base &data, const array_base &indices, const array_base &indptr, const shape &s,
                           bool by_rows) {
  check_value_type(data.dtype());
  if (s.size() != 2 || s[0] < 0 || s[1] < 0)
    throw value_error("invalid shape (a sparse matrix is 2-d)");
  if (data.ndim() != 1)
    throw value_error("data must be 1-d");
  const std::int64_t major = by_rows ? s[0] : s[1], minor = by_rows ? s[1] : s[0];
  const std::vector<index_t> ptr = host_indices(indptr, "index pointer"), idx = host_indices(indices, "indices");
  // scipy.sparse's check_format, its messages.
  if (static_cast<std::int64_t>(ptr.size()) != major + 1)
    throw value_error("index pointer size (" + std::to_string(ptr.size()) + ") should be (" + std::to_string(major + 1) +
                      ")");
  if (ptr[0] != 0)
    throw value_error("index pointer should start with 0");
  if (static_cast<std::int64_t>(idx.size()) != data.size())
    throw value_error("indices and data should have the same size");
  if (ptr.back() > static_cast<std::int64_t>(idx.size()))
    throw value_error("Last value of index pointer should be less than the size of index and data arrays");
  for (std::size_t i = 0; i + 1 < ptr.size(); ++i)
    if (ptr[i] > ptr[i + 1])
      throw value_error("index pointer values must form a non-decreasing sequence");
  for (index_t v : idx) {
    if (v >= minor)
      throw value_error(std::string(by_rows ? "column" : "row") + " index values must be < " + std::to_string(minor));
    if (v < 0)
      throw value_error(std::string(by_rows ? "column" : "row") + " index values must be >= 0");
  }
  compressed m;
  const device dev = data.device();
  m.data = data.is_contiguous() ? data : copy(data, data.dtype());
  m.indices = upload(idx, dev);
  m.indptr = upload(ptr, dev);
  if (ptr.back() < static_cast<std::int64_t>(idx.size())) { // SciPy keeps only what indptr covers
    const slice_arg first[] = {kiln::range(0, ptr.back())};
    m.data = copy(slice(m.data, first), m.data.dtype());
    m.indices = copy(slice(m.indices, first), dtype::int32);
  }
  m.rows = s[0];
  m.cols = s[1];
  m.by_rows = by_rows;
  m.canonical = true;
  for (std::size_t i = 0; i + 1 < ptr.size() && m.canonical; ++i)
    for (index_t k = ptr[i] + 1; k < ptr[i + 1]; ++k)
      if (idx[k - 1] >= idx[k]) {
        m.canonical = false;
        break;
      }
  return m;
}

coo make_coo(const array_base &data, const array_base &row, const array_base &col, const std::optional<shape> &s) {
  check_value_type(data.dtype());
  if (data.ndim() != 1)
    throw value_error("data must be 1-d");
  const std::vector<index_t> r = host_indices(row, "row"), c = host_indices(col, "col");
  if (r.size() != c.size() || static_cast<std::int64_t>(r.size()) != data.size())
    throw value_error("row, column, and data array must all be the same length");
  coo out;
  if (s) {
    if (s->size() != 2 || (*s)[0] < 0 || (*s)[1] < 0)
      throw value_error("invalid shape (a sparse matrix is 2-d)");
    out.rows = (*s)[0];
    out.cols = (*s)[1];
  } else {
    if (r.empty())
      throw value_error("cannot infer dimensions from zero sized index arrays");
    out.rows = *std::max_element(r.begin(), r.end()) + std::int64_t(1);
    out.cols = *std::max_element(c.begin(), c.end()) + std::int64_t(1);
  }
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (r[i] >= out.rows)
      throw value_error("row index exceeds matrix dimensions");
    if (c[i] >= out.cols)
      throw value_error("column index exceeds matrix dimensions");
    if (r[i] < 0)
      throw value_error("negative row index found");
    if (c[i] < 0)
      throw value_error("negative column index found");
  }
  const device dev = data.device();
  out.data = data.is_contiguous() ? data : copy(data, data.dtype());
  out.row = upload(r, dev);
  out.col = upload(c, dev);
  return out;
}

coo coo_of_dense(const array_base &dense) {
  check_value_type(dense.dtype());
  if (dense.ndim() != 2)
    throw value_error("expected dimension <= 2 array or matrix");
  coo out;
  out.rows = dense.shape()[0];
  out.cols = dense.shape()[1];
  with_value(dense.dtype(), [&]<class V>() {
    const std::vector<V> v = values_of<V>(dense);
    std::vector<V> data;
    std::vector<index_t> r, c;
    for (std::int64_t i = 0; i < out.rows; ++i)
      for (std::int64_t j = 0; j < out.cols; ++j)
        if (const V x = v[static_cast<std::size_t>(i * out.cols + j)]; x != V(0)) {
          data.push_back(x);
          r.push_back(index_t(i));
          c.push_back(index_t(j));
        }
    out.data = upload(data, dense.device());
    out.row = upload(r, dense.device());
    out.col = upload(c, dense.device());
  });
  return out;
}

compressed compress(const coo &c, bool by_rows) {
  const std::vector<index_t> r = values_of<index_t>(c.row), k = values_of<index_t>(c.col);
  const std::vector<index_t> &major = by_rows ? r : k, &minor = by_rows ? k : r;
  compressed m;
  m.rows = c.rows;
  m.cols = c.cols;
  m.by_rows = by_rows;
  with_value(c.data.dtype(), [&]<class V>() {
    const host_matrix<V> h = host_matrix<V>::from_triplets(values_of<V>(c.data), major, minor,
                                                           by_rows ? c.rows : c.cols);
    h.store(m, c.data.device());
  });
  return m;
}

coo expand(const compressed &m) {
  coo out;
  out.rows = m.rows;
  out.cols = m.cols;
  const std::vector<index_t> ptr = values_of<index_t>(m.indptr);
  std::vector<index_t> major(static_cast<std::size_t>(m.data.size()));
  for (std::size_t i = 0; i + 1 < ptr.size(); ++i)
    std::fill(major.begin() + ptr[i], major.begin() + ptr[i + 1], index_t(i));
  const array_base majors = upload(major, m.data.device());
  out.data = m.data;
  out.row = m.by_rows ? majors : m.indices;
  out.col = m.by_rows ? m.indices : majors;
  return out;
}

compressed canonical(const compressed &m) {
  compressed out = m;
  out.state.reset();
  with_value(m.data.dtype(), [&]<class V>() { host_matrix<V>::of(m).canonical().store(out, m.data.device()); });
  return out;
}

compressed reorient(const compressed &m) {
  compressed out;
  out.rows = m.rows;
  out.cols = m.cols;
  out.by_rows = !m.by_rows;
  with_value(m.data.dtype(), [&]<class V>() { host_matrix<V>::of(m).transposed(m.by_rows ? m.cols : m.rows).store(out, m.data.device()); });
  return out;
}

compressed transposed(const compressed &m) {
  compressed out = m;
  out.state.reset();
  out.by_rows = !m.by_rows;
  std::swap(out.rows, out.cols);
  return out;
}

compressed without_zeros(const compressed &m) {
  compressed out = m;
  out.state.reset();
  with_value(m.data.dtype(), [&]<class V>() {
    host_matrix<V> h = host_matrix<V>::of(m);
    host_matrix<V> kept;
    kept.major = h.major;
    kept.ptr.push_back(0);
    for (std::int64_t i = 0; i < h.major; ++i) {
      for (index_t p = h.ptr[i]; p < h.ptr[i + 1]; ++p)
        if (h.val[p] != V(0)) {
          kept.idx.push_back(h.idx[p]);
          kept.val.push_back(h.val[p]);
        }
      kept.ptr.push_back(index_t(kept.idx.size()));
    }
    kept.store(out, m.data.device());
    out.canonical = m.canonical;
  });
  return out;
}

array_base to_dense(const compressed &m) {
  array_base out;
  with_value(m.data.dtype(), [&]<class V>() {
    const host_matrix<V> h = host_matrix<V>::of(m);
    std::vector<V> d(static_cast<std::size_t>(m.rows * m.cols), V(0));
    for (std::int64_t i = 0; i < h.major; ++i)
      for (index_t p = h.ptr[i]; p < h.ptr[i + 1]; ++p) {
        const std::int64_t r = m.by_rows ? i : h.idx[p], c = m.by_rows ? h.idx[p] : i;
        d[static_cast<std::size_t>(r * m.cols + c)] += h.val[p]; // duplicates sum, as SciPy's
      }
    out = reshape(upload(d, m.data.device()), shape{m.rows, m.cols});
  });
  return out;
}

array_base to_dense(const coo &c) { return to_dense(compress(c, true)); }

compressed add(const compressed &a, const compressed &b) {
  if (a.rows != b.rows || a.cols != b.cols)
    throw value_error("inconsistent shapes");
  if (!(a.data.device() == b.data.device()))
    throw device_error("sparse matrices on different devices: " + a.data.device().str() + " and " +
                       b.data.device().str());
  compressed out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.by_rows = true;
  with_value(a.data.dtype(), [&]<class V>() {
    const host_matrix<V> x = host_matrix<V>::of(a), y = host_matrix<V>::of(b);
    host_matrix<V> both;
    both.major = x.major;
    both.ptr.push_back(0);
    for (std::int64_t i = 0; i < x.major; ++i) {
      for (const host_matrix<V> *h : {&x, &y})
        for (index_t p = h->ptr[i]; p < h->ptr[i + 1]; ++p) {
          both.idx.push_back(h->idx[p]);
          both.val.push_back(h->val[p]);
        }
      both.ptr.push_back(index_t(both.idx.size()));
    }
    both.canonical().store(out, a.data.device());
  });
  return out;
}

compressed scaled(const compressed &a, const std::complex<double> &s) {
  compressed out = a;
  out.state.reset();
  with_value(a.data.dtype(), [&]<class V>() {
    std::vector<V> v = values_of<V>(a.data);
    V factor;
    if constexpr (is_std_complex<V>::value)
      factor = V(typename V::value_type(s.real()), typename V::value_type(s.imag()));
    else
      factor = V(s.real());
    for (V &x : v)
      x *= factor;
    out.data = upload(v, a.data.device());
  });
  return out;
}

array_base diagonal(const compressed &a) {
  array_base out;
  with_value(a.data.dtype(), [&]<class V>() {
    const host_matrix<V> h = host_matrix<V>::of(a);
    std::vector<V> d(static_cast<std::size_t>(std::min(a.rows, a.cols)), V(0));
    for (std::int64_t i = 0; i < std::min<std::int64_t>(h.major, std::int64_t(d.size())); ++i)
      for (index_t p = h.ptr[i]; p < h.ptr[i + 1]; ++p)
        if (h.idx[p] == i)
          d[static_cast<std::size_t>(i)] += h.val[p];
    out = upload(d, a.data.device());
  });
  return out;
}

array_base sum(const compressed &a, std::optional<int> axis) {
  if (axis && *axis != 0 && *axis != 1 && *axis != -1 && *axis != -2)
    throw index_error("axis " + std::to_string(*axis) + " is out of bounds for array of dimension 2");
  array_base out;
  with_value(a.data.dtype(), [&]<class V>() {
    const host_matrix<V> h = host_matrix<V>::of(a);
    if (!axis) {
      V total(0);
      for (const V &v : h.val)
        total += v;
      out = reshape(upload(std::vector<V>{total}, a.data.device()), shape{});
      return;
    }
    const bool over_rows = *axis == 0 || *axis == -2; // column sums
    const std::int64_t n = over_rows ? a.cols : a.rows;
    std::vector<V> s(static_cast<std::size_t>(n), V(0));
    for (std::int64_t i = 0; i < h.major; ++i)
      for (index_t p = h.ptr[i]; p < h.ptr[i + 1]; ++p) {
        const std::int64_t r = a.by_rows ? i : h.idx[p], c = a.by_rows ? h.idx[p] : i;
        s[static_cast<std::size_t>(over_rows ? c : r)] += h.val[p];
      }
    out = reshape(upload(s, a.data.device()), over_rows ? shape{1, n} : shape{n, 1});
  });
  return out;
}

compressed moved(const compressed &a, device dev) {
  compressed out = a;
  out.state.reset();
  const stream s = stream::current(dev.is_host() ? a.data.device() : dev);
  out.data = kiln::detail::to_device(a.data, dev, s);
  out.indices = kiln::detail::to_device(a.indices, dev, s);
  out.indptr = kiln::detail::to_device(a.indptr, dev, s);
  return out;
}

coo moved(const coo &a, device dev) {
  coo out = a;
  const stream s = stream::current(dev.is_host() ? a.data.device() : dev);
  out.data = kiln::detail::to_device(a.data, dev, s);
  out.row = kiln::detail::to_device(a.row, dev, s);
  out.col = kiln::detail::to_device(a.col, dev, s);
  return out;
}

compressed as_type(const compressed &a, dtype t) {
  compressed out = a;
  out.state.reset();
  out.data = copy(a.data, t);
  return out;
}

} // namespace kiln::sparse::detail
