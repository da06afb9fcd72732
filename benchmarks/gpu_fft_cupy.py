# CuPy beside benchmarks/gpu_fft.cpp in the same run: the same transforms
# (complex64 4096 x 4096 batched, 2^24, float32 rfft 4096 x 4096 rows,
# complex64 fft2 2048^2), event-timed medians of 30 after 3, as ms and as
# bandwidth over the device copy of the input. One JSON line each.
import json
import cupy as cp
from cupy_timing import bench_cupy as bench


def row(name, ms, nbytes, copy_gbps):
    gbps = nbytes / (ms * 1e-3) / 1e9
    print(json.dumps(dict(suite="gpu_fft", name=name, impl="cupy", ms=round(ms, 4), gbps=round(gbps, 1),
                          of_copy=round(gbps / copy_gbps, 3))), flush=True)


rng = cp.random.default_rng(5)
for shape, name in (((4096, 4096), "fft c64 4096x4096 (batched)"), ((1 << 24,), "fft c64 2^24")):
    x = (rng.random(shape, dtype=cp.float32) + 1j * rng.random(shape, dtype=cp.float32)).astype(cp.complex64)
    o = cp.empty_like(x)
    copy_ms = bench(lambda: o.__setitem__(Ellipsis, x))
    nbytes = 2 * x.nbytes
    row(name + " cupy", bench(lambda: cp.fft.fft(x)), nbytes, nbytes / (copy_ms * 1e-3) / 1e9)
x = rng.random((4096, 4096), dtype=cp.float32)
o = cp.empty_like(x)
copy_ms = bench(lambda: o.__setitem__(Ellipsis, x))
row("rfft f32 4096x4096 cupy", bench(lambda: cp.fft.rfft(x)), x.nbytes + 4096 * 2049 * 8, 2 * x.nbytes / (copy_ms * 1e-3) / 1e9)
x = (rng.random((2048, 2048), dtype=cp.float32) + 1j * rng.random((2048, 2048), dtype=cp.float32)).astype(cp.complex64)
o = cp.empty_like(x)
copy_ms = bench(lambda: o.__setitem__(Ellipsis, x))
row("fft2 c64 2048^2 cupy", bench(lambda: cp.fft.fft2(x)), 2 * x.nbytes, 2 * x.nbytes / (copy_ms * 1e-3) / 1e9)
