"""The expression IR of a campaign program: typed, ranged nodes that print
themselves as Kiln C++ and as NumPy.

Each node knows Kiln's dtype of its value (dtypes.py), its shape as a
pattern over the program's dimensions (a tuple of dimension ids, None for a
broadcast 1), and an interval its real values lie in (for a complex value,
[-m, m] with m a bound of its modulus). The intervals keep programs in the
domain where two correct implementations agree: no log of a negative, no
division by an interval holding 0, no exp that overflows, no pow of a
negative base, no int conversion of an out-of-range float. Constructors
(make_unary, make_binary, ...) return None for what they refuse; the
generator then picks something else.

NumPy's text applies Kiln's documented departures where NumPy would type a
node otherwise: int8 with uint8 computes in int32, math on int8/uint8 in
float32, sum/prod of uint8 in int64. Single-precision dtypes are spelled
F32 and C64 in NumPy's text, so that the same source runs carried in double
precision (F32 = float64), the oracle's estimate of rounding error.
"""
import math
from dataclasses import dataclass

import numpy as np

from dtypes import (CPP, INT_RANGE, KIND, float_of, is_complex, is_float, is_int, no_bool_of, promote, promote_weak,
                    real_of, single, true_divide_of)

INF = math.inf
# NumPy's spelling of each dtype in a program's text (F32/C64: see above).
PY_DTYPE = {"bool": "np.bool_", "int8": "np.int8", "uint8": "np.uint8", "int32": "np.int32", "int64": "np.int64",
            "float32": "F32", "float64": "np.float64", "complex64": "C64", "complex128": "np.complex128"}


@dataclass(frozen=True)
class Range:
    lo: float
    hi: float

    @property
    def mag(self):
        return max(abs(self.lo), abs(self.hi))

    def excludes_zero(self):
        return self.lo > 0 or self.hi < 0


def hull(*values):
    vals = [v for v in values if not math.isnan(v)]
    return Range(min(vals), max(vals)) if vals else Range(-INF, INF)


def fit(dt, r):
    """`r` as the values of `dt` can hold it: an integer result outside its
    dtype wraps (anything), a float beyond 1e30 is unbounded."""
    if dt == "bool":
        return Range(0, 1)
    if is_int(dt):
        lo, hi = INT_RANGE[dt]
        return r if lo <= r.lo and r.hi <= hi else Range(lo, hi)
    if is_complex(dt):
        m = r.mag
        return Range(-m, m) if m < 1e30 else Range(-INF, INF)
    return r if r.mag < 1e30 else Range(-INF, INF)


def ranged_mul(a, b):
    with np.errstate(all="ignore"):
        return hull(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi)


def cpp_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return "(%d)" % v if v < 0 else "%d" % v
    if isinstance(v, float):
        s = repr(v)
        if "e" not in s and "." not in s and "inf" not in s:
            s += ".0"
        return "(%s)" % s if v < 0 else s
    return "std::complex<double>(%r, %r)" % (v.real, v.imag)


def py_scalar(v):
    if isinstance(v, complex):
        return "complex(%r, %r)" % (v.real, v.imag)
    return "(%r)" % v if v < 0 else repr(v)


# ---------------------------------------------------------------------------
# Nodes


class Node:
    """A value of the program. `kids` are the nodes it reads."""
    dtype = None  # Kiln's dtype; None for a weak (Python/C++) scalar
    pat = ()
    rng = Range(0, 0)
    kids = ()

    def cpp(self):
        raise NotImplementedError

    def py(self):
        raise NotImplementedError

    def walk(self):
        """Every node of the tree, children first (locals not entered)."""
        for k in self.kids:
            yield from k.walk()
        yield self

    @property
    def is_array(self):
        return self.dtype is not None


class Scalar(Node):
    def __init__(self, value):
        self.value = value
        v = value if not isinstance(value, complex) else abs(value)
        self.rng = Range(-abs(v), abs(v)) if isinstance(value, complex) else Range(float(v), float(v))

    def cpp(self):
        return cpp_scalar(self.value)

    def py(self):
        return py_scalar(self.value)


class Arg(Node):
    """An input read through its view (`in0.T()`), or as `w[m]` under a mask."""

    def __init__(self, inp, mask=None):
        self.inp, self.mask = inp, mask
        self.dtype, self.pat, self.rng = inp.dtype, inp.pat, inp.rng

    def cpp(self):
        return "%s[%s]" % (self.inp.name, self.mask.name) if self.mask else self.inp.cpp_view()

    def py(self):
        return "%s[%s]" % (self.inp.name, self.mask.name) if self.mask else self.inp.py_view()


class Ref(Node):
    """A local variable of the program (`auto t0 = ...;`)."""

    def __init__(self, name, value):
        self.name, self.value = name, value
        self.dtype, self.pat, self.rng = value.dtype, value.pat, value.rng

    def cpp(self):
        return self.name

    def py(self):
        return self.name


def broadcast(pa, pb):
    """NumPy's broadcast of two patterns (aligned at the end), or None."""
    n = max(len(pa), len(pb))
    a = (None,) * (n - len(pa)) + tuple(pa)
    b = (None,) * (n - len(pb)) + tuple(pb)
    out = []
    for x, y in zip(a, b):
        if x is not None and y is not None and x != y:
            return None
        out.append(x if x is not None else y)
    return tuple(out)


class Unary(Node):
    CPP_NAME = {"neg": None, "abs": "kiln::abs", "exp": "kiln::exp", "log": "kiln::log", "sqrt": "kiln::sqrt",
                "sin": "kiln::sin", "cos": "kiln::cos", "tanh": "kiln::tanh", "floor": "kiln::floor",
                "ceil": "kiln::ceil", "round": "kiln::round", "sign": "kiln::sign", "isnan": "kiln::isnan",
                "isinf": "kiln::isinf", "real": "kiln::real", "imag": "kiln::imag", "conj": "kiln::conj"}
    FLOAT_FUNCS = ("exp", "log", "sqrt", "sin", "cos", "tanh")

    def __init__(self, op, x, dtype, rng):
        self.op, self.kids, self.dtype, self.pat, self.rng = op, (x,), dtype, x.pat, rng

    def cpp(self):
        x = self.kids[0].cpp()
        return "(-%s)" % x if self.op == "neg" else "%s(%s)" % (self.CPP_NAME[self.op], x)

    def py(self):
        x = self.kids[0]
        arg = x.py()
        if self.op in self.FLOAT_FUNCS and x.dtype in ("int8", "uint8"):
            arg = "%s.astype(F32)" % arg  # Kiln: float32 (NumPy: float16)
        return "(-%s)" % arg if self.op == "neg" else "np.%s(%s)" % (self.op, arg)


class Cast(Node):
    def __init__(self, x, dtype, rng):
        self.kids, self.dtype, self.pat, self.rng = (x,), dtype, x.pat, rng

    def cpp(self):
        return "%s.astype<%s>()" % (self.kids[0].cpp(), CPP[self.dtype])

    def py(self):
        return "%s.astype(%s)" % (self.kids[0].py(), PY_DTYPE[self.dtype])


class Binary(Node):
    FUNCS = ("maximum", "minimum", "pow")
    PY_FUNC = {"maximum": "np.maximum", "minimum": "np.minimum", "pow": "np.power"}

    def __init__(self, op, a, b, dtype, pat, rng):
        self.op, self.kids, self.dtype, self.pat, self.rng = op, (a, b), dtype, pat, rng

    def cpp(self):
        a, b = (k.cpp() for k in self.kids)
        if self.op in self.FUNCS:
            return "kiln::%s(%s, %s)" % (self.op, a, b)
        return "(%s %s %s)" % (a, self.op, b)

    def py(self):
        a, b = self.kids
        pa, pb = a.py(), b.py()
        if {a.dtype, b.dtype} == {"int8", "uint8"}:
            pa, pb = "%s.astype(np.int32)" % pa, "%s.astype(np.int32)" % pb  # Kiln: int32 (NumPy: int16)
        if self.op in self.FUNCS:
            return "%s(%s, %s)" % (self.PY_FUNC[self.op], pa, pb)
        return "(%s %s %s)" % (pa, self.op, pb)


class Where(Node):
    def __init__(self, c, a, b, dtype, pat, rng):
        self.kids, self.dtype, self.pat, self.rng = (c, a, b), dtype, pat, rng

    def cpp(self):
        return "kiln::where(%s, %s, %s)" % tuple(k.cpp() for k in self.kids)

    def py(self):
        return "np.where(%s, %s, %s)" % tuple(k.py() for k in self.kids)


class Clip(Node):
    def __init__(self, x, lo, hi, dtype, rng):
        self.kids, self.lo, self.hi, self.dtype, self.pat, self.rng = (x,), lo, hi, dtype, x.pat, rng

    def cpp(self):
        return "kiln::clip(%s, %s, %s)" % (self.kids[0].cpp(), cpp_scalar(self.lo), cpp_scalar(self.hi))

    def py(self):
        return "np.clip(%s, %s, %s)" % (self.kids[0].py(), py_scalar(self.lo), py_scalar(self.hi))


class Lambda(Node):
    """kiln::elementwise over float arrays; the body is a LambdaBody."""

    def __init__(self, body, args, pat):
        self.body, self.kids, self.pat = body, tuple(args), pat
        self.dtype, self.rng = body.dtype, body.rng

    def cpp(self):
        params = ", ".join("auto p%d" % i for i in range(len(self.kids)))
        return "kiln::elementwise([](%s) { return %s; }, %s)" % (params, self.body.cpp(),
                                                                 ", ".join(k.cpp() for k in self.kids))

    def py(self):
        params = ", ".join("p%d" % i for i in range(len(self.kids)))
        return "elementwise(lambda %s: %s, %s)" % (params, self.body.py(), ", ".join(k.py() for k in self.kids))


class Reduce(Node):
    """A reduction over `axes` (an int, a tuple, or None for every axis)."""

    def __init__(self, op, x, axes, keepdims, dtype, rng, ddof=0, ord=None):
        self.op, self.kids, self.axes, self.keepdims = op, (x,), axes, keepdims
        self.dtype, self.rng, self.ddof, self.ord = dtype, rng, ddof, ord
        rank = len(x.pat)
        reduced = set(range(rank)) if axes is None else {a % rank for a in (axes if isinstance(axes, tuple) else (axes,))}
        self.reduced = reduced
        self.pat = tuple(None if i in reduced else p for i, p in enumerate(x.pat)) if keepdims else \
            tuple(p for i, p in enumerate(x.pat) if i not in reduced)

    def cpp_axes(self):
        if self.axes is None:
            return "kiln::all"
        if isinstance(self.axes, tuple):
            return "{%s}" % ", ".join(str(a) for a in self.axes)
        return str(self.axes)

    def py_axes(self):
        return repr(self.axes)

    def cpp(self):
        x = self.kids[0].cpp()
        keep = ", true" if self.keepdims else ""
        if self.op == "norm":
            if self.ord is None:
                return "kiln::linalg::norm(%s)" % x
            order = {INF: "kiln::linalg::inf"}.get(self.ord, str(self.ord))
            return "kiln::linalg::norm(%s, %s, %s%s)" % (x, order, self.cpp_axes(), keep)
        if self.op in ("var", "std") and self.ddof:
            return "kiln::%s(%s, %s, kiln::ddof(%d), %s)" % (self.op, x, self.cpp_axes(), self.ddof,
                                                             "true" if self.keepdims else "false")
        if self.axes is None and not self.keepdims:
            return "kiln::%s(%s)" % (self.op, x)
        return "kiln::%s(%s, %s%s)" % (self.op, x, self.cpp_axes(), keep)

    def py(self):
        x = self.kids[0]
        keep = ", keepdims=True" if self.keepdims else ""
        if self.op == "norm":
            if self.ord is None:
                return "np.linalg.norm(%s)" % x.py()
            order = "np.inf" if self.ord == INF else repr(self.ord)
            return "np.linalg.norm(%s, %s, axis=%s%s)" % (x.py(), order, self.py_axes(), keep)
        extra = ""
        if self.op in ("sum", "prod") and x.dtype == "uint8":
            extra = ", dtype=np.int64"  # Kiln: int64 (NumPy: uint64)
        if self.op in ("var", "std") and self.ddof:
            extra = ", ddof=%d" % self.ddof
        return "np.%s(%s, axis=%s%s%s)" % (self.op, x.py(), self.py_axes(), extra, keep)


# ---------------------------------------------------------------------------
# Typing and domains: the constructors the generator calls.

SAFE_EXP = (-80.0, 40.0)  # normal float32 results, far from overflow


def make_unary(op, x):
    if x is None:
        return None
    dt, r = x.dtype, x.rng
    k = KIND[dt]
    if op in ("neg", "exp", "log", "sqrt", "sin", "cos", "tanh", "floor", "ceil", "round", "sign", "conj") and dt == "bool":
        return None  # NumPy: no loop, float16 or int8; Kiln documents the departures
    if op == "neg":
        return Unary(op, x, dt, fit(dt, Range(-r.hi, -r.lo)))
    if op == "abs":
        out = real_of(dt)
        if k == "c":
            return Unary(op, x, out, Range(0, r.mag))
        lo = r.lo if r.lo >= 0 else (0 if r.hi >= 0 else -r.hi)
        return Unary(op, x, out, fit(out, Range(lo, r.mag)))
    if op in Unary.FLOAT_FUNCS:
        out = float_of(dt)
        if k == "c":
            if op == "exp" and r.mag <= 20:
                return Unary(op, x, out, Range(-math.exp(r.mag), math.exp(r.mag)))
            if op in ("sin", "cos") and r.mag <= 10:
                return Unary(op, x, out, Range(-math.cosh(r.mag), math.cosh(r.mag)))
            if op == "sqrt":
                return Unary(op, x, out, Range(-math.sqrt(r.mag), math.sqrt(r.mag)))
            return None
        if op == "exp":
            if not (SAFE_EXP[0] <= r.lo and r.hi <= SAFE_EXP[1]):
                return None
            return Unary(op, x, out, Range(math.exp(r.lo), math.exp(r.hi)))
        if op == "log":
            return Unary(op, x, out, Range(math.log(r.lo), math.log(r.hi))) if r.lo > 1e-30 and r.hi < INF else None
        if op == "sqrt":
            return Unary(op, x, out, Range(math.sqrt(r.lo), math.sqrt(r.hi))) if r.lo >= 0 and r.hi < INF else None
        if op in ("sin", "cos"):
            return Unary(op, x, out, Range(-1, 1)) if r.mag <= 100 else None  # argument rounding stays small
        return Unary(op, x, out, Range(math.tanh(r.lo), math.tanh(r.hi)))  # tanh
    if op in ("floor", "ceil"):
        if k == "c":
            return None
        return Unary(op, x, dt, fit(dt, Range(r.lo - 1, r.hi + 1)))
    if op == "round":
        return Unary(op, x, dt, fit(dt, Range(r.lo - 1, r.hi + 1)))
    if op == "sign":
        return Unary(op, x, dt, Range(-1, 1) if k in "ifc" else Range(0, 1))
    if op in ("isnan", "isinf"):
        return Unary(op, x, "bool", Range(0, 1)) if k in "fc" else None  # of an integer: a constant
    if op in ("real", "imag", "conj"):
        if k != "c":
            return None  # of a real array: a copy or zeros
        return Unary(op, x, real_of(dt) if op != "conj" else dt, r)
    raise AssertionError(op)


def make_cast(x, dt):
    if x is None:
        return None
    src, r = x.dtype, x.rng
    if dt == src or (is_complex(src) and not is_complex(dt) and dt != "bool"):
        return None  # complex to real discards the imaginary part (NumPy warns)
    if is_int(dt) and KIND[src] in "fc":
        lo, hi = INT_RANGE[dt]
        if not (lo <= r.lo and r.hi <= hi):
            return None  # out of range: undefined in C++
        return Cast(x, dt, Range(math.floor(r.lo), math.ceil(r.hi)))
    if dt == "bool":
        return Cast(x, dt, Range(0, 1))
    return Cast(x, dt, fit(dt, r))


def result_type(a, b):
    if a.is_array and b.is_array:
        return promote(a.dtype, b.dtype)
    arr, sc = (a, b) if a.is_array else (b, a)
    return promote_weak(arr.dtype, sc.value)


COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")


def make_binary(op, a, b):
    if a is None or b is None or not (a.is_array or b.is_array):
        return None
    pat = broadcast(a.pat, b.pat)
    if pat is None:
        return None
    if op not in ("+", "*") and a.is_array and b.is_array and a.cpp() == b.cpp():
        return None  # x - x, x / x, x < x, maximum(x, x): folded by the compiler, they read nothing
    dt = result_type(a, b)
    kinds = {KIND[x.dtype] for x in (a, b) if x.is_array}
    ra, rb = a.rng, b.rng
    if op in COMPARISONS:
        if dt == "bool" and op not in ("==", "!="):
            return None  # an ordering of bools
        return Binary(op, a, b, "bool", pat, Range(0, 1))
    if op == "+":
        return Binary(op, a, b, dt, pat, fit(dt, Range(ra.lo + rb.lo, ra.hi + rb.hi)))
    if op == "-":
        if dt == "bool":
            return None  # NumPy has no bool subtract
        return Binary(op, a, b, dt, pat, fit(dt, Range(ra.lo - rb.hi, ra.hi - rb.lo)))
    if op == "*":
        if KIND[dt] == "c":
            return Binary(op, a, b, dt, pat, fit(dt, Range(-ra.mag * rb.mag, ra.mag * rb.mag)))
        if a is b:  # a square
            low = 0.0 if ra.lo <= 0 <= ra.hi else min(ra.lo ** 2, ra.hi ** 2)
            return Binary(op, a, b, dt, pat, fit(dt, Range(low, ra.mag ** 2)))
        return Binary(op, a, b, dt, pat, fit(dt, ranged_mul(ra, rb)))
    if op == "/":
        out = true_divide_of(dt)
        if b.is_array and KIND[b.dtype] == "c":
            return None  # no bound below on a complex modulus
        if not rb.excludes_zero():
            return None
        if KIND[out] == "c":
            m = ra.mag / min(abs(rb.lo), abs(rb.hi))
            return Binary(op, a, b, out, pat, fit(out, Range(-m, m)))
        return Binary(op, a, b, out, pat, fit(out, ranged_mul(ra, Range(1 / rb.hi, 1 / rb.lo))))
    if op == "%":
        if "c" in kinds or (b.is_array is False and isinstance(b.value, complex)):
            return None
        out = no_bool_of(dt)
        if KIND[out] == "f" and not rb.excludes_zero():
            return None  # x % 0.0 is NaN
        m = max(abs(rb.lo), abs(rb.hi))
        r = Range(0, m) if rb.lo > 0 else Range(-m, 0) if rb.hi < 0 else Range(-m, m)
        return Binary(op, a, b, out, pat, fit(out, r))
    if op in ("maximum", "minimum"):
        if KIND[dt] == "c":
            m = max(ra.mag, rb.mag)
            return Binary(op, a, b, dt, pat, Range(-m, m))
        f = max if op == "maximum" else min
        return Binary(op, a, b, dt, pat, fit(dt, Range(f(ra.lo, rb.lo), f(ra.hi, rb.hi))))
    if op == "pow":
        out = no_bool_of(dt)
        if KIND[out] == "c":
            # An exact complex square (npy_cpow multiplies for small integer exponents).
            if b.is_array or b.value != 2:
                return None
            return Binary(op, a, b, out, pat, fit(out, Range(-ra.mag ** 2, ra.mag ** 2)))
        if KIND[out] in "iu":
            if b.is_array and (KIND[b.dtype] not in "iub" or rb.lo < 0 or rb.hi > 3):
                return None
            if not b.is_array and b.value not in (2, 3):
                return None
            return Binary(op, a, b, out, pat, fit(out, hull(*(x ** y for x in (ra.lo, ra.hi) for y in (0, rb.hi)))))
        if not (ra.lo > 0 and ra.hi <= 1e3 and rb.mag <= 4):
            return None
        with np.errstate(all="ignore"):
            r = hull(*(x ** y for x in (ra.lo, ra.hi) for y in (rb.lo, rb.hi)))
        return Binary(op, a, b, out, pat, fit(out, r))
    raise AssertionError(op)


def make_where(c, a, b):
    if c is None or a is None or b is None or c.dtype != "bool" or not (a.is_array or b.is_array):
        return None
    pat = broadcast(c.pat, a.pat)
    pat = pat if pat is None else broadcast(pat, b.pat)
    if pat is None:
        return None
    dt = result_type(a, b)
    if KIND[dt] == "c":
        m = max(a.rng.mag, b.rng.mag)
        return Where(c, a, b, dt, pat, Range(-m, m))
    return Where(c, a, b, dt, pat, fit(dt, hull(a.rng.lo, a.rng.hi, b.rng.lo, b.rng.hi)))


def make_clip(x, lo, hi):
    if x is None or KIND[x.dtype] not in "iuf" or not lo < hi:
        return None
    if is_int(x.dtype) and not (INT_RANGE[x.dtype][0] <= lo and hi <= INT_RANGE[x.dtype][1]):
        return None  # NumPy clips at the bound; Kiln wraps the scalar first (a documented departure)
    dt = promote_weak(promote_weak(x.dtype, lo), hi)
    r = Range(min(max(x.rng.lo, lo), hi), max(min(x.rng.hi, hi), lo))
    return Clip(x, lo, hi, dt, r)


REDUCTIONS = ("sum", "mean", "max", "min", "prod", "var", "std", "argmax", "any", "all", "norm")


def make_reduce(op, x, axes, keepdims, extent, ddof=0, ord=None):
    """`extent`: how many elements each result reduces (a bound)."""
    if x is None:
        return None
    dt, r = x.dtype, x.rng
    k = KIND[dt]
    if op in ("sum", "prod"):
        out = "int64" if k in "biu" else dt
    elif op == "mean":
        out = "float64" if k in "biu" else dt
    elif op in ("max", "min"):
        out = dt
        if k == "c":
            return None  # lexicographic: a near-tie of rounded real parts picks another imaginary part
    elif op == "argmax":
        out = "int64"
        if isinstance(axes, tuple):
            return None  # a single axis or every axis
        exact = all((isinstance(n, Arg) and KIND[n.dtype] != "c") or (isinstance(n, Unary) and n.op in ("neg", "abs"))
                    for n in x.walk())
        if not exact:
            return None  # of rounded values, a near-tie at the maximum is decided by the last bits
    elif op in ("any", "all"):
        out = "bool"
    else:  # var, std, norm
        out = "float64" if k in "biu" else real_of(dt)
        if op == "norm" and (isinstance(axes, tuple) or (axes is None and ord is not None)):
            return None  # a matrix norm, or an order whose meaning depends on the rank: eager
    m = r.mag
    with np.errstate(all="ignore"):
        if op == "sum":
            rng = Range(-m * extent, m * extent) if k == "c" else Range(min(r.lo, r.lo * extent), max(r.hi, r.hi * extent))
        elif op == "mean":
            rng = Range(-m, m) if k == "c" else r
        elif op in ("max", "min"):
            rng = Range(-m, m) if k == "c" else r
        elif op == "prod":
            rng = Range(-m ** extent, m ** extent)
        elif op == "argmax":
            rng = Range(0, extent - 1)
        elif op in ("any", "all"):
            rng = Range(0, 1)
        elif op == "var":
            rng = Range(0, m * m)
        elif op == "std":
            rng = Range(0, m)
        else:
            rng = Range(0, m * (extent if ord == 1 else math.sqrt(extent) if ord in (None, 2) else 1))
    return Reduce(op, x, axes, keepdims, out, fit(out, rng), ddof=ddof, ord=ord)


# ---------------------------------------------------------------------------
# Lambda bodies: scalar C++ over float/double parameters, evaluated by NumPy
# with C++'s float/double rules (NumPy's own for float32/float64 arrays and
# strong NumPy scalars).


class LambdaBody:
    FUNCS = ("exp", "sin", "cos", "tanh", "sqrt", "fabs")

    def __init__(self, rng, params, depth):
        """params: [(dtype, Range)] of the arguments."""
        self.params = params
        self.tree = self.make(rng, depth)
        self.dtype, self.rng = self.tree[-2], self.tree[-1]

    # A tree node is a tuple ending in (dtype, Range).
    def make(self, r, depth):
        if depth == 0 or r.random() < 0.2:
            if r.random() < 0.75:
                i = r.randrange(len(self.params))
                return ("p", i) + self.params[i]
            v = r.choice([0.5, 2.0, 1.5, 3.0, 0.25])
            dt = r.choice(["float32", "float64"])
            return ("c", v, dt, Range(v, v))
        for _ in range(4):
            c = r.random()
            if c < 0.5:
                op = r.choice("+-*/")
                a, b = self.make(r, depth - 1), self.make(r, depth - 1)
                dt = promote(a[-2], b[-2])
                ra, rb = a[-1], b[-1]
                if op == "+":
                    rng = Range(ra.lo + rb.lo, ra.hi + rb.hi)
                elif op == "-":
                    rng = Range(ra.lo - rb.hi, ra.hi - rb.lo)
                elif op == "*":
                    rng = ranged_mul(ra, rb)
                elif rb.excludes_zero():
                    rng = ranged_mul(ra, Range(1 / rb.hi, 1 / rb.lo))
                else:
                    continue
                if rng.mag > 1e15:
                    continue
                return ("b", op, a, b, dt, rng)
            if c < 0.8:
                f = r.choice(self.FUNCS)
                a = self.make(r, depth - 1)
                if a[0] == "c":
                    continue  # a constant: C++ folds it
                ra = a[-1]
                if f == "exp" and not (SAFE_EXP[0] <= ra.lo and ra.hi <= SAFE_EXP[1]):
                    continue
                if f == "sqrt" and ra.lo < 0:
                    continue
                if f in ("sin", "cos") and ra.mag > 100:
                    continue
                rng = {"exp": lambda: Range(math.exp(ra.lo), math.exp(ra.hi)),
                       "sqrt": lambda: Range(math.sqrt(ra.lo), math.sqrt(ra.hi)),
                       "sin": lambda: Range(-1, 1), "cos": lambda: Range(-1, 1),
                       "tanh": lambda: Range(math.tanh(ra.lo), math.tanh(ra.hi)),
                       "fabs": lambda: Range(0 if ra.lo < 0 < ra.hi else min(abs(ra.lo), abs(ra.hi)), ra.mag)}[f]()
                return ("f", f, a, a[-2], rng)
            cond = (self.make(r, depth - 1), self.make(r, depth - 1))
            a, b = self.make(r, depth - 1), self.make(r, depth - 1)
            if cond[0] == cond[1] or a == b:
                continue  # a comparison of a value with itself, or two equal branches
            return ("t", r.choice("<>"), cond, a, b, promote(a[-2], b[-2]), hull(a[-1].lo, a[-1].hi, b[-1].lo, b[-1].hi))
        i = r.randrange(len(self.params))
        return ("p", i) + self.params[i]

    def cpp(self, t=None):
        t = self.tree if t is None else t
        k = t[0]
        if k == "p":
            return "p%d" % t[1]
        if k == "c":
            return repr(t[1]) + ("f" if t[2] == "float32" else "")
        if k == "b":
            return "(%s %s %s)" % (self.cpp(t[2]), t[1], self.cpp(t[3]))
        if k == "f":
            return "std::%s(%s)" % (t[1], self.cpp(t[2]))
        return "((%s %s %s) ? %s : %s)" % (self.cpp(t[2][0]), t[1], self.cpp(t[2][1]), self.cpp(t[3]), self.cpp(t[4]))

    def py(self, t=None):
        t = self.tree if t is None else t
        k = t[0]
        if k == "p":
            return "p%d" % t[1]
        if k == "c":
            return "%s(%r)" % (PY_DTYPE[t[2]], t[1])
        if k == "b":
            return "(%s %s %s)" % (self.py(t[2]), t[1], self.py(t[3]))
        if k == "f":
            return "np.%s(%s)" % ({"fabs": "abs"}.get(t[1], t[1]), self.py(t[2]))
        return "np.where(%s %s %s, %s, %s)" % (self.py(t[2][0]), t[1], self.py(t[2][1]), self.py(t[3]), self.py(t[4]))


def make_lambda(rng, args, depth):
    """kiln::elementwise over float32/float64 arrays (complex and integer
    parameters follow C++'s rules, not NumPy's: not generated)."""
    if not args or any(not is_float(a.dtype) for a in args):
        return None
    pat = args[0].pat
    for a in args[1:]:
        pat = broadcast(pat, a.pat)
        if pat is None:
            return None
    body = LambdaBody(rng, [(a.dtype, a.rng) for a in args], depth)
    return Lambda(body, args, pat)


def single_precision(node):
    """Some node of the tree computes in single precision."""
    if any(single(n.dtype) for n in node.walk() if n.dtype):
        return True
    return any(isinstance(n, Ref) and single_precision(n.value) for n in node.walk())
