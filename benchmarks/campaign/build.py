"""Compiling a batch with kilnc: the programs in a few shards (compiled in
parallel, each one kilnc start-up), a main, one link. A program kilnc
refuses is a finding (a kilnc bug, or a generator bug): its error is
recorded, the program is left out, and its shard is compiled again, as the
differential tester does. kilnc's fusion report of every shard is kept, and
each program's rows (its kernels) are recorded in programs.json."""
import concurrent.futures
import os
import re
import subprocess

import emit

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.normpath(os.path.join(HERE, "..", "..", "include"))


def compile_shard(kilnc, directory, name, flags):
    src = os.path.join(directory, name + ".cpp")
    cmd = [kilnc, "--fusion-report", "-c", src, "-o", os.path.join(directory, name + ".o"), "-O2",
           "-I" + INCLUDE, "-I" + HERE] + flags
    return subprocess.run(cmd, capture_output=True, text=True)


def owners(source):
    """Line number -> program id, from the `// program N:` headers."""
    out, current = {}, None
    for n, line in enumerate(source.splitlines(), 1):
        m = re.match(r"// program (\d+):", line)
        if m:
            current = int(m.group(1))
        out[n] = current
    return out


def parse_report(text):
    """kilnc --fusion-report's rows, grouped by the function they are in."""
    rows = {}
    for line in text.splitlines():
        cols = re.split(r"\s{2,}", line.strip())
        if len(cols) >= 6 and re.match(r".*\.cpp:\d+:\d+$", cols[0]):
            rows.setdefault(cols[1], []).append({"location": cols[0], "kernel": cols[2], "fused": cols[3],
                                                 "inputs": cols[4], "reduces": cols[5] if len(cols) > 6 else "-",
                                                 "bytes": cols[-1]})
    return rows


def build(directory, kilnc, flags, jobs, log=print):
    """Compiles and links DIR/campaign; returns {program id: error} of the
    programs left out."""
    batch = emit.load_batch(directory)
    metas = batch["programs"]
    shards = max(1, min(jobs, len(metas)))
    refused = {}
    reports = {}
    todo = list(range(shards))
    for round_ in range(6):
        def live(k):
            return [m for i, m in enumerate(metas) if i % shards == k and m["id"] not in refused]
        for k in todo:
            with open(os.path.join(directory, "shard%d.cpp" % k), "w") as f:
                f.write(emit.shard_source(live(k)))
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            results = dict(zip(todo, pool.map(lambda k: compile_shard(kilnc, directory, "shard%d" % k, flags), todo)))
        failed = []
        for k, res in results.items():
            if res.returncode == 0:
                reports[k] = res.stdout
                continue
            source = open(os.path.join(directory, "shard%d.cpp" % k)).read()
            owner = owners(source)
            found = False
            for m in re.finditer(r'shard%d\.cpp"?:(\d+):\d+:?\)?:? (?:fatal )?error: (.*)' % k, res.stderr):
                pid = owner.get(int(m.group(1)))
                if pid is not None and pid not in refused:
                    refused[pid] = m.group(2).strip()
                    found = True
            if not found:
                raise RuntimeError("kilnc failed on shard %d:\n%s" % (k, res.stderr[-6000:]))
            failed.append(k)
        if not failed:
            break
        log("campaign: kilnc refused %d programs so far; compiling %d shards again" % (len(refused), len(failed)))
        todo = failed
    else:
        raise RuntimeError("kilnc still fails after leaving out %d programs" % len(refused))
    built = [m for m in metas if m["id"] not in refused]
    with open(os.path.join(directory, "main.cpp"), "w") as f:
        f.write(emit.main_source(built, batch["scale"]))
    res = compile_shard(kilnc, directory, "main", flags)
    if res.returncode != 0:
        raise RuntimeError("kilnc failed on main.cpp:\n" + res.stderr[-4000:])
    objs = [os.path.join(directory, "shard%d.o" % k) for k in range(shards)] + [os.path.join(directory, "main.o")]
    res = subprocess.run([kilnc] + objs + ["-o", os.path.join(directory, "campaign")],
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError("the link failed:\n" + res.stderr[-4000:])
    with open(os.path.join(directory, "fusion-report.txt"), "w") as f:
        f.write("\n".join(reports[k] for k in sorted(reports)))
    rows = {}
    for k in reports:
        rows.update(parse_report(reports[k]))
    for m in metas:
        m["refused"] = refused.get(m["id"])
        m["kernels"] = rows.get("p%d" % m["id"], [])
    emit.save_batch(directory, {k: v for k, v in batch.items() if k != "programs"}, metas)
    return refused
