//===- runtime/sparse/host_parts.hpp - A sparse matrix's arrays on the host
//
// The host side of kiln::sparse's structural work: arrays to and from host
// vectors, and host_matrix, one compressed matrix (CSR, or CSC read as the
// CSR of its transpose) as vectors with the counting sorts that build,
// canonicalize and transpose it. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/array.hpp"
#include "kiln/creation.hpp"
#include "kiln/error.hpp"
#include "kiln/sparse.hpp"
#include "kiln/stream.hpp"

#include <algorithm>
#include <complex>
#include <numeric>
#include <span>
#include <string>
#include <vector>

namespace kiln::sparse::detail::host_parts {

/// The elements of `x` (any device, any strides) as host values of type V.
template <class V> std::vector<V> values_of(const array_base &x) {
  std::vector<V> out(static_cast<std::size_t>(x.size()));
  if (!out.empty())
    kiln::detail::copy_to_host(kiln::detail::copy(x, dtype_of<V>), out.data(), stream::current(x.device()),
                               /*async=*/false);
  return out;
}

/// A 1-d array of `v` on `dev`.
template <class V> array_base upload(const std::vector<V> &v, device dev) {
  const array_base h = kiln::asarray<V>(std::span<const V>(v.data(), v.size()), device::host());
  return dev.is_host() ? h : kiln::detail::to_device(h, dev, stream::current(dev));
}

/// Calls f.template operator()<V>() with the C++ type of a sparse value dtype.
template <class F> void with_value(dtype t, F &&f) {
  switch (t) {
  case dtype::float32:
    return f.template operator()<float>();
  case dtype::float64:
    return f.template operator()<double>();
  case dtype::complex64:
    return f.template operator()<std::complex<float>>();
  case dtype::complex128:
    return f.template operator()<std::complex<double>>();
  default:
    throw value_error(std::string("kiln::sparse: no sparse matrices of ") + std::string(name(t)));
  }
}

template <class V> struct host_matrix {
  std::int64_t major = 0; ///< rows of a CSR matrix, columns of a CSC one
  std::vector<index_t> ptr, idx;
  std::vector<V> val;
  bool sorted = false; ///< canonical: sorted minor indices, no duplicates

  static host_matrix of(const compressed &m) {
    host_matrix h;
    h.major = m.by_rows ? m.rows : m.cols;
    h.ptr = values_of<index_t>(m.indptr);
    h.idx = values_of<index_t>(m.indices);
    h.val = values_of<V>(m.data);
    h.sorted = m.canonical;
    return h;
  }

  /// From (value, major, minor) triplets: a counting sort by major, then
  /// canonical().
  static host_matrix from_triplets(const std::vector<V> &val, const std::vector<index_t> &major_idx,
                                   const std::vector<index_t> &minor_idx, std::int64_t majors) {
    host_matrix h;
    h.major = majors;
    h.ptr.assign(static_cast<std::size_t>(majors + 1), 0);
    for (index_t r : major_idx)
      ++h.ptr[static_cast<std::size_t>(r) + 1];
    std::partial_sum(h.ptr.begin(), h.ptr.end(), h.ptr.begin());
    std::vector<index_t> next(h.ptr.begin(), h.ptr.end() - 1);
    h.idx.resize(val.size());
    h.val.resize(val.size());
    for (std::size_t k = 0; k < val.size(); ++k) {
      const index_t at = next[static_cast<std::size_t>(major_idx[k])]++;
      h.idx[static_cast<std::size_t>(at)] = minor_idx[k];
      h.val[static_cast<std::size_t>(at)] = val[k];
    }
    return h.canonical();
  }

  /// Sorted within each major index, duplicates summed (SciPy keeps the
  /// explicit zeros a sum leaves, as here).
  host_matrix canonical() const {
    if (sorted)
      return *this;
    host_matrix out;
    out.major = major;
    out.ptr.push_back(0);
    std::vector<std::pair<index_t, V>> row;
    for (std::int64_t i = 0; i < major; ++i) {
      row.clear();
      for (index_t p = ptr[i]; p < ptr[i + 1]; ++p)
        row.emplace_back(idx[p], val[p]);
      std::stable_sort(row.begin(), row.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
      for (std::size_t k = 0; k < row.size(); ++k) {
        if (k > 0 && row[k].first == row[k - 1].first)
          out.val.back() += row[k].second;
        else {
          out.idx.push_back(row[k].first);
          out.val.push_back(row[k].second);
        }
      }
      out.ptr.push_back(index_t(out.idx.size()));
    }
    out.sorted = true;
    return out;
  }

  /// The same matrix compressed the other way (a CSR's CSC), canonical.
  host_matrix transposed(std::int64_t minors_count = -1) const {
    std::int64_t minors = minors_count;
    if (minors < 0)
      minors = idx.empty() ? 0 : *std::max_element(idx.begin(), idx.end()) + 1;
    std::vector<index_t> major_of(idx.size());
    for (std::int64_t i = 0; i < major; ++i)
      std::fill(major_of.begin() + ptr[i], major_of.begin() + ptr[i + 1], index_t(i));
    return from_triplets(val, idx, major_of, minors);
  }

  void store(compressed &m, device dev) const {
    m.indptr = upload(ptr, dev);
    m.indices = upload(idx, dev);
    m.data = upload(val, dev);
    m.canonical = sorted;
    m.state.reset();
  }
};

} // namespace kiln::sparse::detail::host_parts
