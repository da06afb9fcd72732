#!/usr/bin/env python3
"""Writes docs/numpy-coverage.md: which of NumPy's public routines Kiln has.

The list of routines comes from the installed NumPy (the callables of
numpy.__all__, numpy.fft and numpy.linalg, and the methods of
numpy.random.Generator); what Kiln has comes from a scan of its public
headers, include/kiln/**/*.hpp less include/kiln/detail/. A routine is there
(✓) when a function of its name is declared in namespace kiln (kiln::fft,
kiln::linalg, kiln::random::generator for those), or "as X" when ALIASES
names another spelling that the headers declare.

  scripts/numpy_coverage.py           rewrite docs/numpy-coverage.md
  scripts/numpy_coverage.py --check   exit 1 if it is out of date

--check exits 77 (a skip for CTest) without NumPy, or when the file was
generated from another NumPy version (regenerate it with that one instead).
"""
import argparse
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "docs" / "numpy-coverage.md"
HEADERS = ROOT / "include" / "kiln"

# NumPy's routine categories (its reference's "Routines" pages), kept short:
# a name listed nowhere goes to "Other"; names of numpy.linalg, numpy.fft and
# Generator go to "Linear algebra", "FFT" and "Random Generator" themselves.
CATEGORIES = {
    "Array creation": """empty empty_like eye identity ones ones_like zeros zeros_like full full_like array
        asarray asanyarray ascontiguousarray asfortranarray asarray_chkfinite asmatrix bmat copy require
        frombuffer fromfile fromfunction fromiter fromstring from_dlpack arange linspace logspace geomspace
        meshgrid diag diagflat tri tril triu vander""",
    "Array manipulation": """copyto ndim shape size reshape ravel moveaxis rollaxis swapaxes transpose
        permute_dims matrix_transpose atleast_1d atleast_2d atleast_3d broadcast_to broadcast_arrays
        broadcast_shapes expand_dims squeeze astype concatenate concat stack block vstack hstack dstack
        column_stack row_stack unstack split array_split dsplit hsplit vsplit tile repeat delete insert append
        resize trim_zeros flip fliplr flipud roll rot90 pad""",
    "Indexing": """take take_along_axis put put_along_axis putmask place choose compress select diagonal
        diag_indices diag_indices_from tril_indices tril_indices_from triu_indices triu_indices_from
        mask_indices indices ix_ ravel_multi_index unravel_index fill_diagonal""",
    "Mathematical functions": """sin cos tan arcsin arccos arctan asin acos atan hypot arctan2 atan2 degrees
        radians unwrap deg2rad rad2deg sinh cosh tanh arcsinh arccosh arctanh asinh acosh atanh round around
        rint fix floor ceil trunc prod sum nanprod nansum cumprod cumsum nancumprod nancumsum cumulative_prod
        cumulative_sum diff ediff1d gradient cross trapezoid exp expm1 exp2 log log10 log2 log1p logaddexp
        logaddexp2 i0 sinc signbit copysign frexp ldexp nextafter spacing lcm gcd add reciprocal positive
        negative multiply divide power pow subtract true_divide floor_divide float_power fmod mod modf remainder
        divmod angle real imag conj conjugate maximum minimum max min amax amin fmax fmin nanmax nanmin convolve
        clip sqrt cbrt square absolute fabs abs sign heaviside nan_to_num real_if_close interp""",
    "Logic": """all any isfinite isinf isnan isnat isneginf isposinf iscomplex iscomplexobj isfortran isreal
        isrealobj isscalar logical_and logical_or logical_not logical_xor allclose isclose array_equal
        array_equiv greater greater_equal less less_equal equal not_equal""",
    "Binary operations": """bitwise_and bitwise_or bitwise_xor invert bitwise_not bitwise_invert left_shift
        right_shift bitwise_left_shift bitwise_right_shift bitwise_count packbits unpackbits binary_repr
        base_repr""",
    "Sorting, searching, counting": """sort lexsort argsort sort_complex partition argpartition argmax argmin
        nanargmax nanargmin argwhere nonzero flatnonzero where searchsorted extract count_nonzero""",
    "Statistics": """ptp percentile nanpercentile quantile nanquantile median nanmedian average mean std var
        nanmean nanstd nanvar corrcoef correlate cov histogram histogram2d histogramdd histogram_bin_edges
        bincount digitize""",
    "Set routines": """unique unique_all unique_counts unique_inverse unique_values intersect1d isin setdiff1d
        setxor1d union1d""",
    "Linear algebra": """dot vdot vecdot inner outer matmul matvec vecmat tensordot einsum einsum_path kron
        trace""",
    "Input, output and printing": """load save savez savez_compressed loadtxt savetxt genfromtxt fromregex
        array2string array_repr array_str format_float_positional format_float_scientific set_printoptions
        get_printoptions printoptions""",
    "Data types": """can_cast promote_types min_scalar_type result_type common_type isdtype issubdtype
        mintypecode typename""",
    "FFT": "", "Random Generator": "", "Other": "",
}

# NumPy names Kiln spells otherwise. Each counts only where the headers
# declare the other spelling: a kiln:: function of another name, an operator,
# or a method ("kiln::array::f" is a method of kiln::array<T>).
RENAMED = {  # NumPy name -> kiln:: function
    "power": "pow", "angle": "arg", "conjugate": "conj", "around": "round", "amax": "max", "amin": "min",
    "acos": "arccos", "asin": "arcsin", "atan": "arctan", "acosh": "arccosh", "asinh": "arcsinh",
    "atanh": "arctanh", "atan2": "arctan2", "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift", "concat": "concatenate", "array": "asarray", "linalg.matmul": "matmul"}
OPERATORS = {  # NumPy name -> C++ operator
    "add": "+", "subtract": "-", "multiply": "*", "divide": "/", "true_divide": "/", "remainder": "%",
    "mod": "%", "equal": "==", "not_equal": "!=", "less": "<", "less_equal": "<=", "greater": ">",
    "greater_equal": ">="}
ALIASES = {  # NumPy name -> (the declaration, how the page shows it)
    **{n: ("kiln::" + k, "`kiln::%s`" % k) for n, k in RENAMED.items()},
    **{n: ("kiln::operator" + op, "`a %s b`" % op) for n, op in OPERATORS.items()},
    "all": ("kiln::all_t::operator()", "`kiln::all(x)`"),
    "transpose": ("kiln::array::transpose", "`x.transpose()`"),
    "permute_dims": ("kiln::array::transpose", "`x.transpose(axes)`"),
    "reshape": ("kiln::array::reshape", "`x.reshape(s)`"),
    "copy": ("kiln::array::copy", "`x.copy()`"),
    "astype": ("kiln::array::astype", "`x.astype<U>()`"),
    "shape": ("kiln::array_base::shape", "`x.shape()`"),
    "ndim": ("kiln::array_base::ndim", "`x.ndim()`"),
    "size": ("kiln::array_base::size", "`x.size()`"),
    "Generator.standard_normal": ("kiln::random::generator::normal", "`normal<T>(s)`"),
}


def numpy_routines(np):
    """{display name: category} of NumPy's public routines (functions and ufuncs, not types)."""
    category_of = {n: cat for cat, names in CATEGORIES.items() for n in names.split()}
    sources = [("", np, np.__all__, None), ("linalg.", np.linalg, np.linalg.__all__, "Linear algebra"),
               ("fft.", np.fft, np.fft.__all__, "FFT"),
               ("Generator.", np.random.Generator, dir(np.random.Generator), "Random Generator")]
    routines = {}
    for prefix, owner, names, category in sources:
        for name in names:
            obj = getattr(owner, name, None)
            if not name.startswith("_") and (isinstance(obj, np.ufunc) or inspect.isroutine(obj)):
                routines[prefix + name] = category or category_of.get(name, "Other")
    return routines


# ---- Scanning Kiln's headers ------------------------------------------------

TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.']*|::|->|##|\.\.\.|\S")
KEYWORDS = set("""alignas alignof decltype noexcept requires sizeof static_assert explicit if for while
    switch return throw catch operator template typename using __attribute__ __declspec""".split())
# A string or character literal (kept as ""), or a comment (dropped; a block
# comment keeps its line breaks).
LITERAL_OR_COMMENT = re.compile(r'"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])\'|//[^\n]*|/\*.*?\*/', re.S)


def tokenize(path):
    """The tokens of a header: comments and literals dropped (strings become
    ""), preprocessor lines reduced to ("#define", name, params, body) and
    ("#undef", name) tuples."""
    text = LITERAL_OR_COMMENT.sub(
        lambda m: '""' if m.group(0)[0] in "\"'" else "\n" * m.group(0).count("\n") or " ", path.read_text())
    text = text.replace("\\\n", " ")
    out = []
    for line in text.split("\n"):
        d = re.match(r"\s*#\s*(define|undef)\s+(\w+)(\(([^)]*)\))?(.*)", line)
        if d and d.group(1) == "define" and d.group(3):
            params = [p.strip() for p in d.group(4).split(",") if p.strip()]
            out.append(("#define", d.group(2), params, TOKEN.findall(d.group(5))))
        elif d and d.group(1) == "undef":
            out.append(("#undef", d.group(2)))
        elif not line.lstrip().startswith("#"):
            out += TOKEN.findall(line)
    return out


def balanced(tokens, i, open_, close):
    """The index after the bracket that closes tokens[i] (an opening one)."""
    depth = 0
    while i < len(tokens):
        depth += (tokens[i] in open_) - (tokens[i] in close)
        i += 1
        if depth == 0:
            break
    return i


def expand(tokens):
    """The tokens with every function-like macro use replaced by its body."""
    macros, out, i, budget = {}, [], 0, 100000
    while i < len(tokens):
        budget -= 1
        assert budget > 0, "numpy_coverage: macro expansion does not end (a recursive macro?)"
        t = tokens[i]
        if isinstance(t, tuple):
            if t[0] == "#define":
                macros[t[1]] = (t[2], t[3])
            else:
                macros.pop(t[1], None)
            i += 1
        elif t in macros and i + 1 < len(tokens) and tokens[i + 1] == "(":
            end = balanced(tokens, i + 1, "(", ")")
            args, depth = [[]], 0
            for a in tokens[i + 2:end - 1]:
                depth += (a == "(") - (a == ")")
                if a == "," and depth == 0:
                    args.append([])
                else:
                    args[-1].append(a)
            params, body = macros[t]
            bound = dict(zip(params, args))
            body = [x for b in body for x in bound.get(b, [b])]
            while "##" in body:  # token pasting: OP##= gives +=
                k = body.index("##")
                body[k - 1:k + 2] = ["".join(body[k - 1:k + 2:2])]
            tokens = tokens[:i] + body + tokens[end:]  # expanded again in turn
        else:
            out.append(t)
            i += 1
    return out


def declarations(tokens):
    """{"kiln::fft::fft", "kiln::array::reshape", ...}: the functions declared
    at namespace and class scope, by a scan of declarations (not a parser):
    the first unqualified name followed by "(" in each statement. Function
    bodies, initializers and template parameter lists are skipped."""
    found, scopes, head, named, i = set(), [], [], False, 0
    while i < len(tokens):
        t = tokens[i]
        if t == "template" and tokens[i + 1:i + 2] == ["<"]:
            i = balanced(tokens, i + 1, "<", ">")
        elif t in ("public", "private", "protected") and tokens[i + 1:i + 2] == [":"]:
            head, named, i = [], False, i + 2
        elif t == "=" and tokens[i + 1] != "=" and head[-1:] not in (["="], ["!"], ["<"], [">"]):
            while tokens[i] != ";":  # an initializer: skip to the statement's end
                i = balanced(tokens, i, "({", ")}") if tokens[i] in "({" else i + 1
        elif t == "(":
            i = balanced(tokens, i, "(", ")")
            head.append("()")
        elif t == "{":
            kind = next((k for k in head if k in ("namespace", "class", "struct", "union", "enum", "()")), None)
            if kind == "namespace":
                scopes.append("".join(head[head.index("namespace") + 1:]))
            elif kind in ("class", "struct", "union"):
                scopes.append(head[head.index(kind) + 1])
            else:  # a function body, an enum or a braced initializer
                i = balanced(tokens, i, "{", "}") - 1
            head, named, i = [], False, i + 1
        elif t in (";", "}"):
            if t == "}" and scopes:
                scopes.pop()
            head, named, i = [], False, i + 1
        else:
            name, j = t, i + 1
            if t == "operator":  # operator+, operator==, operator(), operator[]
                j = i + 3 if tokens[i + 1] == "(" else next(
                    (k for k in range(i + 1, min(i + 6, len(tokens))) if tokens[k] == "("), i + 1)
                name = "operator" + "".join(tokens[i + 1:j])
            if (tokens[j:j + 1] == ["("] and not named and (t == "operator" or t not in KEYWORDS)
                    and re.match(r"[A-Za-z_]", t) and head[-1:] not in (["::"], ["."], ["->"], ["~"])):
                found.add("::".join(scopes + [name]))
                named = True
            head.append(t)
            i = j if t == "operator" else i + 1
    return found


def kiln_declarations():
    found = set()
    for path in sorted(HEADERS.rglob("*.hpp")):
        if "detail" not in path.relative_to(HEADERS).parts[:-1]:
            found |= declarations(expand(tokenize(path)))
    return found


def kiln_spelling(name, decls):
    """"✓", "as X" or "—" for a NumPy routine's display name."""
    scope = {"linalg": "kiln::linalg::", "fft": "kiln::fft::", "Generator": "kiln::random::generator::"}
    prefix, _, base = name.rpartition(".")
    if scope.get(prefix, "kiln::") + base in decls:
        return "✓"
    if name in ALIASES and ALIASES[name][0] in decls:
        return "as " + ALIASES[name][1]
    return "—"


# ---- The page ----------------------------------------------------------------

def render(version, routines, decls):
    rows = {cat: [] for cat in CATEGORIES}
    for name in sorted(routines, key=lambda n: (n.lower(), n)):
        rows[routines[name]].append((name, kiln_spelling(name, decls)))
    lines = [
        "# NumPy coverage",
        "",
        "<!-- Generated by scripts/numpy_coverage.py from NumPy %s; do not edit by hand. -->" % version,
        "",
        "Generated by `scripts/numpy_coverage.py` from NumPy %s and Kiln's public headers "
        "(`include/kiln`); do not edit by hand: rerun the script (`--check` says whether this "
        "page is current; CTest runs it as `docs.numpy_coverage`)." % version,
        "",
        "NumPy's routines are the functions and ufuncs of `numpy`, `numpy.linalg` and `numpy.fft`, "
        "and the methods of `numpy.random.Generator`. ✓: Kiln declares a routine of that name in "
        "namespace `kiln` (`kiln::linalg`, `kiln::fft`, `kiln::random::generator`); \"as X\": Kiln "
        "spells it X; —: Kiln has none. A ✓ does not promise every NumPy argument, dtype or "
        "option: [operations.md](operations.md) lists what each routine takes and where it departs "
        "from NumPy.",
        "",
        "| Category | In Kiln | NumPy routines | of which under another spelling |",
        "| --- | ---: | ---: | ---: |",
    ]
    total = [0, 0, 0]
    for cat, entries in rows.items():
        have = sum(s != "—" for _, s in entries)
        alias = sum(s.startswith("as ") for _, s in entries)
        total = [total[0] + have, total[1] + len(entries), total[2] + alias]
        if entries:
            lines.append("| [%s](#%s) | %d | %d | %d |" % (cat, anchor(cat), have, len(entries), alias))
    lines.append("| **All** | **%d** | **%d** | **%d** |" % tuple(total))
    for cat, entries in rows.items():
        if entries:
            lines += ["", "## " + cat, "", "| NumPy | Kiln |", "| --- | --- |"]
            lines += ["| `%s` | %s |" % (name, spelling) for name, spelling in entries]
    return "\n".join(lines) + "\n"


def anchor(title):
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if %s is out of date" % OUTPUT.name)
    args = parser.parse_args()
    try:
        import numpy as np
    except ImportError:
        print("numpy_coverage: skipped: NumPy is not installed (python3 -m pip install numpy)")
        return 77
    page = render(np.__version__, numpy_routines(np), kiln_declarations())
    rel = OUTPUT.relative_to(ROOT)
    if not args.check:
        OUTPUT.write_text(page)
        print("numpy_coverage: wrote %s" % rel)
        return 0
    old = OUTPUT.read_text() if OUTPUT.exists() else ""
    if old == page:
        print("numpy_coverage: %s is up to date" % rel)
        return 0
    recorded = re.search(r"<!-- Generated by scripts/numpy_coverage.py from NumPy (\S+);", old)
    if recorded and recorded.group(1) != np.__version__:
        print("numpy_coverage: skipped: %s was generated from NumPy %s, this is NumPy %s"
              % (rel, recorded.group(1), np.__version__))
        return 77
    print("numpy_coverage: %s is %s; run python3 scripts/numpy_coverage.py and commit the result"
          % (rel, "out of date (Kiln's headers or the script changed)" if old else "missing"))
    return 1

if __name__ == "__main__":
    sys.exit(main())
