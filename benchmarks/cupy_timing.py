# The event timing the CuPy and PyTorch peer scripts share (after
# ../shared/toolchain/peers.py): the median of `reps` runs after `warm`
# (3), in ms.
import numpy as np


def bench_cupy(f, reps=30, warm=3):
    import cupy as cp
    for _ in range(warm):
        f()
    cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(reps):
        s.record()
        f()
        e.record()
        e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))


def bench_torch(f, reps=30):
    import torch
    for _ in range(3):
        f()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(reps):
        s.record()
        f()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e))
    return float(np.median(ts))
