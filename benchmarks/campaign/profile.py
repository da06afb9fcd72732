#!/usr/bin/env python3
"""Condenses `ncu --csv --page raw` output (device.sh profile) to one line a
kernel launch: the kernel, its time, DRAM traffic and throughput against the
peak, SM throughput, occupancy, issue utilization, launch shape, and the
three largest stall reasons in warps stalled per issued instruction."""
import csv
import sys


def main():
    rows = list(csv.reader(line for line in sys.stdin if line.startswith('"')))
    if len(rows) < 3:
        print("  (no kernel profiled)")
        return 0
    header, data = rows[0], rows[2:]  # rows[1] holds the units
    stall_prefix = "smsp__average_warps_issue_stalled_"
    for row in data:
        r = dict(zip(header, row))

        def num(key):
            try:
                return float(r.get(key, "nan").replace(",", ""))
            except ValueError:
                return float("nan")

        name = r.get("Kernel Name", "?").split("(")[0]
        stalls = sorted(((num(k), k[len(stall_prefix):].replace("_per_issue_active.ratio", ""))
                         for k in header if k.startswith(stall_prefix)), reverse=True)[:3]
        print("  %s: %.1f us, DRAM %.0f+%.0f MB at %.0f%% of peak, SM %.0f%%, warps %.0f%%, issue %.0f%%, "
              "grid %d x %d, %d regs, %d B shared; stalls %s" % (
                  name, num("gpu__time_duration.sum") / 1e3, num("dram__bytes_read.sum") / 1e6,
                  num("dram__bytes_write.sum") / 1e6, num("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
                  num("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
                  num("sm__warps_active.avg.pct_of_peak_sustained_active"),
                  num("smsp__issue_active.avg.pct_of_peak_sustained_active"), num("launch__grid_size"),
                  num("launch__block_size"), num("launch__registers_per_thread"),
                  num("launch__shared_mem_per_block_dynamic"),
                  ", ".join("%s %.1f" % (n, v) for v, n in stalls)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
