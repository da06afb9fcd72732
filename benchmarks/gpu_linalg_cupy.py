# CuPy beside benchmarks/gpu_linalg.cpp in the same run: the same solves,
# batched svd and eigh and 1024^2 decompositions (float32), median time of 7
# synchronized runs after 2 warm-ups. One JSON line each.
import json, time
import cupy as cp

rng = cp.random.default_rng(7)


def timed(name, f):
    for _ in range(2):
        f()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(7):
        t0 = time.perf_counter()
        f()
        cp.cuda.Device().synchronize()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    print(json.dumps(dict(suite="gpu_linalg", name=name, impl="cupy", ms=round(ts[len(ts) // 2] * 1e3, 3))), flush=True)


n = 1024
a = rng.random((n, n), dtype=cp.float32) + cp.eye(n, dtype=cp.float32) * n
b = rng.random(n, dtype=cp.float32)
timed("solve float32 1024", lambda: cp.linalg.solve(a, b))
a = rng.random((10000, 32, 32), dtype=cp.float32) + cp.eye(32, dtype=cp.float32) * 32
b = rng.random((10000, 32, 1), dtype=cp.float32)
timed("solve float32 10000x32x32", lambda: cp.linalg.solve(a, b))
a = rng.random((10000, 32, 32), dtype=cp.float32)
timed("svd float32 10000x32x32", lambda: cp.linalg.svd(a))
h = a + a.transpose(0, 2, 1)
timed("eigh float32 10000x32x32", lambda: cp.linalg.eigh(h))
a = rng.random((n, n), dtype=cp.float32)
h = a + a.T
timed("eigh float32 1024", lambda: cp.linalg.eigh(h))
timed("svd float32 1024", lambda: cp.linalg.svd(a))
timed("qr float32 1024", lambda: cp.linalg.qr(a))
