# Collates the JSON lines of one device run (Kiln's benchmarks and peers.py)
# into a table: each bandwidth figure as a ratio to the device-to-device copy
# measured in the same run (CuPy's `o[...] = x`, bytes read + written).
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
    if "ms" not in r:
        continue
    on_device = not any(t in r["name"] for t in ("H2D", "D2H"))  # transfers: not a device-copy ratio
    ratio = f"{r['gbps'] / copy:.2f}" if copy and r.get("gbps") and on_device else ""
    other = ", ".join(f"{k} {r[k]}" for k in ("tflops", "us") if k in r)
    gbps = f"{r['gbps']:.0f}" if r.get("gbps") else ""
    print(f"| {r['name']} | {r['ms']:.3f} | {gbps} | {ratio} | {other} |")
for r in rows:
    if r.get("name") == "versions":
        print(f"\nGPU: {r['gpu']}, CuPy {r['cupy']}, PyTorch {r['torch']}")
