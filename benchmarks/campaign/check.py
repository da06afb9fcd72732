"""Is Kiln's answer NumPy's? A fast wrong program is not a pass.

Kiln's checksum of a result (harness.hpp) is compared with NumPy's (oracle.py)
for the same program on the same inputs: dtype and shape exactly; each
sampled element; the NaN and infinity counts; the sums of the finite parts.
Floats may differ by `tol` relative to the element (or to the result's mean
magnitude, for elements near 0 after a cancellation), plus four times the
distance between NumPy's answer and NumPy's answer carried in double
precision there: the rounding error of the program at that element, which
two correct single-precision implementations may each make. Integers and
bools must be equal, except where NumPy's double-precision run gives another
value (a comparison at a tie of rounded values, an argmax between equal
rounded maxima).
"""
import math

TOL = {"single": 1e-4, "double": 1e-9, "exact": 1e-12}


def _pairs(v):
    return (v[0], v[1]) if isinstance(v, list) else (v, 0.0)


def _close(k, n, w, tol, scale):
    """One element (one part of a complex value)."""
    if isinstance(n, (int, bool)) and isinstance(k, (int, bool)):
        return k == n or n != w
    if math.isnan(n):
        return math.isnan(k) or not math.isnan(w)
    if math.isinf(n):
        return k == n or w != n
    if math.isnan(k) or math.isinf(k):
        return math.isnan(w) or math.isinf(w)
    cond = abs(n - w) if not (math.isnan(w) or math.isinf(w)) else math.inf
    return abs(k - n) <= tol * max(abs(n), scale) + 4 * cond


def compare(kiln, narrow, wide, precision):
    """Problems found (empty when Kiln's answer is NumPy's). `precision`:
    "single" when any node computes in single precision, else "double"."""
    problems = []
    kdt = kiln["dtype"].replace("bool_", "bool")
    if kdt != narrow["dtype"]:
        problems.append("dtype %s, NumPy %s" % (kdt, narrow["dtype"]))
    if list(kiln["shape"]) != list(narrow["shape"]):
        problems.append("shape %s, NumPy %s" % (kiln["shape"], narrow["shape"]))
    if problems:
        return problems
    ks, ns, ws = kiln["stats"], narrow["stats"], wide["stats"]
    count = ns["count"]
    floating = narrow["dtype"].startswith(("float", "complex"))
    tol = TOL[precision] if floating else TOL["exact"]
    for key in ("nan", "inf"):
        if abs(ks[key] - ns[key]) > abs(ns[key] - ws[key]) + 1e-6 * count:
            problems.append("%d %s elements, NumPy %d" % (ks[key], key, ns[key]))
    for part in (0, 1):
        k, n, w = ks["sum"][part], ns["sum"][part], ws["sum"][part]
        allowed = tol * max(ns["abs"][part], 1e-300) + 4 * abs(n - w)
        if not abs(k - n) <= allowed:
            problems.append("sum of the %s parts %.17g, NumPy %.17g (allowed difference %.3g)" % (
                ("real", "imaginary")[part], k, n, allowed))
    scale = (ns["abs"][0] + ns["abs"][1]) / max(1, count - ns["nan"] - ns["inf"])
    bad = []
    for j, (k, n, w) in enumerate(zip(kiln["sample"], narrow["sample"], wide["sample"])):
        if isinstance(n, list):
            mod = math.hypot(*n) if not any(map(math.isnan, n)) else 0.0
            ok = all(_close(kp, np_, wp, tol, max(scale, mod)) for kp, np_, wp in zip(_pairs(k), n, _pairs(w)))
        else:
            ok = _close(k, n, w, tol, scale)
        if not ok:
            bad.append((j, k, n, w))
    if len(kiln["sample"]) != len(narrow["sample"]):
        problems.append("%d sampled elements, NumPy %d" % (len(kiln["sample"]), len(narrow["sample"])))
    if bad:
        problems.append("%d of %d sampled elements differ, e.g. #%d: kiln %r, numpy %r (double precision %r)" % (
            (len(bad), len(narrow["sample"])) + bad[0]))
    return problems
