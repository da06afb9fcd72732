#!/usr/bin/env python3
"""kilnc on every C++ source of the repository: it may refuse code with a
diagnostic, never crash or hang (issue 24).

kilnc is a drop-in C++ compiler: a file clang compiles, kilnc compiles,
leaving what it does not fuse to the eager runtime. This runs
`kilnc --emit=cpp` (the frontend, fusion, the PTX and host back ends and the
rewrite: all of kilnc but the host compiler) on each source of runtime/,
test/, examples/ and benchmarks/ (but for test/e2e and examples, which every
build compiles with kilnc already, and test/lit, which lit runs through kilnc;
--all takes them too), with the flags the build gives it
(compile_commands.json) or, for a source the build does not compile (lit
inputs, e2e programs), Kiln's include folders. compiler/ (LLVM's headers,
15-25 s a file) is left out.

A crash (a signal, or LLVM's crash report), a hang (--timeout) or a
sanitizer report fails the sweep. A diagnostic does not: the sources that
kilnc refuses are listed (unit tests that check at run time the NumPy
errors that kilnc reports at compile time).

  kilnc_sweep.py --kilnc build/bin/kilnc --source . --build build [-j N]

Exit status: 0 when kilnc finished on every source, 1 otherwise.
"""
import argparse
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys
import time

FOLDERS = ("runtime", "test", "examples", "benchmarks")
# Run through kilnc by every build and test run already: the e2e programs and
# the examples (kiln_target, the largest sources) and the lit tests (lit
# fails on a crash, `not %kilnc` included).
SKIPPED = ("test/e2e", "examples", "test/lit")
SUFFIXES = (".cpp", ".cc", ".cxx")
CRASH_MARKS = ("PLEASE submit a bug report", "Stack dump:", "ERROR: AddressSanitizer", "runtime error:")


def sources(root, skipped):
    out = []
    for folder in FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            if os.path.relpath(dirpath, root) in skipped:
                dirnames[:] = []
                continue
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            out += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(SUFFIXES)]
    return out


def build_flags(build):
    """Each compiled source's -I/-D/-std flags, from compile_commands.json."""
    path = os.path.join(build, "compile_commands.json") if build else ""
    if not path or not os.path.exists(path):
        return {}
    flags = {}
    for entry in json.load(open(path)):
        args = entry.get("arguments") or shlex.split(entry["command"])
        keep, skip = [], False
        for a in args[1:]:
            if skip:
                keep.append(a)
                skip = False
            elif a in ("-I", "-D", "-isystem", "-include"):
                keep.append(a)
                skip = True
            elif a.startswith(("-I", "-D", "-U", "-std=", "-isystem")):
                keep.append(a)
        flags[os.path.realpath(os.path.join(entry["directory"], entry["file"]))] = keep
    return flags


def run_one(kilnc, src, flags, timeout):
    cmd = [kilnc, "--emit=cpp", "-o", os.devnull, src] + flags
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return src, "hang", "no answer in %d s" % timeout, time.monotonic() - t0
    except OSError as e:  # kilnc itself could not be started
        return src, "crash", "cannot run %s: %s" % (kilnc, e), time.monotonic() - t0
    seconds = time.monotonic() - t0
    err = p.stderr
    if p.returncode < 0 or p.returncode >= 128 or any(m in err for m in CRASH_MARKS):
        return src, "crash", err[-3000:], seconds
    if p.returncode != 0:
        first = next((l for l in err.splitlines() if ": error: " in l or "fatal error" in l), err[:200])
        return src, "refused", first, seconds
    return src, "ok", "", seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kilnc", required=True)
    ap.add_argument("--source", required=True, help="the repository's root")
    ap.add_argument("--build", help="a build folder with compile_commands.json")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--all", action="store_true", help="also the folders every build compiles with kilnc: %s" %
                    ", ".join(SKIPPED))
    args = ap.parse_args()

    root = os.path.realpath(args.source)
    known = build_flags(args.build)
    default = ["-I" + os.path.join(root, d) for d in
               ("include", ".", "test", "test/unit", "test/e2e", "examples", "benchmarks", "test/lit/Driver/Inputs")]
    jobs = [(s, known.get(os.path.realpath(s), default)) for s in sources(root, () if args.all else SKIPPED)]
    t0 = time.monotonic()
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.j)) as pool:
        for r in pool.map(lambda j: run_one(args.kilnc, j[0], j[1], args.timeout), jobs):
            results.append(r)
    bad = [r for r in results if r[1] in ("crash", "hang")]
    refused = [r for r in results if r[1] == "refused"]
    for src, kind, detail, _ in bad:
        print("%s: kilnc %s\n%s\n" % (os.path.relpath(src, root), "CRASHED" if kind == "crash" else "HUNG", detail))
    for src, _, detail, _ in refused:
        print("refused (a diagnostic, not a failure): %s\n  %s" % (os.path.relpath(src, root), detail.strip()))
    slowest = max(results, key=lambda r: r[3]) if results else None
    print("kilnc sweep: %d sources in %.0f s (%d jobs; slowest %s, %.1f s): %d fine, %d refused with a diagnostic, "
          "%d crashed, %d hung" % (len(results), time.monotonic() - t0, args.j,
                                   os.path.relpath(slowest[0], root) if slowest else "-", slowest[3] if slowest else 0,
                                   sum(r[1] == "ok" for r in results), len(refused),
                                   sum(r[1] == "crash" for r in results), sum(r[1] == "hang" for r in results)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
