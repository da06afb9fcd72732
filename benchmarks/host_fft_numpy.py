# NumPy beside benchmarks/host_fft.cpp on the same machine: the same FFTs,
# median wall time of 9 runs after 2. One JSON line each.
import json
import numpy as np
from host_timing import median_ms

rng = np.random.default_rng(3)


def timed(name, f):
    print(json.dumps(dict(suite="host_fft", name=name, impl="numpy", ms=round(median_ms(f), 3))), flush=True)

def crandom(shape, dtype):
    return (rng.random(shape) + 1j * rng.random(shape)).astype(dtype)


a = crandom(1 << 20, np.complex64)
timed("fft complex64 2^20", lambda: np.fft.fft(a))
b = crandom((256, 4096), np.complex64)
timed("fft complex64 256x4096", lambda: np.fft.fft(b))
r = rng.random(1 << 20).astype(np.float32)
timed("rfft float32 2^20", lambda: np.fft.rfft(r))
c = crandom((1024, 1024), np.complex128)
timed("fft2 complex128 1024^2", lambda: np.fft.fft2(c))
