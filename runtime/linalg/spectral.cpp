//===- runtime/linalg/spectral.cpp - What the SVD gives: pinv, lstsq, ... -===//
//
// np.linalg's functions built on the singular values (decompositions.cpp):
// pinv and lstsq (V diag(1/s) U^H, small singular values dropped), the
// rank, the condition number, and matrix_power (repeated squaring in
// matmul). The singular values' thresholds are decided on the host (a copy
// of (..., K) values); the matrices stay on their device, scaled and
// conjugate-transposed in one matrix_map pass and multiplied in cuBLAS or
// OpenBLAS.
//
//===----------------------------------------------------------------------===//
#include "stack.hpp"

#include "kiln/creation.hpp"
#include "kiln/error.hpp"
#include "kiln/linalg.hpp"
#include "kiln/ops.hpp"
#include "kiln/promote.hpp"
#include "kiln/reductions.hpp"
#include "kiln/stream.hpp"
#include "runtime/array/array_internal.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

namespace kiln::detail {
namespace {

using namespace linalg_stack;

/// Machine epsilon of the real type of `t`.
double eps_of(dtype t) { return real_type(t) == dtype::float32 ? double(FLT_EPSILON) : DBL_EPSILON; }

/// The (..., K) singular values, as float64 on the host.
std::vector<double> host_values(const array_base &s) {
  std::vector<double> v(static_cast<std::size_t>(s.size()));
  if (!v.empty())
    copy_to_host(copy(s, dtype::float64), v.data(), stream::current(s.device()), /*async=*/false);
  return v;
}

/// Host values as an array of dtype `t` and shape `s` on `dev`.
array_base upload(const std::vector<double> &v, const shape &s, dtype t, device dev) {
  const array_base h = kiln::asarray<double>(std::span<const double>(v.data(), v.size()), s, device::host());
  return copy(dev.is_host() ? h : to_device(h, dev, stream::current(dev)), t);
}

/// The (count, cols, rows) conjugate transposes of a C-contiguous stack of
/// (rows x cols) matrices, each column j scaled by scale[b, j] when given.
array_base adjoints(const array_base &x, std::int64_t count, const array_base *scale = nullptr) {
  const std::int64_t rows = x.shape()[x.ndim() - 2], cols = x.shape().back();
  const array_base view = array_base::from_parts(x.storage(), x.dtype(), x.device(), shape{count, cols, rows},
                                                 shape{rows * cols, 1, cols}, x.offset());
  return matrix_map(view, element_map{.conj = true, .scale = scale});
}

/// 1/s for the singular values above cutoff(b, s_max of matrix b), else 0.
template <class Cutoff>
std::vector<double> inverted(const std::vector<double> &s, std::int64_t count, std::int64_t k, Cutoff cutoff) {
  std::vector<double> inv(s.size(), 0.0);
  for (std::int64_t b = 0; b < count; ++b) {
    const double *row = s.data() + b * k;
    const double limit = k ? cutoff(*std::max_element(row, row + k)) : 0;
    for (std::int64_t j = 0; j < k; ++j)
      inv[b * k + j] = row[j] > limit ? 1.0 / row[j] : 0.0;
  }
  return inv;
}

} // namespace

array_base pinv(const array_base &a, double rcond) {
  check_matrices(a, false);
  const std::int64_t m = a.shape()[a.ndim() - 2], n = a.shape().back(), k = std::min(m, n);
  const shape batch = batch_of(a);
  const std::int64_t count = batch.numel();
  auto [u, s, vh] = svd(a, false, true);
  const std::vector<double> sinv = inverted(host_values(s), count, k, [&](double smax) { return rcond * smax; });
  const array_base scale = upload(sinv, shape{count, k}, s.dtype(), a.device());
  // pinv = V diag(1/s) U^H: (V scaled by column) @ U^H.
  const array_base left = adjoints(vh, count, &scale), right = adjoints(u, count);
  return reshape(matmul(left, right), with_matrix(batch, n, m));
}

std::tuple<array_base, array_base, array_base, array_base> lstsq(const array_base &a, const array_base &b,
                                                                 double rcond) {
  check_same_device(a.device(), b.device());
  if (a.ndim() != 2)
    throw linalg_error(std::to_string(a.ndim()) + "-dimensional array given. Array must be two-dimensional");
  if (b.ndim() != 1 && b.ndim() != 2)
    throw linalg_error(std::to_string(b.ndim()) + "-dimensional array given. Array must be one or two-dimensional");
  const std::int64_t m = a.shape()[0], n = a.shape()[1], k = std::min(m, n);
  if (b.shape()[0] != m)
    throw linalg_error("Incompatible dimensions");
  const dtype t = linalg_dtype(promote_types(a.dtype(), b.dtype()));
  const bool vector = b.ndim() == 1;
  const std::int64_t nrhs = vector ? 1 : b.shape()[1];
  const array_base bb = copy(vector ? reshape(b, shape{m, 1}) : b, t);
  const array_base at = copy(a, t);
  if (rcond < 0)
    rcond = eps_of(t) * double(std::max(m, n));
  auto [u, s, vh] = svd(at, false, true);
  const std::vector<double> values = host_values(s);
  const std::vector<double> sinv = inverted(values, 1, k, [&](double smax) { return rcond * smax; });
  const std::int64_t rank = std::count_if(sinv.begin(), sinv.end(), [](double v) { return v != 0.0; });
  const array_base scale = upload(sinv, shape{1, k}, s.dtype(), a.device());
  // x = V diag(1/s) (U^H b).
  array_base x = matmul(reshape(adjoints(vh, 1, &scale), shape{n, k}),
                        matmul(reshape(adjoints(u, 1), shape{k, m}), bb));
  // The residuals |b - a x|^2 of each column when a has full column rank and
  // more rows than columns (NumPy's rule), else none.
  array_base residuals = empty(real_type(t), shape{0}, a.device());
  if (rank == n && m > n) {
    const array_base r = eager(op::abs, {eager(op::subtract, {bb, matmul(at, x)})});
    residuals = reduce(reduction::sum, eager(op::multiply, {r, r}), axes(0), false);
  }
  std::int64_t rank_value = rank;
  const array_base rank_array =
      kiln::asarray<std::int64_t>(std::span<const std::int64_t>(&rank_value, 1), shape{}, device::host());
  if (vector)
    x = reshape(x, shape{n});
  return {x, residuals, rank_array, reshape(s, shape{k})};
}

array_base matrix_rank(const array_base &a, double tol) {
  if (a.ndim() < 2) { // NumPy: int(not all(a == 0))
    bool any = false;
    if (a.size() > 0)
      item(reduce(reduction::any, a, kiln::all, false), &any);
    return upload({any ? 1.0 : 0.0}, shape{}, dtype::int64, a.device());
  }
  const std::int64_t m = a.shape()[a.ndim() - 2], n = a.shape().back(), k = std::min(m, n);
  const shape batch = batch_of(a);
  const array_base s = std::get<1>(svd(a, false, false));
  const std::vector<double> values = host_values(s);
  const double eps = eps_of(s.dtype());
  std::vector<double> ranks(static_cast<std::size_t>(batch.numel()), 0.0);
  for (std::int64_t b = 0; b < batch.numel(); ++b) {
    const double *row = values.data() + b * k;
    const double limit = tol >= 0 ? tol : (k ? *std::max_element(row, row + k) : 0) * double(std::max(m, n)) * eps;
    ranks[b] = double(std::count_if(row, row + k, [&](double v) { return v > limit; }));
  }
  return upload(ranks, batch, dtype::int64, a.device());
}

array_base cond(const array_base &x, const norm_ord &p) {
  using kind = norm_ord::kind;
  check_matrices(x, false);
  const shape batch = batch_of(x);
  const dtype r = var_type(x.dtype());
  std::vector<double> out(static_cast<std::size_t>(batch.numel()));
  if (p.k == kind::none || (p.k == kind::number && (p.p == 2 || p.p == -2))) {
    const std::int64_t k = std::min(x.shape()[x.ndim() - 2], x.shape().back());
    const std::vector<double> s = host_values(std::get<1>(svd(x, false, false)));
    for (std::int64_t b = 0; b < batch.numel(); ++b) {
      const double largest = s[b * k], smallest = s[b * k + k - 1];
      out[b] = p.k == kind::number && p.p == -2 ? smallest / largest : largest / smallest;
    }
  } else {
    check_matrices(x, true);
    const std::int64_t n = x.shape().back();
    const array_base matrices = reshape(x, shape{batch.numel(), n, n});
    const std::vector<std::int64_t> last_two = {-2, -1};
    for (std::int64_t b = 0; b < batch.numel(); ++b) {
      const slice_arg one[] = {b, kiln::all, kiln::all};
      const array_base m = slice(matrices, one);
      double value = std::numeric_limits<double>::infinity(); // a singular matrix
      try {
        const array_base inverse = inv(m);
        double a_norm = 0, inverse_norm = 0;
        item(copy(norm(m, p, axes(last_two), false), dtype::float64), &a_norm);
        item(copy(norm(inverse, p, axes(last_two), false), dtype::float64), &inverse_norm);
        value = a_norm * inverse_norm;
      } catch (const linalg_error &) {
      }
      out[b] = value;
    }
  }
  // NumPy turns a NaN into inf, unless the matrix itself has a NaN.
  for (std::int64_t b = 0; b < batch.numel(); ++b)
    if (std::isnan(out[b])) {
      const std::int64_t rows = x.shape()[x.ndim() - 2], cols = x.shape().back();
      const slice_arg one[] = {b, kiln::all, kiln::all};
      const array_base m = slice(reshape(x, shape{batch.numel(), rows, cols}), one);
      bool has_nan = false;
      if (kind_of(x.dtype()) == scalar_kind::floating || kind_of(x.dtype()) == scalar_kind::complex)
        item(reduce(reduction::any, eager(op::isnan, {m}), kiln::all, false), &has_nan);
      if (!has_nan)
        out[b] = std::numeric_limits<double>::infinity();
    }
  return upload(out, batch, r, x.device());
}

array_base matrix_power(const array_base &a, std::int64_t n) {
  check_matrices(a, true);
  const std::int64_t size = a.shape().back();
  if (n == 0) { // identities of a's dtype
    const shape batch = batch_of(a);
    std::vector<double> eye(static_cast<std::size_t>(batch.numel() * size * size), 0.0);
    for (std::int64_t b = 0; b < batch.numel(); ++b)
      for (std::int64_t i = 0; i < size; ++i)
        eye[static_cast<std::size_t>((b * size + i) * size + i)] = 1.0;
    return upload(eye, a.shape(), a.dtype(), a.device());
  }
  array_base base = a;
  if (n < 0) {
    if (linalg_dtype(a.dtype()) != a.dtype())
      throw value_error(std::string("kiln::linalg::matrix_power: a negative power of a ") + std::string(name(a.dtype())) +
                       " matrix is not of its type (NumPy returns float64: convert first)");
    base = inv(a);
    n = -n;
  }
  // Binary powering: result = base^(bits of n).
  array_base result;
  bool have = false;
  for (array_base z = base;; ) {
    if (n & 1) {
      result = have ? matmul(result, z) : copy(z, z.dtype());
      have = true;
    }
    n >>= 1;
    if (n == 0)
      break;
    z = matmul(z, z);
  }
  return result;
}

} // namespace kiln::detail
