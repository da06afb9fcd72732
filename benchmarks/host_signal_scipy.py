# SciPy beside benchmarks/host_signal.cpp on the same machine: the same
# convolutions, median wall time of 5 runs after 1. One JSON line each.
import json
import numpy as np
from scipy import signal
from host_timing import median_ms

rng = np.random.default_rng(3)


def timed(name, f):
    print(json.dumps(dict(suite="host_signal", name=name, impl="scipy", ms=round(median_ms(f, 5, 1), 3))),
          flush=True)

img = rng.random((4096, 4096), dtype=np.float32)
box5 = np.full((5, 5), 1 / 25, dtype=np.float32)
box3 = np.full((3, 3), 1 / 9, dtype=np.float32)
timed("convolve2d 4096^2 f32 5x5 same symm", lambda: signal.convolve2d(img, box5, mode="same", boundary="symm"))
timed("convolve2d 4096^2 f32 3x3 same fill", lambda: signal.convolve2d(img, box3, mode="same"))
x = rng.random(1 << 20)
taps = rng.random(31)
timed("convolve 2^20 f64 31 taps direct", lambda: signal.convolve(x, taps, mode="full", method="direct"))
