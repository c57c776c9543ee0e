"""The real-NEFF corpus against its references: per graph, does it run, does each output match.

    python benchmarks/corpus_oracle.py                          # every NEFF, 120 s each
    python benchmarks/corpus_oracle.py --only attention --timeout 60
    python benchmarks/corpus_oracle.py --json out.json
    python benchmarks/corpus_oracle.py --jobs 2                 # two children at a time (the table is the same)
    python benchmarks/corpus_oracle.py --only yolox -D S-120=f32-accumulate   # the simulator under a reading

Needs jax for the yolox graphs (``pip install -e '.[oracle]'``); without it they report "no
reference". Each NEFF runs in its own child process (a wall-clock limit per NEFF) through
``tongasm.oracle.harness.check_neff``: seeded random inputs, the simulator, the reference (XLA on the
NEFF's ``.hlo.pb``, or the kernel source's numpy function), and the comparison under
``tongasm.oracle.compare``'s tolerance.

Columns: ``ran``; ``matched`` (yes / NO / ``-`` without a reference); ``max err`` (max |sim - ref|
over the outputs); ``err/tol`` (the worst element's error over what the tolerance allows: <= 1
matches); ``sim`` and ``ref`` seconds; the reason a graph stopped or has no reference.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from corpus_child import failure, run_in_child, run_in_children

CORPUS = Path(os.environ.get("TONGASM_CORPUS", "/work/shared/groundtruth/corpus"))


def _child(path: str, seed: int, decisions: list[str], q: Any) -> None:
    try:
        from tongasm.isa.decisions import DecisionSet
        from tongasm.oracle.harness import check_neff

        r = check_neff(Path(path), seed, DecisionSet.parse(decisions))
        q.put({"ran": r.ran, "matched": r.matched, "max_error": r.max_error, "reference": r.reference,
               "ratio": max((c.worst_ratio for c in r.outputs), default=None),
               "outputs": [{"name": c.name, "matched": c.matched, "max_error": c.max_error, "ratio": c.worst_ratio,
                            "mismatches": c.mismatches, "size": c.size, "tolerance": c.tolerance.describe()}
                           for c in r.outputs],
               "sim": r.sim_seconds, "ref": r.ref_seconds, "executed": r.executed, "why": r.why})
    except BaseException as e:  # every failure is a row of the table
        q.put({"ran": False, "matched": None, "why": failure(e)})


def run_one(path: Path, seed: int, timeout: float, decisions: list[str] | None = None) -> dict[str, Any]:
    return run_in_child(_child, (str(path), seed, list(decisions or [])), timeout, {"ran": False, "matched": None})


def _fmt(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per NEFF (default 120)")
    ap.add_argument("--only", default="", help="only NEFFs whose path contains this")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="children run at a time (default 1); the rows keep the "
                    "files' order")
    ap.add_argument("--json", type=Path)
    ap.add_argument("-D", dest="decisions", action="append", default=[], metavar="ID=READING",
                    help="run the simulator under this reading (repeatable)")
    a = ap.parse_args(argv)
    from tongasm.errors import TongasmError
    from tongasm.isa.decisions import DecisionSet

    try:
        DecisionSet.parse(a.decisions)  # a wrong -D is the user's mistake: said once, not in every row
    except TongasmError as e:
        ap.error(str(e))
    if a.jobs < 1:
        ap.error("--jobs must be at least 1")
    files = sorted(p for p in a.corpus.rglob("*.neff") if a.only in str(p))
    import tongasm.oracle.harness  # noqa: F401  (imported once here: each forked child inherits it)

    started = time.perf_counter()
    print(f"{'graph':50} {'ran':4} {'matched':7} {'max err':>10} {'err/tol':>9} {'sim':>7} {'ref':>6}  why")
    rows = []
    results = run_in_children(_child, [(str(p), a.seed, list(a.decisions)) for p in files], a.timeout,
                              {"ran": False, "matched": None}, a.jobs)
    for p, r in zip(files, results):
        r["file"] = str(p.relative_to(a.corpus))
        rows.append(r)
        m = {True: "yes", False: "NO", None: "-"}[r.get("matched")]
        if "," in (r.get("reference") or ""):  # a reference reading other than the plain one (S-114, ...)
            r["why"] = f"reference: {r['reference']}" + (f"; {r['why']}" if r["why"] else "")
        print(f"{r['file']:50} {'ran' if r['ran'] else 'no':4} {m:7} {_fmt(r.get('max_error'), '10.3g')} "
              f"{_fmt(r.get('ratio'), '9.3g')} {_fmt(r.get('sim'), '6.1f')}s {_fmt(r.get('ref'), '5.1f')}s  {r['why']}",
              flush=True)
    ran = sum(bool(r["ran"]) for r in rows)
    compared = [r for r in rows if r.get("matched") is not None]
    matched = sum(bool(r["matched"]) for r in compared)
    print(f"summary: {len(rows)} NEFFs, {ran} ran, {len(compared)} compared with a reference, {matched} matched, "
          f"{len(compared) - matched} disagreed, {ran - len(compared)} ran without a reference; "
          f"total {sum(r['time'] for r in rows):.0f} s; wall {time.perf_counter() - started:.0f} s with --jobs {a.jobs}")
    for k, n in Counter((r["why"].split(":")[0] if r["why"] else "compared") for r in rows).most_common():
        print(f"  {n:3}  {k}")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
