# NumPy beside Kiln's host backend (host_reductions.cpp) on the same machine:
# the same reductions and sizes, float32, median milliseconds of several runs
# (time.perf_counter), one JSON line per measurement (suite "host", with
# "workload" and "impl" for report.py). NumPy code as a user writes it: the
# softmax and layer norm write their temporaries.
import json, os
import numpy as np
from host_timing import median_ms as shared_median_ms

REPS, WARMUP = 15, 2


def median_ms(f, reps=REPS, warmup=WARMUP):
    return shared_median_ms(f, reps, warmup)

def emit(workload, ms, nbytes):
    gbps = nbytes / (ms * 1e-3) / 1e9 if nbytes else 0.0
    print(json.dumps(dict(suite="host", name=f"numpy {workload}", ms=ms, bytes=nbytes, gbps=round(gbps, 2),
                          workload=workload, impl="numpy", cpus=os.cpu_count())), flush=True)


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def layer_norm(x, g, b, eps=np.float32(1e-5)):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


rng = np.random.default_rng(1)
R = C = 4096
n = R * C
x = rng.random((R, C), dtype=np.float32)
y = rng.random((R, C), dtype=np.float32)
emit("sum(x*y,-1) 4k x 4k", median_ms(lambda: np.sum(x * y, -1)), 2 * n * 4 + R * 4)
emit("mean(axis=0) 4k x 4k", median_ms(lambda: x.mean(0)), n * 4 + C * 4)
del y
m = 1 << 24
v = rng.random(m, dtype=np.float32)
emit("sum() 2^24", median_ms(lambda: v.sum()), m * 4)
del v
x = (rng.standard_normal((R, C), dtype=np.float32) * np.float32(2) + np.float32(0.5))
emit("argmax rows 4k x 4k", median_ms(lambda: x.argmax(-1)), n * 4 + R * 8)
emit("L2 norm rows 4k x 4k", median_ms(lambda: np.linalg.norm(x, axis=-1)), n * 4 + R * 4)
x = rng.standard_normal((R, C), dtype=np.float32) * np.float32(3) + np.float32(100)
emit("var rows 4k x 4k", median_ms(lambda: x.var(-1)), n * 4 + R * 4)
x = rng.standard_normal((R, C), dtype=np.float32) * np.float32(3)
emit("softmax rows 4k x 4k", median_ms(lambda: softmax(x)), 2 * n * 4)
g = rng.standard_normal(C, dtype=np.float32) * np.float32(0.5) + np.float32(1)
b = rng.standard_normal(C, dtype=np.float32)
x = rng.standard_normal((R, C), dtype=np.float32) * np.float32(2) + np.float32(1)
emit("layer norm rows 4k x 4k", median_ms(lambda: layer_norm(x, g, b)), 2 * n * 4 + 2 * C * 4)
del x
# Elementwise workloads (host_elementwise.cpp).
m = 1 << 24
x = rng.random(m, dtype=np.float32)
y = rng.random(m, dtype=np.float32)
o = np.empty_like(x)
emit("copy 2^24", median_ms(lambda: np.copyto(o, x)), 2 * m * 4)
emit("a*x+y 2^24", median_ms(lambda: np.float32(2.5) * x + y), 3 * m * 4)
emit("transcendental chain of 8 ops 2^24",
     median_ms(lambda: np.tanh(np.exp(x) * np.sin(y) + np.log(y) * np.cos(x))), 3 * m * 4)
del x, y, o
mm = 4096
x = rng.random((mm, mm), dtype=np.float32)
col = rng.random((mm, 1), dtype=np.float32)
emit("m.T()*2+1 4k x 4k", median_ms(lambda: np.ascontiguousarray(x.T * np.float32(2) + np.float32(1))), 2 * mm * mm * 4)
emit("m.T()*2+1 4k x 4k (NumPy's F-order result)", median_ms(lambda: x.T * np.float32(2) + np.float32(1)), 2 * mm * mm * 4)
into = np.empty((mm, mm), dtype=np.float32)
emit("into.assign(m.T()*2+1) 4k x 4k", median_ms(lambda: into.__setitem__(Ellipsis, x.T * np.float32(2) + np.float32(1))),
     2 * mm * mm * 4)  # NumPy's into[...] = m.T*2+1
emit("m*col+1 4k x 4k", median_ms(lambda: x * col + np.float32(1)), 2 * mm * mm * 4 + mm * 4)
print(json.dumps(dict(suite="host", name="versions", numpy=np.__version__, cpus=os.cpu_count())), flush=True)
