#!/usr/bin/env python3
"""Kiln's performance campaign: random fused programs at sizes that stream,
timed on a GPU against their roofline and on the host against NumPy.

Hand-picked benchmarks only prove the rows someone thought of. This draws
programs from the differential tester's grammar (grammar.py: elementwise
chains of every operation and dtype, reductions over any axes, keepdims
results broadcast back into consumers, writes and compound updates through
transposed, stepped and broadcast views, softmax- and norm-like shapes),
compiles them with kilnc in one batch, runs them, and checks every answer
against NumPy's on the same inputs (a fast wrong program is not a pass).

  campaign.py generate --seed 1 --count 200 --scale gpu --out DIR
  campaign.py build    --dir DIR --kilnc build/bin/kilnc [--cuda-arch sm_90 | --cuda-host-only] [--jobs 2]
  campaign.py expect   --dir DIR [--jobs 2]      # NumPy's answers, for a run where NumPy is slow or absent
  campaign.py run      --dir DIR [--numpy | --peer cupy] [--only 3,17] [--out summary.json]
  campaign.py report   --dir DIR [--summary summary.json] [--markdown]
  campaign.py smoke    --kilnc build/bin/kilnc   # CI: a few tiny programs run and checked, not timed

`run` runs DIR/campaign on the device KILN_DEVICE names. On a GPU each
program's figure is its fraction of the roofline (its bytes over the device
copy bandwidth the same run measured, over its time), and with `--peer cupy`
CuPy's on the same program beside it (peer.py); on the host (`--numpy`)
Kiln's time over NumPy's for the same program. docs/testing.md ("Performance
campaign") says how to run it on the device machine.

Exit status of run and smoke: 0 when every program ran and gave NumPy's
answer, 1 otherwise (the performance goals are reported, not enforced).
"""
import argparse
import concurrent.futures
import json
import math
import os
import random
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("campaign: skipped: NumPy is not installed (python3 -m pip install numpy)")
    sys.exit(77)
if int(np.__version__.split(".")[0]) < 2:
    print("campaign: skipped: NumPy %s predates NumPy 2's promotion rules (NEP 50), which Kiln follows" % np.__version__)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build as build_mod  # noqa: E402
import check  # noqa: E402
import emit  # noqa: E402
import grammar  # noqa: E402
import oracle  # noqa: E402
import peer  # noqa: E402
import report  # noqa: E402
import typecheck  # noqa: E402


def log(*args):
    print(*args, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# generate


def generate(seed, count, scale):
    """`count` programs of the seed (deterministic), as programs.json entries."""
    r = random.Random(seed)
    lo, hi = emit.SCALES[scale]["traffic"]
    metas, dropped = [], {}
    while len(metas) < count:
        pid = len(metas)
        traffic = math.exp(r.uniform(math.log(lo), math.log(hi)))
        p = grammar.generate(r, pid, traffic, seed, long_rows=scale != "smoke", min_traffic=lo)
        why = "nothing usable drawn" if p is None else typecheck.check(p)
        if why:
            dropped[why] = dropped.get(why, 0) + 1
            continue
        metas.append(emit.meta(p))
    return metas, dropped


def cmd_generate(args):
    metas, dropped = generate(args.seed, args.count, args.scale)
    info = {"seed": args.seed, "scale": args.scale, "numpy": np.__version__}
    emit.save_batch(args.out, info, metas)
    kinds = {}
    for m in metas:
        kinds[m["kind"]] = kinds.get(m["kind"], 0) + 1
    log("campaign: %d programs (%s) in %s, %.1f GiB moved in all; %d draws dropped by the NumPy type check" % (
        len(metas), ", ".join("%d %s" % (v, k) for k, v in sorted(kinds.items())), args.out,
        sum(m["bytes"] for m in metas) / 2 ** 30, sum(dropped.values())))
    for why, n in sorted(dropped.items(), key=lambda kv: -kv[1])[:10]:
        log("  dropped %d: %s" % (n, why))
    return 0


# ---------------------------------------------------------------------------
# build


def cmd_build(args):
    flags = ["--cuda-host-only"] if args.cuda_host_only else []
    if args.cuda_arch:
        flags.append("--cuda-arch=" + args.cuda_arch)
    refused = build_mod.build(args.dir, args.kilnc, flags, args.jobs, log)
    log("campaign: built %s/campaign; kilnc refused %d programs%s" % (
        args.dir, len(refused), "".join("\n  program %d: %s" % kv for kv in sorted(refused.items()))))
    return 0


# ---------------------------------------------------------------------------
# expect: NumPy's answers


def _expect_one(args):
    directory, pid = args
    batch = emit.load_batch(directory)
    meta = next(m for m in batch["programs"] if m["id"] == pid)
    source = open(os.path.join(directory, "numpy_programs.py")).read()
    return pid, oracle.measure(source, meta)


def expectations(directory, ids, jobs):
    """NumPy's answers (narrow and wide) for `ids`, cached in expected.json."""
    path = os.path.join(directory, "expected.json")
    cached = json.load(open(path)) if os.path.exists(path) else {}
    todo = [pid for pid in ids if str(pid) not in cached]
    if todo:
        log("campaign: NumPy's answers for %d programs (%d processes)" % (len(todo), jobs))
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
            for n, (pid, exp) in enumerate(pool.map(_expect_one, [(directory, pid) for pid in todo]), 1):
                cached[str(pid)] = exp
                if n % 20 == 0:
                    log("  %d/%d" % (n, len(todo)))
        with open(path, "w") as f:
            json.dump(cached, f)
    return {pid: cached[str(pid)] for pid in ids}


def cmd_expect(args):
    batch = emit.load_batch(args.dir)
    expectations(args.dir, [m["id"] for m in batch["programs"] if not m.get("refused")], args.jobs)
    return 0


# ---------------------------------------------------------------------------
# run


def run_binary(exe, ids, extra):
    """Runs the batch; returns ({id: record}, run info). A program that
    crashes the process is recorded as such, and the rest run in a new one."""
    records, run = {}, {"copies": []}
    todo = list(ids)
    while todo:
        cmd = [exe, "--only", ",".join(str(i) for i in todo)] + extra
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        started = None
        for line in proc.stdout:
            rec = json.loads(line)
            if "device" in rec:
                run["device"] = rec["device"]
            elif "copy" in rec:
                run["copies"].append(rec)
            elif "start" in rec:
                started = rec["start"]
            else:
                records[rec["id"]] = rec
                started = None
                if "error" not in rec:
                    log("  program %d: %.3f ms" % (rec["id"], rec["ms"]))
                else:
                    log("  program %d raised: %s" % (rec["id"], rec["error"]))
        code = proc.wait()
        if code != 0 and started is not None:
            records[started] = {"id": started, "error": "the process died (exit status %d)" % code}
            log("  program %d crashed the process (exit status %d)" % (started, code))
        elif code != 0:
            raise RuntimeError("%s exited with status %d" % (exe, code))
        todo = [i for i in todo if i not in records]
    return records, run


def cmd_run(args):
    batch = emit.load_batch(args.dir)
    metas = {m["id"]: m for m in batch["programs"] if not m.get("refused")}
    ids = sorted(metas) if not args.only else [int(x) for x in args.only.split(",")]
    exe = args.exe or os.path.join(args.dir, "campaign")
    extra = []
    if args.reps:
        extra += ["--reps", str(args.reps)]
    if args.warmup is not None:
        extra += ["--warmup", str(args.warmup)]
    if args.no_time:
        extra.append("--no-time")
    log("campaign: running %d programs of %s on %s" % (len(ids), args.dir, os.environ.get("KILN_DEVICE", "the default device")))
    records, run = run_binary(exe, ids, extra)
    mode = "host" if run.get("device") == "host" else "gpu"
    source = open(os.path.join(args.dir, "numpy_programs.py")).read()
    numpy_times = {}
    if args.numpy:
        # NumPy after Kiln (never beside it: on 2 cores they would share them),
        # its answer from the same run.
        path = os.path.join(args.dir, "expected.json")
        cached = json.load(open(path)) if os.path.exists(path) else {}
        for n, pid in enumerate(ids, 1):
            got = oracle.measure(source, metas[pid], args.numpy_reps, 1)
            numpy_times[pid] = (got.pop("ms"), got.pop("times"))
            cached[str(pid)] = got
            log("  numpy %d/%d: program %d: %.2f ms" % (n, len(ids), pid, numpy_times[pid][0]))
        with open(path, "w") as f:
            json.dump(cached, f)
    peer_times = {}
    if args.peer:
        # CuPy after Kiln, on the same GPU and the same inputs.
        for n, pid in enumerate(ids, 1):
            try:
                peer_times[pid] = peer.measure(source, metas[pid], args.peer_reps)
                log("  cupy %d/%d: program %d: %.3f ms" % (n, len(ids), pid, peer_times[pid][0]))
            except Exception as e:  # a function CuPy lacks, or its out-of-memory
                log("  cupy %d/%d: program %d: not run (%s: %s)" % (n, len(ids), pid, type(e).__name__, e))
    expected = expectations(args.dir, ids, args.jobs) if not args.no_check else {}
    copy_gbps = max((c["gbps"] for c in run["copies"]), default=None)
    results = {}
    for pid in ids:
        rec = records.get(pid, {"error": "no result"})
        m = metas[pid]
        r = {"kind": m["kind"], "label": m["label"], "bytes": m["bytes"]}
        if "error" in rec:
            r["error"] = rec["error"]
        else:
            r["ms"], r["times"] = rec["ms"], rec["times"]
            if copy_gbps and rec["ms"] > 0:
                r["roofline_bytes"] = m.get("roofline_bytes", m["bytes"])
                r["roofline_ms"] = r["roofline_bytes"] / (copy_gbps * 1e9) * 1e3
                r["roofline"] = r["roofline_ms"] / rec["ms"]
            if pid in peer_times:
                r["cupy_ms"], r["cupy_times"] = peer_times[pid]
                if "roofline_ms" in r and r["cupy_ms"] > 0:
                    r["cupy_roofline"] = r["roofline_ms"] / r["cupy_ms"]
            if pid in numpy_times:
                r["numpy_ms"], r["numpy_times"] = numpy_times[pid]
                r["vs_numpy"] = rec["ms"] / r["numpy_ms"] if r["numpy_ms"] > 0 else None
            if pid in expected:
                exp = expected[pid]
                r["problems"] = check.compare(rec, exp["narrow"], exp["wide"], "single" if m["single"] else "double")
        results[pid] = r
    if mode == "host" and not args.numpy:
        mode = "gpu"  # no NumPy times: the roofline is the only figure
    print(report.text(batch, results, run, mode))
    out = args.out or os.path.join(args.dir, "summary-%s.json" % (run.get("device") or "run").replace(":", ""))
    with open(out, "w") as f:
        json.dump(report.summary(batch, results, run, mode), f, indent=1)
    log("campaign: summary in %s" % out)
    failed = [pid for pid, r in results.items() if r.get("error") or r.get("problems")]
    return 1 if failed else 0


def cmd_report(args):
    batch = emit.load_batch(args.dir)
    summary = json.load(open(args.summary))
    results = {int(k): v for k, v in summary["programs"].items()}
    run = {"device": summary["device"], "copies": summary["copies"]}
    if args.markdown:
        print(markdown(batch, results, run, summary["mode"]))
    else:
        print(report.text(batch, results, run, summary["mode"]))
    return 0


def markdown(batch, results, run, mode):
    d = report.percentiles(list(report.figures(results, mode).values()))
    rows = ["| | n | min | p10 | median | p90 | max |", "|---|---:|---:|---:|---:|---:|---:|",
            "| all | %d | %.2f | %.2f | %.2f | %.2f | %.2f |" % (d["n"], d["min"], d["p10"], d["median"], d["p90"], d["max"])]
    for k, v in report.breakdown(batch, results, mode, "kind").items():
        rows.append("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f |" % (k, v["n"], v["min"], v["p10"], v["median"],
                                                                        v["p90"], v["max"]))
    return "\n".join(rows)


# ---------------------------------------------------------------------------
# smoke: CI


def cmd_smoke(args):
    work = args.keep or tempfile.mkdtemp(prefix="kiln-campaign-")
    metas, _ = generate(args.seed, args.count, "smoke")
    emit.save_batch(work, {"seed": args.seed, "scale": "smoke", "numpy": np.__version__}, metas)
    refused = build_mod.build(work, args.kilnc, ["--cuda-host-only"], args.jobs, log)
    os.environ["KILN_DEVICE"] = "host"
    # One repetition, untimed by anyone: the timing path runs, its figures are not read.
    records, run = run_binary(os.path.join(work, "campaign"), [m["id"] for m in metas if m["id"] not in refused],
                              ["--reps", "1", "--warmup", "0"])
    source = open(os.path.join(work, "numpy_programs.py")).read()
    failed = 0
    for m in metas:
        pid = m["id"]
        if pid in refused:
            print("campaign.smoke: program %d: kilnc refused it: %s\n%s" % (pid, refused[pid], m["cpp"]))
            failed += 1
            continue
        rec = records.get(pid, {"error": "no result"})
        if "error" in rec:
            print("campaign.smoke: program %d: %s\n%s" % (pid, rec["error"], m["cpp"]))
            failed += 1
            continue
        exp = oracle.measure(source, m)
        problems = check.compare(rec, exp["narrow"], exp["wide"], "single" if m["single"] else "double")
        if problems:
            print("campaign.smoke: program %d differs from NumPy: %s\n%s" % (pid, "; ".join(problems), m["cpp"]))
            failed += 1
    print("campaign.smoke: seed %d, %d programs built by kilnc, run on the host and checked against NumPy %s: %d failed"
          % (args.seed, len(metas), np.__version__, failed))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate", help="write a batch: its C++ is written by build")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--count", type=int, default=200)
    g.add_argument("--scale", choices=sorted(emit.SCALES), default="gpu")
    g.add_argument("--out", required=True)
    b = sub.add_parser("build", help="compile the batch with kilnc")
    b.add_argument("--dir", required=True)
    b.add_argument("--kilnc", required=True)
    b.add_argument("--cuda-arch", help="also embed cubins for these GPUs (e.g. sm_90)")
    b.add_argument("--cuda-host-only", action="store_true", help="no GPU code (host campaigns)")
    b.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="shards compiled in parallel")
    e = sub.add_parser("expect", help="NumPy's answers, cached in DIR/expected.json")
    e.add_argument("--dir", required=True)
    e.add_argument("--jobs", type=int, default=2)
    r = sub.add_parser("run", help="run, check and report the batch")
    r.add_argument("--dir", required=True)
    r.add_argument("--exe", "--kiln-exe", dest="exe", help="the binary (default DIR/campaign)")
    r.add_argument("--numpy", action="store_true", help="time NumPy on the same programs (host campaigns)")
    r.add_argument("--numpy-reps", type=int, default=3)
    r.add_argument("--peer", choices=["cupy"], help="time CuPy on the same programs (GPU campaigns)")
    r.add_argument("--peer-reps", type=int, default=10)
    r.add_argument("--only", help="program ids, comma-separated")
    r.add_argument("--reps", type=int)
    r.add_argument("--warmup", type=int)
    r.add_argument("--no-time", action="store_true", help="check only")
    r.add_argument("--no-check", action="store_true", help="time only")
    r.add_argument("--jobs", type=int, default=2, help="processes computing NumPy's answers")
    r.add_argument("--out", help="the JSON summary (default DIR/summary-<device>.json)")
    p = sub.add_parser("report", help="print a run's report again")
    p.add_argument("--dir", required=True)
    p.add_argument("--summary", required=True)
    p.add_argument("--markdown", action="store_true", help="the distribution as a table for RESULTS.md")
    s = sub.add_parser("smoke", help="CI: a few tiny programs built, run on the host and checked, not timed")
    s.add_argument("--kilnc", required=True)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--count", type=int, default=6)
    s.add_argument("--jobs", type=int, default=2)
    s.add_argument("--keep", help="keep the batch here")
    args = ap.parse_args()
    return {"generate": cmd_generate, "build": cmd_build, "expect": cmd_expect, "run": cmd_run, "report": cmd_report,
            "smoke": cmd_smoke}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
