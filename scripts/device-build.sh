#!/usr/bin/env bash
# Builds, here, everything the GPU machine runs (unit tests, kilnc-compiled
# examples and benchmarks, all linked with the static runtime) and gathers the
# binaries into .carry/bin.txz for the device tool's `carry`, with a difftest
# batch in .carry/difftest. The compiler
# itself never travels. Usage: scripts/device-build.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DKILN_CUDA_ARCHS=sm_90 >/dev/null
ninja -C "$build" -j2
rm -rf .carry && mkdir -p .carry/bin
find "$build/test/unit" "$build/test/e2e" "$build/benchmarks" -maxdepth 2 -type f -perm -u+x \
  \( -name 'unit_runtime_*' -o -name 'e2e_*' -o -name 'bench_*' \) -exec cp {} .carry/bin/ \;
for src in examples/*.cpp; do # examples are built as <name>
  name=$(basename "$src" .cpp)
  cp "$build/examples/$name" ".carry/bin/example_$name"
done
# The raw-kernel benchmark's peers: the same kernels in CUDA C, nvcc -O3.
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
"$nvcc" -O3 -arch=sm_90 -o .carry/bin/bench_raw_nvcc benchmarks/raw_kernels_nvcc.cu
# Programmatic dependent launch in CUDA C, beside bench_graphs.
"$nvcc" -O3 -arch=sm_90 -o .carry/bin/bench_graphs_pdl_nvcc benchmarks/graphs_pdl_nvcc.cu
# Two programs as a build without --cuda-arch makes them (a fatbin of PTX only,
# JIT-compiled on the GPU): the default build's programmatic launch.
"$build/bin/kilnc" -O2 -I include -I benchmarks benchmarks/graphs.cpp -o .carry/bin/bench_graphs_noarch
"$build/bin/kilnc" -O2 -I include -I . test/e2e/dependent_launches.cpp -o .carry/bin/e2e_dependent_launches_noarch
strip .carry/bin/* 2>/dev/null || true
# The benchmarks device-check.sh runs (with benchmarks/*.py, which travel with the tree).
for b in bench_elementwise bench_reductions bench_host_reductions bench_host_elementwise bench_runtime bench_launch_overhead bench_raw_kernels bench_raw_nvcc bench_writes \
  bench_raw_module bench_graphs; do
  [ -x ".carry/bin/$b" ] || { echo "device-build: $b was not built" >&2; exit 1; }
done
# A differential batch against NumPy, built by this kilnc with its answers
# saved, for device-check.sh to replay on the GPU (KILN_DIFFTEST_SEED/COUNT).
if python3 -c 'import numpy' 2>/dev/null; then
  python3 test/difftest/difftest.py --kilnc "$build/bin/kilnc" --seed "${KILN_DIFFTEST_SEED:-7}" \
    --count "${KILN_DIFFTEST_COUNT:-300}" --keep .carry/difftest || true # mismatches on the host are reported here
  rm -f .carry/difftest/programs.cpp .carry/difftest/out*.bin
  XZ_OPT=-6T2 tar -cJf .carry/difftest.txz -C .carry difftest && rm -rf .carry/difftest
fi
# The binaries travel as one xz archive (the device tool carries at most 64 MiB).
XZ_OPT=-6T2 tar -cJf .carry/bin.txz -C .carry bin && rm -rf .carry/bin
du -sh .carry
