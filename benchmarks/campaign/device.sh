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
*)
  echo "usage: $0 prepare [seed] [count] | run [campaign.py run options]" >&2
  exit 2
  ;;
esac
