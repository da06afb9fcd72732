#!/usr/bin/env python3
"""Differential testing of kilnc against NumPy.

Generates random array programs (Csmith-style: random dtypes, ranks 0-4 with
broadcasting, transposed and stepped views, Python-like scalars, deep and
wide expression trees, reductions with random axes and keepdims), writes
them as one C++ file (kilnc's start-up is paid once per batch), compiles it
with kilnc, runs it on the device named by KILN_DEVICE (default host), and
compares every result with NumPy evaluating the same program on the same
inputs: dtype and shape exact, integers and bools exact, floats within a
tolerance per dtype. Kiln's documented departures (docs/operations.md) are
applied by not generating what they cover; anything else that differs is a
mismatch, printed with the program so that it can become a regression test.

  difftest.py --kilnc build/bin/kilnc --seed 1 --count 300 [--keep DIR]

Exit status: 0 when every program agreed, 1 otherwise.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

try:
    import numpy as np
except ImportError:  # a test-only dependency: scripts/setup.sh installs it
    print("difftest: skipped: NumPy is not installed (python3 -m pip install numpy)")
    sys.exit(77)
if int(np.__version__.split(".")[0]) < 2:
    print("difftest: skipped: NumPy %s predates NumPy 2's promotion rules (NEP 50), which Kiln follows" % np.__version__)
    sys.exit(77)

DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float32", "float64", "complex64", "complex128"]
CPP = {"bool": "bool", "int8": "std::int8_t", "uint8": "std::uint8_t", "int32": "std::int32_t",
       "int64": "std::int64_t", "float32": "float", "float64": "double",
       "complex64": "std::complex<float>", "complex128": "std::complex<double>"}
KIND = {"bool": "b", "int8": "i", "uint8": "u", "int32": "i", "int64": "i", "float32": "f", "float64": "f",
        "complex64": "c", "complex128": "c"}


class Body:
    """The body of a kiln::elementwise lambda over parameters p0, p1, ...: a
    scalar C++ expression of float arithmetic, <cmath> functions and a
    conditional, with NumPy's evaluation of the same (C++'s float/double
    rules are NumPy's for float32/float64 operands and strong scalars)."""

    FUNCS = ("exp", "log", "sqrt", "sin", "cos", "tanh", "fabs")

    def __init__(self, rng, nparams, depth):
        self.tree = self.make(rng, nparams, depth)

    def make(self, r, n, depth):
        if depth == 0 or r.random() < 0.25:
            if r.random() < 0.7:
                return ("p", r.randrange(n))
            return ("c", r.choice([0.5, 2.0, -1.25, 3.0, 1e-3]), r.random() < 0.5)  # (value, float literal)
        c = r.random()
        if c < 0.5:
            return ("b", r.choice("+-*/"), self.make(r, n, depth - 1), self.make(r, n, depth - 1))
        if c < 0.8:
            return ("f", r.choice(self.FUNCS), self.make(r, n, depth - 1))
        return ("t", r.choice(["<", ">"]), self.make(r, n, depth - 1), self.make(r, n, depth - 1),
                self.make(r, n, depth - 1), self.make(r, n, depth - 1))

    def cpp(self, t=None):
        t = self.tree if t is None else t
        k = t[0]
        if k == "p":
            return "p%d" % t[1]
        if k == "c":
            return repr(float(t[1])) + ("f" if t[2] else "")
        if k == "b":
            return "(%s %s %s)" % (self.cpp(t[2]), t[1], self.cpp(t[3]))
        if k == "f":
            return "std::%s(%s)" % (t[1], self.cpp(t[2]))
        return "((%s %s %s) ? %s : %s)" % (self.cpp(t[2]), t[1], self.cpp(t[3]), self.cpp(t[4]), self.cpp(t[5]))

    def eval(self, params, t=None):
        t = self.tree if t is None else t
        k = t[0]
        if k == "p":
            return params[t[1]]
        if k == "c":
            return (np.float32 if t[2] else np.float64)(t[1])
        if k == "b":
            a, b = self.eval(params, t[2]), self.eval(params, t[3])
            return {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide}[t[1]](a, b)
        if k == "f":
            return {"fabs": np.abs}.get(t[1], getattr(np, t[1], None))(self.eval(params, t[2]))
        cond = (np.less if t[1] == "<" else np.greater)(self.eval(params, t[2]), self.eval(params, t[3]))
        return np.where(cond, self.eval(params, t[4]), self.eval(params, t[5]))


class Gen:
    """One random program: inputs of one broadcast shape family and an expression over them."""

    def __init__(self, rng):
        self.r = rng
        rank = rng.choice([0, 1, 1, 2, 2, 3, 4, 5])
        self.shape = [rng.choice([1, 2, 3, 5, 7, 16, 33]) for _ in range(rank)]
        while int(np.prod(self.shape)) > 8192:  # keep a batch small
            self.shape[self.shape.index(max(self.shape))] = rng.choice([1, 2, 3])
        self.inputs = []  # (name, dtype, shape, view) view: None | "T" | "step" | "offset"
        # How the C++ states it: one statement, a subexpression bound to a
        # local first, or a KILN_FUSE function (locals inlined into one kernel).
        self.form = rng.choice(["plain", "plain", "local", "fuse", "fuse"])
        # An update in place (plain and local forms): `r op= expr`, or
        # `r.assign(expr)` (op "="), into a further input r (a view of its own
        # data), whose dtype is the result's.
        self.update = None  # (op, input)
        # A read of an array, then a write into it (add_write_order).
        self.wo = None

    def input(self):
        if self.inputs and self.r.random() < 0.4:
            return self.r.choice(self.inputs)
        dt = self.r.choice(DTYPES)
        # Broadcast: drop leading dims or set some to 1.
        shape = list(self.shape)
        if shape and self.r.random() < 0.3:
            shape = shape[self.r.randrange(len(shape) + 1):]
        shape = [1 if self.r.random() < 0.2 else d for d in shape]
        view = None
        if len(shape) >= 2 and self.r.random() < 0.25:
            view = "T"
        elif len(shape) >= 1 and self.r.random() < 0.2:
            view = "step"
        elif len(shape) >= 1 and self.r.random() < 0.15:
            view = "offset"
        inp = ("in%d" % len(self.inputs), dt, shape, view)
        self.inputs.append(inp)
        return inp

    def leaf(self):
        if self.r.random() < 0.15:
            v = self.r.choice([0, 1, 2, -3, 7, 300, -129, 0.5, -2.25, 3.0, 1e-3])
            return ("scalar", v)
        return ("in", self.input())

    def expr(self, depth):
        r = self.r
        if depth == 0 or r.random() < 0.2:
            return self.leaf()
        c = r.random()
        if c < 0.45:
            op = r.choice(["+", "-", "*", "/", "%", "pow", "maximum", "minimum", "<", "<=", "==", "!=", ">"] +
                          (list(BIN_FUNCS) + ["&", "|", "^", "<<", ">>"] if r.random() < 0.4 else []))
            return ("bin", op, self.expr(depth - 1), self.expr(depth - 1))
        if c < 0.8:
            op = r.choice(["neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "floor", "ceil", "round",
                           "sign", "isnan", "isinf", "real", "imag", "conj"] +
                          (list(NEW_UNARY) if r.random() < 0.4 else []))
            return ("un", op, self.expr(depth - 1))
        if 0.85 <= c < 0.9:
            # A kiln::elementwise lambda over one or two float arrays.
            args = [self.expr(depth - 1) for _ in range(r.choice([1, 2]))]
            return ("lam", Body(r, len(args), r.choice([1, 2, 3])), *args)
        if c < 0.9:
            # kiln::where takes a bool condition (NumPy's truthiness of any
            # dtype is not part of the C++ API): a comparison.
            cond = ("bin", r.choice(["<", ">", "!=", "=="]), self.expr(depth - 1), self.leaf())
            return ("where", cond, self.expr(depth - 1), self.expr(depth - 1))
        op = r.choice(["sum", "max", "min", "mean", "prod", "any", "all"])
        return ("red", op, self.expr(depth - 1), r.choice([None, 0, -1]), r.random() < 0.3)


# ---------------------------------------------------------------------------
# Typing with NumPy itself: an expression is kept only if NumPy accepts it and
# Kiln documents the same rule (the departures below are not generated).

# Issue 27's ufuncs. REAL_ONLY: Kiln takes no complex operand (NumPy does
# for these: a documented departure).
NEW_FLOAT_UNARY = ("arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "exp2", "expm1",
                   "log1p", "cbrt", "deg2rad", "rad2deg", "radians", "degrees", "rint", "fabs", "spacing")
NEW_UNARY = NEW_FLOAT_UNARY + ("trunc", "fix", "square", "positive", "negative", "absolute", "isfinite", "signbit",
                               "invert", "reciprocal", "sinc", "bitwise_count", "conjugate", "angle", "angle_deg",
                               "round2", "round_m1", "nan_to_num", "nan_to_num3", "clip_lo", "clip_hi", "ldexp3",
                               "ldexp_m2", "frexp_m", "frexp_e", "modf_f", "modf_i")
# Unary nodes of a function with a second argument: their C++ and NumPy's.
WITH_ARGUMENT = {"angle_deg": ("kiln::angle(%s, true)", lambda a: np.angle(a, deg=True)),
                 "round2": ("kiln::round(%s, 2)", lambda a: np.round(a, 2)),
                 "round_m1": ("kiln::round(%s, -1)", lambda a: np.round(a, -1)),
                 "nan_to_num": ("kiln::nan_to_num(%s)", np.nan_to_num),
                 "nan_to_num3": ("kiln::nan_to_num(%s, 1.5, 2.0, -3.0)",
                                 lambda a: np.nan_to_num(a, nan=1.5, posinf=2.0, neginf=-3.0)),
                 "clip_lo": ("kiln::clip(%s, -0.5, std::nullopt)", lambda a: np.clip(a, -0.5, None)),
                 "clip_hi": ("kiln::clip(%s, std::nullopt, 2)", lambda a: np.clip(a, None, 2)),
                 "ldexp3": ("kiln::ldexp(%s, 3)", lambda a: np.ldexp(a, 3)),
                 "ldexp_m2": ("kiln::ldexp(%s, -2)", lambda a: np.ldexp(a, -2)),
                 "frexp_m": ("kiln::frexp(%s).first", lambda a: np.frexp(a)[0]),
                 "frexp_e": ("kiln::frexp(%s).second", lambda a: np.frexp(a)[1]),
                 "modf_f": ("kiln::modf(%s).first", lambda a: np.modf(a)[0]),
                 "modf_i": ("kiln::modf(%s).second", lambda a: np.modf(a)[1])}
BIN_FUNCS = ("arctan2", "hypot", "copysign", "logaddexp", "logaddexp2", "fmax", "fmin", "floor_divide", "fmod",
             "float_power", "heaviside", "nextafter", "gcd", "lcm", "divmod_q", "divmod_r")
# The halves of divmod's pair (kilnc computes the pair eagerly: a leaf of the fused tree).
PAIR_HALVES = {"divmod_q": ("kiln::divmod(%s, %s).first", lambda a, b: np.divmod(a, b)[0]),
               "divmod_r": ("kiln::divmod(%s, %s).second", lambda a, b: np.divmod(a, b)[1])}
REAL_ONLY = ("arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "expm1", "log1p", "fmax", "fmin",
             "floor_divide", "fmod", "heaviside", "nextafter", "sinc", "spacing", "ldexp3", "ldexp_m2",
             "divmod_q", "divmod_r", "frexp_m", "frexp_e", "modf_f", "modf_i")
INT_ONLY = ("bitwise_count",)
INT_BIN_ONLY = ("gcd", "lcm")  # integer operands: NumPy refuses bools and floats, Kiln at compile time
FLOAT_FUNCS = ("exp", "log", "sqrt", "sin", "cos", "tanh") + NEW_FLOAT_UNARY
FLOAT_BIN_FUNCS = ("arctan2", "hypot", "copysign", "logaddexp", "logaddexp2", "heaviside", "nextafter")
# Library functions two correct implementations may round differently.
LIBRARY_FUNCS = ("exp", "log", "sin", "cos", "tanh", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh",
                 "arccosh", "arctanh", "exp2", "expm1", "log1p", "cbrt", "deg2rad", "rad2deg", "radians", "degrees",
                 "sinc", "angle", "angle_deg")
# The operators also by NumPy's names (kiln::add(a, b), ...): the C++ of a
# node picks one spelling from its contents, so a program is the same every
# time its seed generates it.
NAMED_OPERATORS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "%": "remainder", "pow": "power",
                   "<": "less", "<=": "less_equal", "==": "equal", "!=": "not_equal", ">": "greater"}


def np_eval(e, env):
    """NumPy's answer, with Kiln's documented typing departures applied
    (docs/operations.md): no float16 (math on int8/uint8 is float32), no
    int16 (int8 with uint8 is int32) and no uint64 (sum/prod of uint8 is
    int64)."""
    v = np_eval_node(e, env)
    if PERTURB and inexact(e, np.asarray(v).dtype):
        v = perturbed(e, np.asarray(v), env)
    # No int16 and no uint64 in Kiln: int8 with uint8 is int32 (which holds
    # every such result), and sum/prod of uint8 is int64 (the same bits).
    wider = {np.dtype(np.int16): np.int32, np.dtype(np.uint64): np.int64}.get(np.asarray(v).dtype)
    if WIDE[0]:
        wider = wider or {np.dtype(np.float32): np.float64, np.dtype(np.complex64): np.complex128}.get(np.asarray(v).dtype)
    if wider is not None:
        v = np.asarray(v).astype(wider)  # (wraps as Kiln's int64 does)
    SEEN.add(np.asarray(v).dtype.name)
    return v


SEEN = set()  # the dtypes of every node of the last evaluation
NAN_CHOICE = [False]  # the last evaluation had a complex max/min reduction
COMPLEX_OPERAND = set()  # ids of the unary nodes of the last evaluation whose operand is complex
PERTURB = 0  # +1/-1: move the result of every node two implementations may round differently
WIDE = [False]  # carry every single-precision node in double (the answer the working precision approximates)


def inexact(e, dt):
    """Whether two correct implementations may give `e` different bits.
    IEEE's + - / sqrt and remainder's formula are correctly rounded, and
    floor, abs, comparisons, where, max/min, real/imag are exact; but the
    transcendental functions and pow are libraries of their own (NumPy's
    SIMD loops, glibc, libdevice), a product may be contracted into an FMA
    (the GPU backends do, as nvcc and CuPy do), complex / and sqrt are
    formulas of several roundings, and reductions add in their own order."""
    if dt.kind not in "fc":
        return False
    k, op = e[0], e[1]
    if k == "un":
        return (op in LIBRARY_FUNCS or (op == "sqrt" and dt.kind == "c") or (op == "square" and dt.kind == "c")
                or (op in ("abs", "sign") and id(e) in COMPLEX_OPERAND))  # |z| and z / |z| round
    if k == "bin":
        return (op in ("pow", "*", "arctan2", "hypot", "logaddexp", "logaddexp2", "float_power") or
                (op in ("/", "float_power") and dt.kind == "c"))
    if k == "lam":
        return True  # its arithmetic may be contracted, its functions are libm's or libdevice's
    return k == "red" and op in ("sum", "prod", "mean", "var", "std")


def perturbed(e, v, env):
    """`v`, the value of node `e`, moved as another correct implementation
    may round it: by PERTURB ulps exactly (PERTURB = +-1), or by
    PERTURB ulps of its magnitude (PERTURB = +-4, and pow at +-1); a complex value's
    parts by ulps of its modulus (a part near zero carries the other's
    rounding: pow(1j, 2) may be -1 + 1e-16j). pow's error grows with
    |y log x| (exp of a rounded product), so its move does too."""
    eps = np.finfo(v.dtype).eps
    is_pow = e[0] == "bin" and e[1] == "pow"
    if abs(PERTURB) == 1 and v.dtype.kind == "f" and not is_pow:
        return np.nextafter(v, np.where(PERTURB > 0, np.inf, -np.inf).astype(v.dtype))
    # pow moves by 1 and by 4 of its scaled ulps: a result whose error is
    # many radians of a later cos is sampled densely enough to see it turn.
    k = float(PERTURB)
    if is_pow:
        saved = globals()["PERTURB"]
        globals()["PERTURB"] = 0
        try:
            a, b = np.asarray(np_eval(e[2], env)), np.asarray(np_eval(e[3], env))
        finally:
            globals()["PERTURB"] = saved
        with np.errstate(all="ignore"):
            amp = np.abs(b * np.log(np.abs(a) if a.dtype.kind != "c" else a))
        k = k * np.maximum(1.0, np.nan_to_num(amp, nan=1.0, posinf=1e30))
    d = k * eps
    with np.errstate(all="ignore"):
        if v.dtype.kind != "c":
            return (v * (1 + d)).astype(v.dtype)
        # An infinite part stays (inf - inf would make it NaN and hide the
        # move of the finite part beside it, which decides signs downstream).
        step = np.nan_to_num(d * np.abs(v), nan=0.0, posinf=0.0, neginf=0.0)
        moved = lambda part: np.where(np.isfinite(part), part + step, part)
        out = np.empty_like(v)
        out.real, out.imag = moved(v.real), moved(v.imag)
        return out


def rounded(e):
    """The tree has a node two correct implementations may round differently."""
    kids = [x for x in e[1:] if isinstance(x, tuple)]
    return (e[0] in ("un", "bin", "red") and inexact(e, np.dtype(np.float64))) or any(rounded(x) for x in kids)


def near_tie_flipped(op, a, b):
    """a == b (or !=), flipped where a and b are within 8 ulps of each other,
    so that the conditioning check sees the element move."""
    a, b = np.asarray(a), np.asarray(b)
    r = np.equal(a, b) if op == "==" else np.not_equal(a, b)
    kinds = a.dtype.kind + b.dtype.kind
    if "f" not in kinds and "c" not in kinds:
        return r
    single = {a.dtype.name, b.dtype.name} & {"float32", "complex64"}
    eps = np.finfo(np.float32 if single else np.float64).eps
    with np.errstate(all="ignore"):
        near = np.abs(a - b) <= 8 * eps * np.maximum(np.abs(a), np.abs(b))
    return np.where(near, ~r, r)


def np_eval_node(e, env):
    k = e[0]
    if k == "scalar":
        return e[1]
    if k == "in":
        return env[e[1][0]]
    if k == "bin":
        a, b = np_eval(e[2], env), np_eval(e[3], env)
        op = e[1]
        if op in ("maximum", "minimum", "fmax", "fmin", "copysign", "float_power"):
            return getattr(np, op)(a, b)
        if op in ("floor_divide", "fmod", "gcd", "lcm", "divmod_q", "divmod_r"):
            if np.result_type(a, b) == np.int16:  # no int16 in Kiln: int32
                a, b = np.asarray(a).astype(np.int32), np.asarray(b).astype(np.int32)
            return PAIR_HALVES[op][1](a, b) if op in PAIR_HALVES else getattr(np, op)(a, b)
        if op in FLOAT_BIN_FUNCS:
            if np.result_type(a, b) in (np.int8, np.uint8, np.int16, np.bool_):
                # departure: no float16, Kiln computes these in float32
                a, b = np.asarray(a).astype(np.float32), np.asarray(b).astype(np.float32)
            return getattr(np, op)(a, b)
        if op in ("&", "|", "^", "<<", ">>"):
            if np.result_type(a, b) == np.int16:  # no int16 in Kiln: int32
                a, b = np.asarray(a).astype(np.int32), np.asarray(b).astype(np.int32)
            return {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor, "<<": np.left_shift,
                    ">>": np.right_shift}[op](a, b)
        # Departure: no int16 in Kiln, int8 with uint8 computes in int32 (so
        # it wraps as int32 does, not as int16 then widened).
        if np.result_type(a, b) == np.int16:
            a, b = np.asarray(a).astype(np.int32), np.asarray(b).astype(np.int32)
        if op == "pow":
            r = np.power(a, b)
            if np.ndim(b) == 0 and np.ndim(r) > 0 and r.dtype.kind == "f":
                # Documented departure: NumPy's loop takes a broadcast scalar
                # exponent of 0.5 as sqrt (pow(-inf, 0.5) = nan, pow(-0, 0.5)
                # = -0, but only over more than one element); Kiln is C's pow
                # everywhere (inf and +0), as NumPy is for an array exponent.
                r = np.power(a, np.full(np.shape(r), b, dtype=r.dtype))
            return r
        if PERTURB and op in ("==", "!=") and (rounded(e[2]) or rounded(e[3])):
            # An equality of a rounded value is decided by its last bits, which
            # moving them jumps over: a near-tie counts as undetermined.
            return near_tie_flipped(op, a, b)
        return {"%": np.remainder, "+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide, "<": np.less,
                "<=": np.less_equal, "==": np.equal, "!=": np.not_equal, ">": np.greater}[op](a, b)
    if k == "un":
        a = np_eval(e[2], env)
        op = e[1]
        if np.asarray(a).dtype.kind == "c":
            COMPLEX_OPERAND.add(id(e))
        if op in FLOAT_FUNCS and np.asarray(a).dtype in (np.int8, np.uint8):
            # departure: no float16, Kiln computes these in float32
            a = np.asarray(a).astype(np.float32)
        f = {"neg": np.negative, "abs": np.abs, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "sin": np.sin,
             "cos": np.cos, "tanh": np.tanh, "floor": np.floor, "ceil": np.ceil, "round": np.round,
             "sign": np.sign, "isnan": np.isnan, "isinf": np.isinf, "real": np.real, "imag": np.imag,
             "conj": np.conj}.get(op) or (WITH_ARGUMENT[op][1] if op in WITH_ARGUMENT else getattr(np, op))
        return f(a)
    if k == "where":
        return np.where(np_eval(e[1], env), np_eval(e[2], env), np_eval(e[3], env))
    if k == "lam":
        args = np.broadcast_arrays(*[np.asarray(np_eval(x, env)) for x in e[2:]])
        # The lambda runs once per element of the broadcast shape, also when
        # its body ignores its parameters.
        return np.broadcast_to(np.asarray(e[1].eval(args)), args[0].shape).copy()
    if k == "red":
        a = np.asarray(np_eval(e[2], env))
        op, axis, keep = e[1], e[3], e[4]
        if a.ndim == 0 and axis is not None:
            raise ValueError("axis on a 0-d array")
        if op in ("max", "min") and a.dtype.kind == "c":
            NAN_CHOICE[0] = True
        r = getattr(np, op)(a, axis=axis, keepdims=keep)
        if op == "prod" and PERTURB and a.dtype.kind in "fc":
            # Another order of the same product: where the factors above 1
            # alone overflow the dtype, some order reaches inf before a 0 (or
            # a tiny factor) and gives nan or inf where NumPy's left-to-right
            # order did not (campaign seed 5020 #116): order-dependent, so
            # ill-conditioned.
            with np.errstate(all="ignore"):
                big = np.sum(np.log(np.maximum(1.0, np.abs(a).astype(np.float64))), axis=axis, keepdims=keep)
            r = np.where(big > np.log(float(np.finfo(a.dtype).max)), np.array(np.nan, dtype=r.dtype), r)
        return r
    raise AssertionError(k)


def has_array(e):
    return e[0] == "in" or any(isinstance(x, tuple) and has_array(x) for x in e[1:])


def subtrees(e):
    """The operation nodes below the root that read an array (candidates to
    bind to a local)."""
    out = []
    for x in e[1:]:
        if isinstance(x, tuple) and x[0] in ("bin", "un", "where", "red"):
            if has_array(x):
                out.append(x)
            out += subtrees(x)
    return out


def cpp_of(e, local=None):
    """The C++ of `e`; the node `local` (by identity) is spelled `t`."""
    if local is not None and e is local:
        return "t"
    k = e[0]
    if k == "scalar":
        v = e[1]
        return repr(v) if isinstance(v, float) else str(v)
    if k == "in":
        return e[1][0]
    if k == "bin":
        a, b = cpp_of(e[2], local), cpp_of(e[3], local)
        if e[1] in PAIR_HALVES:
            return PAIR_HALVES[e[1]][0] % (a, b)
        if e[1] in ("maximum", "minimum", "pow") + BIN_FUNCS:
            if e[1] == "pow" and zlib.crc32(repr(e).encode()) % 4 == 0:
                return "kiln::power(%s, %s)" % (a, b)
            return "kiln::%s(%s, %s)" % (e[1], a, b)
        if e[1] in NAMED_OPERATORS and zlib.crc32(repr(e).encode()) % 4 == 0:
            return "kiln::%s(%s, %s)" % (NAMED_OPERATORS[e[1]], a, b)
        return "(%s %s %s)" % (a, e[1], b)
    if k == "un":
        if e[1] == "neg":
            return "(-%s)" % cpp_of(e[2], local)
        if e[1] in WITH_ARGUMENT:
            return WITH_ARGUMENT[e[1]][0] % cpp_of(e[2], local)
        return "kiln::%s(%s)" % (e[1], cpp_of(e[2], local))
    if k == "where":
        branches = [cpp_of(x, local) for x in (e[2], e[3])]
        if not has_array(e[2]) and not has_array(e[3]):
            # Two scalars type the result: a Python int is NumPy's int64, a
            # C++ int literal Kiln's int32, so spell them as int64.
            branches = ["std::int64_t(%s)" % c if x[0] == "scalar" and isinstance(x[1], int) and not isinstance(x[1], bool)
                        else c for x, c in zip((e[2], e[3]), branches)]
        return "kiln::where(%s, %s, %s)" % (cpp_of(e[1], local), branches[0], branches[1])
    if k == "lam":
        params = ", ".join("auto p%d" % i for i in range(len(e) - 2))
        args = ", ".join(cpp_of(x, local) for x in e[2:])
        return "kiln::elementwise([](%s) { return %s; }, %s)" % (params, e[1].cpp(), args)
    if k == "lib":  # a library call: e[1] formats the operands' C++
        return e[1].format(*[cpp_of(x, local) for x in e[3:]])
    if k == "red":
        args = cpp_of(e[2], local)
        if e[3] is not None or e[4]:
            args += ", %s" % ("kiln::all" if e[3] is None else e[3])
        if e[4]:
            args += ", true"
        return "kiln::%s(%s)" % (e[1], args)
    raise AssertionError(k)


def departs(e, env):
    """True if NumPy's answer for `e` is one Kiln documents as different, or
    the C++ form would not mean the same (operator precedence is explicit;
    C++ scalars are int64/double constants)."""
    k = e[0]
    kids = [x for x in e[1:] if isinstance(x, tuple)]
    if any(departs(x, env) for x in kids):
        return True
    if k == "scalar" or k == "in":
        return False
    vals = [np.asarray(np_eval(x, env)) for x in kids]
    if k == "bin":
        a, b = vals
        if not (has_array(e[2]) or has_array(e[3])):
            return True  # scalar op scalar is plain C++, not Kiln
        # Documented departure: complex x / z with an infinite z (C99 Annex G).
        if e[1] == "/" and b.dtype.kind == "c" and np.isinf(b).any():
            return True
        # Documented departure: integer pow with a negative exponent gives the
        # integer part of the reciprocal (NumPy raises).
        if e[1] == "pow":
            r = np.result_type(a, b)
            if r.kind in "iub" and b.dtype.kind == "i" and (b < 0).any():
                return True
        # C++ has no bool - and no ordering of bools through scalars we generate.
        if e[1] == "-" and (a.dtype == bool and b.dtype == bool):
            return True
        if e[1] in REAL_ONLY and "c" in (a.dtype.kind + b.dtype.kind):
            return True  # fmax/fmin of complex: not yet (docs/operations.md)
        if e[1] in FLOAT_BIN_FUNCS and a.dtype == bool and b.dtype == bool:
            return True  # NumPy: float16
        if e[1] in INT_BIN_ONLY and np.result_type(a, b).kind not in "iu":
            return True
    if k == "un":
        a = vals[0]
        if not has_array(e[2]):
            return True
        if e[1] in ("floor", "ceil") and a.dtype.kind == "c":
            return True  # refused at compile time, as NumPy refuses
        if e[1] in ("neg", "negative") and a.dtype == bool:
            return True
        if e[1] in REAL_ONLY and a.dtype.kind == "c":
            return True  # not yet for complex (docs/operations.md); NumPy takes it
        if e[1] in INT_ONLY and a.dtype.kind not in "iub":
            return True  # NumPy refuses too; Kiln at compile time
        if e[1] in ("angle", "angle_deg") and a.dtype in (np.bool_, np.int8, np.uint8):
            return True  # NumPy: float16 (Kiln has none: float32, documented)
        if e[1] in ("round2", "round_m1") and a.dtype == bool:
            return True  # NumPy refuses; Kiln at compile time
        if e[1] == "reciprocal" and a.dtype.kind in "iu" and (a == 0).any():
            return True  # NumPy's integer 1 / 0 depends on the platform; Kiln gives 0 (documented)
        if e[1] in ("ldexp3", "ldexp_m2", "frexp_m", "frexp_e", "modf_f", "modf_i") and a.dtype in (np.bool_, np.int8, np.uint8):
            return True  # NumPy: float16 (Kiln has none: float32, documented)
        if e[1] in NEW_FLOAT_UNARY and a.dtype == bool:
            return True  # NumPy: float16 (Kiln has none: float32, documented)
        # NumPy's floor/ceil/round of bool give float16 (Kiln keeps bool,
        # documented); imag of bool is bool in Kiln, NumPy gives bool too.
        if e[1] in ("floor", "ceil", "round", "sqrt", "exp", "log", "sin", "cos", "tanh") and a.dtype == bool:
            return True
        # conj of bool: NumPy has no bool loop and gives int8; Kiln keeps
        # bool ("real and conj return a copy"). To settle (issue 8).
        if e[1] in ("conj", "conjugate") and a.dtype == bool:
            return True
    if k == "where" and not has_array(e[1]):
        return True
    if k == "lam":
        # Float arrays only: the lambda computes in C++'s types, which are
        # NumPy's for float32 and float64 (not for the integer promotions).
        return not all(has_array(x) for x in e[2:]) or any(v.dtype.kind != "f" for v in vals)
    if k == "red":
        a = vals[0]
        if not has_array(e[2]):
            return True  # Kiln reduces arrays, not C++ scalars
        if a.size == 0 and e[1] in ("max", "min"):
            return True
    return False


def evaluate(e, env):
    """NumPy's answer, the tolerance its floats are compared with (single
    precision's if any node of the tree computed in it: a float64 result of
    float32 intermediates carries their rounding), and the conditioning mask.

    The mask is False where NumPy's answer is not determined by the tree at
    the working precision: evaluated again with the result of every node
    that two correct implementations may round differently (inexact())
    moved 1 ulp and 4 ulps up and down (pow's by more: perturbed()), or
    carried in double precision where it computes in single, it
    differs by more than a tenth of the
    tolerance (sin of a huge power, the sign of an infinity decided by the
    last bit of an exp, a comparison at a tie). Kiln is held to NumPy's answer
    everywhere else. None when every element is well conditioned."""
    global PERTURB
    SEEN.clear()
    COMPLEX_OPERAND.clear()
    NAN_CHOICE[0] = False
    with np.errstate(all="ignore"):
        want = np.asarray(np_eval(e, env))
        single = bool(SEEN & {"float32", "complex64"})
        tol = tolerance("float32" if single else "float64")
        others = []
        try:
            for PERTURB in (1, -1, 4, -4):
                others.append(np.asarray(np_eval(e, env)))
            PERTURB = 0
            if single:
                # Where single precision itself misses the double-precision
                # answer, two correct float32 implementations may too: the
                # sign of cos(x) for an x whose rounding error is a radian
                # lies between the perturbed samples above.
                WIDE[0] = True
                others.append(np.asarray(np_eval(e, env)))
        finally:
            PERTURB = 0
            WIDE[0] = False
    stable = None
    if want.dtype.name in DTYPES and all(o.shape == want.shape for o in others):
        # NumPy's own error must be well inside the tolerance, so that a few
        # ulps of difference between two good implementations cannot exceed
        # it once the tree amplifies them (exp of a large power).
        ok = np.ones(want.size, bool)
        for o in others:
            ok &= close_mask(want, o.astype(want.dtype), want.dtype.name, tol / 10)
        if not ok.all():
            stable = ok.reshape(want.shape)
    return want, tol, stable


WIDEST = {"int8": "int64", "uint8": "uint8", "int32": "int64", "float32": "float64", "complex64": "complex128"}


def add_update(g, e, bases, env, rng):
    """Makes `g` the update `r op= e` of a new input r shaped as e's result
    and of a dtype that `r op e` keeps (the result's, sometimes widened within
    its kind), so that NumPy's in-place answer is `r op e`; or, a quarter of
    the time, `r.assign(e)` with r of e's dtype (NumPy's `r[...] = e`, which
    kilnc computes straight into r). Returns the tree NumPy evaluates, or None
    when NumPy refuses it."""
    try:
        with np.errstate(all="ignore"):
            res = np.asarray(np_eval(e, env))
    except (TypeError, ValueError, np.exceptions.AxisError, OverflowError):
        return None
    if res.dtype.name not in DTYPES:
        return None
    dt = res.dtype.name
    assign = rng.random() < 0.25
    if not assign and rng.random() < 0.3:
        dt = WIDEST.get(dt, dt)
    shape = list(res.shape)
    view = "T" if len(shape) >= 2 and rng.random() < 0.3 else "step" if shape and rng.random() < 0.3 else None
    dst = ("r%d" % len(g.inputs), dt, shape, view)
    g.inputs.append(dst)
    bases[dst[0]], env[dst[0]] = inputs_for(rng.randrange(1 << 30), dt, shape, view)
    if assign:
        g.update = ("=", dst)
        return e
    g.update = (rng.choice(["+", "-", "*"]), dst)
    return ("bin", g.update[0], ("in", dst), e)


WRITE_FORMS = ("+=", "mask+=", "mask=", "idx=", "put", "assign", "fill", "copyto", "into", "slice+=", "Tslice-=")


def reads_input(e, inp):
    return (e[0] == "in" and e[1] is inp) or any(isinstance(x, tuple) and reads_input(x, inp) for x in e[1:])


def add_write_order(g, e, bases, env, rng):
    """Makes `g` a program that reads an array and then writes into it
    (issue 24): `X` becomes a copy of one of e's inputs, `u = e` is computed
    from it, one write form changes X, and the result is `u op X`. NumPy
    reads X before the write, so u must too, whatever kilnc inlines.
    Returns the tree NumPy evaluates, or None when none of e's inputs fits."""
    cands = [inp for inp in g.inputs if inp[1] != "bool" and reads_input(e, inp)]
    if not cands or e[0] == "in":  # `auto u = X;` is another handle of X's data, in NumPy too
        return None
    x = rng.choice(cands)
    name, dt, shape, _ = x
    rank = len(shape)
    forms = [f for f in WRITE_FORMS
             if (rank >= 1 or f in ("+=", "assign", "fill", "copyto", "into"))
             and (rank >= 2 or f != "Tslice-=") and (f != "into" or KIND[dt] in "if" and dt not in ("int8", "uint8"))]  # lambdas: no complex yet
    form = rng.choice(forms)
    scalar = 3 if KIND[dt] in "iu" else 0.75
    r = np.array(env[name], copy=True)
    extra = {}
    if form.startswith("mask"):
        m = ("m%d" % len(g.inputs), "bool", list(shape), None)
        g.inputs.append(m)
        bases[m[0]] = env[m[0]] = np.random.default_rng(rng.randrange(1 << 30)).random(shape) > 0.5
        extra["M"] = m[0]
    if form in ("idx=", "put"):
        n = shape[0] if form == "idx=" else int(np.prod(shape))
        k = rng.choice([1, 2, 4])
        i = ("i%d" % len(g.inputs), "int64", [k], None)
        g.inputs.append(i)
        bases[i[0]] = env[i[0]] = np.random.default_rng(rng.randrange(1 << 30)).integers(-n, n, k).astype(np.int64)
        extra["I"] = i[0]
    with np.errstate(all="ignore"):
        if form == "+=":
            r += scalar
        elif form == "mask+=":
            r[env[extra["M"]]] += scalar
        elif form == "mask=":
            r[env[extra["M"]]] = scalar
        elif form == "idx=":
            r[env[extra["I"]]] = scalar
        elif form == "put":
            np.put(r, env[extra["I"]], scalar)
        elif form == "assign":
            r[...] = r * 2
        elif form == "fill":
            r.fill(scalar)
        elif form == "copyto":
            np.copyto(r, r + scalar)
        elif form == "into":
            r[...] = r + r
        elif form == "slice+=":
            r[0:1] += scalar
        else:
            r.T[0:1] -= scalar
    s = repr(scalar)
    write = {"+=": "X += S;", "mask+=": "X[M] += S;", "mask=": "X[M] = S;", "idx=": "X[I] = S;",
             "put": "kiln::put(X, I, S);", "assign": "X.assign(X * 2);", "fill": "X.fill(S);",
             "copyto": "kiln::copyto(X, X + S);", "into": "kiln::elementwise_into(X, [](auto v) { return v + v; }, X);",
             "slice+=": "X.slice({kiln::range(0, 1)}) += S;", "Tslice-=": "X.T().slice({kiln::range(0, 1)}) -= S;"}[form]
    write = write.replace("X", name).replace("S", s).replace("M", extra.get("M", "")).replace("I", extra.get("I", ""))
    op = rng.choice(["+", "-", "*"])
    after = (name + "_w", dt, list(shape), None)  # X after the write, for NumPy only
    env[after[0]] = r
    g.wo = {"target": name, "write": write, "op": op}
    return ("bin", op, e, ("in", after))


def make_program(rng, depth):
    for _ in range(50):
        g = Gen(rng)
        e = g.expr(depth)
        if not has_array(e):
            continue
        bases, env = {}, {}
        for name, dt, shape, view in g.inputs:
            bases[name], env[name] = inputs_for(rng.randrange(1 << 30), dt, shape, view)
        checked = e
        if g.form in ("fuse", "plain") and rng.random() < 0.3:
            checked = add_write_order(g, e, bases, env, rng)
            if checked is None:
                continue
        elif g.form != "fuse" and rng.random() < 0.25:
            checked = add_update(g, e, bases, env, rng)
            if checked is None:
                continue
        try:
            if departs(checked, env):
                continue
            want, tol, stable = evaluate(checked, env)
        except (TypeError, ValueError, np.exceptions.AxisError, OverflowError):
            continue  # NumPy refuses: Kiln must too, but that is checked elsewhere
        if g.update and (want.dtype.name != g.update[1][1] or list(want.shape) != g.update[1][2]):
            continue  # r op e would not keep r's dtype and shape
        if want.dtype.name not in DTYPES or want.dtype == np.float16:
            continue
        g.local, g.result, g.tol = None, want.dtype.name, tol
        g.stable, g.nan_choice = stable, NAN_CHOICE[0]
        subs = subtrees(e)
        if subs and not g.wo and (g.form == "local" or (g.form == "fuse" and rng.random() < 0.5)):
            g.local = rng.choice(subs)
        return g, e, bases, env, want  # the data it was typed and checked on is the data compared
    return None


# ---------------------------------------------------------------------------
# Library programs: one call of kiln::fft, kiln::linalg, kiln::signal or
# kiln::sparse on random finite inputs (views too), against NumPy (and SciPy
# for signal, where it is installed). The tolerance of each is the rounding
# its sums allow: machine epsilon times the sum of the magnitudes involved.

try:
    import scipy.signal as scipy_signal
    import scipy.linalg as scipy_linalg
except ImportError:  # test-only: scripts/setup.sh installs it; without it, no signal or SciPy linalg programs
    scipy_signal = scipy_linalg = None

FLOATS = ["float32", "float64", "complex64", "complex128"]


def eps_of(dt):
    return 2e-7 if np.dtype(dt) in (np.float32, np.complex64) or dt in ("float32", "complex64") else 5e-16


def library_program(rng):
    """(g, e, bases, env, want) for one library call, or None."""
    g = Gen(rng)
    g.form, g.update, g.wo, g.local = "plain", None, None, None
    g.inputs = []

    def make_input(dt, shape, view=None):
        inp = ("in%d" % len(g.inputs), dt, list(shape), view)
        g.inputs.append(inp)
        return inp

    r = rng
    kind = r.choice(["fft", "fft", "fftn", "real", "shift", "svd", "eigh", "norm", "power", "sparse"] +
                    ["det", "slogdet", "inv", "solve", "qr", "svdvec", "eighvec", "eigvec", "lstsq", "pinv", "cholesky"] +
                    (["conv", "conv2d", "lu", "stencil", "stencil"] if scipy_signal is not None else []))
    dt = r.choice(FLOATS)
    args, fmt, well_conditioned, squared = [], None, False, False
    if kind == "fft":
        shape = [r.choice([1, 3, 8, 17, 60]) for _ in range(r.choice([1, 2]))]
        axis = r.choice([-1, 0]) if len(shape) > 1 else -1
        n = r.choice([None, None, max(1, shape[axis] + r.choice([-2, 3]))])
        name = r.choice(["fft", "ifft"])
        norm = r.choice(["backward", "ortho", "forward"])
        inp = make_input(r.choice(FLOATS + ["int32"]), shape, r.choice([None, "T", "step"]) if len(shape) > 1 else None)
        fmt = "kiln::fft::%s({0}, %s, %d, kiln::fft::norm::%s)" % (name, "{{}}" if n is None else str(n), axis, norm)
        np_call = lambda x: getattr(np.fft, name)(x, n=n, axis=axis, norm=norm)
    elif kind == "fftn":
        shape = [r.choice([2, 3, 5, 8]) for _ in range(r.choice([2, 3, 4]))]
        axes = sorted(r.sample(range(len(shape)), r.choice([1, 2, min(3, len(shape))])))
        s = [max(1, shape[a] + r.choice([0, 0, -1, 2])) for a in axes]
        name = r.choice(["fftn", "ifftn"])
        inp = make_input(r.choice(FLOATS), shape, r.choice([None, "T"]))
        fmt = "kiln::fft::%s({0}, kiln::fft::lengths{{%s}}, kiln::axes({{%s}}))" % (
            name, ", ".join(map(str, s)), ", ".join(map(str, axes)))
        np_call = lambda x: getattr(np.fft, name)(x, s=s, axes=axes)
    elif kind == "real":
        shape = [r.choice([2, 5, 8, 33]) for _ in range(r.choice([1, 2]))]
        name = r.choice(["rfft", "irfft", "hfft", "ihfft"])
        real_in = name in ("rfft", "ihfft")
        inp = make_input(r.choice(["float32", "float64"]) if real_in else r.choice(FLOATS), shape)
        n = r.choice([None, shape[-1] * 2 - r.choice([1, 2])]) if not real_in else r.choice([None, shape[-1] + 1])
        fmt = "kiln::fft::%s({0}, %s)" % (name, "{{}}" if n is None else str(n))
        np_call = lambda x: getattr(np.fft, name)(x, n=n)
    elif kind == "shift":
        shape = [r.choice([1, 4, 5]) for _ in range(r.choice([1, 2, 3]))]
        name = r.choice(["fftshift", "ifftshift"])
        inp = make_input(r.choice(FLOATS + ["int32"]), shape)
        fmt = "kiln::fft::%s({0})" % name
        np_call = lambda x: getattr(np.fft, name)(x)
    elif kind == "svd":
        shape = [r.choice([1, 2, 3])] * r.choice([0, 1]) + [r.choice([1, 3, 6]), r.choice([1, 4, 6])]
        inp = make_input(r.choice(FLOATS + ["int32"]), shape, r.choice([None, "T"]))
        fmt = "kiln::linalg::svdvals({0})"
        np_call = lambda x: np.linalg.svd(x, compute_uv=False)
    elif kind == "eigh":
        n = r.choice([1, 3, 5])
        shape = [r.choice([1, 2])] * r.choice([0, 1]) + [n, n]
        uplo = r.choice(["L", "U"])
        inp = make_input(r.choice(FLOATS), shape)
        fmt = "kiln::linalg::eigvalsh({0}, '%s')" % uplo
        np_call = lambda x: np.linalg.eigvalsh(x, UPLO=uplo)
    elif kind in ("det", "slogdet", "inv"):
        n = r.choice([1, 2, 4, 7])
        shape = [r.choice([1, 3])] * r.choice([0, 1]) + [n, n]
        inp = make_input(r.choice(FLOATS + ["int32"]), shape, r.choice([None, "T"]))
        well_conditioned = True
        if kind == "det":
            fmt = "kiln::linalg::det({0})"
            np_call = np.linalg.det
        elif kind == "slogdet":  # the logarithm of |det|: its sign is compared through det
            fmt = "kiln::linalg::slogdet({0}).logabsdet"
            np_call = lambda x: np.linalg.slogdet(x).logabsdet
        else:
            fmt = "kiln::linalg::inv({0})"
            np_call = np.linalg.inv
    elif kind == "solve":
        n = r.choice([1, 3, 6])
        inp = make_input(r.choice(FLOATS + ["int32"]), [n, n], r.choice([None, "T"]))
        args = [make_input(r.choice(FLOATS), r.choice([[n], [n, r.choice([1, 2])]]))]
        fmt = "kiln::linalg::solve({0}, {1})"
        np_call = lambda a, b: np.linalg.solve(a, b)
    # The decompositions are not unique (the signs of singular vectors, the
    # phases of eigenvectors), so these compare what is: the matrix rebuilt
    # from the factors, an eigenpair's residual A v - v w, or a factor that
    # is unique (Cholesky's L, lstsq's x and pinv of a full-rank matrix).
    elif kind == "qr":
        shape = [r.choice([1, 2])] * r.choice([0, 1]) + [r.choice([1, 3, 6]), r.choice([1, 4, 6])]
        inp = make_input(r.choice(FLOATS + ["int32"]), shape, r.choice([None, "T"]))
        fmt = "[&] {{ const auto d = kiln::linalg::qr({0}); return kiln::matmul(d.Q, d.R); }}()"
        np_call = lambda x: np.matmul(*np.linalg.qr(x))
    elif kind == "svdvec":
        shape = [r.choice([1, 2])] * r.choice([0, 1]) + [r.choice([1, 3, 6]), r.choice([1, 4, 6])]
        inp = make_input(r.choice(FLOATS), shape, r.choice([None, "T"]))
        fmt = ("[&] {{ const auto d = kiln::linalg::svd({0}, false); "
               "return kiln::matmul(d.U * kiln::expand_dims(d.S, -2), d.Vh); }}()")

        def np_call(x):
            u, sv, vh = np.linalg.svd(x, full_matrices=False)
            return (u * sv[..., None, :].astype(u.dtype)) @ vh
    elif kind == "eighvec":
        n = r.choice([1, 3, 5])
        uplo = r.choice(["L", "U"])
        inp = make_input(r.choice(FLOATS), [n, n])
        fmt = ("[&] {{ const auto d = kiln::linalg::eigh({0}, '%s'); return kiln::matmul(d.eigenvectors * "
               "kiln::expand_dims(d.eigenvalues, -2), kiln::conj(d.eigenvectors.T())); }}()" % uplo)

        def np_call(x):
            w, v = np.linalg.eigh(x, UPLO=uplo)
            return (v * w[None, :].astype(v.dtype)) @ v.conj().T
    elif kind == "eigvec":
        n = r.choice([1, 3, 5])
        inp = make_input(r.choice(FLOATS), [n, n], r.choice([None, "T"]))
        fmt = ("[&] {{ const auto d = kiln::linalg::eig({0}); return kiln::matmul({0}, d.eigenvectors) - "
               "d.eigenvectors * kiln::expand_dims(d.eigenvalues, -2); }}()")

        def np_call(x):  # Kiln's eig is always complex (docs/operations.md); NumPy's is real when w is
            w, v = np.linalg.eig(x)
            return (x @ v - v * w[None, :]).astype(np.result_type(x.dtype, np.complex64))
    elif kind in ("lstsq", "pinv"):
        m, n = r.choice([3, 6]), r.choice([1, 2, 3])
        inp = make_input(r.choice(FLOATS), [m, n], r.choice([None, "T"]))
        well_conditioned = True
        if kind == "lstsq":
            args = [make_input(inp[1], r.choice([[m], [m, 2]]))]
            fmt = "kiln::linalg::lstsq({0}, {1}).x"
            np_call = lambda a, b: np.linalg.lstsq(a, b)[0]
        else:
            fmt = "kiln::linalg::pinv({0})"
            np_call = np.linalg.pinv
    elif kind == "cholesky":  # of a x a^H, Hermitian positive definite when a has full rank
        n = r.choice([1, 2, 4])
        inp = make_input(r.choice(FLOATS), [n, n])
        well_conditioned = True
        fmt = "kiln::linalg::cholesky(kiln::matmul({0}, kiln::conj({0}.T())))"
        np_call = lambda x: np.linalg.cholesky(x @ x.conj().T)
    elif kind == "lu":
        shape = [r.choice([1, 3, 5]), r.choice([1, 3, 5])]
        inp = make_input(r.choice(FLOATS), shape, r.choice([None, "T"]))
        fmt = ("[&] {{ const auto d = kiln::linalg::lu({0}); return kiln::matmul(d.P, kiln::matmul(d.L, d.U)); }}()")

        def np_call(x):
            pm, lo, up = scipy_linalg.lu(x)
            return pm @ (lo @ up)
    elif kind == "norm":
        shape = [r.choice([2, 4, 5]), r.choice([2, 3, 5])]
        ordv = r.choice([2, -2, "nuc"])
        inp = make_input(r.choice(FLOATS + ["int32"]), shape)
        fmt = "kiln::linalg::norm({0}, %s)" % ("kiln::linalg::nuc" if ordv == "nuc" else "%d.0" % ordv)
        np_call = lambda x: np.asarray(np.linalg.norm(x, ord=ordv))
    elif kind == "power":
        n = r.choice([2, 3])
        p = r.choice([0, 1, 2, 3, 5])
        inp = make_input(r.choice(["int32", "int64", "float64", "complex128"]), [n, n])
        fmt = "kiln::linalg::matrix_power({0}, %d)" % p
        np_call = lambda x: np.linalg.matrix_power(x, p)
    elif kind == "sparse":
        m, n = r.choice([3, 7]), r.choice([4, 9])
        inp = make_input(dt, [m, n])
        vec = make_input(dt, [n])
        fmt = "kiln::sparse::csr_matrix<%s>({0}).dot({1})" % CPP[dt]
        np_call = lambda x, v: x @ v
        args = [vec]
    elif kind == "conv":
        nd = r.choice([1, 2])
        shape = [r.choice([1, 4, 9, 16]) for _ in range(nd)]
        kshape = [r.choice([1, 2, 3, 5]) for _ in range(nd)]
        mode = r.choice(["full", "same", "valid"])
        name = r.choice(["convolve", "correlate"])
        method = r.choice(["direct", "fft"])
        inp = make_input(r.choice(FLOATS), shape)
        args = [make_input(inp[1], kshape)]
        fmt = "kiln::signal::%s({0}, {1}, kiln::signal::mode::%s, kiln::signal::method::%s)" % (name, mode, method)
        np_call = lambda x, v: getattr(scipy_signal, name)(x, v, mode=mode, method=method)
    elif kind == "stencil":  # convolve2d in mode same with a producer and a consumer: one stencil kernel
        k = r.choice([3, 5, 7])
        shape = [r.choice([k, 12, 33, 100]), r.choice([k, 9, 40, 264])]  # 264: the GPU's tiled kernels
        boundary = r.choice(["fill", "wrap", "symm"])
        name = r.choice(["convolve2d", "correlate2d"])
        inp = make_input(r.choice(FLOATS + ["int32"]), shape, r.choice([None, "T"]))
        args = [make_input(inp[1], [k, k], r.choice([None, "T"]))]
        fill = r.choice([0, 2])
        producer, np_producer = r.choice([("{0}", lambda x: x), ("({0} * {0})", lambda x: x * x),
                                          ("(kiln::abs({0}) + 1)", lambda x: np.abs(x) + 1)])
        consumer, np_consumer = r.choice([("%s", lambda c, x: c), ("(%s - {0})", lambda c, x: c - x),
                                          ("(%s * %s)", lambda c, x: c * c)])
        conv = "kiln::signal::%s(%s, {1}, kiln::signal::mode::same, kiln::signal::boundary::%s, %d)" % (
            name, producer, boundary, fill)
        fmt = consumer.replace("%s", conv)
        squared = consumer == "(%s * %s)"

        def np_call(x, v):
            p = np_producer(x)
            c = getattr(scipy_signal, name)(p, v, mode="same", boundary=boundary, fillvalue=fill)
            return np_consumer(c.astype(np.result_type(p, v)), x)
    else:  # conv2d
        shape = [r.choice([3, 8, 13]), r.choice([4, 9, 20])]
        kshape = [r.choice([1, 2, 3, 5]), r.choice([1, 3, 4, 5])]
        mode = r.choice(["full", "same", "valid"])
        boundary = r.choice(["fill", "wrap", "symm"])
        name = r.choice(["convolve2d", "correlate2d"])
        inp = make_input(r.choice(FLOATS + ["int32"]), shape, r.choice([None, "T"]))
        args = [make_input(inp[1], kshape)]
        fmt = "kiln::signal::%s({0}, {1}, kiln::signal::mode::%s, kiln::signal::boundary::%s)" % (name, mode, boundary)
        np_call = lambda x, v: getattr(scipy_signal, name)(x, v, mode=mode, boundary=boundary)
    ops = [inp] + args
    bases, env = {}, {}
    for name_, dt_, shape_, view_ in g.inputs:
        bases[name_], env[name_] = inputs_for(rng.randrange(1 << 30), dt_, shape_, view_, finite=True)
    if well_conditioned:  # answers whose rounding grows with the condition number: keep it small
        with np.errstate(all="ignore"):
            if np.max(np.linalg.cond(env[inp[0]].astype(np.complex128))) > 100:
                return None
    try:
        with np.errstate(all="ignore"):
            want = np.asarray(np_call(*[env[o[0]] for o in ops]))
    except (TypeError, ValueError, np.linalg.LinAlgError, np.exceptions.AxisError):
        return None  # NumPy or SciPy refuses: checked by the unit tests
    if want.dtype.name not in DTYPES:
        return None
    e = ("lib", fmt, kind) + tuple(("in", o) for o in ops)
    # The rounding these sums allow: eps times the magnitudes involved.
    magnitude = sum(float(np.abs(env[o[0]]).astype(np.float64).sum()) for o in ops) + 1.0
    if kind in ("conv", "conv2d", "sparse"):
        magnitude = float(np.abs(env[ops[0][0]]).astype(np.float64).sum() *
                          np.abs(env[ops[1][0]]).astype(np.float64).max()) + 1.0
    if kind == "stencil":  # a sum of the produced image's magnitudes, doubled by a squaring consumer
        x = np.abs(env[ops[0][0]]).astype(np.float64)
        magnitude = float((x * x + x + 1).sum() * np.abs(env[ops[1][0]]).astype(np.float64).max()) + 1.0
        if squared:
            magnitude *= 2 * float(np.abs(np.sqrt(np.abs(want.astype(np.complex128)))).max()) + 1
    if kind == "power":
        magnitude = float(np.abs(env[ops[0][0]]).astype(np.float64).sum() + 1.0) ** max(p, 1)
    if kind in ("inv", "lstsq", "pinv", "qr", "svdvec", "eighvec", "eigvec", "cholesky", "lu"):
        magnitude = magnitude ** 2  # products of the factors, and a condition number up to 100
    g.result, g.tol = want.dtype.name, 64 * eps_of(want.dtype.name) * magnitude
    g.stable, g.nan_choice = None, False
    return g, e, bases, env, want


def inputs_for(seed, dt, shape, view, finite=False):
    """The input's base data (what the C++ side builds from the same seed)
    and the view the expression reads; `finite`: no infinities, NaNs or
    extreme integers (the library programs' inputs)."""
    r = np.random.default_rng(seed)
    base_shape = list(shape)
    if view == "T":
        base_shape = base_shape[::-1]
    if view == "step":
        base_shape[-1] = 2 * base_shape[-1]
    if view == "offset":
        base_shape[-1] = base_shape[-1] + 3
    n = int(np.prod(base_shape)) if base_shape else 1
    if dt == "bool":
        v = r.random(n) > 0.5
    elif KIND[dt] in "iu":
        info = np.iinfo(dt)
        lo, hi = max(int(info.min), -200), min(int(info.max), 200)
        if r.random() < 0.3 and not finite:
            lo, hi = int(info.min), int(info.max)
        if finite:
            lo, hi = max(lo, -9), min(hi, 9)
        v = r.integers(lo, hi, n, endpoint=True).astype(dt)
    elif KIND[dt] == "f":
        v = (r.normal(0, 3, n)).astype(dt)
        special = r.random(n) < (0.0 if finite else 0.05)
        v[special] = r.choice(np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dtype=dt), special.sum())
    else:
        part = "float32" if dt == "complex64" else "float64"
        parts = []
        for _ in range(2):
            p = r.normal(0, 3, n).astype(part)
            special = r.random(n) < (0.0 if finite else 0.05)
            p[special] = r.choice(np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dtype=part), special.sum())
            parts.append(p)
        v = np.empty(n, dtype=dt)
        v.real, v.imag = parts
    base = v.reshape(base_shape)
    if view == "T":
        arr = base.T
    elif view == "step":
        arr = base[..., ::-2]
    elif view == "offset":
        arr = base[..., 2:-1]
    else:
        arr = base
    return base, arr


# ---------------------------------------------------------------------------

def write_cpp(programs, path):
    lines = ["// Generated by test/difftest/difftest.py: random programs, compared with NumPy.",
             "#include <kiln/kiln.hpp>", "#include <kiln/fft.hpp>", "#include <kiln/signal.hpp>",
             "#include <kiln/sparse.hpp>", "#include <cmath>", "#include <cstdio>", "#include <fstream>", "#include <string>",
             "", "template <class T> static kiln::array<T> load(const std::string &f, kiln::shape s) {",
             "  std::ifstream in(f, std::ios::binary);",
             "  std::int64_t n = 1; for (auto d : s) n *= d;",
             "  std::vector<T> v(n);",
             "  if constexpr (std::is_same_v<T, bool>) { std::vector<char> c(n); in.read(c.data(), n);"
             " for (std::int64_t i = 0; i < n; ++i) v[i] = c[i]; }",
             "  else in.read(reinterpret_cast<char *>(v.data()), n * sizeof(T));",
             "  return kiln::asarray<T>(v, s);",
             "}",
             "template <class T> static void save(const std::string &f, const kiln::array<T> &a, int id) {",
             "  std::ofstream out(f, std::ios::binary);",
             "  auto v = a.to_vector();",
             "  if constexpr (std::is_same_v<T, bool>) { for (bool b : v) out.put(b ? 1 : 0); }",
             "  else out.write(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(T));",
             "  std::printf(\"{\\\"id\\\": %d, \\\"dtype\\\": \\\"%s\\\", \\\"shape\\\": [\", id, std::string(kiln::name(a.dtype())).c_str());",
             "  for (std::size_t i = 0; i < a.shape().size(); ++i) std::printf(\"%s%lld\", i ? \", \" : \"\", (long long)a.shape()[i]);",
             "  std::printf(\"]}\\n\");",
             "}", ""]
    # KILN_FUSE functions first (namespace scope), then main.
    for i, (g, e, files) in enumerate(programs):
        if g.form != "fuse":
            continue
        target = g.wo["target"] if g.wo else None
        params = ", ".join("const kiln::array<%s> &%s%s" % (CPP[dt], name, "_src" if name == target else "")
                           for name, dt, _, _ in g.inputs)
        lines.append("KILN_FUSE kiln::array<%s> fused_%d(%s) { // program %d" % (CPP[g.result], i, params, i))
        if g.wo:
            lines.append("  auto %s = %s_src.copy();" % (target, target))
            lines.append("  auto u = %s;" % cpp_of(e))
            lines.append("  " + g.wo["write"])
            lines.append("  return (u %s %s);" % (g.wo["op"], target))
            lines.append("}")
            continue
        if g.local is not None:
            lines.append("  auto t = %s;" % cpp_of(g.local))
        lines.append("  return %s;" % cpp_of(e, g.local))
        lines.append("}")
    lines += ["", "int main(int argc, char **argv) {", "  std::string dir = argc > 1 ? argv[1] : \".\";"]
    for i, (g, e, files) in enumerate(programs):
        lines.append("  try { // program %d" % i)
        for (name, dt, shape, view), f in zip(g.inputs, files):
            base_shape = list(shape)
            if view == "T":
                base_shape = base_shape[::-1]
            if view == "step":
                base_shape[-1] *= 2
            if view == "offset":
                base_shape[-1] += 3
            dims = "{" + ", ".join(str(d) for d in base_shape) + "}"
            lines.append("    auto %s_base = load<%s>(dir + \"/%s\", kiln::shape%s);" % (name, CPP[dt], f, dims))
            if view == "T":
                lines.append("    auto %s = %s_base.T();" % (name, name))
            elif view == "step":
                idx = ", ".join(["kiln::all"] * (len(shape) - 1) + ["kiln::range(std::nullopt, std::nullopt, -2)"])
                lines.append("    auto %s = %s_base.slice({%s});" % (name, name, idx))
            elif view == "offset":
                idx = ", ".join(["kiln::all"] * (len(shape) - 1) + ["kiln::range(2, -1)"])
                lines.append("    auto %s = %s_base.slice({%s});" % (name, name, idx))
            else:
                lines.append("    auto %s = %s_base;" % (name, name))
        if g.form == "fuse":
            lines.append("    auto r = fused_%d(%s);" % (i, ", ".join(name for name, _, _, _ in g.inputs)))
        elif g.wo:
            lines.append("    %s = %s.copy();" % (g.wo["target"], g.wo["target"]))
            lines.append("    auto u = %s;" % cpp_of(e))
            lines.append("    " + g.wo["write"])
            lines.append("    auto r = (u %s %s);" % (g.wo["op"], g.wo["target"]))
        else:
            if g.local is not None:
                lines.append("    auto t = %s;" % cpp_of(g.local))
            if g.update:  # written in place through its view
                lines.append("    auto r = %s;" % g.update[1][0])
                if g.update[0] == "=":
                    lines.append("    r.assign(%s);" % cpp_of(e, g.local))
                else:
                    lines.append("    r %s= %s;" % (g.update[0], cpp_of(e, g.local)))
            else:
                lines.append("    auto r = %s;" % cpp_of(e, g.local))
        lines.append("    save(dir + \"/out%d.bin\", r, %d);" % (i, i))
        lines.append("  } catch (const std::exception &err) { std::printf(\"{\\\"id\\\": %d, \\\"error\\\": \\\"%%s\\\"}\\n\", err.what()); }" % i)
    lines += ["  return 0;", "}", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def tolerance(dt):
    return 1e-4 if dt in ("float32", "complex64") else 1e-9


def close_mask(want, got, dt, tol, nan_choice=False):
    """Per element (flattened): Kiln's value counts as NumPy's. Integers and
    bools exactly; floats within `tol` relative to the value (to the modulus
    for complex values: a part much smaller than the other carries the
    larger one's rounding), NaN where NumPy has NaN, the same infinities.
    With `nan_choice` (a complex max/min reduction met several NaNs: which
    one NumPy returns depends on its iteration order, docs/operations.md),
    any value with a NaN part matches one with a NaN part."""
    if KIND[dt] in "biu":
        return np.asarray(want).ravel() == np.asarray(got).ravel()
    w, g = want.astype(np.complex128).ravel(), got.astype(np.complex128).ravel()
    ok = np.ones(w.shape, bool)
    for part in (np.real, np.imag):
        pw, pg = part(w), part(g)
        fin = np.isfinite(pw) & np.isfinite(pg)
        scale = np.abs(w) if KIND[dt] == "c" else np.abs(pw)
        scale = np.where(np.isfinite(scale), scale, np.abs(pw))
        with np.errstate(all="ignore"):
            close = np.abs(pw - pg) <= tol * np.maximum(1.0, scale)
        same_special = (np.isnan(pw) & np.isnan(pg)) | (np.isinf(pw) & (pw == pg))
        ok &= np.where(fin, close, same_special)
    if nan_choice:
        ok |= (np.isnan(w.real) | np.isnan(w.imag)) & (np.isnan(g.real) | np.isnan(g.imag))
    return ok


def compare(want, got, dt, tol, stable=None, nan_choice=False):
    """Kiln's answer is NumPy's at every well-conditioned element."""
    ok = close_mask(want, got, dt, tol, nan_choice)
    if stable is not None:
        ok |= ~np.asarray(stable, bool).ravel()
    return bool(ok.all())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kilnc", help="the kilnc to test (not needed with --replay)")
    ap.add_argument("--replay", metavar="DIR",
                    help="run the batch a --keep DIR run built (e.g. copied to a GPU machine, KILN_DEVICE=cuda) "
                         "and compare with the NumPy answers saved there; no kilnc needed")
    ap.add_argument("--include", default=os.path.join(os.path.dirname(__file__), "..", "..", "include"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--library", type=float, default=0.2,
                    help="the share of programs that call kiln::fft, linalg, signal or sparse (default 0.2)")
    ap.add_argument("--keep", help="keep the generated files here")
    ap.add_argument("--only", type=int, action="append",
                    help="build and compare only this program of the seed's batch (repeatable); "
                         "a mismatch prints both answers")
    ap.add_argument("--kiln-args", default="", help="extra kilnc arguments (link flags, -L/-l)")
    args = ap.parse_args()
    if args.replay:
        return replay(args.replay)
    if not args.kilnc:
        ap.error("--kilnc is required (or --replay DIR)")

    rng = random.Random(args.seed)
    work = args.keep or tempfile.mkdtemp(prefix="kiln-difftest-")
    os.makedirs(work, exist_ok=True)
    programs, wants, labels, skipped = [], [], [], 0  # labels: each program's number in the seed's batch
    for i in range(args.count):
        made = library_program(rng) if rng.random() < args.library else make_program(rng, args.depth)
        if not made:
            continue
        g, e, bases, env, want = made
        number = len(labels) + skipped
        if args.only and number not in args.only:
            skipped += 1
            continue
        labels.append(number)
        files = []
        for name, dt, shape, view in g.inputs:
            base = bases[name]
            f = "p%d_%s.bin" % (len(programs), name)
            (base.astype(np.uint8) if dt == "bool" else np.ascontiguousarray(base)).tofile(os.path.join(work, f))
            files.append(f)
        programs.append((g, e, files))
        wants.append(want)
    src = os.path.join(work, "programs.cpp")
    exe = os.path.join(work, "programs")
    cmd = [args.kilnc, src, "-o", exe, "-I" + args.include, "-O1"] + args.kiln_args.split()
    # A compile error on a valid program is a mismatch: report the programs
    # the errors point at, leave them out, and build the rest (a few rounds).
    refused = {}
    for _ in range(5):
        live = [(i, p) for i, p in enumerate(programs) if i not in refused]
        write_cpp([p for _, p in live], src)
        built = subprocess.run(cmd, capture_output=True, text=True)
        if built.returncode == 0:
            break
        lines = open(src).read().splitlines()
        owner, current = {}, None
        for n, text in enumerate(lines, 1):
            if "// program " in text:
                current = live[int(text.split("// program ")[1])][0]
            owner[n] = current
        found = False
        for m in re.finditer(r'programs\.cpp"?:(\d+):\d+:?\)?:? error: (.*)', built.stderr):
            i = owner.get(int(m.group(1)))
            if i is not None and i not in refused:
                refused[i] = m.group(2).strip()
                found = True
        if not found:
            print("difftest: kilnc failed on the batch:")
            print(built.stderr[-4000:])
            return 1
    else:
        print("difftest: kilnc still fails after leaving out %d programs" % len(refused))
        return 1
    entries = []
    for i, ((g, e, files), want) in enumerate(zip(programs, wants)):
        cpp = ("%s = copy; u = %s; %s (u %s %s)" % (g.wo["target"], cpp_of(e), g.wo["write"], g.wo["op"], g.wo["target"])
               if g.wo else cpp_of(e) if not g.update else "%s.assign(%s)" % (g.update[1][0], cpp_of(e)) if g.update[0] == "="
               else "%s %s= %s" % (g.update[1][0], g.update[0], cpp_of(e)))
        entries.append({"label": labels[i], "cpp": cpp, "tol": g.tol, "refused": refused.get(i),
                        "inputs": [(n, d, sh, v) for n, d, sh, v in g.inputs], "nan_choice": g.nan_choice,
                        "stable": g.stable})
        if args.keep:
            np.save(os.path.join(work, "want%d.npy" % i), want)
            if g.stable is not None:
                np.save(os.path.join(work, "stable%d.npy" % i), g.stable)
    if args.keep:
        with open(os.path.join(work, "manifest.json"), "w") as f:
            saved = [{k: v for k, v in en.items() if k != "stable"} for en in entries]
            json.dump({"seed": args.seed, "numpy": np.__version__, "programs": saved}, f)
    bad = run_and_compare(work, exe, entries, wants, verbose=bool(args.only))
    if bad < 0:
        return 1
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    report_conditioning(entries, wants)
    print("difftest: seed %d, %d programs compared with NumPy %s on %s, %d mismatches" % (
        args.seed, len(programs), np.__version__, os.environ.get("KILN_DEVICE", "host"), bad))
    return 1 if bad else 0


def report_conditioning(entries, wants):
    skipped = sum(int((~np.asarray(en["stable"], bool)).sum()) for en in entries if en.get("stable") is not None)
    total = sum(int(np.asarray(w).size) for w in wants)
    print("difftest: %d of %d elements ill-conditioned (NumPy's answer moves with a few ulps of rounding), not compared"
          % (skipped, total))


def replay(work):
    with open(os.path.join(work, "manifest.json")) as f:
        m = json.load(f)
    entries = m["programs"]
    wants = [np.load(os.path.join(work, "want%d.npy" % i)) for i in range(len(entries))]
    for i, en in enumerate(entries):
        path = os.path.join(work, "stable%d.npy" % i)
        en["stable"] = np.load(path) if os.path.exists(path) else None
    bad = run_and_compare(work, os.path.join(work, "programs"), entries, wants, verbose=False)
    if bad < 0:
        return 1
    print("difftest: seed %d, %d programs compared with NumPy %s (saved) on %s, %d mismatches" % (
        m["seed"], len(entries), m["numpy"], os.environ.get("KILN_DEVICE", "host"), bad))
    return 1 if bad else 0


def run_and_compare(work, exe, entries, wants, verbose):
    """Runs the batch and compares each result with NumPy's; returns the
    number of mismatches, or -1 if the batch itself failed."""
    order = [i for i, en in enumerate(entries) if not en["refused"]]
    run = subprocess.run([exe, work], capture_output=True, text=True, env=dict(os.environ))
    if run.returncode != 0:
        print("difftest: the program crashed (exit %d)" % run.returncode)
        print(run.stdout[-2000:], run.stderr[-2000:])
        return -1
    results = {}
    for line in run.stdout.splitlines():
        rec = json.loads(line)
        results[order[rec["id"]]] = rec
    bad = 0
    for i, (en, want) in enumerate(zip(entries, wants)):
        rec = results.get(i)
        problem = None
        if en["refused"]:
            problem = "kilnc refused it: " + en["refused"]
        elif rec is None:
            problem = "no result"
        elif "error" in rec:
            problem = "Kiln raised: " + rec["error"]
        elif rec["dtype"].replace("bool_", "bool") != want.dtype.name:
            problem = "dtype %s, NumPy %s" % (rec["dtype"], want.dtype.name)
        elif list(rec["shape"]) != list(want.shape):
            problem = "shape %s, NumPy %s" % (rec["shape"], list(want.shape))
        else:
            dt = want.dtype.name
            got = np.fromfile(os.path.join(work, "out%d.bin" % order.index(i)), dtype=np.uint8 if dt == "bool" else dt)
            got = got.astype(bool) if dt == "bool" else got
            if not compare(want, got.reshape(want.shape), dt, en["tol"], en.get("stable"), en.get("nan_choice", False)):
                problem = "values differ"
                if verbose:
                    problem += "\n  numpy: %s\n  kiln:  %s" % (want.ravel().tolist(), got.tolist())
        if problem:
            bad += 1
            print("MISMATCH program %d: %s\n  kiln:  %s\n  inputs: %s" % (en["label"], problem, en["cpp"], en["inputs"]))
    return bad


if __name__ == "__main__":
    sys.exit(main())
