"""The static race check over the real-NEFF corpus: pairs examined, races, time per NEFF, peak memory.

    python benchmarks/corpus_races.py                   # every corpus NEFF, one process each (peak RSS each)
    python benchmarks/corpus_races.py --json out.json   # also the per-NEFF rows as JSON
    python benchmarks/corpus_races.py --only yolox      # the files whose path holds 'yolox'

Each NEFF is checked in a fresh child process so that its peak resident memory (ru_maxrss of the
child) is its own. The corpus is correct compiler output: every race reported here is a gap of the
analysis or a genuinely racy kernel, and the script prints each one. Not part of the test suite
(tests/test_race_mutants.py holds the bounded corpus test over the small NEFFs).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from corpus_support import corpus_files  # noqa: E402

CHILD = r"""
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_CPU, (int(sys.argv[2]), int(sys.argv[2]) + 5))  # a runaway NEFF is killed
from tongasm.neff.neff import Neff
from tongasm.neff.semaphores import graph_races
t0 = time.process_time(); w0 = time.perf_counter()
n = Neff.read(sys.argv[1])
rows = []
for g in n.graphs:
    r = graph_races(n, g)
    rows.append({"graph": g, "bundles": r.bundles, "dmas": r.dmas, "pairs": r.pairs_examined, "races": r.count,
                 "comparisons": r.comparisons,
                 "unanalysed": len(r.unanalysed), "unproven_waits": r.unproven_waits, "unreached": r.unreached,
                 "passes": r.passes, "lines": [x.line() for x in r.races[:20]]})
print(json.dumps({"cpu": time.process_time() - t0, "wall": time.perf_counter() - w0,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "graphs": rows}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--only", default="")
    ap.add_argument("--start", type=int, default=0, help="skip the first N files (PROVENANCE order)")
    ap.add_argument("--cpu-limit", type=int, default=600, help="CPU seconds a NEFF may take (default 600)")
    args = ap.parse_args()
    files = [f for f in corpus_files() if args.only in f.relative][args.start:]
    out = []
    tot_pairs = tot_races = tot_cmp = 0
    for f in files:
        t = time.perf_counter()
        p = subprocess.run([sys.executable, "-c", CHILD, str(f.path), str(args.cpu_limit)], capture_output=True,
                           text=True, env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
        if p.returncode != 0:
            print(f"{f.relative}: FAILED\n{p.stderr[-2000:]}")
            out.append({"file": f.relative, "error": p.stderr[-2000:]})
            continue
        row = json.loads(p.stdout)
        row["file"] = f.relative
        row["size"] = f.size
        out.append(row)
        pairs = sum(g["pairs"] for g in row["graphs"])
        nr = sum(g["races"] for g in row["graphs"])
        cmp = sum(g["comparisons"] for g in row["graphs"])
        tot_cmp += cmp
        bundles = sum(g["bundles"] for g in row["graphs"])
        tot_pairs += pairs
        tot_races += nr
        print(f"{f.relative:60} {bundles:7} bundles {pairs:10} pairs {cmp:10} comparisons {nr:4} races "
              f"{row['cpu']:7.2f} s cpu "
              f"{row['rss_mb']:7.1f} MB  ({time.perf_counter() - t:.1f} s wall)", flush=True)
        for g in row["graphs"]:
            for line in g["lines"]:
                print("   ", line)
    ok = [r for r in out if "error" not in r]
    print(f"{len(ok)}/{len(files)} NEFFs, {tot_pairs} pairs examined, {tot_cmp} comparisons, {tot_races} races, "
          f"{sum(r['cpu'] for r in ok):.1f} s CPU in all")
    if ok:
        big = max(ok, key=lambda r: sum(g["bundles"] for g in r["graphs"]))
        slow = max(ok, key=lambda r: r["cpu"])
        print(f"largest: {big['file']} ({sum(g['bundles'] for g in big['graphs'])} bundles) {big['cpu']:.1f} s, "
              f"peak {big['rss_mb']:.0f} MB; slowest: {slow['file']} {slow['cpu']:.1f} s; "
              f"peak RSS of any: {max(r['rss_mb'] for r in ok):.0f} MB")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 1 if tot_races or len(ok) < len(files) else 0


if __name__ == "__main__":
    raise SystemExit(main())
