"""Random fused programs, from the differential tester's grammar, at sizes
that stream.

A program is one of four kinds (weighted as KINDS says):

  elementwise  a chain of every elementwise operation over 1-4 inputs of any
               dtype: transposed, stepped, reversed and broadcast views,
               Python-like scalars, where/clip/astype, kiln::elementwise
               lambdas;
  reduction    1-3 reductions over the same axes (0, -1, the middle axis of
               a 3-d array, several axes, every axis) of elementwise
               operands, combined elementwise in the kept space, sometimes
               with a kept-space input (a bias);
  normalize    reductions with keepdims broadcast back into elementwise
               consumers: softmax, log-softmax, logsumexp, layer norm,
               RMSNorm, x - mean(x, axis) (and without keepdims over the
               leading axes), standardization, L2 and min-max
               normalization, cosine similarity of rows, and random
               consumers of a random keepdims reduction;
  write        `y op= value` (+ - * /), `y.assign(value)` and masked updates
               `x[m] = f(x[m], w[m])`, through transposed and stepped
               destination views.

Each is written as a KILN_FUSE function, a chain of plain statements or one
plain statement (writes: a plain function). Sizes are solved last: the inner
dimensions are drawn first, then the leading one is chosen so that the
program moves about `traffic` bytes (its inputs read once, at their own size,
its output written once; an update reads and writes its destination).

Everything is drawn from one random.Random, so a seed gives the same batch.
"""
import math
from dataclasses import dataclass, field

import numpy as np

from dtypes import CPP, ITEMSIZE, KIND, is_complex, is_float, is_int
from nodes import (Arg, Binary, Cast, Clip, Lambda, Range, Reduce, Ref, Scalar, Unary, Where, broadcast, make_binary,
                   make_cast, make_clip, make_lambda, make_reduce, make_unary, make_where, single_precision)

KINDS = {"elementwise": 0.35, "reduction": 0.25, "normalize": 0.25, "write": 0.15}
# Input dtypes of elementwise programs: every dtype, float32 the most common.
DTYPE_WEIGHTS = {"float32": 0.30, "float64": 0.14, "int32": 0.08, "int64": 0.07, "int8": 0.07, "uint8": 0.07,
                 "bool": 0.07, "complex64": 0.11, "complex128": 0.09}
UNARY = {"neg": 1, "abs": 1.5, "exp": 2, "log": 1.5, "sqrt": 1.5, "sin": 1.5, "cos": 1.5, "tanh": 1.5, "floor": 0.7,
         "ceil": 0.5, "round": 0.7, "sign": 0.6, "isnan": 0.3, "isinf": 0.3, "real": 0.6, "imag": 0.6, "conj": 0.5}
BINARY = {"+": 3, "-": 2.5, "*": 3, "/": 2, "%": 0.8, "pow": 1, "maximum": 1, "minimum": 1, "<": 0.5, "<=": 0.4,
          ">": 0.5, ">=": 0.4, "==": 0.2, "!=": 0.2}
REDUCE = {"sum": 3, "mean": 2, "max": 2, "min": 1.5, "prod": 0.6, "var": 1.2, "std": 1, "argmax": 1, "any": 0.6,
          "all": 0.6, "norm": 1.2}
# Input ranges (lo, span): positive ones let log, sqrt and pow apply directly.
FLOAT_RANGES = [(-2.0, 4.0), (0.5, 2.0), (-1.0, 2.0), (1.0, 1.0)]
INT_RANGES = {"int8": [(-100, 201), (1, 10)], "uint8": [(0, 201), (1, 10)], "int32": [(-1000, 2001), (1, 100)],
              "int64": [(-1000, 2001), (1, 100)], "bool": [(0, 2)]}
# The leading dimension is solved for the traffic; this stands for it in the
# bounds of reductions over it.
LEADING_EXTENT = 1 << 20

# The memory system's unit (bytes): DRAM is read and written in 32-byte sectors.
SECTOR = 32
# The largest group of elements reduced into one result that a fused kernel
# can keep on chip between its reduction and a consumer that reads the same
# elements again: a 16-block thread-block cluster's shared memory (16 x 227
# KiB on Hopper), rounded down. A larger group is read from memory twice.
ON_CHIP_GROUP = 3 << 20


def weighted(r, table):
    keys = list(table)
    return r.choices(keys, weights=[table[k] for k in keys])[0]


@dataclass
class Input:
    """An array the program takes: its dtype, the shape pattern of the view
    the program reads (dimension ids, None for a broadcast 1), the view, and
    its data (seed, range)."""
    name: str
    dtype: str
    pat: tuple
    view: str = None  # None | "T" | "step_last" | "step_first" | "flip"
    lo: float = 0.0
    span: float = 1.0
    seed: int = 0
    role: str = "in"  # "in" | "dest" (written) | "mask"

    @property
    def rng(self):
        if self.dtype == "bool":
            return Range(0, 1)
        if is_int(self.dtype):
            return Range(self.lo, self.lo + self.span - 1)
        if is_complex(self.dtype):
            m = math.hypot(max(abs(self.lo), abs(self.lo + self.span)), max(abs(self.lo), abs(self.lo + self.span)))
            return Range(-m, m)
        return Range(self.lo, self.lo + self.span)

    def view_shape(self, dims):
        return [1 if p is None else dims[p] for p in self.pat]

    def base_shape(self, dims):
        s = self.view_shape(dims)
        if self.view == "T":
            return s[::-1]
        if self.view == "step_last":
            return s[:-1] + [2 * s[-1]]
        if self.view == "step_first":
            return [2 * s[0]] + s[1:]
        return s

    def cpp_view(self):
        n = len(self.pat)
        if self.view == "T":
            return "%s.T()" % self.name
        step = "kiln::range(std::nullopt, std::nullopt, %d)"
        if self.view == "step_last":
            return "%s.slice({%s})" % (self.name, ", ".join(["kiln::all"] * (n - 1) + [step % 2]))
        if self.view == "step_first":
            return "%s.slice({%s})" % (self.name, ", ".join([step % 2] + ["kiln::all"] * (n - 1)))
        if self.view == "flip":
            return "%s.slice({%s})" % (self.name, ", ".join([step % -1] + ["kiln::all"] * (n - 1)))
        return self.name

    def py_view(self):
        return {None: self.name, "T": "%s.T" % self.name, "step_last": "%s[..., ::2]" % self.name,
                "step_first": "%s[::2]" % self.name, "flip": "%s[::-1]" % self.name}[self.view]

    def nbytes(self, dims):
        """What the program must read of it: the view's elements, once."""
        return int(np.prod(self.view_shape(dims), dtype=np.int64)) * ITEMSIZE[self.dtype]

    def sector_bytes(self, dims):
        """What the memory system must move to read (or write) the view once:
        the 32-byte sectors it touches. A stepped view of the last axis
        touches every sector of its base (elements are at most 16 bytes);
        every other row of a base whose rows are short touches most of them."""
        view = self.nbytes(dims)
        if self.view == "step_last":
            return 2 * view
        if self.view != "step_first":
            return view
        s = self.view_shape(dims)
        row = int(np.prod(s[1:], dtype=np.int64)) * ITEMSIZE[self.dtype]
        if row == 0 or s[0] == 0:
            return view
        # Rows start 2 * row bytes apart: their offsets modulo a sector repeat
        # every `period` rows.
        def sectors(rows):  # the sectors of the first `rows` rows
            return sum((2 * i * row + row - 1) // SECTOR - (2 * i * row) // SECTOR + 1 for i in range(rows))
        period = SECTOR // math.gcd(2 * row, SECTOR)
        full, rest = divmod(s[0], period)
        return min((full * sectors(period) + sectors(rest)) * SECTOR, 2 * view)


@dataclass
class Program:
    pid: int
    kind: str
    label: str  # what the generator built: a template's name or the operations
    form: str  # "fuse" | "chain" | "statement" | "update"
    rank: int
    dims: list  # the size of each dimension id
    inputs: list
    stmts: list  # [(name, Node)]: locals, in order
    result: object  # the returned Node; for writes the value written
    write: dict = None  # {"op": "+="|...|"assign", "dest": Input, "mask": Input|None}
    features: list = field(default_factory=list)

    @property
    def dtype(self):
        return self.write["dest"].dtype if self.write else self.result.dtype

    def out_shape(self):
        if self.write:
            return self.write["dest"].base_shape(self.dims)
        return [1 if p is None else self.dims[p] for p in self.result.pat]

    def nbytes(self):
        """Bytes the program must move: every input read once at its own
        size (a view: its elements), the output written once; the
        destination of an update read and written (of an assign, written)."""
        return self._traffic(Input.nbytes)

    def _traffic(self, measure):
        """Every input read once and the output written once, each input
        (and an update's destination) counted by `measure(input, dims)`."""
        total = sum(measure(inp, self.dims) for inp in self.inputs if inp.role != "dest")
        if self.write:
            dest = self.write["dest"]
            total += measure(dest, self.dims) * (1 if self.write["op"] == "assign" else 2)
        else:
            total += int(np.prod(self.out_shape(), dtype=np.int64)) * ITEMSIZE[self.dtype]
        return int(total)

    def roofline_bytes(self):
        """The bytes the program must move at least, its roofline: nbytes()
        counted in whole 32-byte sectors (stepped views), plus a second read
        of an input that a reduction with groups too large to stay on chip
        (ON_CHIP_GROUP) reads and a full-size consumer then reads again (x -
        mean(x) over a whole 200 MB array: two passes over x, whatever the
        compiler does). The generator sizes programs by nbytes(), so a seed's
        programs do not depend on this."""
        return self._traffic(Input.sector_bytes) + sum(inp.sector_bytes(self.dims) for inp in self._read_twice())

    def _read_twice(self):
        """Inputs read under a reduction whose groups exceed ON_CHIP_GROUP and
        also outside every reduction."""
        def walk(node):
            """(input name, where) for every read: None outside every
            reduction, else "large" or "small" (the outermost one's groups)."""
            if isinstance(node, Ref):
                yield from walk(node.value)
            elif isinstance(node, Arg):
                yield node.inp.name, None
            elif isinstance(node, Reduce):
                x = node.kids[0]
                group = int(np.prod([1 if x.pat[a] is None else self.dims[x.pat[a]] for a in node.reduced],
                                    dtype=np.int64)) * ITEMSIZE[x.dtype]
                for name, _ in walk(x):
                    yield name, "large" if group > ON_CHIP_GROUP else "small"
            else:
                for k in node.kids:
                    yield from walk(k)
        reads = list(walk(self.result))
        large = {n for n, u in reads if u == "large"}
        outside = {n for n, u in reads if u is None}
        return [inp for inp in self.inputs if inp.name in large & outside and inp.role != "dest"]

    def single(self):
        return any(single_precision(n) for n in [self.result] + [v for _, v in self.stmts])

    # -- sources ------------------------------------------------------------

    def cpp(self):
        """The program as a C++ function named p<id>."""
        body = ["  auto %s = %s;" % (name, node.cpp()) for name, node in self.stmts]
        if self.write:
            dest, op = self.write["dest"], self.write["op"]
            params = ", ".join(("kiln::array<%s> &%s" if inp.role == "dest" else "const kiln::array<%s> &%s")
                               % (CPP[inp.dtype], inp.name) for inp in self.inputs)
            mask = self.write.get("mask")
            target = "%s[%s]" % (dest.name, mask.name) if mask else dest.cpp_view()
            if op == "assign" and mask:
                body.append("  %s = %s;" % (target, self.result.cpp()))
            elif op == "assign":
                body.append("  %s.assign(%s);" % (target, self.result.cpp()))
            else:
                body.append("  %s %s %s;" % (target, op, self.result.cpp()))
            head = "static void p%d(%s)" % (self.pid, params)
        else:
            params = ", ".join("const kiln::array<%s> &%s" % (CPP[inp.dtype], inp.name) for inp in self.inputs)
            body.append("  return %s;" % self.result.cpp())
            ret = "kiln::array<%s>" % CPP[self.dtype]
            head = ("KILN_FUSE %s p%d(%s)" if self.form == "fuse" else "static %s p%d(%s)") % (ret, self.pid, params)
        return "%s {\n%s\n}" % (head, "\n".join(body))

    def py(self):
        """The same program in NumPy, as a user writes it (a function p<id>;
        a write changes its destination in place)."""
        body = ["    %s = %s" % (name, node.py()) for name, node in self.stmts]
        if self.write:
            dest, op = self.write["dest"], self.write["op"]
            mask = self.write.get("mask")
            if mask is not None:
                target = "%s[%s]" % (dest.name, mask.name)
                body.append("    %s %s %s" % (target, "=" if op == "assign" else op, self.result.py()))
            elif op == "assign":
                body.append("    %s[...] = %s" % (dest.py_view(), self.result.py()))
            elif dest.view is None:
                body.append("    %s %s %s" % (dest.name, op, self.result.py()))
            else:  # `x.T += v` would assign the attribute: write through a name
                body.append("    d = %s" % dest.py_view())
                body.append("    d %s %s" % (op, self.result.py()))
        else:
            body.append("    return %s" % self.result.py())
        return "def p%d(%s):\n%s\n" % (self.pid, ", ".join(inp.name for inp in self.inputs), "\n".join(body))


# ---------------------------------------------------------------------------


class Generator:
    """Builds one program; `traffic` is the bytes it should move."""

    def __init__(self, r, pid, traffic, seed, long_rows=True, min_traffic=0):
        self.r = r
        self.pid = pid
        self.traffic = traffic
        self.long_rows = long_rows  # rows up to a million elements (else 4096)
        self.min_traffic = min_traffic
        self.seed = seed  # the batch's: inputs get seeds of their own from it
        self.inputs = []
        self.features = set()

    # -- dimensions -----------------------------------------------------------

    def family(self, rank=None):
        """The rank and the inner dimensions (dims[0], the leading one, is
        solved for the traffic). Rows from a few elements to a million."""
        r = self.r
        self.rank = rank or r.choices([1, 2, 3], weights=[0.2, 0.5, 0.3])[0]
        self.dims = [None] * self.rank
        if self.rank == 2:
            c = r.random()
            if c < 0.2:
                self.dims[1] = r.choice([3, 7, 16, 33, 100])
            elif c < 0.7 or not self.long_rows:
                self.dims[1] = r.choice([128, 255, 256, 1000, 1024, 4096])
            else:
                self.dims[1] = r.choice([8192, 16384, 65536, 1 << 18, 1 << 20])
        elif self.rank == 3:
            self.dims[1] = r.choice([3, 8, 64, 256])
            self.dims[2] = r.choice([7, 32, 128, 1024, 4096])
        self.full = tuple(range(self.rank))

    def extent(self, axes):
        """A bound of how many elements a reduction over `axes` combines."""
        reduced = range(self.rank) if axes is None else [a % self.rank for a in (axes if isinstance(axes, tuple) else (axes,))]
        return math.prod(LEADING_EXTENT if i == 0 else self.dims[i] for i in reduced)

    def solve(self, program):
        """Sets the leading dimension so that the program moves about
        `traffic` bytes (bytes are affine in it)."""
        dims = list(self.dims)
        dims[0] = 2
        b2 = Program.nbytes(_with_dims(program, dims))
        dims[0] = 4
        b4 = Program.nbytes(_with_dims(program, dims))
        slope = (b4 - b2) / 2
        lead = max(2, math.ceil((self.traffic - (b2 - 2 * slope)) / slope)) if slope > 0 else 2
        if slope > 0 and b2 + (lead - 2) * slope < self.min_traffic:
            lead = math.ceil((self.min_traffic - (b2 - 2 * slope)) / slope)
        dims[0] = lead
        program.dims = dims

    # -- inputs and leaves --------------------------------------------------

    def new_input(self, dtype=None, pat=None, view="any", role="in", rng_choice=None):
        r = self.r
        dtype = dtype or weighted(r, DTYPE_WEIGHTS)
        if pat is None:
            pat = self.full
            if self.inputs and r.random() < 0.25 and self.rank >= 1:
                # Broadcast: leading dimensions dropped, or some set to 1.
                if r.random() < 0.5 and self.rank >= 2:
                    pat = self.full[r.randrange(1, self.rank):]
                else:
                    pat = tuple(None if r.random() < 0.5 else p for p in self.full)
                    if all(p is None for p in pat):
                        pat = self.full[-1:]
        if view == "any":
            view = None
            if pat == self.full and self.rank >= 1:
                c = r.random()
                if self.rank >= 2 and c < 0.18:
                    view = "T"
                elif c < 0.26:
                    view = "step_last"
                elif c < 0.32 and self.rank >= 2:
                    view = "step_first"
                elif c < 0.36:
                    view = "flip"
        if dtype == "bool":
            lo, span = 0, 2
        elif is_int(dtype):
            lo, span = rng_choice or r.choice(INT_RANGES[dtype])
        else:
            lo, span = rng_choice or r.choice(FLOAT_RANGES)
        inp = Input("in%d" % len(self.inputs) if role == "in" else {"dest": "out", "mask": "m"}[role],
                    dtype, tuple(pat), view, lo, span, self.seed * 1000 + self.pid * 10 + len(self.inputs), role)
        self.inputs.append(inp)
        return inp

    def leaf(self, full=False):
        r = self.r
        reads = [i for i in self.inputs if i.role == "in" and (not full or i.pat == self.full)]
        if reads and (r.random() < 0.55 or len(self.inputs) >= 4):
            return Arg(r.choice(reads))
        return Arg(self.new_input(pat=self.full if full else None))

    def scalar_for(self, node):
        r = self.r
        dt = node.dtype
        if dt is None or dt == "bool":
            return Scalar(r.choice([2, 3, 0.5, 1.5]))
        if is_int(dt):
            return Scalar(r.choice([1, 2, 3, 7]) if r.random() < 0.8 else r.choice([0.5, 2.5]))
        if is_complex(dt) and r.random() < 0.3:
            return Scalar(complex(r.choice([0.5, -1.0]), r.choice([1.0, 0.25])))
        return Scalar(r.choice([0.5, 2.0, 1.5, 3.0, 0.25, -1.5, 2.5]))

    # -- elementwise expressions --------------------------------------------

    def expr(self, depth, full=False):
        """A random elementwise expression (an array). `full`: its shape is
        the whole family's."""
        for _ in range(20):
            node = self._expr(depth)
            if node.is_array and (not full or node.pat == self.full):
                return node
        return self.leaf(full=True)

    def _expr(self, depth):
        """An expression of depth up to `depth`, of any shape of the family."""
        r = self.r
        if depth == 0 or r.random() < 0.12:
            return self.leaf()
        c = r.random()
        if c < 0.42:
            a = self._expr(depth - 1)
            b = self.scalar_for(a) if r.random() < 0.25 else self._expr(depth - 1)
            if r.random() < 0.15:
                a, b = b, a
            for _ in range(6):
                op = weighted(r, BINARY)
                node = make_binary(op, a, b)
                if node is not None:
                    return node
            return a if a.is_array else b
        if c < 0.75:
            x = self._expr(depth - 1)
            for _ in range(6):
                op = weighted(r, UNARY)
                node = make_unary(op, x)
                if node is not None:
                    return node
            return x
        if c < 0.83:
            a = self._expr(depth - 1)
            cond = make_binary(r.choice(["<", ">", "<=", ">="]), a, self.scalar_for(a)) if KIND[a.dtype] in "iuf" \
                else make_binary(r.choice(["==", "!="]), a, self._expr(depth - 1))
            x = self._expr(depth - 1)
            y = self.scalar_for(x) if r.random() < 0.3 else self._expr(depth - 1)
            node = make_where(cond, x, y) if cond is not None and x.cpp() != y.cpp() else None
            if node is not None:
                return node
            return x
        if c < 0.88:
            x = self._expr(depth - 1)
            lo, hi = ((1, 5) if x.dtype == "uint8" else (-2, 5) if is_int(x.dtype) else (-0.5, 1.5))
            node = make_clip(x, lo, hi)
            if node is not None:
                return node
            return x
        if c < 0.93:
            x = self._expr(depth - 1)
            for _ in range(4):
                node = make_cast(x, weighted(r, DTYPE_WEIGHTS))
                if node is not None:
                    return node
            return x
        args = []
        for _ in range(r.choice([1, 2])):
            a = self._expr(depth - 1)
            if not is_float(a.dtype):
                a = make_cast(a, "float32") or make_cast(a, "float64") or a
            args.append(a)
        node = make_lambda(r, args, r.choice([1, 2, 3]))
        if node is not None:
            return node
        return args[0]

    # -- kinds --------------------------------------------------------------

    def elementwise(self):
        self.family()
        main = self.new_input(pat=self.full)
        result = None
        for _ in range(20):
            node = self.expr(self.r.choice([2, 3, 3, 4]), full=True)
            if not isinstance(node, Arg) and any(isinstance(n, Arg) and n.inp.pat == self.full for n in node.walk()):
                result = node
                break
        if result is None:
            result = make_unary("neg", Arg(main)) if main.dtype != "bool" else make_binary("+", Arg(main), Scalar(1))
        form = self.r.choices(["fuse", "chain", "statement"], weights=[0.45, 0.35, 0.2])[0]
        stmts, result = self.bind_locals(result, form)
        return self.program("elementwise", "%d ops" % count_ops(result, stmts), form, stmts, result)

    def axes_for(self, rank, allow_lists=True):
        r = self.r
        if rank == 1:
            return r.choice([-1, 0, None])
        if rank == 2:
            return r.choices([-1, 0, None, (0, 1)], weights=[0.45, 0.3, 0.15, 0.1 if allow_lists else 0])[0]
        return r.choices([-1, 0, 1, (0, 2), (1, 2), (0, 1), None],
                         weights=[0.25, 0.15, 0.2] + ([0.1, 0.1, 0.1] if allow_lists else [0, 0, 0]) + [0.1])[0]

    def reduction(self):
        r = self.r
        self.family()
        axes = self.axes_for(self.rank)
        self.features.add("axes:%s" % (axes,))
        extent = self.extent(axes)
        reds = []
        for _ in range(r.choices([1, 2, 3], weights=[0.4, 0.4, 0.2])[0]):
            for _ in range(10):
                op = weighted(r, REDUCE)
                if op == "prod" and extent > 64:
                    continue
                operand = self.expr(r.choice([0, 1, 1, 2]), full=True)
                kw = {}
                if op in ("var", "std") and r.random() < 0.3:
                    kw["ddof"] = 1
                if op == "norm" and axes is not None:
                    kw["ord"] = r.choice([2, 2, 1, math.inf])
                node = make_reduce(op, operand, axes, False, extent, **kw)
                if node is not None:
                    reds.append(node)
                    break
        if not reds:
            reds.append(make_reduce("sum", Arg(self.new_input("float32", pat=self.full)), axes, False, extent))
        result = reds[0]
        for red in reds[1:]:
            result = self.combine(result, red)
        if result.pat and r.random() < 0.25:
            bias = self.new_input(r.choice(["float32", "float64"]), pat=result.pat, view=None)
            result = make_binary(r.choice(["+", "*"]), result, Arg(bias)) or result
        if r.random() < 0.3:
            result = self.consume(result)
        form = r.choices(["fuse", "chain", "statement"], weights=[0.5, 0.3, 0.2])[0]
        stmts, result = self.bind_locals(result, form)
        return self.program("reduction", "%s over %s" % ("+".join(n.op for n in reds), _axes_text(axes)), form,
                            stmts, result)

    def combine(self, a, b):
        """a op b in the kept space (a reduction's results)."""
        for _ in range(6):
            op = weighted(self.r, {"+": 3, "-": 2, "*": 2, "/": 2, "maximum": 1, "<": 0.3})
            if op == "/" and not b.rng.excludes_zero():
                b2 = make_binary("+", b, Scalar(1.0)) if b.rng.lo >= 0 else None
                node = make_binary(op, a, b2) if b2 is not None else None
            else:
                node = make_binary(op, a, b)
            if node is not None:
                return node
        return make_binary("+", a, b) or a

    def consume(self, x):
        """A unary consumer of a kept-space value (sqrt, exp, ...)."""
        for _ in range(4):
            node = make_unary(weighted(self.r, {"sqrt": 1, "log": 1, "abs": 1, "tanh": 1, "exp": 1, "neg": 0.5}), x)
            if node is not None:
                return node
        return x

    def normalize(self):
        r = self.r
        self.family(rank=r.choices([1, 2, 3], weights=[0.1, 0.65, 0.25])[0])
        dt = r.choices(["float32", "float64"], weights=[0.75, 0.25])[0]
        x = Arg(self.new_input(dt, pat=self.full, view="T" if self.rank >= 2 and r.random() < 0.15 else None,
                               rng_choice=r.choice([(-2.0, 4.0), (0.5, 2.0)])))
        axes = -1 if self.rank == 1 else self.axes_for(self.rank, allow_lists=False)
        if self.rank == 3 and r.random() < 0.15:
            axes = (1, 2)
        templates = ["softmax", "log_softmax", "logsumexp", "layer_norm", "rms_norm", "center", "standardize",
                     "l2_normalize", "minmax", "cosine", "random", "random"]
        name = r.choice(templates)
        if name == "center" and r.random() < 0.4 and self.rank >= 2:
            name, axes = "center_leading", (0 if self.rank == 2 else r.choice([0, (0, 1)]))
        self.features.add("axes:%s" % (axes,))
        stmts, result = getattr(self, "t_" + name)(x, axes)
        if result is None:
            stmts, result = self.t_softmax(x, axes)
            name = "softmax"
        form = r.choices(["fuse", "chain"], weights=[0.6, 0.4])[0]
        if not stmts and form == "chain":
            form = "statement"
        self.features.add("template:" + name)
        return self.program("normalize", "%s over %s" % (name, _axes_text(axes)), form, stmts, result)

    # Templates: (locals, result). `x` is the input (an Arg), `ax` the axes.
    def red(self, op, x, ax, keep=True, **kw):
        return make_reduce(op, x, ax, keep, self.extent(ax), **kw)

    def t_softmax(self, x, ax):
        e = make_unary("exp", make_binary("-", x, self.red("max", x, ax)))
        t = Ref("e", e)
        return [("e", e)], make_binary("/", t, self.red("sum", t, ax))

    def t_log_softmax(self, x, ax):
        s = make_binary("-", x, self.red("max", x, ax))
        t = Ref("s", s)
        return [("s", s)], make_binary("-", t, make_unary("log", self.red("sum", make_unary("exp", t), ax)))

    def t_logsumexp(self, x, ax):
        m = self.red("max", x, ax)
        t = Ref("mx", m)
        lse = make_unary("log", self.red("sum", make_unary("exp", make_binary("-", x, t)), ax, keep=False))
        return [("mx", m)], make_binary("+", lse, self.red("max", x, ax, keep=False))

    def gamma_beta(self, ax, n):
        """Scale and shift inputs along the normalized last axis."""
        if ax != -1 or self.rank < 2:
            return []
        return [Arg(self.new_input(self.inputs[0].dtype, pat=(self.rank - 1,), view=None, rng_choice=(0.5, 1.0)))
                for _ in range(n)]

    def t_layer_norm(self, x, ax):
        mu, var = self.red("mean", x, ax), self.red("var", x, ax)
        y = make_binary("/", make_binary("-", x, Ref("mu", mu)),
                        make_unary("sqrt", make_binary("+", Ref("var", var), Scalar(1e-5))))
        gb = self.gamma_beta(ax, 2)
        if gb:
            y = make_binary("+", make_binary("*", y, gb[0]), gb[1])
        return [("mu", mu), ("var", var)], y

    def t_rms_norm(self, x, ax):
        ms = self.red("mean", make_binary("*", x, x), ax)
        y = make_binary("*", x, make_binary("/", Scalar(1.0), make_unary("sqrt", make_binary("+", ms, Scalar(1e-6)))))
        gb = self.gamma_beta(ax, 1)
        return [], make_binary("*", y, gb[0]) if gb else y

    def t_center(self, x, ax):
        return [], make_binary("-", x, self.red("mean", x, ax))

    def t_center_leading(self, x, ax):
        return [], make_binary("-", x, self.red("mean", x, ax, keep=False))

    def t_standardize(self, x, ax):
        mu = self.red("mean", x, ax)
        sd = make_binary("+", self.red("std", x, ax), Scalar(1e-5))
        return [("mu", mu)], make_binary("/", make_binary("-", x, Ref("mu", mu)), sd)

    def t_l2_normalize(self, x, ax):
        if ax is None or isinstance(ax, tuple):
            return [], None
        return [], make_binary("/", x, make_binary("+", self.red("norm", x, ax, ord=2), Scalar(1e-6)))

    def t_minmax(self, x, ax):
        lo, hi = self.red("min", x, ax), self.red("max", x, ax)
        width = make_binary("-", Ref("hi", hi), Ref("lo", lo))
        width = make_binary("maximum", width, Scalar(1e-6))  # max >= min, which intervals do not know
        return [("lo", lo), ("hi", hi)], make_binary("/", make_binary("-", x, Ref("lo", lo)), width)

    def t_cosine(self, x, ax):
        if ax is None or isinstance(ax, tuple):
            return [], None
        y = Arg(self.new_input(x.dtype, pat=self.full, view=None, rng_choice=(-2.0, 4.0)))
        dot = self.red("sum", make_binary("*", x, y), ax, keep=False)
        den = make_binary("*", self.red("norm", x, ax, keep=False, ord=2), self.red("norm", y, ax, keep=False, ord=2))
        return [], make_binary("/", dot, make_binary("+", den, Scalar(1e-8)))

    def t_random(self, x, ax):
        """f(x, r(g(x), ax, keepdims)) with g, f and r random."""
        r = self.r
        for _ in range(10):
            g = x
            for _ in range(r.choice([0, 1, 2])):
                g = make_unary(weighted(r, {"exp": 1, "abs": 1, "tanh": 1, "sin": 1, "sqrt": 0.5, "neg": 0.5}), g) or g
            op = r.choice(["sum", "mean", "max", "min", "var", "std"])
            k = self.red(op, g, ax)
            f = make_binary(weighted(r, {"-": 3, "/": 2, "*": 2, "+": 1, "maximum": 0.5}), x, k)
            if f is None and op != "max":
                f = make_binary("-", x, k)
            if f is not None:
                if r.random() < 0.4:
                    f = make_unary(r.choice(["exp", "tanh", "abs", "sqrt"]), f) or f
                return [], f
        return [], None

    def write_program(self):
        r = self.r
        self.family()
        form = r.choices(["+=", "-=", "*=", "/=", "assign", "masked"], weights=[0.3, 0.12, 0.12, 0.08, 0.2, 0.18])[0]
        ddt = r.choices(["float32", "float64", "int32", "int64", "complex64"], weights=[0.5, 0.2, 0.1, 0.1, 0.1])[0]
        if form == "masked":
            dest = self.new_input(ddt if not is_int(ddt) else "float32", pat=self.full, view=None, role="dest")
            mask = self.new_input("bool", pat=self.full, view=None, role="mask")
            w = self.new_input(dest.dtype, pat=self.full, view=None)
            xm, wm = Arg(dest, mask), Arg(w, mask)
            val = None
            for _ in range(10):
                if r.random() < 0.5:
                    op = "assign"
                    val = make_binary(r.choice(["+", "-", "*"]), make_binary("*", xm, self.scalar_for(xm)), wm)
                else:
                    op = r.choice(["+=", "-=", "*="])
                    val = make_binary("*", wm, self.scalar_for(wm))
                    if r.random() < 0.5:
                        val = make_unary(r.choice(["abs", "sqrt", "exp", "tanh"]), val) or val
                if val is not None and np.can_cast(val.dtype, dest.dtype, "same_kind"):
                    break
            self.features.add("write:masked")
            write = {"op": op, "dest": dest, "mask": mask}
            return self.program("write", "x[m] %s ..." % ("=" if op == "assign" else op), "update", [], val, write)
        view = r.choices([None, "T", "step_last", "step_first"], weights=[0.55, 0.2, 0.15, 0.1])[0]
        if self.rank < 2 and view in ("T", "step_first"):
            view = None
        dest = self.new_input(ddt, pat=self.full, view=view, role="dest")
        for _ in range(20):
            val = self.expr(r.choice([1, 2, 3]), full=False)
            if form != "assign" and r.random() < 0.3 and val.pat == self.full:
                val = make_binary("*", val, Scalar(r.choice([2.5, 0.5, -1.5]))) or val
            if form == "assign" and isinstance(val, Arg):
                continue  # a bare array is the runtime's copy, not a kernel
            if val.pat is None or _broadcast_into(val.pat, self.full) is False:
                continue
            res = _update_result(form, dest.dtype, val)
            if res is not None and np.can_cast(res, dest.dtype, "same_kind"):
                break
        else:
            return None
        self.features.add("write:" + form + (":" + view if view else ""))
        return self.program("write", "y%s %s ..." % ({"T": ".T()", "step_last": "[:, ::2]", "step_first": "[::2]"}
                                                   .get(view, ""), "=" if form == "assign" else form),
                            "update", [], val, {"op": form, "dest": dest, "mask": None})

    # -- statement forms ----------------------------------------------------

    def bind_locals(self, result, form):
        """Binds 1-2 subexpressions to locals (a chain of statements, or a
        KILN_FUSE body over several statements)."""
        if form == "statement":
            return [], result
        r = self.r
        stmts = []
        for _ in range(r.choice([0, 1, 1, 2])):
            subs = [n for n in result.walk() if n is not result and not isinstance(n, (Arg, Scalar, Ref))
                    and any(isinstance(m, (Arg, Ref)) for m in n.walk())]
            if not subs:
                break
            target = r.choice(subs)
            name = "t%d" % len(stmts)
            stmts.append((name, target))
            result = _replace(result, target, Ref(name, target))
        return stmts, result

    def used_only(self, result, stmts):
        """Drops inputs that no node reads (a leaf the generator abandoned)."""
        used = set()
        for node in [result] + [v for _, v in stmts]:
            for n in node.walk():
                if isinstance(n, Arg):
                    used.add(n.inp.name)
                    if n.mask is not None:
                        used.add(n.mask.name)
        self.inputs = [i for i in self.inputs if i.name in used or i.role != "in"]

    def program(self, kind, label, form, stmts, result, write=None):
        if result is None:
            return None
        self.used_only(result, stmts)
        reads = [i for i in self.inputs if i.role == "in"]
        for n, inp in enumerate(reads):
            inp.name = "in%d" % n
        p = Program(self.pid, kind, label, form, self.rank, list(self.dims), list(self.inputs), stmts, result, write)
        p.features = sorted(self.features | describe(p, self.full))
        self.solve(p)
        return p


def describe(p, full):
    """The program's features, for the report's breakdowns."""
    out = set()
    for inp in p.inputs:
        out.add("dtype:" + inp.dtype)
        if inp.view:
            out.add("view:" + inp.view)
        if inp.pat != full:
            out.add("broadcast")
    for node in [p.result] + [v for _, v in p.stmts]:
        for n in node.walk():
            name = {Unary: lambda: n.op, Binary: lambda: n.op, Where: lambda: "where", Clip: lambda: "clip",
                    Cast: lambda: "astype", Lambda: lambda: "lambda"}.get(type(n))
            if name:
                out.add("op:" + name())
            if isinstance(n, Reduce):
                out.add("reduce:" + n.op)
    return out


def _with_dims(program, dims):
    return Program(program.pid, program.kind, program.label, program.form, program.rank, dims, program.inputs,
                   program.stmts, program.result, program.write)


def _axes_text(axes):
    return "all axes" if axes is None else "axes %s" % (axes,) if isinstance(axes, tuple) else "axis %d" % axes


def _broadcast_into(pat, full):
    return broadcast(pat, full) == tuple(full)


def _update_result(form, dest_dtype, val):
    """The dtype of `dest op val` (of val for an assign)."""
    if form == "assign":
        return val.dtype
    op = form[0]
    node = make_binary(op, Arg(Input("d", dest_dtype, (), None, 1.0, 1.0)), val)
    return None if node is None else node.dtype


def _replace(node, target, new):
    """`node` with the subtree `target` (by identity) replaced by `new`."""
    if node is target:
        return new
    if not node.kids:
        return node
    kids = tuple(_replace(k, target, new) for k in node.kids)
    if all(a is b for a, b in zip(kids, node.kids)):
        return node
    clone = object.__new__(type(node))
    clone.__dict__.update(node.__dict__)
    clone.kids = kids
    return clone


def count_ops(result, stmts):
    nodes = [n for node in [result] + [v for _, v in stmts] for n in node.walk()]
    return sum(1 for n in nodes if not isinstance(n, (Arg, Scalar, Ref)))


def generate(r, pid, traffic, seed, kind=None, long_rows=True, min_traffic=0):
    """One program (or None when the draw gave nothing usable)."""
    kind = kind or weighted(r, KINDS)
    g = Generator(r, pid, traffic, seed, long_rows, min_traffic)
    return {"elementwise": g.elementwise, "reduction": g.reduction, "normalize": g.normalize,
            "write": g.write_program}[kind]()
