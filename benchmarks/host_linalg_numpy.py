# NumPy beside benchmarks/host_linalg.cpp on the same machine: the same
# products (GFLOP/s), solves and determinants, median wall time of 9 runs
# after 2. One JSON line each.
import json, time
import numpy as np
from host_timing import median_ms

rng = np.random.default_rng(11)


def run(dtype, n):
    if np.dtype(dtype).kind == "c":
        a = (rng.random((n, n)) + 1j * rng.random((n, n))).astype(dtype)
        b = (rng.random((n, n)) + 1j * rng.random((n, n))).astype(dtype)
    else:
        a = rng.random((n, n)).astype(dtype)
        b = rng.random((n, n)).astype(dtype)
    for _ in range(2):
        a @ b
    ts = []
    for _ in range(9):
        t0 = time.perf_counter()
        a @ b
        ts.append(time.perf_counter() - t0)
    ms = float(np.median(ts)) * 1e3
    flops = (8.0 if np.dtype(dtype).kind == "c" else 2.0) * n**3
    print(json.dumps(dict(suite="host_linalg", name=f"numpy matmul {np.dtype(dtype).name} {n}", impl="numpy",
                          ms=round(ms, 3), gflops=round(flops / (ms * 1e-3) / 1e9, 1))), flush=True)


run(np.float32, 1024)
run(np.float32, 2048)
run(np.float64, 1024)
run(np.complex64, 1024)


def timed(name, f):
    print(json.dumps(dict(suite="host_linalg", name=f"numpy {name}", impl="numpy", ms=round(median_ms(f), 3))),
          flush=True)

for dtype, name in ((np.float32, "float32"), (np.float64, "float64")):
    a = (rng.random((1024, 1024)) + np.eye(1024) * 1024).astype(dtype)
    b = rng.random(1024).astype(dtype)
    timed(f"solve {name} 1024", lambda: np.linalg.solve(a, b))
stack = rng.random((1000, 32, 32)) + np.eye(32) * 32
timed("det float64 1000x32x32", lambda: np.linalg.det(stack))
a = rng.random((512, 512))
spd = rng.random((512, 512)) + np.eye(512) * 512
gram = spd @ spd.T
timed("svd float64 512", lambda: np.linalg.svd(a))
timed("svdvals float64 512", lambda: np.linalg.svd(a, compute_uv=False))
timed("eigh float64 512", lambda: np.linalg.eigh(a))
timed("qr float64 512", lambda: np.linalg.qr(a))
timed("inv float64 512", lambda: np.linalg.inv(a))
timed("cholesky float64 512", lambda: np.linalg.cholesky(gram))
small = rng.random((1000, 16, 16))
timed("svd float64 1000x16x16", lambda: np.linalg.svd(small))
