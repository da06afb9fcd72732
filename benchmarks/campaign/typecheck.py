"""Every generated program is checked against NumPy on small inputs before
it joins a batch: each node's NumPy text must give the dtype and shape that
the generator computed for Kiln (so a typing rule written wrong, or a NumPy
typing that departs from Kiln's where the generator did not apply the
departure, drops the program instead of making a wrong one), and the whole
program must run without a floating-point error (log of a negative, a
division by zero, an overflow: the domain the intervals promise)."""
import numpy as np

import inputs
import oracle
from nodes import Arg

TINY = [6, 5, 4]


def check(program):
    """None if the program types as Kiln types it, else the reason."""
    dims = TINY[:program.rank]
    ns = oracle.namespace(oracle.PRELUDE)
    env = {}
    for inp in program.inputs:
        base = list(inp.base_shape(dims))
        env[inp.name] = inputs.make(inp.dtype, base, inp.seed, inp.lo, inp.span)
    with np.errstate(all="ignore"):
        for name, node in program.stmts + [(None, program.result)]:
            for n in node.walk():
                if not n.is_array:
                    continue
                try:
                    v = np.asarray(eval(n.py(), ns, env))
                except Exception as e:  # NumPy refuses the program
                    return "NumPy refuses %s: %s" % (n.py(), e)
                if v.dtype.name != n.dtype:
                    return "%s is %s in NumPy, %s for Kiln" % (n.py(), v.dtype.name, n.dtype)
                masked = any(isinstance(m, Arg) and m.mask is not None for m in n.walk())
                want = [1 if p is None else dims[p] for p in n.pat]
                if not masked and list(v.shape) != want:
                    return "%s has shape %s in NumPy, %s for Kiln" % (n.py(), list(v.shape), want)
            if name:
                env[name] = eval(node.py(), ns, env)
    exec(program.py(), ns)
    args = [np.array(env[inp.name], copy=True) for inp in program.inputs]
    try:
        with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
            r = ns["p%d" % program.pid](*args)
    except FloatingPointError as e:
        return "outside its domain: %s" % e
    except Exception as e:
        return "NumPy refuses the program: %s" % e
    if program.write:
        out = args[[i.name for i in program.inputs].index(program.write["dest"].name)]
        return None if out.dtype.name == program.dtype else "the destination became %s" % out.dtype.name
    r = np.asarray(r)
    want = [1 if p is None else dims[p] for p in program.result.pat]
    if r.dtype.name != program.dtype or list(r.shape) != want:
        return "the result is %s %s in NumPy, %s %s for Kiln" % (r.dtype.name, list(r.shape), program.dtype, want)
    return None
