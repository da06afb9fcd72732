# CuPy beside benchmarks/gpu_sparse.cpp in the same run: the same CSR SpMV
# (float32, 4M rows x 16 random columns), its first product, an SpMM of 8
# columns, and 100 cg iterations on a 1M tridiagonal system; event-timed
# medians. One JSON line each.
import json, time
import cupy as cp
import cupyx.scipy.sparse as sp
import cupyx.scipy.sparse.linalg as spla
import numpy as np
from cupy_timing import bench_cupy as bench



rows, per_row = 4 << 20, 16
nnz = rows * per_row
rng = np.random.default_rng(1)
indices = np.sort(rng.integers(0, rows, size=(rows, per_row), dtype=np.int32), axis=1).ravel()
indptr = (np.arange(rows + 1, dtype=np.int64) * per_row).astype(np.int32)
values = rng.uniform(-1, 1, nnz).astype(np.float32)
a = sp.csr_matrix((cp.asarray(values), cp.asarray(indices), cp.asarray(indptr)), shape=(rows, rows))
x = cp.random.random(rows, dtype=cp.float32)
cp.cuda.Device().synchronize()
t0 = time.perf_counter()
y = a.dot(x)
cp.cuda.Device().synchronize()
first = (time.perf_counter() - t0) * 1e3
nbytes = nnz * 8 + (rows + 1) * 4 + rows * 4 + rows * 4
o = cp.empty_like(a.data)
copy_ms = bench(lambda: o.__setitem__(Ellipsis, a.data))
copy_gbps = 2 * nnz * 4 / (copy_ms * 1e-3) / 1e9
ms = bench(lambda: a.dot(x))
gbps = nbytes / (ms * 1e-3) / 1e9
print(json.dumps(dict(suite="gpu_sparse", name="spmv f32 4M rows 67M nnz", impl="cupy", ms=round(ms, 4),
                      gbps=round(gbps, 1), of_copy=round(gbps / copy_gbps, 3), first_ms=round(first, 3))), flush=True)
X = cp.random.random((rows, 8), dtype=cp.float32)
print(json.dumps(dict(suite="gpu_sparse", name="spmm f32 4M rows 67M nnz, 8 columns", impl="cupy",
                      ms=round(bench(lambda: a.dot(X), 10, 2), 4))), flush=True)
n = 1 << 20
t = sp.diags([-cp.ones(n - 1, dtype=cp.float32), 4 * cp.ones(n, dtype=cp.float32), -cp.ones(n - 1, dtype=cp.float32)],
             [-1, 0, 1], format="csr")
b = cp.random.random(n, dtype=cp.float32)


def run_cg():
    try:  # CuPy 14 follows SciPy's rtol
        return spla.cg(t, b, rtol=0.0, atol=0.0, maxiter=100)
    except TypeError:
        return spla.cg(t, b, tol=0.0, atol=0.0, maxiter=100)


print(json.dumps(dict(suite="gpu_sparse", name="cg f32 1M tridiagonal, 100 iterations", impl="cupy",
                      ms=round(bench(run_cg, 5, 1), 3))), flush=True)
g_rows, g_per = 1 << 20, 8
gi = np.sort(rng.integers(0, g_rows, size=(g_rows, g_per), dtype=np.int32), axis=1).ravel()
gp = (np.arange(g_rows + 1, dtype=np.int64) * g_per).astype(np.int32)
gv = rng.uniform(-1, 1, g_rows * g_per).astype(np.float32)
s = sp.csr_matrix((cp.asarray(gv), cp.asarray(gi), cp.asarray(gp)), shape=(g_rows, g_rows))
s.sum_duplicates()
prod = s @ s
print(json.dumps(dict(suite="gpu_sparse", name="spgemm f32 1M rows 8 nnz/row squared", impl="cupy",
                      ms=round(bench(lambda: s @ s, 5, 1), 3), nnz=int(prod.nnz))), flush=True)
