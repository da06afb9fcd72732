#!/bin/sh
# The GPU performance campaign (docs/testing.md, "Performance campaign").
#
# On the build machine (kilnc, ptxas and NumPy; no GPU needed):
#   benchmarks/campaign/device.sh prepare [seed] [count]
# generates the batch at GPU sizes into .carry/campaign (ignored by git:
# .gitignore's /.carry/), builds it with kilnc --cuda-arch=sm_90 and computes
# NumPy's answers there (expected.json), so the device machine only runs it.
# KILNC names the kilnc (default build/bin/kilnc).
#
# On the device machine (the device tool's run, carry [".carry/campaign"]):
#   benchmarks/campaign/device.sh run
# runs the batch on the GPU (KILN_DEVICE=cuda), checks every answer against
# NumPy's and writes the report and the JSON summary to $OUT.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${CAMPAIGN_DIR:-$root/.carry/campaign}

case "${1:-}" in
prepare)
  seed=${2:-1}
  count=${3:-200}
  kilnc=${KILNC:-$root/build/bin/kilnc}
  rm -rf "$dir"
  python3 "$here/campaign.py" generate --seed "$seed" --count "$count" --scale gpu --out "$dir"
  python3 "$here/campaign.py" build --dir "$dir" --kilnc "$kilnc" --cuda-arch sm_90 --jobs "$(nproc)"
  python3 "$here/campaign.py" expect --dir "$dir" --jobs 2
  rm -f "$dir"/*.o "$dir"/*.cpp # the binary, the programs and NumPy's answers travel
  strip "$dir/campaign"
  du -sh "$dir"
  ;;
run)
  out=${OUT:-$dir}
  KILN_DEVICE=${KILN_DEVICE:-cuda} python3 "$here/campaign.py" run --dir "$dir" \
    --out "$out/campaign-summary.json" >"$out/campaign-report.txt" || status=$?
  cat "$out/campaign-report.txt"
  exit "${status:-0}"
  ;;
*)
  echo "usage: $0 prepare [seed] [count] | run" >&2
  exit 2
  ;;
esac
