# NumPy beside benchmarks/host_linalg.cpp on the same machine: the same
# products, median wall time of 9 runs after 2, GFLOP/s. One JSON line each.
import json, time
import numpy as np

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
