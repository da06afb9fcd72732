#!/usr/bin/env bash
# Runs on the GPU machine (device tool) over the binaries scripts/device-build.sh
# gathered in .carry/bin: every unit test (GPU tests included), the examples
# (each checks itself against a float64 reference), compute-sanitizer memcheck
# on the examples and GPU tests (racecheck, synccheck and initcheck on the
# examples and the reduction and elementwise suites), the difftest batch, then the benchmarks side by side with CuPy and
# PyTorch, and the host backend's reductions beside NumPy. Ends with a short
# table. Usage: scripts/device-check.sh [--no-bench | --bench-only | --raw | --writes | --layouts [--no-bench] | --graphs [--no-bench]]
# (PEERS_NO_COMPILE=1 skips torch.compile in peers_reductions.py.)
set -u
cd "$(dirname "$0")/.."
out=/tmp/kiln-device # logs; a summary is copied to $OUT (device tool) at the end
mkdir -p "$out"
bin=.carry/bin
[ -d "$bin" ] || tar -xJf .carry/bin.txz -C .carry # scripts/device-build.sh's archives
[ -f .carry/difftest.txz ] && [ ! -d .carry/difftest ] && tar -xJf .carry/difftest.txz -C .carry
status=()
fail=0
run() { # name, command...
  local name=$1; shift
  if "$@" >"$out/$name.log" 2>&1; then status+=("PASS  $name"); else status+=("FAIL  $name"); fail=1; tail -20 "$out/$name.log"; fi
}
bench() { # name, command...: output shown and kept in $out/name.jsonl; a nonzero exit (a failed check) fails
  local name=$1; shift
  "$@" 2>&1 | tee "$out/$name.jsonl"
  if [ "${PIPESTATUS[0]}" -eq 0 ]; then status+=("PASS  bench.$name"); else status+=("FAIL  bench.$name"); fail=1; fi
}

nvidia-smi -L || true
export KILN_DEVICE=${KILN_DEVICE:-cuda}

# kiln::raw_module loads NVRTC at run time: the toolkit's when the loader or
# /usr/local/cuda has it, else one a CuPy wheel brought (KILN_NVRTC names it).
if [ -z "${KILN_NVRTC:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libnvrtc\.so\.1[23] ' &&
  [ ! -e /usr/local/cuda/lib64/libnvrtc.so.13 ] && [ ! -e "${CUDA_HOME:-/nonexistent}/lib64/libnvrtc.so.13" ]; then
  nvrtc=$(python3 - <<'PY' 2>/dev/null
import glob, site
dirs = site.getsitepackages() + [site.getusersitepackages()]
for pattern in ("nvidia/*/lib/libnvrtc.so.13*", "nvidia/*/lib/libnvrtc.so.12*"):
    hits = sorted(h for d in dirs for h in glob.glob(d + "/" + pattern))
    if hits:
        print(hits[0])
        break
PY
)
  [ -n "$nvrtc" ] && export KILN_NVRTC=$nvrtc
fi
echo "NVRTC for raw modules: ${KILN_NVRTC:-from the toolkit (library path or /usr/local/cuda/lib64)}"

# Raw kernels beside the same CUDA C from nvcc -O3, in one run: each Kiln
# kernel's time over nvcc's (>= 0.97 is the goal) and the host cost of a launch.
raw_bench() {
  [ -x "$bin/bench_raw_kernels" ] && [ -x "$bin/bench_raw_nvcc" ] || return 0
  { "$bin/bench_raw_kernels"; "$bin/bench_raw_nvcc"; } | tee "$out/raw.log"
  python3 - "$out/raw.log" <<'PY' | tee "$out/raw_report.md"
import json, sys
rows = {}
for line in open(sys.argv[1]):
    if line.startswith("{"):
        r = json.loads(line)
        if "name" in r:
            rows[r["name"]] = r
print("| raw kernel | Kiln | nvcc -O3 | Kiln / nvcc |\n|---|---|---|---|")
for k in ("saxpy", "block_sum"):
    a, b = rows.get(k + ".kiln"), rows.get(k + ".nvcc")
    if a and b:
        print(f"| {k} | {a['gbps']:.0f} GB/s | {b['gbps']:.0f} GB/s | {b['ms'] / a['ms']:.3f} |")
a, b = rows.get("launch_host_us.kiln"), rows.get("launch_host_us.nvcc")
if a and b:
    print(f"| launch, host cost | {a['us']:.2f} us | {b['us']:.2f} us | |")
PY
}

# CUDA source through NVRTC (kiln::raw_module) beside CuPy's RawModule, in one
# run: ms from the source to a launched kernel, cold (empty caches) and warm.
writes_bench() { # issue 10: in-place updates, masks, joining, gathers, beside CuPy and PyTorch
  [ -x "$bin/bench_writes" ] || return 0
  bench writes_peers env PYTHONUNBUFFERED=1 python3 benchmarks/peers_writes.py
  bench writes_kiln "$bin/bench_writes"
  python3 benchmarks/report.py "$out"/writes_peers.jsonl "$out"/writes_kiln.jsonl | tee "$out/writes_report.md"
}

raw_module_bench() {
  [ -x "$bin/bench_raw_module" ] || return 0
  bench raw_module "$bin/bench_raw_module"
  bench raw_module_cupy env PYTHONUNBUFFERED=1 python3 benchmarks/raw_module_cupy.py
}

graphs_bench() { # CUDA graphs: 100 small fused calls one by one vs one kiln::capture'd graph (goal >= 3x)
  [ -x "$bin/bench_graphs" ] || return 0
  bench graphs "$bin/bench_graphs"
  # The same without programmatic dependent launch, for comparison (rows named "no PDL").
  bench graphs_nopdl env KILN_PROGRAMMATIC_LAUNCH=0 "$bin/bench_graphs"
  # Built without --cuda-arch: PTX only, the sm_90 one JIT-compiled here (programmatic launch too).
  [ -x "$bin/bench_graphs_noarch" ] && bench graphs_noarch env KILN_BENCH_BUILD="no --cuda-arch" "$bin/bench_graphs_noarch"
  [ -x "$bin/bench_graphs_pdl_nvcc" ] && "$bin/bench_graphs_pdl_nvcc" | tee "$out/graphs_pdl_nvcc.log"
}

# --raw: only the raw kernels and raw CUDA modules (their unit tests, the
# end-to-end program with the sanitizers, benchmarks), for a short device call.
if [ "${1:-}" = "--raw" ]; then
  for t in "$bin"/unit_runtime_raw*; do [ -x "$t" ] && run "$(basename "$t")" "$t" --gtest_brief=1; done
  run e2e_raw_kernels "$bin/e2e_raw_kernels"
  [ -x "$bin/e2e_raw_module" ] && run e2e_raw_module "$bin/e2e_raw_module" # CUDA source kilnc compiled
  # The same CUDA source's host forms (kiln/cuda_host.hpp), against the same references.
  [ -x "$bin/e2e_raw_module" ] && run host.e2e_raw_module env KILN_DEVICE=host "$bin/e2e_raw_module"
  [ -x "$bin/example_raw_kernels" ] && run example_raw_kernels "$bin/example_raw_kernels" &&
    run host.example_raw_kernels env KILN_DEVICE=host "$bin/example_raw_kernels"
  [ -x "$bin/bench_host_raw_kernels" ] && bench host_raw env KILN_DEVICE=host "$bin/bench_host_raw_kernels"
  for tool in memcheck racecheck synccheck initcheck; do
    run "$tool.e2e_raw_kernels" timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin/e2e_raw_kernels"
    [ -x "$bin/e2e_raw_module" ] &&
      run "$tool.e2e_raw_module" timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin/e2e_raw_module"
  done
  raw_bench
  raw_module_bench
  [ -n "${OUT:-}" ] && cp "$out"/*.log "$out"/raw_report.md "$out"/raw_module*.jsonl "$OUT"/ 2>/dev/null
  printf '%s\n' "${status[@]}"
  exit $fail
fi

# --layouts: issue 11 (every layout, both backends): the layout, math and
# statement-chain
# programs on the GPU (under memcheck and racecheck) and on the host
# (thread counts 1 and all), the GPU elementwise benchmarks beside CuPy and
# PyTorch, and the host backend beside NumPy on this machine's cores.
if [ "${1:-}" = "--layouts" ]; then
  for e in "$bin"/e2e_layouts "$bin"/e2e_math_accuracy "$bin"/e2e_broadcast_views "$bin"/e2e_statement_chains; do
    [ -x "$e" ] || continue
    run "$(basename "$e")" "$e"
    run "host.$(basename "$e")" env KILN_DEVICE=host "$e"
    run "host1.$(basename "$e")" env KILN_DEVICE=host KILN_NUM_THREADS=1 "$e"
    for tool in memcheck racecheck; do
      run "$tool.$(basename "$e")" timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "$e"
    done
  done
  if [ -x "$bin/e2e_layouts" ]; then
    h1=$(KILN_DEVICE=host KILN_NUM_THREADS=1 "$bin/e2e_layouts" --hash); hn=$(KILN_DEVICE=host "$bin/e2e_layouts" --hash)
    if [ "$h1" = "$hn" ]; then status+=("PASS  host same bits, 1 and $(nproc) threads"); else status+=("FAIL  host same bits ($h1 vs $hn)"); fail=1; fi
  fi
  if [ "${2:-}" != "--no-bench" ]; then
    bench layouts_kiln "$bin/bench_elementwise"
    bench layouts_peers env PYTHONUNBUFFERED=1 python3 benchmarks/peers.py
    bench layouts_host_kiln env KILN_DEVICE=host "$bin/bench_host_elementwise"
    bench layouts_host2_kiln env KILN_DEVICE=host KILN_NUM_THREADS=2 "$bin/bench_host_elementwise"
    bench layouts_host_peers env PYTHONUNBUFFERED=1 python3 benchmarks/host_peers.py
    python3 benchmarks/report.py "$out"/layouts_*.jsonl | tee "$out/layouts_report.md"
  fi
  [ -n "${OUT:-}" ] && cp "$out"/layouts*.jsonl "$out"/layouts_report.md "$OUT"/ 2>/dev/null
  printf '%s\n' "${status[@]}"
  exit $fail
fi

# --writes: only the writes into arrays (issue 10: updates, masks, indexing,
# joining): their unit tests, end-to-end programs and example under the
# sanitizers, and their benchmarks, for a short device call.
if [ "${1:-}" = "--writes" ]; then
  for t in "$bin"/unit_runtime_compound_assign_test "$bin"/unit_runtime_indexing_test "$bin"/unit_runtime_shaping_test \
    "$bin"/unit_runtime_launch_test; do
    [ -x "$t" ] && run "$(basename "$t")" "$t" --gtest_brief=1
  done
  for e in "$bin"/e2e_writes "$bin"/e2e_masks "$bin"/example_mandelbrot_masks "$bin"/example_mandelbrot; do
    [ -x "$e" ] || continue
    run "$(basename "$e")" "$e"
    for tool in memcheck racecheck synccheck initcheck; do
      run "$tool.$(basename "$e")" timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 9 "$e"
    done
  done
  for t in "$bin"/unit_runtime_indexing_test "$bin"/unit_runtime_shaping_test; do
    [ -x "$t" ] && run "memcheck.$(basename "$t")" compute-sanitizer --tool memcheck --error-exitcode 9 "$t" \
      --gtest_brief=1 --gtest_filter='*Gpu*:*GPU*'
  done
  [ "${2:-}" = "--no-bench" ] || writes_bench
  [ -n "${OUT:-}" ] && cp "$out"/*.log "$out"/writes*.jsonl "$out"/writes_report.md "$OUT"/ 2>/dev/null
  printf '%s\n' "${status[@]}"
  exit $fail
fi

# --graphs: only CUDA graphs (kiln::capture) and back-to-back dependent
# kernels (programmatic dependent launch): the unit test, the dependent-launch
# program, both under compute-sanitizer, and the benchmark, for a short call.
if [ "${1:-}" = "--graphs" ]; then
  t="$bin"/unit_runtime_graph_test
  if [ -x "$t" ]; then
    run unit_runtime_graph_test "$t"
    run memcheck.unit_runtime_graph_test compute-sanitizer --tool memcheck --error-exitcode 9 "$t" \
      --gtest_brief=1 --gtest_filter='*Gpu*:-*SynchronizingInsideCapture*'
    # That test makes CUDA refuse calls inside a capture on purpose: its API
    # errors are expected, its memory accesses still checked.
    run memcheck.unit_runtime_graph_test.refused compute-sanitizer --tool memcheck --report-api-errors no \
      --error-exitcode 9 "$t" --gtest_brief=1 --gtest_filter='*SynchronizingInsideCapture*'
  else
    status+=("FAIL  unit_runtime_graph_test (not built)"); fail=1
  fi
  e="$bin"/e2e_dependent_launches
  if [ -x "$bin/e2e_dependent_launches_noarch" ]; then # built without --cuda-arch (JIT from PTX)
    run e2e_dependent_launches_noarch "$bin/e2e_dependent_launches_noarch"
    run memcheck.e2e_dependent_launches_noarch timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 \
      "$bin/e2e_dependent_launches_noarch"
  fi
  if [ -x "$e" ]; then
    run e2e_dependent_launches "$e"
    run nopdl.e2e_dependent_launches env KILN_PROGRAMMATIC_LAUNCH=0 "$e"
    for tool in memcheck racecheck; do
      run "$tool.e2e_dependent_launches" timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "$e"
    done
  fi
  [ "${2:-}" = "--no-bench" ] || graphs_bench
  [ -n "${OUT:-}" ] && cp "$out"/*.log "$out"/graphs*.jsonl "$OUT"/ 2>/dev/null
  printf '%s\n' "${status[@]}"
  exit $fail
fi

if [ "${1:-}" != "--bench-only" ]; then
for t in "$bin"/unit_*; do
  [ -x "$t" ] && run "$(basename "$t")" "$t" --gtest_brief=1
done
for e in "$bin"/example_* "$bin"/e2e_*; do
  [ -x "$e" ] && run "$(basename "$e")" "$e"
done

# Memory errors in GPU code: memcheck on the examples and the GPU unit tests.
if command -v compute-sanitizer >/dev/null; then
  for e in "$bin"/example_* "$bin"/e2e_*; do
    [ -x "$e" ] && run "memcheck.$(basename "$e")" compute-sanitizer --tool memcheck --error-exitcode 9 "$e"
  done
  for t in "$bin"/unit_runtime_launch_test "$bin"/unit_runtime_transfer_test "$bin"/unit_runtime_copy_cast_test; do
    # These tests provoke API errors on purpose (bad PTX, absent devices):
    # report memory errors only.
    [ -x "$t" ] && run "memcheck.$(basename "$t")" compute-sanitizer --tool memcheck --report-api-errors no \
      --error-exitcode 9 "$t" \
      --gtest_brief=1 --gtest_filter='*Gpu*:*GPU*:*Cuda*:*CUDA*'
  done
  # Races on shared memory, barriers and reads of uninitialized device memory,
  # over the examples and the kernels that use shared memory and clusters
  # (the reductions) and every elementwise operation.
  for tool in racecheck synccheck initcheck; do
    extra=() # (initcheck's --track-unused-memory would report the pool's rounding slack)
    for e in "$bin"/example_* "$bin"/e2e_reductions_fused "$bin"/e2e_ops_float "$bin"/e2e_difftest_regressions \
      "$bin"/e2e_raw_kernels "$bin"/e2e_elementwise_lambdas "$bin"/e2e_reduce_lambdas "$bin"/e2e_writes "$bin"/e2e_masks; do
      [ -x "$e" ] && run "$tool.$(basename "$e")" timeout 240 compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 9 "$e"
    done
  done
fi

# The differential test's batch built here (scripts/device-build.sh --difftest),
# run on the GPU against the NumPy answers saved with it.
if [ -f .carry/difftest/manifest.json ]; then
  run difftest.gpu python3 test/difftest/difftest.py --replay .carry/difftest
fi
fi # --bench-only

if [ "${1:-}" != "--no-bench" ]; then
  [ -x "$bin/bench_launch_overhead" ] && "$bin/bench_launch_overhead" | tee "$out/launch.jsonl"
  [ -x "$bin/bench_elementwise" ] && "$bin/bench_elementwise" | tee "$out/kiln_elementwise.jsonl"
  [ -x "$bin/bench_runtime" ] && "$bin/bench_runtime" | tee "$out/kiln_runtime.jsonl"
  PYTHONUNBUFFERED=1 python3 benchmarks/peers.py | tee "$out/peers.jsonl"
  # Reductions: Kiln (checked against float64 references) and its peers on the GPU, then the host
  # backend beside NumPy on this machine's cores.
  [ -x "$bin/bench_reductions" ] && bench kiln_reductions "$bin/bench_reductions"
  bench peers_reductions env PYTHONUNBUFFERED=1 python3 benchmarks/peers_reductions.py
  [ -x "$bin/bench_host_reductions" ] && bench host_kiln env KILN_DEVICE=host "$bin/bench_host_reductions"
  [ -x "$bin/bench_host_elementwise" ] && bench host_kiln_elementwise env KILN_DEVICE=host "$bin/bench_host_elementwise"
  bench host_peers env PYTHONUNBUFFERED=1 python3 benchmarks/host_peers.py
  python3 benchmarks/report.py "$out"/*.jsonl | tee "$out/report.md"
fi
if [ "${1:-}" != "--no-bench" ]; then raw_bench; raw_module_bench; writes_bench; graphs_bench; fi

if [ -n "${OUT:-}" ]; then
  cp "$out"/*.jsonl "$out"/report.md "$OUT"/ 2>/dev/null
  tar -czf "$OUT/logs.tgz" -C "$out" . 2>/dev/null
fi
echo
printf '%s\n' "${status[@]}"
n_pass=$(printf '%s\n' "${status[@]}" | grep -c '^PASS')
n_fail=$(printf '%s\n' "${status[@]}" | grep -c '^FAIL')
echo "device-check: $n_pass passed, $n_fail failed"
exit $fail
