"""matmul_large on the simulator in CPU seconds, beside np.matmul on float32 copies, in the same process.

    python benchmarks/pe_cpu.py [--repeat 3] [--inputs const|random] [--save OUT.npy] [-D S-120=...]

CPU seconds (``time.process_time``: user + sys of this process), not wall time: the sandbox is shared.
Each repeat times one ``run_neff`` of matmul_large.neff (x [128, 32768] @ y [32768, 65536] fp16) and then
np.matmul of float32 copies of the same operands, 2048 output columns at a time (the copies are not
timed), one BLAS thread; the figure is min(run) / min(np.matmul) over the repeats. ``const`` inputs are
0.375 and -0.625 (every output -7680, checked); ``random`` ones are seeded normal fp16 values, whose
float32 partial sums round, so ``--save`` of two trees' outputs shows whether they are bit-identical.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from neff_support import groundtruth_dir  # noqa: E402

from tongasm.isa.decisions import DecisionSet  # noqa: E402
from tongasm.neff import read_neff  # noqa: E402
from tongasm.neff.run import run_neff  # noqa: E402

K, N = 32768, 65536


def inputs(kind: str) -> tuple[np.ndarray, np.ndarray]:
    if kind == "const":
        return np.full((128, K), 0.375, np.float16), np.full((K, N), -0.625, np.float16)
    rng = np.random.default_rng(26)
    x = rng.standard_normal((128, K), dtype=np.float32).astype(np.float16)
    y = np.empty((K, N), np.float16)
    for r0 in range(0, K, 1024):
        y[r0:r0 + 1024] = rng.standard_normal((1024, N), dtype=np.float32).astype(np.float16)
    return x, y


def numpy_cpu(x: np.ndarray, y: np.ndarray) -> float:
    x32 = x.astype(np.float32)
    spent = 0.0
    for c0 in range(0, N, 2048):
        y32 = y[:, c0:c0 + 2048].astype(np.float32)
        t0 = time.process_time()
        np.matmul(x32, y32)
        spent += time.process_time() - t0
    return spent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--inputs", choices=("const", "random"), default="const")
    ap.add_argument("--save", type=Path, help="write the output (first repeat) to this .npy")
    ap.add_argument("--no-numpy", action="store_true", help="skip the np.matmul baseline")
    ap.add_argument("-D", dest="decisions", action="append", default=[], metavar="ID=READING")
    a = ap.parse_args()
    neff = read_neff(groundtruth_dir() / "matmul_large.neff")
    x, y = inputs(a.inputs)
    ds = DecisionSet.parse(a.decisions)
    runs, base = [], []
    for i in range(a.repeat):
        t0 = time.process_time()
        out = run_neff(neff, {"x": x, "y": y}, copy_inputs=False, decisions=ds).outputs()["output0"]
        runs.append(time.process_time() - t0)
        if i == 0 and a.save:
            np.save(a.save, out)
        if a.inputs == "const" and not (out == np.float16(-7680)).all():
            print("wrong output", file=sys.stderr)
            return 1
        del out
        if not a.no_numpy:
            base.append(numpy_cpu(x, y))
        print(f"repeat {i}: run {runs[-1]:.1f} CPU s" + (f", np.matmul {base[-1]:.2f} CPU s" if base else ""),
              flush=True)
    line = f"run {min(runs):.1f} CPU s (min of {a.repeat})"
    if base:
        line += f", np.matmul float32 {min(base):.2f} CPU s: {min(runs) / min(base):.2f}x"
    print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
