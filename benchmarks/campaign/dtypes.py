"""Kiln's element types and typing rules, as the generator needs them.

The dtype names, their C++ spellings and kinds are the differential tester's
(test/difftest/difftest.py). The rules are NumPy 2's (NEP 50: Python scalars
are weak) with Kiln's documented departures (docs/operations.md): no int16
(int8 with uint8 is int32), no float16 (math on bool, int8 and uint8 is
float32), no uint64 (sum and prod of uint8 are int64). The generator checks
every node it builds against NumPy on small inputs (grammar.validate), so a
rule written wrong here drops programs instead of producing wrong ones.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "difftest"))
from difftest import CPP, DTYPES, KIND  # noqa: E402  (the tester's tables are the source of truth)

__all__ = ["CPP", "DTYPES", "KIND", "ITEMSIZE", "INT_RANGE", "promote", "promote_weak", "float_of", "real_of",
           "true_divide_of", "no_bool_of", "single", "is_int", "is_float", "is_complex", "widened"]

ITEMSIZE = {dt: np.dtype(dt).itemsize for dt in DTYPES}
INT_RANGE = {dt: (int(np.iinfo(dt).min), int(np.iinfo(dt).max)) for dt in ("int8", "uint8", "int32", "int64")}
INT_RANGE["bool"] = (0, 1)

_LEVEL = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def is_int(dt):
    return KIND[dt] in "iu"


def is_float(dt):
    return KIND[dt] == "f"


def is_complex(dt):
    return KIND[dt] == "c"


def single(dt):
    """Computes in single precision (its rounding is float32's)."""
    return dt in ("float32", "complex64")


def promote(a, b):
    """Two arrays' result type (kiln::promote_t)."""
    if {a, b} == {"int8", "uint8"}:
        return "int32"
    return np.promote_types(a, b).name


def scalar_kind(v):
    if isinstance(v, bool):
        return "b"
    if isinstance(v, int):
        return "i"
    if isinstance(v, float):
        return "f"
    return "c"


def promote_weak(dt, v):
    """An array of `dt` with the Python (C++) scalar `v` (kiln::scalar_promote_t)."""
    k = scalar_kind(v)
    if _LEVEL[k] <= _LEVEL[KIND[dt]]:
        return dt
    if k == "c" and KIND[dt] == "f":
        return "complex64" if dt == "float32" else "complex128"
    return {"i": "int64", "f": "float64", "c": "complex128"}[k]


def float_of(dt):
    """exp, log, sqrt, sin, cos, tanh (kiln::float_result_t)."""
    return {"bool": "float32", "int8": "float32", "uint8": "float32", "int32": "float64", "int64": "float64"}.get(dt, dt)


def real_of(dt):
    """abs, real, imag of `dt` (kiln::real_result_t)."""
    return {"complex64": "float32", "complex128": "float64"}.get(dt, dt)


def true_divide_of(dt):
    return "float64" if KIND[dt] in "biu" else dt


def no_bool_of(dt):
    """%, pow, sign of `dt`."""
    return "int8" if dt == "bool" else dt


def widened(dt):
    """The dtype NumPy's float64 evaluation of a program carries `dt` in."""
    return {"float32": "float64", "complex64": "complex128"}.get(dt, dt)
