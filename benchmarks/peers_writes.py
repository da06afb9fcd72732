# Peer baselines for benchmarks/writes.cpp, in the same run: CuPy (eager,
# cupy.fuse where it can write in place, ElementwiseKernel) and PyTorch
# (eager, torch.compile) on the same workloads and sizes, float32. Bytes are
# the same nominal figures as Kiln's (each operand read once, each result
# written once), so the ratios to the device copy compare the kernels. One
# JSON line per measurement; a peer that fails prints an "error" line.
# PEERS_NO_COMPILE=1 skips torch.compile.
import json, os, sys
import numpy as np
import cupy as cp


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


def emit(name, ms, nbytes):
    gbps = nbytes / (ms * 1e-3) / 1e9 if nbytes else 0.0
    print(json.dumps(dict(suite="writes", name=name, ms=ms, bytes=nbytes, gbps=round(gbps, 2))), flush=True)


def trial(name, f, nbytes, **kw):
    try:
        emit(name, bench(f, **kw), nbytes)
    except Exception as ex:  # a peer that cannot express the workload
        print(json.dumps(dict(suite="writes", name=name, error=str(ex)[:200])), flush=True)


n = 1 << 28
B = n * 4
rs = cp.random.RandomState(0)
x = rs.random_sample(n, dtype=cp.float32)
y = rs.random_sample(n, dtype=cp.float32)
o = cp.empty_like(x)
emit("d2d copy (read+write)", bench(lambda: o.__setitem__(Ellipsis, x)), 2 * B)

# x += a * y
a = cp.float32(1e-6)


def cupy_iadd():
    global x
    x += a * y


@cp.fuse
def fused_iadd(x, y, a):
    x += a * y


ek_iadd = cp.ElementwiseKernel("T a, T y", "T x", "x += a * y", "iadd")
trial("cupy eager x += a*y", cupy_iadd, 3 * B)
trial("cupy.fuse x += a*y", lambda: fused_iadd(x, y, a), 3 * B)
trial("ElementwiseKernel x += a*y", lambda: ek_iadd(a, y, x), 3 * B)

# The tutorial's masked update, z[mask] = z[mask] * z[mask] + c[mask], half
# the mask set: mask (1 B), z and c read, z written.
z = (rs.random_sample(n, dtype=cp.float32) * 0.5).astype(cp.float32)
c = (rs.random_sample(n, dtype=cp.float32) * 1e-3).astype(cp.float32)
mask = rs.random_sample(n, dtype=cp.float32) < 0.5
MB = 13 * n


def cupy_masked():
    z[mask] = z[mask] * z[mask] + c[mask]


ek_masked = cp.ElementwiseKernel("bool m, T c", "T z", "if (m) z = z * z + c", "masked_update")
trial("cupy eager z[mask] = z[mask]*z[mask]+c[mask]", cupy_masked, MB, reps=10)
trial("ElementwiseKernel masked update", lambda: ek_masked(mask, c, z), MB)

# concatenate two 2^27 arrays: everything read once and written once.
h = n // 2
p, q = x[:h].copy(), y[:h].copy()
trial("cupy concatenate 2 x 2^27", lambda: cp.concatenate((p, q)), 2 * B)
del p, q

# take: 2^26 random int64 indices into 2^28 floats (index 8 B, gathered
# element 4 B, result 4 B).
k = 1 << 26
idx = rs.randint(0, n, size=k, dtype=cp.int64)
trial("cupy take (2^26 random int64 of 2^28)", lambda: cp.take(x, idx), 16 * k)

# boolean-mask gather x[mask], half set: x (4 B) and mask (1 B) read, half
# the elements written (2 B on average).
trial("cupy x[mask] (half set)", lambda: x[mask], 7 * n, reps=10)

import torch

tx = torch.as_tensor(x, device="cuda")
ty = torch.as_tensor(y, device="cuda")
trial("torch x.add_(y, alpha=a)", lambda: tx.add_(ty, alpha=1e-6), 3 * B)
tz = torch.as_tensor(z, device="cuda")
tc = torch.as_tensor(c, device="cuda")
tm = torch.as_tensor(mask, device="cuda")


def torch_masked():
    tz[tm] = tz[tm] * tz[tm] + tc[tm]


trial("torch z[mask] = z[mask]*z[mask]+c[mask]", torch_masked, MB, reps=10)
trial("torch where(mask, z*z+c, z, out=z)", lambda: torch.where(tm, tz * tz + tc, tz, out=tz), MB)
tp, tq = tx[:h].clone(), ty[:h].clone()
trial("torch cat 2 x 2^27", lambda: torch.cat((tp, tq)), 2 * B)
del tp, tq
tidx = torch.as_tensor(idx, device="cuda")
trial("torch index_select (2^26 random int64 of 2^28)", lambda: torch.index_select(tx, 0, tidx), 16 * k)
trial("torch x[mask] (half set)", lambda: tx[tm], 7 * n, reps=10)
if not os.environ.get("PEERS_NO_COMPILE"):
    def iadd(x, y):
        x.add_(y * 1e-6)

    def masked(z, c, m):
        z.copy_(torch.where(m, z * z + c, z))

    try:
        ci, cm = torch.compile(iadd), torch.compile(masked)
        trial("torch.compile x += a*y", lambda: ci(tx, ty), 3 * B)
        trial("torch.compile masked update (where)", lambda: cm(tz, tc, tm), MB)
    except Exception as ex:
        print(json.dumps(dict(suite="writes", name="torch.compile", error=str(ex)[:200])), flush=True)
