# NumPy beside benchmarks/host_ufuncs.cpp on the same machine: the same
# ufuncs on 2^22 float32, median wall time of 9 runs after 2. One JSON line each.
import json
import numpy as np
from host_timing import median_ms

rng = np.random.default_rng(3)
n = 1 << 22
u = (rng.random(n, dtype=np.float32) * 1.8 - 0.9).astype(np.float32)
w = (rng.random(n, dtype=np.float32) * 20 + 1).astype(np.float32)
iw, iu = (w * np.float32(1000)).astype(np.int32), (u * np.float32(1000)).astype(np.int32)


def timed(name, f):
    print(json.dumps(dict(suite="host_ufuncs", name=name, impl="numpy", ms=round(median_ms(f), 3))), flush=True)

for name, f in (("arcsin", lambda: np.arcsin(u)), ("arctan", lambda: np.arctan(w)), ("sinh", lambda: np.sinh(u)),
                ("cosh", lambda: np.cosh(u)), ("arcsinh", lambda: np.arcsinh(w)), ("arctanh", lambda: np.arctanh(u)),
                ("exp2", lambda: np.exp2(u)), ("expm1", lambda: np.expm1(u)), ("log1p", lambda: np.log1p(w)),
                ("cbrt", lambda: np.cbrt(w)), ("rint", lambda: np.rint(w)), ("square", lambda: np.square(w)),
                ("deg2rad", lambda: np.deg2rad(w)), ("arctan2(u, w)", lambda: np.arctan2(u, w)),
                ("hypot(u, w)", lambda: np.hypot(u, w)), ("logaddexp(u, w)", lambda: np.logaddexp(u, w)),
                ("fmax(u, w)", lambda: np.fmax(u, w)), ("fmod(w, u)", lambda: np.fmod(w, u)),
                ("floor_divide(w, u)", lambda: np.floor_divide(w, u)), ("heaviside(u, 0.5)", lambda: np.heaviside(u, 0.5)),
                ("nextafter(u, w)", lambda: np.nextafter(u, w)), ("spacing(w)", lambda: np.spacing(w)),
                ("sinc(u)", lambda: np.sinc(u)), ("reciprocal(w)", lambda: np.reciprocal(w)),
                ("round(w, 2)", lambda: np.round(w, 2)), ("ldexp(w, 3)", lambda: np.ldexp(w, 3)),
                ("nan_to_num(u)", lambda: np.nan_to_num(u)), ("clip(w, None, 5)", lambda: np.clip(w, None, 5)),
                ("gcd(iw, iu)", lambda: np.gcd(iw, iu))):
    timed(name, f)
