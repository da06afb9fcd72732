# CuPy's RawModule beside bench_raw_module (benchmarks/raw_module.cpp): the
# same CUDA source and options, ms from the source to a launched kernel
# (RawModule + get_function + the first call), each path in a fresh process
# with CUDA initialized first: cold (an empty CUPY_CACHE_DIR: an NVRTC
# compilation), warm (the cache the cold run filled), and in memory (a second
# RawModule of the same source in the warm process). The first call's result
# is checked. One JSON line per path, then a table.
import json, os, shutil, subprocess, sys, tempfile, time

SOURCE = r'''
extern "C" __global__ void saxpy(float a, const float *x, float *y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}
template <class T> __global__ void scale(T *x, T a, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= a;
}
'''
OPTIONS = ("-std=c++17",)
NAMES = ("scale<float>",)
N = 1 << 20


def child(label):
    import cupy as cp
    x = cp.random.random(N, dtype=cp.float32)
    y = cp.random.random(N, dtype=cp.float32)
    x0, y0 = cp.asnumpy(x), cp.asnumpy(y)
    cp.cuda.Device().synchronize()
    rows = []
    for name in ([label, "warm_memory.cupy"] if label == "warm_disk.cupy" else [label]):
        y[...] = cp.asarray(y0)
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        m = cp.RawModule(code=SOURCE, options=OPTIONS, name_expressions=NAMES)
        t1 = time.perf_counter()
        f = m.get_function("saxpy")
        t2 = time.perf_counter()
        f((1024,), (256,), (cp.float32(2.0), x, y, cp.int64(N)))
        t3 = time.perf_counter()
        cp.cuda.Device().synchronize()
        got = cp.asnumpy(y)
        want = 2.0 * x0.astype("float64") + y0
        ok = bool(abs(got - want).max() <= 1e-6 * (1 + abs(want).max()))
        rows.append(dict(suite="raw_module", name=name, ms=(t3 - t0) * 1e3, module_ms=(t1 - t0) * 1e3,
                         function_ms=(t2 - t1) * 1e3, launch_ms=(t3 - t2) * 1e3, ok=ok))
    for r in rows:
        print(json.dumps(r), flush=True)
    return 0 if all(r["ok"] for r in rows) else 1


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        return child(sys.argv[2])
    cache = tempfile.mkdtemp(prefix="kiln-bench-cupy-cache-")
    env = dict(os.environ, CUPY_CACHE_DIR=cache)
    env.pop("CUPY_CACHE_IN_MEMORY", None)
    rows, status = [], 0
    try:
        for label in ("cold.cupy", "warm_disk.cupy"):
            p = subprocess.run([sys.executable, __file__, "--child", label], env=env, capture_output=True, text=True)
            sys.stderr.write(p.stderr)
            status |= p.returncode
            for line in p.stdout.splitlines():
                print(line, flush=True)
                if line.startswith("{"):
                    rows.append(json.loads(line))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if rows:
        print("\nCuPy RawModule: ms from source to a launched kernel\n")
        print("| path | RawModule | get_function | first call | total |\n|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['name']} | {r['module_ms']:.3f} | {r['function_ms']:.3f} | {r['launch_ms']:.3f} | {r['ms']:.3f} |")
    if status or not rows or not all(r["ok"] for r in rows):
        print("raw_module_cupy: a run or a check failed", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
