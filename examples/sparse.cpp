// The sparse cell of the CuPy tutorials in Kiln (002): a 3 x 3 matrix from
// (vals, (rows, cols)) converted to CSR and multiplied by [1, 2, 3]; then
// conjugate gradients on a larger sparse system (a 2-d Laplacian plus a
// shift), checked by its residual in float64 on the host. On a GPU the
// products run in cuSPARSE; on the host in Kiln's threaded loops.
#include "check.hpp"

#include <kiln/sparse.hpp>

#include <cmath>
#include <vector>

using kiln::sparse::index_t;

int main() {
  int rc = 0;
  const kiln::device dev = kiln::current_device();
  // rows = [0, 0, 1, 2, 2, 2]; cols = [0, 2, 2, 0, 1, 2]; vals = [1, ..., 6]
  const std::vector<index_t> r = {0, 0, 1, 2, 2, 2}, c = {0, 2, 2, 0, 1, 2};
  const std::vector<float> v = {1, 2, 3, 4, 5, 6}, x = {1, 2, 3};
  auto on = [&](const auto &host) {
    using V = typename std::decay_t<decltype(host)>::value_type;
    return kiln::asarray<V>(std::span<const V>(host.data(), host.size()), kiln::device::host()).to(dev);
  };
  auto S = kiln::sparse::coo_matrix<float>(on(v), on(r), on(c), kiln::shape{3, 3}).tocsr();
  kiln::array<float> d = S.dot(on(x));
  const std::vector<float> got = d.to_vector();
  std::printf("Sparse dot: [%g %g %g]\n", got[0], got[1], got[2]);
  rc |= example::report("S.dot([1, 2, 3]) == [7, 9, 32]", example::relative_error(got, std::vector<double>{7, 9, 32}),
                        0.0, 3);

  // cg on the 5-point Laplacian of a 64 x 64 grid plus 0.1 on the diagonal.
  const std::int64_t g = 64, n = g * g;
  std::vector<index_t> rows, cols;
  std::vector<double> vals;
  for (std::int64_t i = 0; i < g; ++i)
    for (std::int64_t j = 0; j < g; ++j) {
      const std::int64_t k = i * g + j;
      auto add = [&](std::int64_t to, double w) {
        rows.push_back(index_t(k));
        cols.push_back(index_t(to));
        vals.push_back(w);
      };
      add(k, 4.1);
      if (i > 0) add(k - g, -1);
      if (i + 1 < g) add(k + g, -1);
      if (j > 0) add(k - 1, -1);
      if (j + 1 < g) add(k + 1, -1);
    }
  const auto A = kiln::sparse::coo_matrix<double>(on(vals), on(rows), on(cols), kiln::shape{n, n}).tocsr();
  std::vector<double> b(n);
  for (std::int64_t k = 0; k < n; ++k)
    b[k] = std::sin(0.01 * double(k));
  auto [sol, info] = kiln::sparse::linalg::cg(A, on(b), {}, 1e-10);
  // The residual in float64 on the host, from the triplets.
  const std::vector<double> xs = sol.to_vector();
  std::vector<double> ax(n, 0.0);
  for (std::size_t e = 0; e < vals.size(); ++e)
    ax[rows[e]] += vals[e] * xs[cols[e]];
  double num = 0, den = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    num += (ax[k] - b[k]) * (ax[k] - b[k]);
    den += b[k] * b[k];
  }
  std::printf("cg: info %lld, relative residual %g\n", static_cast<long long>(info), std::sqrt(num / den));
  rc |= example::report("cg(A, b): |b - A x| / |b|", info == 0 ? std::sqrt(num / den) : 1.0, 1e-9, vals.size());
  return rc;
}
