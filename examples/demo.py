"""End of `make demo`: run the bundled example on the simulator and compare with numpy.

It writes random inputs, runs `tongasm run examples/vector_add.json` (assemble, then simulate the
bundles), loads the outputs and checks each against the same maths done in plain numpy.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main() -> int:
    rng = np.random.default_rng(2026)
    a = rng.standard_normal((128, 512)).astype(np.float32)
    b = rng.standard_normal((128, 512)).astype(np.float32)
    mask = (rng.random((128, 512)) > 0.5).astype(np.uint8)
    n = np.array([10, 20, 30, 40], dtype=np.int32)
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        for name, arr in (("a", a), ("b", b), ("mask", mask), ("n", n)):
            np.save(t / f"{name}.npy", arr)
        out = t / "out"
        cmd = [sys.executable, "-m", "tongasm", "run", str(HERE / "vector_add.json"), "-o", str(out),
               "--outputs", "sum,sel,acc,n", "--reference", *[f"-i{k}={t / k}.npy" for k in ("a", "b", "mask", "n")]]
        print("$ tongasm run examples/vector_add.json -o out --outputs sum,sel,acc,n --reference -i ...")
        r = subprocess.run(cmd, text=True, capture_output=True)
        sys.stdout.write(r.stdout)
        sys.stderr.write(r.stderr)
        if r.returncode:
            return r.returncode
        got = {k: np.load(out / f"{k}.npy") for k in ("sum", "sel", "acc", "n")}
    want = {
        "sum": a + b,
        "sel": np.where(mask != 0, a, b),
        "acc": a + b,
        "n": np.array([10, 20, 30, 30 + 100], dtype=np.int32),
    }
    ok = True
    for k, w in want.items():
        same = got[k].shape == w.shape and got[k].tobytes() == w.tobytes()
        ok &= same
        print(f"  {k:<4} {str(got[k].shape):<12} {'matches numpy bit for bit' if same else 'DIFFERS from numpy'}")
    print("demo: " + ("all outputs match numpy" if ok else "MISMATCH"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
