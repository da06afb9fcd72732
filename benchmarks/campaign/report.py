"""The campaign's verdict: each program's figure, the distribution, the goals,
breakdowns by kind and feature, the worst ten with their source, and every
program that did not give NumPy's answer.

On a GPU a program's figure is its fraction of the roofline: the time its
bytes take at the device copy bandwidth measured by the same run, over its
measured time (1.0 = as fast as a copy of the bytes it must move). On the
host it is Kiln's time over NumPy's for the same program (below 1: Kiln is
faster); the host's fraction of its own copy roofline is shown beside it.
"""
import numpy as np

GOALS = {
    "gpu": "no program below 0.60 of its roofline, p10 >= 0.85, median >= 0.95",
    "host": "no program slower than NumPy (ratio <= 1), median <= 0.6",
}


def percentiles(values):
    v = np.asarray(values, float)
    if v.size == 0:
        return {}
    return {"n": int(v.size), "min": float(v.min()), "p10": float(np.percentile(v, 10)),
            "median": float(np.median(v)), "p90": float(np.percentile(v, 90)), "max": float(v.max())}


def figures(results, mode):
    """Program id -> its figure (see the module's docstring)."""
    key = "roofline" if mode == "gpu" else "vs_numpy"
    return {pid: r[key] for pid, r in results.items() if r.get(key) is not None}


def worst(results, mode, n=10):
    figs = figures(results, mode)
    order = sorted(figs, key=lambda pid: figs[pid], reverse=(mode == "host"))
    return order[:n]


def goals(results, mode):
    d = percentiles(list(figures(results, mode).values()))
    if not d:
        return {}
    if mode == "gpu":
        below = sum(1 for v in figures(results, mode).values() if v < 0.60)
        return {"below_0.60": below, "p10_ok": d["p10"] >= 0.85, "median_ok": d["median"] >= 0.95,
                "met": below == 0 and d["p10"] >= 0.85 and d["median"] >= 0.95}
    slower = sum(1 for v in figures(results, mode).values() if v > 1.0)
    return {"slower_than_numpy": slower, "median_ok": d["median"] <= 0.6, "met": slower == 0 and d["median"] <= 0.6}


def breakdown(batch, results, mode, key):
    """Median figure per group (kind, or each feature)."""
    figs = figures(results, mode)
    groups = {}
    for m in batch["programs"]:
        if m["id"] not in figs:
            continue
        names = [m["kind"]] if key == "kind" else m["features"]
        for g in names:
            groups.setdefault(g, []).append(figs[m["id"]])
    return {g: percentiles(v) for g, v in sorted(groups.items())}


def fmt(d, keys=("n", "min", "p10", "median", "p90", "max")):
    return "  ".join("%s %s" % (k, d[k] if k == "n" else "%.3f" % d[k]) for k in keys if k in d)


def peer_lines(batch, results):
    """CuPy beside Kiln (`run --peer cupy`): its fraction of the roofline,
    the time ratio, and the programs where Kiln is slower."""
    both = {pid: r for pid, r in results.items() if r.get("cupy_ms") and r.get("ms")}
    if not both:
        return []
    ratio = {pid: r["ms"] / r["cupy_ms"] for pid, r in both.items()}
    slower = sorted((pid for pid in ratio if ratio[pid] > 1.0), key=lambda pid: -ratio[pid])
    out = ["", "CuPy on the same programs (%d ran):" % len(both),
           "  CuPy's fraction of the roofline: %s" % fmt(percentiles([r["cupy_roofline"] for r in both.values()])),
           "  Kiln time / CuPy time: %s" % fmt(percentiles(list(ratio.values()))),
           "  Kiln slower than CuPy: %d%s" % (len(slower), (": " + ", ".join(
               "%d (%.2fx)" % (pid, ratio[pid]) for pid in slower)) if slower else "")]
    below = [pid for pid, r in both.items() if r.get("roofline", 1) < 0.60]
    if below:
        peer_low = sum(1 for pid in below if both[pid]["cupy_roofline"] < 0.60)
        out.append("  of the %d programs below 0.60, CuPy is below 0.60 too on %d" % (len(below), peer_low))
    return out


def describe_program(m, r, mode):
    lines = []
    if mode == "gpu":
        lines.append("program %d: %.3f of roofline (%.4f ms, roofline %.4f ms, %.1f MiB%s) %s: %s [%s]" % (
            m["id"], r["roofline"], r["ms"], r["roofline_ms"], r.get("roofline_bytes", m["bytes"]) / 2 ** 20,
            "; CuPy %.4f ms, %.3f" % (r["cupy_ms"], r["cupy_roofline"]) if r.get("cupy_roofline") else "",
            m["kind"], m["label"], m["form"]))
    else:
        lines.append("program %d: %.3f x NumPy (Kiln %.2f ms, NumPy %.2f ms; %.3f of the host copy roofline, %.1f MiB)"
                     " %s: %s [%s]" % (m["id"], r["vs_numpy"], r["ms"], r["numpy_ms"], r["roofline"],
                                       m["bytes"] / 2 ** 20, m["kind"], m["label"], m["form"]))
    shapes = ", ".join("%s %s %s%s" % (i["name"], i["dtype"], i["shape"], " (%s)" % i["view"] if i["view"] else "")
                       for i in m["inputs"])
    lines.append("  inputs: %s; result %s %s" % (shapes, m["dtype"], m["shape"]))
    lines.append("  kernels: %d%s" % (len(m.get("kernels", [])), "".join(
        "\n    %s: %s, %s, reduces %s, %s" % (k["kernel"], k["fused"], k["inputs"], k["reduces"], k["bytes"])
        for k in m.get("kernels", []))))
    lines += ["  " + line for line in m["cpp"].splitlines()]
    return "\n".join(lines)


def text(batch, results, run, mode, n_worst=10):
    """The printed report."""
    out = []
    metas = {m["id"]: m for m in batch["programs"]}
    out.append("campaign: seed %d, %d programs (%s scale) on %s" % (batch["seed"], len(batch["programs"]),
                                                                    batch["scale"], run.get("device", "?")))
    for c in run.get("copies", []):
        out.append("  device copy (%s): %.1f GB/s" % (c["copy"], c["gbps"]))
    bad = {pid: r for pid, r in results.items() if r.get("problems")}
    refused = [m for m in batch["programs"] if m.get("refused")]
    out.append("  ran %d, refused by kilnc %d, raised or crashed %d, answers differing from NumPy %d" % (
        sum(1 for r in results.values() if "ms" in r), len(refused),
        sum(1 for r in results.values() if r.get("error")), len(bad)))
    d = percentiles(list(figures(results, mode).values()))
    what = "fraction of the roofline" if mode == "gpu" else "Kiln time / NumPy time"
    out.append("")
    out.append("%s: %s" % (what, fmt(d)))
    g = goals(results, mode)
    out.append("goals (%s): %s" % (GOALS[mode], ", ".join("%s %s" % kv for kv in g.items())))
    if mode == "host":
        out.append("host fraction of its copy roofline: %s" % fmt(percentiles(
            [r["roofline"] for r in results.values() if r.get("roofline") is not None])))
    above = sorted(pid for pid, r in results.items() if (r.get("roofline") or 0) > 1.1)
    if above:
        out.append("faster than a copy of their bytes (cache reuse, or bytes the compiler found it need not "
                   "read): programs %s" % ", ".join(str(pid) for pid in above))
    out += peer_lines(batch, results)
    out.append("")
    out.append("by kind:")
    for k, v in breakdown(batch, results, mode, "kind").items():
        out.append("  %-12s %s" % (k, fmt(v)))
    out.append("by feature (median of the programs that have it):")
    feats = breakdown(batch, results, mode, "features")
    for k, v in feats.items():
        out.append("  %-22s n %3d  median %.3f  %s %.3f" % (k, v["n"], v["median"], "min" if mode == "gpu" else "max",
                                                          v["min"] if mode == "gpu" else v["max"]))
    out.append("")
    out.append("worst %d:" % n_worst)
    for pid in worst(results, mode, n_worst):
        out.append(describe_program(metas[pid], results[pid], mode))
    if bad:
        out.append("")
        out.append("ANSWERS DIFFERING FROM NUMPY (%d):" % len(bad))
        for pid, r in sorted(bad.items()):
            out.append("program %d: %s" % (pid, "; ".join(r["problems"])))
            out += ["  " + line for line in metas[pid]["cpp"].splitlines()]
    errors = {pid: r for pid, r in results.items() if r.get("error")}
    if errors:
        out.append("")
        out.append("RAISED OR CRASHED (%d):" % len(errors))
        for pid, r in sorted(errors.items()):
            out.append("program %d: %s" % (pid, r["error"]))
            out += ["  " + line for line in metas[pid]["cpp"].splitlines()]
    if refused:
        out.append("")
        out.append("REFUSED BY KILNC (%d):" % len(refused))
        for m in refused:
            out.append("program %d: %s" % (m["id"], m["refused"]))
            out += ["  " + line for line in m["cpp"].splitlines()]
    return "\n".join(out)


def summary(batch, results, run, mode):
    """The JSON summary of a run."""
    return {"seed": batch["seed"], "scale": batch["scale"], "mode": mode, "device": run.get("device"),
            "copies": run.get("copies", []), "distribution": percentiles(list(figures(results, mode).values())),
            "goals": goals(results, mode), "by_kind": breakdown(batch, results, mode, "kind"),
            "cupy": percentiles([r["cupy_roofline"] for r in results.values() if r.get("cupy_roofline")]),
            "worst": worst(results, mode), "refused": {m["id"]: m["refused"] for m in batch["programs"]
                                                       if m.get("refused")},
            "programs": {str(pid): r for pid, r in sorted(results.items())}}
