# CuPy beside benchmarks/gpu_signal.cpp in the same run: convolve2d of a
# 4096^2 float32 image (5x5 box, same, symm and fill; 3x3 and 7x7 symm) and
# fftconvolve 2048^2 with 64^2, event-timed medians of 30 after 3, as
# bandwidth over the device copy. One JSON line each.
import json
import cupy as cp
import cupyx.scipy.signal as cps
from cupy_timing import bench_cupy as bench


n = 4096
img = cp.random.random((n, n), dtype=cp.float32)
o = cp.empty_like(img)
copy_ms = bench(lambda: o.__setitem__(Ellipsis, img))
nbytes = 2 * img.nbytes
copy_gbps = nbytes / (copy_ms * 1e-3) / 1e9
for k, b in ((5, "symm"), (5, "fill"), (3, "symm"), (7, "symm")):
    box = cp.full((k, k), 1.0 / (k * k), dtype=cp.float32)
    ms = bench(lambda: cps.convolve2d(img, box, mode="same", boundary=b))
    gbps = nbytes / (ms * 1e-3) / 1e9
    print(json.dumps(dict(suite="gpu_signal", name=f"convolve2d 4096^2 f32 {k}x{k} same {b}", impl="cupy",
                          ms=round(ms, 4), gbps=round(gbps, 1), of_copy=round(gbps / copy_gbps, 3))), flush=True)
big = cp.random.random((2048, 2048), dtype=cp.float32)
filt = cp.random.random((64, 64), dtype=cp.float32)
print(json.dumps(dict(suite="gpu_signal", name="fftconvolve 2048^2 f32 64^2 same", impl="cupy",
                      ms=round(bench(lambda: cps.fftconvolve(big, filt, mode="same")), 4))), flush=True)
