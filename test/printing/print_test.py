#!/usr/bin/env python3
"""Kiln's printing against NumPy's (docs/testing.md).

Draws arrays of every Kiln dtype (shapes from 0-d to 4-d, empty ones, ones
past the summarization threshold; values with NaN, infinities, -0.0,
subnormals, huge and tiny magnitudes, integer extremes, exact integers) and
print options (precision, threshold, edgeitems, linewidth, suppress), writes
their bytes, runs print_cases (the runtime of this build) over them, and
compares its str, repr and `<<` output with NumPy's str and repr of the same
data under the same options. Exit 0 when all agree, 1 on a mismatch (each
shown), 77 when NumPy is not installed.
"""
import argparse
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("print_test: NumPy is not installed; skipped")
    sys.exit(77)
if tuple(map(int, np.__version__.split(".")[:2])) < (2, 3):  # 2.3 changed repr and float32's formats
    print("print_test: NumPy %s is older than the 2.3 whose printing Kiln follows; skipped" % np.__version__)
    sys.exit(77)

DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float32", "float64", "complex64", "complex128"]


def values(rng, dtype, n):
    dt = np.dtype(dtype)
    style = rng.choice(["plain", "wide", "special", "integral", "small", "large"])
    if dt.kind == "b":
        return rng.random(n) < rng.choice([0.0, 0.5, 1.0])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if style == "wide":
            v = rng.integers(info.min, info.max, n, endpoint=True, dtype=dt)
        else:
            v = rng.integers(max(info.min, -1000), min(info.max, 1000), n, endpoint=True).astype(dt)
        if style == "special" and n:
            v[rng.integers(0, n)] = info.min
            v[rng.integers(0, n)] = info.max
        return v
    real = np.float32 if dt in (np.float32, np.complex64) else np.float64

    def part():
        if style == "integral":
            p = rng.integers(-50, 50, n).astype(real)
        elif style == "small":
            p = (rng.normal(0, 1, n) * 10.0 ** rng.integers(-12, -3, n)).astype(real)
        elif style == "large":
            p = (rng.normal(0, 1, n) * 10.0 ** rng.integers(6, 30, n)).astype(real)
        elif style == "wide":
            p = (rng.normal(0, 1, n) * 10.0 ** rng.integers(-6, 6, n)).astype(real)
        else:
            p = (rng.normal(0, 3, n) * rng.choice([1, 100])).astype(real)
        if style == "special" and n:
            specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, np.finfo(real).tiny / 4,
                                 np.finfo(real).max, 1e-4, 1e8], dtype=real)
            mask = rng.random(n) < 0.3
            p[mask] = rng.choice(specials, mask.sum())
        return p
    if dt.kind == "c":
        v = np.empty(n, dtype=dt)
        v.real, v.imag = part(), part()
        return v
    return part()


def draw(rng):
    dtype = str(rng.choice(DTYPES))
    ndim = int(rng.choice([0, 1, 1, 2, 2, 3, 4]))
    big = rng.random() < 0.15
    shape = []
    for _ in range(ndim):
        shape.append(int(rng.choice([0, 1, 2, 3, 5, 7]) if not big else rng.choice([3, 12, 40, 1001])))
    if big and ndim == 1:
        shape = [int(rng.choice([1001, 2000, 30]))]
    if np.prod(shape, dtype=np.int64) > 200000:
        shape = [7, 1001]
    view = str(rng.choice(["none", "none", "T", "step"])) if ndim >= 1 else "none"
    if view == "step" and (ndim == 0 or shape[-1] == 0):
        view = "none"
    opts = dict(precision=8, threshold=1000, edgeitems=3, linewidth=75, suppress=False)
    if rng.random() < 0.4:
        opts["precision"] = int(rng.choice([0, 1, 3, 4, 12, 17]))
    if rng.random() < 0.3:
        opts["threshold"] = int(rng.choice([0, 5, 20, 100000]))
    if rng.random() < 0.3:
        opts["edgeitems"] = int(rng.choice([0, 1, 2, 5]))
    if rng.random() < 0.3:
        opts["linewidth"] = int(rng.choice([1, 10, 40, 120]))
    if rng.random() < 0.3:
        opts["suppress"] = True
    base = values(rng, dtype, int(np.prod(shape, dtype=np.int64))).reshape(shape)
    return dtype, shape, view, opts, base


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cases", required=True, help="the print_cases binary")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=400)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        cases, lines = [], []
        for i in range(args.count):
            dtype, shape, view, opts, base = draw(rng)
            path = os.path.join(tmp, "c%d.bin" % i)
            np.ascontiguousarray(base).tofile(path)
            lines.append(" ".join(map(str, [dtype, len(shape)] + shape + [
                view, opts["precision"], opts["threshold"], opts["edgeitems"], opts["linewidth"],
                int(opts["suppress"]), path])))
            x = base.T if view == "T" else base[..., ::2] if view == "step" else base
            with np.printoptions(**opts):
                cases.append((dtype, shape, view, opts, np.array_str(x), np.array_repr(x)))
        manifest = os.path.join(tmp, "manifest.txt")
        with open(manifest, "w") as f:
            f.write("\n".join(lines) + "\n")
        out = subprocess.run([args.cases, manifest], capture_output=True, text=True)
        if out.returncode != 0:
            print(out.stdout[-2000:], out.stderr[-2000:])
            print("print_test: print_cases failed with %d" % out.returncode)
            return 1
    got = {}
    for block in out.stdout.split("@@ ")[1:]:
        head, _, rest = block.partition("\n")
        s, _, rest = rest.partition("\n@@repr\n")
        r, _, streamed = rest.partition("\n@@stream\n")
        got[int(head)] = (s, r, streamed[:-1] if streamed.endswith("\n") else streamed)
    bad = 0
    for i, (dtype, shape, view, opts, want_s, want_r) in enumerate(cases):
        s, r, streamed = got.get(i, (None, None, None))
        for what, g, w in (("str", s, want_s), ("repr", r, want_r), ("<<", streamed, want_s)):
            if g != w:
                bad += 1
                if bad <= 20:
                    print("MISMATCH case %d %s %s %s view %s options %s\n--- NumPy\n%s\n--- Kiln\n%s\n" %
                          (i, what, dtype, shape, view, opts, w, g))
    print("print_test: seed %d, %d arrays printed, NumPy %s, %d mismatches" % (args.seed, len(cases), np.__version__,
                                                                               bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
