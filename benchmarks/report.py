# Collates the JSON lines of one device run (Kiln's benchmarks, peers.py,
# peers_reductions.py, host_reductions and host_peers.py) into tables: each
# bandwidth figure as a ratio to the device-to-device copy measured in the
# same run (CuPy's `o[...] = x`, bytes read + written); the reductions (lines
# with "workload" and "impl") as a table of Kiln beside each peer, on the
# GPU as ratios to that copy, on the host as Kiln's time over NumPy's on the
# same machine. Usage: report.py FILE.jsonl...
import json, sys

rows = []
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    pass

copy = next((r["gbps"] for r in rows if r.get("name") == "d2d copy (read+write)"), None)
print("| benchmark | ms | GB/s | / d2d copy | other |")
print("|---|---:|---:|---:|---|")
for r in rows:
    if "ms" not in r or "workload" in r:
        continue
    on_device = not any(t in r["name"] for t in ("H2D", "D2H"))  # transfers: not a device-copy ratio
    ratio = f"{r['gbps'] / copy:.2f}" if copy and r.get("gbps") and on_device else ""
    other = ", ".join(f"{k} {r[k]}" for k in ("tflops", "us") if k in r)
    gbps = f"{r['gbps']:.0f}" if r.get("gbps") else ""
    print(f"| {r['name']} | {r['ms']:.3f} | {gbps} | {ratio} | {other} |")
seen = set()
for r in rows:
    if r.get("name") == "versions" and "gpu" in r:
        v = f"GPU: {r['gpu']}, CuPy {r['cupy']}, PyTorch {r['torch']}"
        if v not in seen:
            seen.add(v)
            print(f"\n{v}")

#===------------------------------------------------------------------------===#
# Reductions on the GPU: reductions.cpp and peers_reductions.py
#===------------------------------------------------------------------------===#
GPU_GOALS = {  # the goals, as a fraction of the device copy
    "sum(x*y,-1) 16k x 16k": 1.00,
    "mean(axis=0) 16k x 16k": 1.00,
    "sum() 2^28": 1.03,
    "L2 norm rows 16k x 16k": 1.02,
    "argmax rows 16k x 16k": 0.97,
    "var rows 16k x 16k": 0.97,
    "softmax rows 64k x 4k": 0.95,
    "layer norm rows 64k x 4k": 0.93,
    "softmax rows 16k x 2^17": 0.85,
}
GPU_IMPLS = [("kiln", "Kiln"), ("kiln::reduce", "kiln::reduce"), ("cupy.fuse", "cupy.fuse"), ("ReductionKernel", "ReductionKernel"),
             ("cupy eager", "CuPy eager"), ("torch", "PyTorch"), ("torch.compile", "torch.compile")]
HOST_GOALS = {  # Kiln's time over NumPy's, at most
    "sum(x*y,-1) 4k x 4k": 0.5,
    "softmax rows 4k x 4k": 0.5,
}

red = [r for r in rows if r.get("workload") and r.get("suite") in ("reductions", "peers")]
if red:
    by = {(r["workload"], r["impl"]): r for r in red}
    peer_copy = by.get(("d2d copy", "cupy"), {}).get("gbps")
    ref = peer_copy or copy or by.get(("d2d copy", "kiln"), {}).get("gbps")
    print("\n### Reductions, float32, GPU (achieved bandwidth / device copy of the run)\n")
    if ref:
        line = f"Device copy (CuPy `o[...] = x`, 1 GiB): {ref:.0f} GB/s"
        kc = by.get(("d2d copy", "kiln"), {}).get("gbps")
        if kc:
            line += f"; Kiln's `x.copy()`: {kc:.0f} GB/s ({kc / ref:.2f})"
        print(line + ".\n")
    print("| workload | " + " | ".join(label for _, label in GPU_IMPLS) + " | goal |")
    print("|---|" + "---:|" * (len(GPU_IMPLS) + 1))
    workloads = list(GPU_GOALS) + sorted({w for w, _ in by if w not in GPU_GOALS and w != "d2d copy"
                                          and not w.startswith("host cost")})
    problems = []
    for w in workloads:
        cells = []
        for impl, label in GPU_IMPLS:
            r = by.get((w, impl))
            if r is None:
                cells.append("")
            elif "error" in r:
                cells.append("error")
                problems.append(f"{label} {w}: {r['error']}")
            elif ref and r.get("gbps"):
                cell = f"{r['gbps'] / ref:.2f}"
                if impl == "kiln":
                    cell = f"**{cell}**"
                if r.get("check", "ok") != "ok":
                    cell += " (wrong result)"
                    problems.append(f"{label} {w}: result does not match the float64 reference")
                cells.append(cell)
            else:
                cells.append(f"{r['ms']:.3f} ms")
        goal = f"{GPU_GOALS[w]:.2f}" if w in GPU_GOALS else ""
        if any(cells):
            print(f"| {w} | " + " | ".join(cells) + f" | {goal} |")
    print("\n| workload | impl | ms | GB/s |\n|---|---|---:|---:|")
    for r in red:
        if "ms" in r and r.get("gbps"):
            print(f"| {r['workload']} | {r['impl']} | {r['ms']:.3f} | {r['gbps']:.0f} |")
    for r in red:
        if r["workload"].startswith("host cost") and "us" in r:
            print(f"\nHost cost of one small reduction call (`sum(x, -1)`, 1000 float32, cuda:0, output allocation "
                  f"included): median {r['us']:.2f} us (min {r.get('us_min', 0):.2f}, p90 {r.get('us_p90', 0):.2f}; "
                  f"goal < 6 us).")
    for p in problems:
        print(f"- {p}")

#===------------------------------------------------------------------------===#
# Reductions on the host backend beside NumPy: host_reductions and host_peers.py
#===------------------------------------------------------------------------===#
host = [r for r in rows if r.get("suite") == "host" and r.get("workload") and "ms" in r]
for cpus in sorted({r.get("cpus") for r in host}, key=lambda c: c or 0):
    by = {(r["workload"], r["impl"]): r for r in host if r.get("cpus") == cpus}
    ws = list(dict.fromkeys(w for w, _ in by if not w.startswith("call cost")))
    print(f"\n### Reductions, float32, host backend beside NumPy ({cpus} CPUs)\n")
    print("| workload | Kiln ms | NumPy ms | Kiln / NumPy time | speed-up | goal (time ratio) |")
    print("|---|---:|---:|---:|---:|---:|")
    for w in ws:
        k, n = by.get((w, "kiln")), by.get((w, "numpy"))
        km = f"{k['ms']:.2f}" if k else ""
        nm = f"{n['ms']:.2f}" if n else ""
        ratio = f"**{k['ms'] / n['ms']:.2f}**" if k and n else ""
        speed = f"{n['ms'] / k['ms']:.1f}x" if k and n else ""
        print(f"| {w} | {km} | {nm} | {ratio} | {speed} | <= {HOST_GOALS.get(w, 1.0):.2f} |")
    for (w, impl), r in by.items():
        if w.startswith("call cost") and "us" in r:
            print(f"\nHost device, one small call (`sum(x, -1)`, 1000 float32): median {r['us']:.2f} us.")
