"""Issue 14 benchmark: the real NEFFs on the simulator (not part of the test suite).

    python benchmarks/neff.py                 # small and large
    python benchmarks/neff.py --only small    # the small NEFF only (a second or so)
    python benchmarks/neff.py --json out.json

small  matmul_small.neff on np.random.rand fp16 inputs (the hardware test's): wall time of a warm run,
       bundles/s, beside numpy's matmul of the same fp16 inputs (and of fp32 copies); the output must
       pass np.allclose(out, x @ y, rtol=1e-3).
large  matmul_large.neff: x [128, 32768] and y [32768, 65536] fp16 (4 GiB) with values k/8 (integer k
       in [-8, 8]) so every fp32 partial sum is exact; the output must equal fp16(x @ y) in all
       8,388,608 elements. Reports wall time, bundles/s and peak RSS (with the inputs' own size beside
       it). Needs ~10 GiB of memory; it refuses to start with less available.
"""

from __future__ import annotations

import os

# one BLAS thread: the PE's 128 x 128 x N products are small, and on this 2-core sandbox OpenBLAS's
# threads make each one ~10x slower (0.5 ms -> 5 ms for N = 512) when anything else runs. Set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from neff_support import groundtruth_dir  # noqa: E402

from tongasm.isa.decisions import DecisionSet  # noqa: E402
from tongasm.neff import read_neff  # noqa: E402
from tongasm.neff.run import run_neff  # noqa: E402


def peak_rss() -> int:
    """Peak resident set size of this process, bytes."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def available() -> int:
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def bench_small(decisions: list[str], repeats: int = 20) -> dict[str, Any]:
    neff = read_neff(groundtruth_dir() / "matmul_small.neff")
    np.random.seed(0)
    x = np.random.rand(128, 256).astype(np.float16)
    y = np.random.rand(256, 128).astype(np.float16)
    t0 = time.perf_counter()
    ds = DecisionSet.parse(decisions)
    r = run_neff(neff, {"x": x, "y": y}, decisions=ds)
    first = time.perf_counter() - t0
    out = r.outputs()["output0"]
    ok = bool(np.allclose(out, np.matmul(x, y), rtol=1e-3))
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run_neff(neff, {"x": x, "y": y}, decisions=ds)
        runs.append(time.perf_counter() - t0)
    np16 = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.matmul(x, y)
        np16.append(time.perf_counter() - t0)
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    np32 = []
    for _ in range(repeats * 10):
        t0 = time.perf_counter()
        (x32 @ y32).astype(np.float16)
        np32.append(time.perf_counter() - t0)
    warm = float(np.median(runs))
    return {"bundles": r.executed, "dmas": sum(c.stats.dmas for c in r.cores), "first_run_s": first,
            "warm_run_s": warm, "bundles_per_s": r.executed / warm, "numpy_fp16_matmul_s": float(np.median(np16)),
            "numpy_fp32_matmul_s": float(np.median(np32)), "run_vs_numpy_fp32_matmul": warm / float(np.median(np32)),
            "allclose_rtol_1e-3": ok,
            "equal_to_fp16_of_fp32_product": float((out == (x32 @ y32).astype(np.float16)).mean())}


def bench_large(decisions: list[str]) -> dict[str, Any]:
    need = 10 << 30
    if available() < need:
        return {"skipped": f"needs ~{need >> 30} GiB available, this machine has {available() >> 30} GiB"}
    neff = read_neff(groundtruth_dir() / "matmul_large.neff")
    rng = np.random.default_rng(14)
    k, n = 32768, 65536
    t0 = time.perf_counter()
    # the k/8 values through a 17-entry table: the same draws and values as fp16(k) / fp16(8), without
    # numpy's slow fp16 division
    eighths = (np.arange(-8, 9, dtype=np.float16) / np.float16(8)).astype(np.float16)

    def draw(shape: tuple[int, int]) -> np.ndarray:
        return eighths[(rng.integers(-8, 9, shape, dtype=np.int8) + np.int8(8)).view(np.uint8)]

    x = draw((128, k))
    y = np.empty((k, n), dtype=np.float16)
    for r0 in range(0, k, 1024):
        y[r0:r0 + 1024] = draw((1024, n))
    make_s = time.perf_counter() - t0
    rss_inputs = peak_rss()
    t0 = time.perf_counter()
    result = run_neff(neff, {"x": x, "y": y}, copy_inputs=False, decisions=DecisionSet.parse(decisions))
    run_s = time.perf_counter() - t0
    rss_run = peak_rss()
    out = result.outputs()["output0"]
    # the reference, exact: k/8 values, products multiples of 1/64, |sums| <= 2**15 -> exact in fp32 in any order
    # the baseline: np.matmul on float32 copies of the same inputs, 2048 output columns at a time (an 8 GiB
    # float32 y does not fit beside the run); only the products are timed, not the copies
    t0 = time.perf_counter()
    x32 = x.astype(np.float32)
    ref = np.empty((128, n), dtype=np.float16)
    matmul_s = 0.0
    for c0 in range(0, n, 2048):
        y32 = y[:, c0:c0 + 2048].astype(np.float32)
        t1 = time.perf_counter()
        prod = np.matmul(x32, y32)
        matmul_s += time.perf_counter() - t1
        ref[:, c0:c0 + 2048] = prod.astype(np.float16)
    ref_s = time.perf_counter() - t0
    equal = int((out == ref).sum())
    return {"bundles": result.executed, "dmas": sum(c.stats.dmas for c in result.cores), "input_bytes": x.nbytes + y.nbytes,
            "decisions": decisions, "make_inputs_s": make_s, "run_s": run_s, "bundles_per_s": result.executed / run_s,
            "numpy_reference_s": ref_s, "numpy_fp32_matmul_s": matmul_s, "run_vs_numpy_fp32_matmul": run_s / matmul_s,
            "elements": out.size, "elements_equal": equal, "all_equal": equal == out.size,
            "peak_rss_bytes_after_inputs": rss_inputs, "peak_rss_bytes_after_run": rss_run,
            "per_core": {c.graph: {"executed": c.stats.executed, "per_engine": c.stats.per_engine} for c in result.cores}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="small,large", help="sections, comma-separated (small, large)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    ap.add_argument("--decision", action="append", default=[], metavar="ID=READING",
                    help="a decision reading for the runs (repeatable), e.g. S-120=exact-f64")
    args = ap.parse_args()
    results: dict[str, Any] = {"cpu_count": os.cpu_count()}
    for section in args.only.split(","):
        fn = {"small": bench_small, "large": bench_large}[section.strip()]
        results[section] = fn(args.decision)
        print(f"{section}: {json.dumps(results[section], indent=1)}", flush=True)
        r = results[section]
        if "run_vs_numpy_fp32_matmul" in r:
            run = r.get("run_s", r.get("warm_run_s"))
            print(f"{section}: run {run:.3f} s, {r['bundles_per_s']:,.0f} bundles/s, "
                  f"{r['run_vs_numpy_fp32_matmul']:.2f}x np.matmul on float32 copies ({r['numpy_fp32_matmul_s']:.3f} s)",
                  flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    ok = results.get("small", {}).get("allclose_rtol_1e-3", True) and results.get("large", {}).get("all_equal", True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
