#!/usr/bin/env bash
# A long differential campaign against NumPy (docs/testing.md): batches of
# random programs, one seed each, starting at a random seed unless given.
#   scripts/difftest-campaign.sh [first-seed] [batches] [programs-per-batch]
# Each batch's mismatches are printed with the program (rerun one with
# difftest.py --seed S --only N); the last line sums them up.
set -uo pipefail
cd "$(dirname "$0")/.."
first=${1:-$RANDOM}
batches=${2:-20}
count=${3:-300}
kilnc=${KILNC:-build/bin/kilnc}
# On the host, the kernels need no PTX: --cuda-host-only halves kilnc's time.
[ "${KILN_DEVICE:-host}" = host ] && hostonly=--kiln-args=--cuda-host-only || hostonly=
total=0 bad=0
for ((s = first; s < first + batches; ++s)); do
  out=$(python3 test/difftest/difftest.py --kilnc "$kilnc" --seed "$s" --count "$count" $hostonly 2>/dev/null)
  echo "$out" | grep -v '^difftest:' | grep -v '^  ret = ' || true
  line=$(echo "$out" | grep '^difftest: seed') || { echo "difftest: seed $s failed to run"; echo "$out" | tail -5; bad=$((bad + 1)); continue; }
  echo "$line"
  n=$(echo "$line" | sed -E 's/.*seed [0-9]+, ([0-9]+) programs.*/\1/')
  m=$(echo "$line" | sed -E 's/.*, ([0-9]+) mismatches/\1/')
  total=$((total + n)) bad=$((bad + m))
done
echo "campaign: seeds $first..$((first + batches - 1)), $total programs, $bad mismatches"
[ "$bad" -eq 0 ]
