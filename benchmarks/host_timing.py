# The wall-clock timing the host peer scripts share (NumPy and SciPy beside
# the host backend's benchmarks): the median of `reps` runs after `warmup`,
# in milliseconds, as bench::host_median_ms times Kiln's side.
import time

import numpy as np


def median_ms(f, reps=9, warmup=2):
    for _ in range(warmup):
        f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts)) * 1e3
