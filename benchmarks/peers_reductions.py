# Peer baselines for the reduction benchmarks (reductions.cpp), in the same
# run as Kiln's: CuPy eager, cupy.fuse (where it can express the workload),
# cupy.ReductionKernel, PyTorch eager and torch.compile (mode default; the
# compilation is excluded: each compiled function runs once before it is
# timed) on the same workloads and sizes, float32. One JSON line per
# measurement (suite "peers", as peers.py), with "workload" and "impl" for
# report.py; a peer that fails prints an "error" line instead. Each result is
# compared once with a float64 CuPy reference ("check": "ok" or "MISMATCH").
# PEERS_NO_COMPILE=1 skips torch.compile; PEERS_ONLY=a|b (a regular
# expression) times only the workloads it matches.
import json, os, re, time
import numpy as np
import cupy as cp

NO_COMPILE = os.environ.get("PEERS_NO_COMPILE", "") not in ("", "0")
ONLY = os.environ.get("PEERS_ONLY", "")


def wanted(workload):
    return workload == "d2d copy" or not ONLY or re.search(ONLY, workload, re.I) is not None
T0 = time.perf_counter()


def bench(f, reps=30, warmup=3):
    for _ in range(warmup):
        f()
    cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(reps):
        s.record(); f(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))


def line(workload, impl, **fields):
    print(json.dumps(dict(suite="peers", name=f"{impl} {workload}", **fields, workload=workload, impl=impl)),
          flush=True)


def emit(workload, impl, ms, nbytes, **extra):
    gbps = nbytes / (ms * 1e-3) / 1e9 if nbytes else 0.0
    line(workload, impl, ms=ms, bytes=nbytes, gbps=round(gbps, 2), **extra)


def agrees(got, ref, rows, rtol, atol, exact):
    """Whether `got` (CuPy or torch) matches the float64 reference `ref`
    (on rows `rows` of `got` only, if given)."""
    g = cp.asarray(got)
    if rows is not None:
        g = cp.concatenate([g[r] for r in rows])
    if exact:
        return bool((g == ref).all())
    return bool(cp.allclose(g.astype(cp.float64), ref, rtol=rtol, atol=atol))


def trial(workload, impl, f, nbytes, ref, reps=30, warmup=3, rows=None, rtol=1e-4, atol=1e-6, exact=False):
    """Checks f() once against `ref`, then times it; an exception (an
    expression cupy.fuse cannot compile, a torch.compile failure) becomes an
    error line."""
    if not wanted(workload):
        return
    try:
        r = f()
        check = "ok" if agrees(r, ref, rows, rtol, atol, exact) else "MISMATCH"
        del r
        emit(workload, impl, bench(f, reps, warmup), nbytes, check=check)
    except Exception as exc:  # keep going: the other peers still run
        line(workload, impl, error=f"{type(exc).__name__}: {exc}"[:400])


def free():
    cp.cuda.Device().synchronize()
    cp.get_default_memory_pool().free_all_blocks()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


import torch
import torch.nn.functional as F


def t(a):
    """A torch view of a CuPy array (no copy)."""
    return torch.as_tensor(a, device="cuda")


def compiled(fn):
    return torch.compile(fn, dynamic=False)


def compile_trial(workload, fn, args, nbytes, ref, **kw):
    if NO_COMPILE or not wanted(workload):
        return
    try:
        cf = compiled(fn)
    except Exception as exc:
        line(workload, "torch.compile", error=f"{type(exc).__name__}: {exc}"[:400])
        return
    trial(workload, "torch.compile", lambda: cf(*args), nbytes, ref, **kw)


# The device copy of this run (as peers.py): 1 GiB read + 1 GiB written.
n = 1 << 28
x = cp.random.random(n, dtype=cp.float32)
o = cp.empty_like(x)
emit("d2d copy", "cupy", bench(lambda: o.__setitem__(Ellipsis, x)), 2 * x.nbytes)
del x, o
cp.get_default_memory_pool().free_all_blocks()

K = 1 << 14
SQ = K * K

# sum(x * y, -1), 16k x 16k
W = "sum(x*y,-1) 16k x 16k"
x = cp.random.random((K, K), dtype=cp.float32)
y = cp.random.random((K, K), dtype=cp.float32)
nb = 2 * SQ * 4 + K * 4
ref = cp.sum(x.astype(cp.float64) * y, -1)
rtol = 1e-4  # float32 sums of 16k terms, some sequential: catches wrong code, not rounding
trial(W, "cupy eager", lambda: cp.sum(x * y, -1), nb, ref, rtol=rtol)
@cp.fuse
def sum_xy_f(a, b):
    return cp.sum(a * b, axis=-1)


trial(W, "cupy.fuse", lambda: sum_xy_f(x, y), nb, ref, rtol=rtol)
sum_xy_k = cp.ReductionKernel("T x, T y", "T z", "x * y", "a + b", "z = a", "0", "sum_xy")
trial(W, "ReductionKernel", lambda: sum_xy_k(x, y, axis=1), nb, ref, rtol=rtol)
free()
tx, ty = t(x), t(y)
trial(W, "torch", lambda: torch.sum(tx * ty, -1), nb, ref, rtol=rtol)
compile_trial(W, lambda a, b: (a * b).sum(-1), (tx, ty), nb, ref, rtol=rtol)
del tx, ty, x, y, ref
free()

# mean(axis=0), 16k x 16k
W = "mean(axis=0) 16k x 16k"
x = cp.random.random((K, K), dtype=cp.float32)
nb = SQ * 4 + K * 4
ref = x.astype(cp.float64).mean(0)
trial(W, "cupy eager", lambda: x.mean(0), nb, ref, rtol=rtol)
@cp.fuse
def mean0_f(a):
    return cp.sum(a, axis=0) * cp.float32(1.0 / K)


trial(W, "cupy.fuse", lambda: mean0_f(x), nb, ref, rtol=rtol)
free()
tx = t(x)
trial(W, "torch", lambda: tx.mean(0), nb, ref, rtol=rtol)
del tx, x, ref
free()

# x - mean(x, 0), 16k x 16k (issue 24): read once, written once
W = "x - mean(x,0) 16k x 16k"
x = cp.random.random((K, K), dtype=cp.float32)
nb = 2 * SQ * 4
x64 = x.astype(cp.float64)
ref = x64 - x64.mean(0)
del x64
kw = dict(rtol=1e-4, atol=1e-5)
trial(W, "cupy eager", lambda: x - x.mean(0), nb, ref, **kw)
free()
tx = t(x)
trial(W, "torch", lambda: tx - tx.mean(0), nb, ref, **kw)
compile_trial(W, lambda a: a - a.mean(0), (tx,), nb, ref, **kw)
del tx, x, ref
free()

# std(x, 0), 16k x 16k (issue 24)
W = "std(axis=0) 16k x 16k"
x = cp.random.standard_normal((K, K), dtype=cp.float32) * cp.float32(3) + cp.float32(100)
nb = SQ * 4 + K * 4
ref = x.astype(cp.float64).std(0)
trial(W, "cupy eager", lambda: x.std(0), nb, ref, rtol=rtol)
free()
tx = t(x)
trial(W, "torch", lambda: torch.std(tx, 0, correction=0), nb, ref, rtol=rtol)
compile_trial(W, lambda a: torch.std(a, 0, correction=0), (tx,), nb, ref, rtol=rtol)
del tx, x, ref
free()

# sum() of 2^28 (read only)
W = "sum() 2^28"
x = cp.random.random(n, dtype=cp.float32)
nb = n * 4
ref = x.astype(cp.float64).sum()
trial(W, "cupy eager", lambda: x.sum(), nb, ref, rtol=rtol)
@cp.fuse
def sum_f(a):
    return cp.sum(a)


trial(W, "cupy.fuse", lambda: sum_f(x), nb, ref, rtol=rtol)
free()
tx = t(x)
trial(W, "torch", lambda: tx.sum(), nb, ref, rtol=rtol)
del tx, x, ref
free()

# L2 norm, argmax and var of each row, 16k x 16k
x = cp.random.standard_normal((K, K), dtype=cp.float32) * cp.float32(2) + cp.float32(0.5)
W = "L2 norm rows 16k x 16k"
nb = SQ * 4 + K * 4
ref = cp.sqrt(cp.sum(cp.square(x.astype(cp.float64)), -1))
trial(W, "cupy eager", lambda: cp.linalg.norm(x, axis=-1), nb, ref, rtol=rtol)
@cp.fuse
def l2_f(a):
    return cp.sqrt(cp.sum(a * a, axis=-1))


trial(W, "cupy.fuse", lambda: l2_f(x), nb, ref, rtol=rtol)
l2_k = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm_rows")
trial(W, "ReductionKernel", lambda: l2_k(x, axis=1), nb, ref, rtol=rtol)
W = "argmax rows 16k x 16k"
nb = SQ * 4 + K * 8
ref = x.argmax(-1)  # exact: the first largest element
trial(W, "cupy eager", lambda: x.argmax(-1), nb, ref, exact=True)
free()
tx = t(x)
W = "L2 norm rows 16k x 16k"
ref = cp.sqrt(cp.sum(cp.square(x.astype(cp.float64)), -1))
trial(W, "torch", lambda: torch.linalg.vector_norm(tx, dim=-1), SQ * 4 + K * 4, ref, rtol=rtol)
W = "argmax rows 16k x 16k"
ref = x.argmax(-1)
trial(W, "torch", lambda: tx.argmax(-1), SQ * 4 + K * 8, ref, exact=True)
del tx, x, ref
free()
W = "var rows 16k x 16k"
x = cp.random.standard_normal((K, K), dtype=cp.float32) * cp.float32(3) + cp.float32(100)
nb = SQ * 4 + K * 4
ref = x.astype(cp.float64).var(-1)
trial(W, "cupy eager", lambda: x.var(-1), nb, ref, rtol=rtol)
free()
tx = t(x)
trial(W, "torch", lambda: torch.var(tx, -1, correction=0), nb, ref, rtol=rtol)
del tx, x, ref
free()


def softmax_cp(a):
    e = cp.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def softmax_ref(a):
    a = a.astype(cp.float64)
    e = cp.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def softmax_peers(W, R, C, reps, warmup, rows=None):
    x = cp.random.standard_normal((R, C), dtype=cp.float32) * cp.float32(3)
    nb = 2 * R * C * 4
    ref = softmax_ref(x) if rows is None else cp.concatenate([softmax_ref(x[r]) for r in rows])
    kw = dict(reps=reps, warmup=warmup, rows=rows, rtol=1e-4, atol=1e-9)
    trial(W, "cupy eager", lambda: softmax_cp(x), nb, ref, **kw)
    free()
    tx = t(x)
    trial(W, "torch", lambda: torch.softmax(tx, -1), nb, ref, **kw)
    compile_trial(W, lambda a: torch.softmax(a, -1), (tx,), nb, ref, **kw)
    del tx, x, ref
    free()


softmax_peers("softmax rows 64k x 4k", 1 << 16, 4096, 30, 3)

# logsumexp of rows, 64k x 4k (issue 24): read once
W = "logsumexp rows 64k x 4k"
R, C = 1 << 16, 4096
x = cp.random.standard_normal((R, C), dtype=cp.float32) * cp.float32(3)
nb = R * C * 4 + R * 4
x64 = x.astype(cp.float64)
m64 = x64.max(-1, keepdims=True)
ref = cp.log(cp.exp(x64 - m64).sum(-1)) + x64.max(-1)
del x64, m64
kw = dict(rtol=1e-5, atol=1e-6)


def lse_cp(a):
    m = a.max(-1, keepdims=True)
    return cp.log(cp.exp(a - m).sum(-1)) + a.max(-1)


trial(W, "cupy eager", lambda: lse_cp(x), nb, ref, **kw)
free()
tx = t(x)
trial(W, "torch", lambda: torch.logsumexp(tx, -1), nb, ref, **kw)
compile_trial(W, lambda a: torch.logsumexp(a, -1), (tx,), nb, ref, **kw)
del tx, x, ref
free()

# layer norm over rows of 4096, 64k rows, gamma and beta, eps 1e-5
W = "layer norm rows 64k x 4k"
R, C = 1 << 16, 4096
x = cp.random.standard_normal((R, C), dtype=cp.float32) * cp.float32(2) + cp.float32(1)
g = cp.random.standard_normal(C, dtype=cp.float32) * cp.float32(0.5) + cp.float32(1)
b = cp.random.standard_normal(C, dtype=cp.float32)
nb = 2 * R * C * 4 + 2 * C * 4
x64 = x.astype(cp.float64)
ref = (x64 - x64.mean(-1, keepdims=True)) / cp.sqrt(x64.var(-1, keepdims=True) + 1e-5) * g + b
del x64
kw = dict(rtol=1e-4, atol=1e-5)


def layer_norm_cp(a):
    mu = a.mean(-1, keepdims=True)
    var = a.var(-1, keepdims=True)
    return (a - mu) / cp.sqrt(var + cp.float32(1e-5)) * g + b


trial(W, "cupy eager", lambda: layer_norm_cp(x), nb, ref, **kw)
free()
tx, tg, tb = t(x), t(g), t(b)
trial(W, "torch", lambda: F.layer_norm(tx, (C,), tg, tb, 1e-5), nb, ref, **kw)
compile_trial(W, lambda a, w, bb: F.layer_norm(a, (C,), w, bb, 1e-5), (tx, tg, tb), nb, ref, **kw)
del tx, tg, tb, x, g, b, ref
free()

# softmax over rows of 2^17 (512 KiB), 16k rows: 8 GiB each array; fewer
# runs, checked on the first and last 64 rows.
R = 1 << 14
softmax_peers("softmax rows 16k x 2^17", R, 1 << 17, 10, 2, rows=[slice(0, 64), slice(R - 64, R)])

print(json.dumps(dict(suite="peers", name="versions", gpu=cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                      cupy=cp.__version__, torch=torch.__version__, numpy=np.__version__, group="reductions",
                      seconds=round(time.perf_counter() - T0, 1))), flush=True)
