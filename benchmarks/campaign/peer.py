"""A peer in the same run: CuPy running each program's NumPy form on the GPU.

The roofline says how far a program is from the hardware; a peer says how
far it is from what a user has today. Some generated programs cannot reach
a copy's bandwidth on any implementation (a complex128 `cos`, a `sqrt` of
every byte of a uint8 array: the arithmetic, not the memory, is the
bottleneck), and the peer's figure on the same program shows which. CuPy
runs numpy_programs.py as written, with `np` bound to `cupy`: one kernel per
operation, as a CuPy user would get it (no fusion), on the inputs the Kiln
run used, timed with CUDA events after `warmup` untimed runs.
"""
import inputs
import oracle


def measure(source, meta, reps, warmup=1):
    """CuPy's median time in ms for one program, and every time; raises
    when CuPy cannot run it (a function it lacks)."""
    import cupy as cp

    ns = oracle.namespace(source)
    ns["np"] = cp
    # The inputs made on the GPU (NumPy's would take seconds a program).
    arrays = {inp["name"]: inputs.make(inp["dtype"], inp["shape"], inp["seed"], inp["lo"], inp["span"], xp=cp)
              for inp in meta["inputs"]}
    dest = meta.get("dest")
    pristine = arrays[dest].copy() if dest else None
    program = ns["p%d" % meta["id"]]
    args = [arrays[inp["name"]] for inp in meta["inputs"]]
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    try:
        for i in range(warmup + reps):
            if dest:
                cp.copyto(arrays[dest], pristine)
            start.record()
            program(*args)
            stop.record()
            stop.synchronize()
            if i >= warmup:
                times.append(cp.cuda.get_elapsed_time(start, stop))
    finally:
        del arrays, args, pristine
        cp.get_default_memory_pool().free_all_blocks()
    times.sort()
    return times[len(times) // 2], times
