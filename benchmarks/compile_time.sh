#!/usr/bin/env bash
# Times kilnc on a generated file of ten KILN_FUSE functions (issue 4's goal:
# under 10 s), compile only (-c) and with sm_90 cubins. Runs on the build
# machine (kilnc needs LLVM). Usage: benchmarks/compile_time.sh <kilnc>
set -euo pipefail
kilnc=${1:-build/bin/kilnc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
{
  echo '#include <kiln/kiln.hpp>'
  echo 'using f32 = kiln::array<float>;'
  for i in 0 1 2 3 4 5 6 7 8 9; do
    echo "KILN_FUSE f32 f$i(const f32 &x, const f32 &y, float a) {"
    echo "  auto t = kiln::exp(x * a) + y / ($i.0f + 1.0f);"
    echo "  return kiln::where(t > 0.5f, kiln::sqrt(kiln::abs(t)), t * t - x);"
    echo "}"
  done
} > "$dir/ten.cpp"
for flags in "-c" "-c --cuda-arch=sm_90"; do
  start=$(date +%s.%N)
  "$kilnc" $flags "$dir/ten.cpp" -o "$dir/ten.o"
  end=$(date +%s.%N)
  printf 'kilnc %-22s ten fused functions: %.2f s\n' "$flags" "$(echo "$end - $start" | bc)"
done
