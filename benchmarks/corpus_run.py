"""The real-NEFF corpus on the simulator: per graph, does ``run_neff`` complete, why not, and how long.

    python benchmarks/corpus_run.py                       # every NEFF, 60 s each
    python benchmarks/corpus_run.py --timeout 20 --only yolox
    python benchmarks/corpus_run.py --json out.json
    python benchmarks/corpus_run.py --timeout 30 --markdown benchmarks/corpus_run_after.md
    python benchmarks/corpus_run.py --jobs 2              # two children at a time (the table is the same)

Each NEFF runs in its own child process (a wall-clock limit per NEFF; a crash or a memory blow-up of
one does not end the table) on seeded random inputs of the dtypes and shapes its ``neff.json``
records (uniform in [-1, 1) for floats, [0, 4) for integers); tongasm is imported before the children
are forked, so ``time`` is the graph's own. ``--jobs N`` runs N children at a time, the rows in the
same order. A NEFF whose run raises is reported
with the error's class and the first line of its message; one that passes its limit as ``timeout``.

Columns: ``ran`` (completed), ``matched`` (compared with a reference: ``-`` until an oracle exists
for the graph), ``max err``, ``time`` (seconds of the child, including reading the NEFF), the bundles
executed and the reason a run stopped. The summary line counts them.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import resource
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from corpus_child import failure, run_in_child, run_in_children

CORPUS = Path(os.environ.get("TONGASM_CORPUS", "/work/shared/groundtruth/corpus"))


def random_inputs(neff: Any, seed: int) -> dict[str, Any]:
    """Seeded random arrays for every input variable of every graph (dtypes and shapes from neff.json)."""
    import numpy as np

    from tongasm.isa.enums import Dtype
    from tongasm.neff.run import core_program
    from tongasm.numeric import numpy_dtype

    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    for g in neff.graphs:
        for v in core_program(neff, g).memory.variables:
            if v.kind != "Input" or v.name in out:
                continue
            if v.dtype is None or v.shape is None:
                out[v.name] = rng.integers(0, 4, v.nbytes, dtype=np.uint8)
                continue
            dt = numpy_dtype(Dtype[v.dtype])
            if np.issubdtype(dt, np.integer):
                out[v.name] = rng.integers(0, 4, v.shape).astype(dt)
            else:
                out[v.name] = rng.uniform(-1, 1, v.shape).astype(np.float32).astype(dt)
    return out


def _child(path: str, seed: int, q: Any) -> None:
    t0 = time.perf_counter()
    try:
        from tongasm.neff import read_neff
        from tongasm.neff.run import run_neff

        neff = read_neff(path)
        inputs = random_inputs(neff, seed)
        res = run_neff(neff, inputs, seed=seed)
        q.put({"ran": True, "executed": res.executed, "time": time.perf_counter() - t0, "why": ""})
    except BaseException as e:  # every failure is a row of the table
        q.put({"ran": False, "time": time.perf_counter() - t0, "why": failure(e)})


def run_one(path: Path, seed: int, timeout: float) -> dict[str, Any]:
    return run_in_child(_child, (str(path), seed), timeout, {"ran": False})


def category(why: str) -> str:
    """A short class of a failure, for the summary (the message up to its first specific value)."""
    if not why:
        return "ran"
    if why.startswith("timeout"):
        return "timeout"
    head = why.split(":", 1)
    return head[0] + (": " + head[1].split("(")[0].strip()[:70] if len(head) > 1 else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per NEFF (default 60)")
    ap.add_argument("--only", default="", help="only NEFFs whose path contains this")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="children run at a time (default 1); the rows keep the "
                    "files' order")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--markdown", type=Path, help="also write the table and summary to this file")
    a = ap.parse_args(argv)
    files = sorted(p for p in a.corpus.rglob("*.neff") if a.only in str(p))
    rows = []
    lines: list[str] = []

    def out(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    if a.jobs < 1:
        ap.error("--jobs must be at least 1")
    import tongasm.neff.run  # noqa: F401  (imported once here: each forked child inherits it, ~1.1 CPU s each)

    started = time.perf_counter()
    results = run_in_children(_child, [(str(p), a.seed) for p in files], a.timeout, {"ran": False}, a.jobs)
    for p, r in zip(files, results):
        r["file"] = str(p.relative_to(a.corpus))
        rows.append(r)
        out(f"{r['file']:50} {'ran' if r['ran'] else 'no ':4} {'-':8} {'-':10} {r['time']:7.1f}s  "
            f"{r.get('executed', ''):>8}  {r['why']}")
    wall = time.perf_counter() - started
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    ran = sum(r["ran"] for r in rows)
    out(f"summary: {len(rows)} NEFFs, {ran} ran to completion (their answers: benchmarks/corpus_oracle.py), "
        f"{len(rows) - ran} stopped; total {sum(r['time'] for r in rows):.0f} s")
    for k, n in Counter(category(r["why"]) for r in rows).most_common():
        out(f"  {n:3}  {k}")
    out(f"wall {wall:.0f} s with --jobs {a.jobs}; the children's CPU {cpu.ru_utime + cpu.ru_stime:.0f} s (user + sys)")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
    if a.markdown:
        a.markdown.write_text(f"# The corpus on the simulator (seed {a.seed}, {a.timeout:.0f} s per NEFF)\n\n"
                              "Columns: file, ran, matched, max err, time, bundles executed, why it stopped.\n\n"
                              "```\n" + "\n".join(lines) + "\n```\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
