# CuPy and PyTorch beside benchmarks/gpu_stencil.cpp in the same run: a blur
# (mode same) followed by a threshold on a 4096^2 float32 image. CuPy:
# cupyx.scipy.signal.convolve2d then cupy.where (symm and wrap, as Kiln).
# PyTorch has no symmetric padding: its rows use circular padding (Kiln's
# wrap) through F.pad + F.conv2d (cuDNN) then the threshold, eager and under
# torch.compile. Event-timed medians of 30 after 3, as bandwidth (image
# read, result written) over the device copy. One JSON line each.
import json

import cupy as cp
import cupyx.scipy.signal as cps
from cupy_timing import bench_cupy, bench_torch

n = 4096


img = cp.random.random((n, n), dtype=cp.float32)
o = cp.empty_like(img)
copy_ms = bench_cupy(lambda: o.__setitem__(Ellipsis, img))
nbytes = 2 * img.nbytes
copy_gbps = nbytes / (copy_ms * 1e-3) / 1e9


def report(name, impl, ms, copy):
    gbps = nbytes / (ms * 1e-3) / 1e9
    print(json.dumps(dict(suite="gpu_stencil", name=name, impl=impl, ms=round(ms, 4), gbps=round(gbps, 1),
                          of_copy=round(gbps / copy, 3))), flush=True)


for k in (5, 3, 7, 4):
    box = cp.full((k, k), 1.0 / (k * k), dtype=cp.float32)
    for b in ("symm", "wrap") if k == 5 else ("symm",):
        ms = bench_cupy(lambda: cp.where(cps.convolve2d(img, box, mode="same", boundary=b) > 0.5, 1.0, 0.0)
                        .astype(cp.float32))
        report(f"blur+threshold 4096^2 f32 {k}x{k} {b}", "cupy", ms, copy_gbps)

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = None
if torch is not None:
    x = torch.rand((1, 1, n, n), device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)

    tcopy = bench_torch(lambda: y.copy_(x))
    tcopy_gbps = nbytes / (tcopy * 1e-3) / 1e9
    for k in (5, 3, 7):
        w = torch.full((1, 1, k, k), 1.0 / (k * k), device="cuda")
        lo, hi = (k - 1) // 2, k // 2

        def eager(w=w, lo=lo, hi=hi):
            return (F.conv2d(F.pad(x, (lo, hi, lo, hi), mode="circular"), w) > 0.5).float()

        report(f"blur+threshold 4096^2 f32 {k}x{k} wrap", "torch eager", bench_torch(eager), tcopy_gbps)
        try:
            compiled = torch.compile(eager)
            report(f"blur+threshold 4096^2 f32 {k}x{k} wrap", "torch.compile", bench_torch(compiled), tcopy_gbps)
        except Exception as err:  # no compiler toolchain on the machine
            print(json.dumps(dict(suite="gpu_stencil", name=f"torch.compile {k}x{k}", error=str(err)[:200])))
