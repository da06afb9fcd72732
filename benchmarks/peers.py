# Peer baselines on the GPU, in the same run as Kiln's benchmarks: CuPy
# (eager, cupy.fuse, ElementwiseKernel) and PyTorch on the same workloads and
# sizes (after ../shared/toolchain/peers.py). One JSON line per measurement.
import json, sys, time
import numpy as np
import cupy as cp
from cupy_timing import bench_cupy as bench


def emit(name, ms, nbytes, **extra):
    gbps = nbytes / (ms * 1e-3) / 1e9 if nbytes else 0.0
    print(json.dumps(dict(suite="peers", name=name, ms=ms, bytes=nbytes, gbps=round(gbps, 2), **extra)), flush=True)


n = 1 << 28
x = cp.random.random(n, dtype=cp.float32)
y = cp.random.random(n, dtype=cp.float32)
a = cp.float32(2.5)
B = x.nbytes
o = cp.empty_like(x)
emit("d2d copy (read+write)", bench(lambda: o.__setitem__(Ellipsis, x)), 2 * B)

@cp.fuse
def saxpy_f(a, x, y):
    return a * x + y



ek = cp.ElementwiseKernel("T a, T x, T y", "T z", "z = a * x + y", "saxpy")
emit("cupy eager a*x+y", bench(lambda: a * x + y), 3 * B)
emit("cupy.fuse a*x+y", bench(lambda: saxpy_f(a, x, y)), 3 * B)
emit("ElementwiseKernel a*x+y", bench(lambda: ek(a, x, y, o)), 3 * B)
ek_poly = cp.ElementwiseKernel("T p, T q", "T z", """
    if (p > 0.9f) { z = q; } else { T r = 0; for (int k = 0; k < 4; ++k) r = r * p + q; z = r; }""", "clipped_poly")
emit("ElementwiseKernel clipped poly", bench(lambda: ek_poly(x, y, o)), 3 * B)

@cp.fuse
def sq(x, y):
    return (x - y) * (x - y)



emit("cupy eager (x-y)*(x-y)", bench(lambda: (x - y) * (x - y)), 3 * B)
emit("cupy.fuse (x-y)*(x-y)", bench(lambda: sq(x, y)), 3 * B)

@cp.fuse
def leaky(x):
    return cp.where(x > 0, x, cp.float32(0.01) * x)



emit("cupy eager leaky_relu", bench(lambda: cp.where(x > 0, x, cp.float32(0.01) * x)), 2 * B)
emit("cupy.fuse leaky_relu", bench(lambda: leaky(x)), 2 * B)


def chain8(x, y):
    t = x * y + x
    u = t * 0.5 - y
    v = u * u + 1.0
    return v / (x + 2.0)


chain_f = cp.fuse(chain8)
emit("cupy eager chain of 8 ops", bench(lambda: chain8(x, y)), 3 * B)
emit("cupy.fuse chain of 8 ops", bench(lambda: chain_f(x, y)), 3 * B)

def three_statements(a, x, y):
    t = a * x
    u = t + y
    return u * u


three_f = cp.fuse(three_statements)
emit("cupy eager 3 plain statements (a*x; +y; squared)", bench(lambda: three_statements(a, x, y)), 3 * B)
emit("cupy.fuse 3 plain statements (a*x; +y; squared)", bench(lambda: three_f(a, x, y)), 3 * B)

m = 1 << 14
X = x.reshape(m, m)
row = y[:m].copy()
emit("cupy x + row (16k x 16k)", bench(lambda: X + row), 2 * B + m * 4)
@cp.fuse
def scale_shift(t):
    return t * cp.float32(2.0) + cp.float32(1.0)


ek_row = cp.ElementwiseKernel("T x, T r", "T z", "z = x + r", "add_row")
emit("ElementwiseKernel x + row (16k x 16k)", bench(lambda: ek_row(X, row, o.reshape(m, m))), 2 * B + m * 4)
emit("cupy.fuse x.T*2+1 (16k x 16k)", bench(lambda: scale_shift(X.T)), 2 * B)

@cp.fuse
def times_column(t, c):
    return t * c + cp.float32(1.0)


@cp.fuse
def gelu(t):
    return cp.float32(0.5) * t * (cp.float32(1.0) + cp.tanh(cp.float32(0.7978845608) * (t + cp.float32(0.044715) * t * t * t)))


col = y[:m].reshape(m, 1).copy()
emit("cupy eager m*col+1 (16k x 16k)", bench(lambda: X * col + cp.float32(1)), 2 * B + m * 4)
emit("cupy.fuse m*col+1 (16k x 16k)", bench(lambda: times_column(X, col)), 2 * B + m * 4)
ek_col = cp.ElementwiseKernel("T x, T c", "T z", "z = x * c + 1", "times_column")
emit("ElementwiseKernel m*col+1 (16k x 16k)", bench(lambda: ek_col(X, col, o.reshape(m, m))), 2 * B + m * 4)
P = x.reshape(512, 512, 1024).transpose(2, 0, 1)
emit("cupy.fuse permuted 3-d (2,0,1) *2+1", bench(lambda: scale_shift(P)), 2 * B)
xs = x[: 1 << 20].copy()
emit("cupy eager GELU 2^20", bench(lambda: cp.float32(0.5) * xs * (cp.float32(1) + cp.tanh(cp.float32(0.7978845608) * (xs + cp.float32(0.044715) * xs * xs * xs)))), 2 * xs.nbytes)
emit("cupy.fuse GELU 2^20", bench(lambda: gelu(xs)), 2 * xs.nbytes)


def hundred(f):
    def run():
        for _ in range(100):
            f()
    return run


emit("cupy.fuse GELU 2^20, 100 calls back to back (per call)", bench(hundred(lambda: gelu(xs)), 10) / 100, 2 * xs.nbytes)
try:  # CuPy's stream capture (Stream.begin_capture / end_capture, Graph.launch)
    capture_stream = cp.cuda.Stream(non_blocking=True)
    with capture_stream:
        gelu(xs)  # compiled before the capture
        capture_stream.begin_capture()
        for _ in range(100):
            gelu(xs)
        cupy_graph = capture_stream.end_capture()
        emit("cupy.fuse GELU 2^20, graph of 100 calls (per call)", bench(lambda: cupy_graph.launch(capture_stream), 10) / 100,
             2 * xs.nbytes)
except Exception as e:  # noqa: BLE001 - a peer that cannot capture is reported, not fatal
    print(json.dumps(dict(suite="peers", name="cupy.fuse GELU 2^20, graph of 100 calls", error=str(e))), flush=True)

import torch
tx = torch.as_tensor(x, device="cuda")
ty = torch.as_tensor(y, device="cuda")
TX = tx.view(m, m)
trow = torch.as_tensor(row, device="cuda")
emit("torch a*x+y", bench(lambda: 2.5 * tx + ty), 3 * B)
emit("torch (x-y)*(x-y)", bench(lambda: (tx - ty) * (tx - ty)), 3 * B)
emit("torch leaky_relu", bench(lambda: torch.nn.functional.leaky_relu(tx, 0.01)), 2 * B)
emit("torch chain of 8 ops", bench(lambda: chain8(tx, ty)), 3 * B)
emit("torch 3 plain statements (a*x; +y; squared)", bench(lambda: three_statements(2.5, tx, ty)), 3 * B)
try:
    three_c = torch.compile(three_statements, dynamic=False)
    emit("torch.compile 3 plain statements (a*x; +y; squared)", bench(lambda: three_c(2.5, tx, ty)), 3 * B)
except Exception as exc:  # no compiler on the machine: say so, keep going
    print(json.dumps(dict(suite="peers", name="torch.compile 3 plain statements", error=str(exc)[:300])), flush=True)
emit("torch x + row (16k x 16k)", bench(lambda: TX + trow), 2 * B + m * 4)
emit("torch x.T*2+1 (16k x 16k)", bench(lambda: TX.t() * 2.0 + 1.0), 2 * B)
tcol = torch.as_tensor(col, device="cuda")
emit("torch m*col+1 (16k x 16k)", bench(lambda: TX * tcol + 1.0), 2 * B + m * 4)
TP = tx.view(512, 512, 1024).permute(2, 0, 1)
emit("torch permuted 3-d (2,0,1) *2+1", bench(lambda: TP * 2.0 + 1.0), 2 * B)
txs = torch.as_tensor(xs, device="cuda")
emit("torch GELU 2^20", bench(lambda: torch.nn.functional.gelu(txs, approximate="tanh")), 2 * xs.nbytes)
emit("torch GELU 2^20, 100 calls back to back (per call)",
     bench(hundred(lambda: torch.nn.functional.gelu(txs, approximate="tanh")), 10) / 100, 2 * xs.nbytes)
del tx, ty, TX, TP

# Runtime peers.
mm = 8192
A = cp.random.random((mm, mm), dtype=cp.float32)
Bm = cp.random.random((mm, mm), dtype=cp.float32)
t = bench(lambda: A @ Bm, reps=10)
emit("cupy matmul fp32 8192^3", t, 0, tflops=round(2 * mm**3 / (t * 1e-3) / 1e12, 2))
del A, Bm
hx = np.random.random(n).astype(np.float32)


def host_time(f, reps=5):
    f(); cp.cuda.Device().synchronize()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); f(); cp.cuda.Device().synchronize(); ts.append(time.perf_counter() - t0)
    return float(np.median(ts)) * 1e3


d = cp.empty(n, dtype=cp.float32)
emit("cupy H2D pageable 1 GiB", host_time(lambda: d.set(hx)), B)
pinned = cp.cuda.alloc_pinned_memory(B)
hp = np.frombuffer(pinned, np.float32, n)
hp[:] = hx
emit("cupy H2D pinned 1 GiB", host_time(lambda: d.set(hp)), B)
emit("cupy D2H pageable 1 GiB", host_time(lambda: d.get(out=hx)), B)
emit("cupy D2H pinned 1 GiB", host_time(lambda: d.get(out=hp)), B)
cp.cuda.alloc(1 << 20)
t0 = time.perf_counter()
for _ in range(100000):
    cp.cuda.alloc(1 << 20)
t1 = time.perf_counter()
emit("cupy pool alloc+free 1 MiB", (t1 - t0) / 1e5 * 1e3, 0, us=round((t1 - t0) / 1e5 * 1e6, 4))
print(json.dumps(dict(suite="peers", name="versions", gpu=cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                      cupy=cp.__version__, torch=torch.__version__)))
