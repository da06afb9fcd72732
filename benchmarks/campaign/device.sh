#!/bin/sh
# The GPU performance campaign (docs/testing.md, "Performance campaign").
#
# On the build machine (kilnc, ptxas and NumPy; no GPU needed):
#   benchmarks/campaign/device.sh prepare [seed] [count]
# generates the batch at GPU sizes into .carry/campaign (ignored by git:
# .gitignore's /.carry/), builds it with kilnc --cuda-arch=sm_90, computes
# NumPy's answers (expected.json), and packs what the GPU machine needs (the
# stripped binary, the programs, NumPy's answers) into .carry/campaign.txz:
# the binary alone is about 60 MB (PTX and cubins of every kernel), too much
# for the device tool's 64 MiB unpacked. KILNC names the kilnc (default
# build/bin/kilnc). Run it after scripts/device-build.sh, which clears .carry.
#
# On the device machine (the device tool's run, carry [".carry/campaign.txz"]):
#   benchmarks/campaign/device.sh run [campaign.py run options, e.g. --only 3,17]
#   benchmarks/campaign/device.sh profile 168,188   (Nsight Compute, a line a kernel)
# unpacks the batch, runs it on the GPU (KILN_DEVICE=cuda), checks every
# answer against NumPy's and writes the report and the JSON summary to $OUT
# (campaign-report.txt, campaign-summary.json).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${CAMPAIGN_DIR:-$root/.carry/campaign}
pack=$root/.carry/campaign.txz

case "${1:-}" in
prepare)
  seed=${2:-1}
  count=${3:-200}
  kilnc=${KILNC:-$root/build/bin/kilnc}
  rm -rf "$dir" "$pack"
  python3 "$here/campaign.py" generate --seed "$seed" --count "$count" --scale gpu --out "$dir"
  python3 "$here/campaign.py" build --dir "$dir" --kilnc "$kilnc" --cuda-arch sm_90 --jobs "$(nproc)"
  python3 "$here/campaign.py" expect --dir "$dir" --jobs 2
  strip "$dir/campaign"
  tar -cJf "$pack" -C "$dir/.." --exclude='*.o' --exclude='*.cpp' "$(basename "$dir")"
  ls -l "$pack"
  ;;
run)
  shift
  out=${OUT:-$root}
  work=${TMPDIR:-/tmp}/kiln-campaign
  rm -rf "$work" && mkdir -p "$work"
  tar -xJf "$pack" -C "$work"
  batch=$work/$(basename "$dir")
  KILN_DEVICE=${KILN_DEVICE:-cuda} python3 "$here/campaign.py" run --dir "$batch" \
    --out "$out/campaign-summary.json" "$@" >"$out/campaign-report.txt" || status=$?
  cat "$out/campaign-report.txt"
  exit "${status:-0}"
  ;;
profile)
  # Nsight Compute's figures for the kernels of some programs, one line a
  # kernel: time, DRAM and SM throughput, occupancy, launch shape and where
  # warps stall -- what a roofline fraction alone does not say.
  ids=${2:?usage: $0 profile ID[,ID...]}
  work=${TMPDIR:-/tmp}/kiln-campaign
  [ -x "$work/$(basename "$dir")/campaign" ] || { rm -rf "$work" && mkdir -p "$work" && tar -xJf "$pack" -C "$work"; }
  exe=$work/$(basename "$dir")/campaign
  stall=smsp__average_warps_issue_stalled
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  metrics=$metrics,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed
  metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
  metrics=$metrics,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic
  for r in long_scoreboard short_scoreboard barrier mio_throttle lg_throttle math_pipe_throttle wait not_selected; do
    metrics=$metrics,${stall}_${r}_per_issue_active.ratio
  done
  for id in $(echo "$ids" | tr ',' ' '); do
    echo "== program $id"
    KILN_DEVICE=${KILN_DEVICE:-cuda} ncu --csv --page raw --print-units base --kernel-name "regex:_p${id}_" --launch-skip 1 \
      --launch-count 4 --metrics "$metrics" "$exe" --only "$id" --reps 1 --warmup 1 --copy-mib 1 2>/dev/null |
      python3 "$here/profile.py"
  done
  ;;
*)
  echo "usage: $0 prepare [seed] [count] | run [campaign.py run options] | profile ID[,ID...]" >&2
  exit 2
  ;;
esac
