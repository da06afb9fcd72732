# CuPy beside benchmarks/gpu_ufuncs.cpp in the same run: the same three
# chains on 2^28 elements, as ufunc calls (a kernel each) and with cupy.fuse
# (one kernel), event-timed medians of 30 after 3, as bandwidth over the
# device copy. One JSON line each.
import json
import cupy as cp
from cupy_timing import bench_cupy as bench


n = 1 << 28
x = cp.random.random(n, dtype=cp.float32) * 4 - 2
o = cp.empty_like(x)
copy_ms = bench(lambda: o.__setitem__(Ellipsis, x))
print(json.dumps(dict(suite="gpu_ufuncs", name="copy 2^28 f32", impl="cupy", ms=round(copy_ms, 4))), flush=True)


def light(x):
    return cp.fmax(cp.copysign(x, x - cp.float32(0.5)), cp.float32(0.25)) + cp.square(x) * cp.deg2rad(x)


def heavy(x):
    return cp.logaddexp(cp.arcsinh(x), cp.cosh(x * cp.float32(0.5))) + cp.hypot(x, cp.float32(1.5))


def bits(a):
    return ((a & 0xff) ^ (a >> 3)) | (a << 2)


def third(x):
    return cp.nan_to_num(cp.ldexp(x, 3) / x) + cp.clip(x, None, cp.float32(1)) - cp.maximum(x, cp.float32(0.5))


def divisors(a):
    return cp.gcd(a, 360) + cp.lcm(a & 0xff, 12)


a = cp.random.randint(-1000000, 1000000, n, dtype=cp.int32)
for name, f, arg in (("light chain f32 (copysign fmax square deg2rad)", light, x),
                     ("transcendental chain f32 (arcsinh cosh logaddexp hypot)", heavy, x),
                     ("bitwise chain i32 (& ^ >> | <<)", bits, a),
                     ("third batch f32 (ldexp / nan_to_num clip(None) maximum)", third, x),
                     ("gcd lcm i32 (Euclid's loop)", divisors, a)):
    for impl, g in (("cupy", f), ("cupy.fuse", cp.fuse(f))):
        try:
            ms = bench(lambda: g(arg))
        except Exception as e:  # cupy.fuse lacks some ufuncs (nan_to_num)
            print(json.dumps(dict(suite="gpu_ufuncs", name=name, impl=impl, error=str(e)[:120])), flush=True)
            continue
        print(json.dumps(dict(suite="gpu_ufuncs", name=name, impl=impl, ms=round(ms, 4),
                              of_copy=round(copy_ms / ms, 3))), flush=True)
