// kiln::sparse on a GPU beside CuPy (gpu_sparse_cupy.py, same sizes, same
// run): CSR SpMV of float32, 4M rows with 16 non-zeros each in random
// columns (67M non-zeros), as bandwidth (values, column indices, row
// pointers, x and y, each touched once) over the device copy of the
// values; its first product (which preprocesses) beside later ones; an SpMM
// with 8 right-hand sides; 100 iterations of cg on a 1M-row tridiagonal
// matrix; SpGEMM, the square of a 1M-row matrix with 8 non-zeros a row in
// random columns (the same distribution as CuPy's, not the same draw). The SpMV
// is checked against a host product of a sample of rows first. One JSON line
// each.
#include "bench.hpp"

#include <kiln/sparse.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <vector>

int main() {
  if (kiln::cuda_device_count() == 0) {
    std::printf("{\"suite\": \"gpu_sparse\", \"skipped\": \"no CUDA GPU\"}\n");
    return 0;
  }
  const kiln::device gpu = kiln::device::cuda(0), host = kiln::device::host();
  kiln::set_current_device(gpu);
  using kiln::sparse::index_t;
  const std::int64_t rows = 4 << 20, per_row = 16, nnz = rows * per_row, cols = rows;
  std::vector<index_t> indptr(rows + 1), indices(nnz);
  std::vector<float> values(nnz);
  std::mt19937 gen(1);
  std::uniform_int_distribution<index_t> col(0, index_t(cols - 1));
  std::uniform_real_distribution<float> u(-1, 1);
  for (std::int64_t i = 0; i < rows; ++i) {
    indptr[i] = index_t(i * per_row);
    for (std::int64_t k = 0; k < per_row; ++k) {
      indices[i * per_row + k] = col(gen);
      values[i * per_row + k] = u(gen);
    }
    std::sort(indices.begin() + i * per_row, indices.begin() + (i + 1) * per_row);
  }
  indptr[rows] = index_t(nnz);
  const auto to_gpu = [&](const auto &v) {
    using V = typename std::decay_t<decltype(v)>::value_type;
    return kiln::asarray<V>(std::span<const V>(v.data(), v.size()), host).to(gpu);
  };
  const kiln::sparse::csr_matrix<float> a(to_gpu(values), to_gpu(indices), to_gpu(indptr), kiln::shape{rows, cols});
  auto rng = kiln::random::default_rng(2);
  const auto x = rng.random<float>({cols}, gpu);
  const double bytes = double(nnz) * 8 + double(rows + 1) * 4 + double(cols) * 4 + double(rows) * 4;
  // The first product (preprocessing included), then the steady state.
  kiln::synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  kiln::array<float> y = a.dot(x);
  kiln::synchronize();
  const double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  // Check a sample of rows on the host.
  const auto yh = y.to_vector(), xh = x.to_vector();
  double worst = 0;
  for (std::int64_t i = 0; i < rows; i += 9973) {
    double s = 0;
    for (std::int64_t p = indptr[i]; p < indptr[i + 1]; ++p)
      s += double(values[p]) * xh[indices[p]];
    worst = std::max(worst, std::abs(s - yh[i]));
  }
  auto copy_out = kiln::empty<float>({nnz}, gpu);
  const auto data = a.data();
  const double copy_ms = bench::median_ms([&] { kiln::copyto(copy_out, data); });
  const double copy_gbps = 2.0 * double(nnz) * 4 / (copy_ms * 1e-3) / 1e9;
  const double ms = bench::median_ms([&] { y = a.dot(x); });
  const double gbps = bytes / (ms * 1e-3) / 1e9;
  std::printf("{\"suite\": \"gpu_sparse\", \"name\": \"spmv f32 4M rows 67M nnz\", \"impl\": \"kiln\", \"ms\": %.4f, "
              "\"gbps\": %.1f, \"of_copy\": %.3f, \"first_ms\": %.3f, \"check\": %.3g}\n",
              ms, gbps, gbps / copy_gbps, first_ms, worst);
  const auto X = rng.random<float>({cols, 8}, gpu);
  kiln::array<float> Y;
  const double spmm_ms = bench::median_ms([&] { Y = a.dot(X); }, 10, 2);
  std::printf("{\"suite\": \"gpu_sparse\", \"name\": \"spmm f32 4M rows 67M nnz, 8 columns\", \"impl\": \"kiln\", "
              "\"ms\": %.4f}\n",
              spmm_ms);
  // cg: 100 iterations on a 1M tridiagonal system (4 on the diagonal).
  const std::int64_t n = 1 << 20;
  std::vector<index_t> tp(n + 1), ti;
  std::vector<float> tv;
  for (std::int64_t i = 0; i < n; ++i) {
    tp[i] = index_t(ti.size());
    for (std::int64_t j = std::max<std::int64_t>(i - 1, 0); j <= std::min(i + 1, n - 1); ++j) {
      ti.push_back(index_t(j));
      tv.push_back(i == j ? 4.0f : -1.0f);
    }
  }
  tp[n] = index_t(ti.size());
  const kiln::sparse::csr_matrix<float> t(to_gpu(tv), to_gpu(ti), to_gpu(tp), kiln::shape{n, n});
  const auto b = rng.random<float>({n}, gpu);
  const double cg_ms = bench::median_ms([&] { (void)kiln::sparse::linalg::cg(t, b, {}, 0.0, 0.0, 100); }, 5, 1);
  std::printf("{\"suite\": \"gpu_sparse\", \"name\": \"cg f32 1M tridiagonal, 100 iterations\", \"impl\": \"kiln\", "
              "\"ms\": %.3f}\n",
              cg_ms);
  // SpGEMM: S S for S 1M x 1M, 8 random columns a row (about 64M products).
  const std::int64_t g_rows = 1 << 20, g_per = 8;
  std::vector<index_t> gp(g_rows + 1), gi(g_rows * g_per);
  std::vector<float> gv(g_rows * g_per);
  std::uniform_int_distribution<index_t> gcol(0, index_t(g_rows - 1));
  for (std::int64_t i = 0; i < g_rows; ++i) {
    gp[i] = index_t(i * g_per);
    for (std::int64_t k = 0; k < g_per; ++k) {
      gi[i * g_per + k] = gcol(gen);
      gv[i * g_per + k] = u(gen);
    }
    std::sort(gi.begin() + i * g_per, gi.begin() + (i + 1) * g_per);
  }
  gp[g_rows] = index_t(g_rows * g_per);
  const auto sq =
      kiln::sparse::csr_matrix<float>(to_gpu(gv), to_gpu(gi), to_gpu(gp),
                                      kiln::shape{g_rows, g_rows})
          .tocoo()
          .tocsr(); // canonical (a row's repeated column summed)
  kiln::sparse::csr_matrix<float> prod;
  const double spgemm_ms = bench::median_ms([&] { prod = sq.dot(sq); }, 5, 1);
  // Check a sample of the product's rows against sums over the generator's
  // triplets (the duplicates a row drew add up, as in the canonical form).
  const auto pp = prod.indptr().to_vector();
  double spgemm_worst = 0;
  for (std::int64_t i = 0; i < g_rows; i += 104729) {
    std::map<index_t, double> want;
    for (std::int64_t p = gp[i]; p < gp[i + 1]; ++p)
      for (std::int64_t q = gp[gi[p]]; q < gp[gi[p] + 1]; ++q)
        want[gi[q]] += double(gv[p]) * gv[q];
    const auto cols_i =
        prod.indices().slice({kiln::range(pp[i], pp[i + 1])}).to_vector();
    const auto vals_i =
        prod.data().slice({kiln::range(pp[i], pp[i + 1])}).to_vector();
    if (cols_i.size() != want.size())
      spgemm_worst = 1e9;
    for (std::size_t k = 0; k < cols_i.size(); ++k)
      spgemm_worst =
          std::max(spgemm_worst, std::abs(want[cols_i[k]] - vals_i[k]));
  }
  std::printf("{\"suite\": \"gpu_sparse\", \"name\": \"spgemm f32 1M rows 8 "
              "nnz/row squared\", \"impl\": \"kiln\", "
              "\"ms\": %.3f, \"nnz\": %lld, \"check\": %.3g}\n",
              spgemm_ms, static_cast<long long>(prod.nnz()), spgemm_worst);
  return worst < 1e-3 && spgemm_worst < 1e-4 ? 0 : 1;
}
