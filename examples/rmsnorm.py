"""RMSNorm, y = x * rsqrt(mean(x^2) + eps) * g, on the simulator.

The kernel (examples/rmsnorm.json, written by ``build()`` with the KernelBuilder), one row per
partition:

1. ACT  LoadActFuncSet 14 (reciprocal_sqrt_and_small: Rsqrt, and Square, resident everywhere)  (0x23)
2. ACT  Activation Square, ZeroAccumulate     x → (x^2, discarded), ss = sum x^2 [P,1]         (0x21 + 0x24)
3. DVE  TensorScalarPtr mult 1/D, add eps     ss → ms [P,1]                                     (0x43)
4. ACT  Activation Rsqrt                      ms → rstd [P,1]                                   (0x21)
5. DVE  TensorScalarPtr mult by rstd (pointer)  x → xn                                          (0x43)
6. DVE  TensorTensor mult by g (g replicated on every partition)  xn, g → y (bfloat16)          (0x41)

The mean's 1/D and eps go through TensorScalar rather than the Activation's scale and bias, so the
kernel assembles under every reading of N-5: the default (``scale-at-0x24``, what the real NEFFs show)
encodes an Activation scale at +0x24, but under the chapter's §15.1 (``-D N-5=reserved-zero``) the 0x21
bundle has no byte for a scale other than 1.0, and tongasm refuses such a scale rather than drop it. Engines are ordered with semaphores (sem 1:
ACT → DVE, sem 2: DVE → ACT, sem 3: ACT → DVE). Outputs are compared with numpy: float32 within
1e-5 relative, the bfloat16 y at bfloat16 precision (the numpy result rounded to bfloat16, within
one bfloat16 ulp).

    python examples/rmsnorm.py               # run and compare
    python examples/rmsnorm.py --write-json  # regenerate examples/rmsnorm.json from build()
"""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np

from tongasm.ir import read_bir
from tongasm.ir.builder import KernelBuilder, sync
from tongasm.sim.run import run_kernel

HERE = Path(__file__).resolve().parent
JSON = HERE / "rmsnorm.json"
P, D = 128, 256
EPS = 1e-6


def build() -> KernelBuilder:
    kb = KernelBuilder(arch="gen2", function="rmsnorm")
    x = kb.sbuf("x", bytes_per_partition=4 * D, kind="Input", dtype="float32", shape=[P, D])
    g = kb.sbuf("g", bytes_per_partition=4 * D, addr=0x1000, kind="Input", dtype="float32", shape=[P, D])
    sq = kb.sbuf("sq", bytes_per_partition=4 * D, addr=0x2000, kind="Internal", dtype="float32", shape=[P, D])
    xn = kb.sbuf("xn", bytes_per_partition=4 * D, addr=0x3000, kind="Internal", dtype="float32", shape=[P, D])
    y = kb.sbuf("y", bytes_per_partition=2 * D, addr=0x4000, kind="Output", dtype="bfloat16", shape=[P, D])
    ss = kb.sbuf("ss", bytes_per_partition=4, addr=0x5000, kind="Output", dtype="float32", shape=[P, 1])
    ms = kb.sbuf("ms", bytes_per_partition=4, addr=0x5010, kind="Output", dtype="float32", shape=[P, 1])
    rstd = kb.sbuf("rstd", bytes_per_partition=4, addr=0x5020, kind="Output", dtype="float32", shape=[P, 1])
    col = [[1, P], [1, 1]]
    kb.load_act_func_set(14, name="rsqrt_set")
    kb.activation(sq.tile("float32", P, D), x.tile("float32", P, D), "Square", acc="ZeroAccumulate",
                  reduce_res=ss.ap("float32", col), name="square", sync=sync(update=("sem_inc", 1)))
    kb.tensor_scalar(ms.ap("float32", col), ss.ap("float32", col), "mult", 1.0 / D, "add", EPS, name="mean_eps",
                     sync=sync(wait=("sem_ge_imm", 1, 1), update=("sem_inc", 2)))
    kb.activation(rstd.ap("float32", col), ms.ap("float32", col), "Rsqrt", name="rsqrt",
                  sync=sync(wait=("sem_ge_imm", 2, 1), update=("sem_inc", 3)))
    kb.tensor_scalar(xn.tile("float32", P, D), x.tile("float32", P, D), "mult", rstd.ap("float32", col),
                     name="normalise", sync=sync(wait=("sem_ge_imm", 3, 1)))
    kb.tensor_tensor(y.tile("bfloat16", P, D), xn.tile("float32", P, D), g.tile("float32", P, D), "mult",
                     name="gain")
    return kb


def reference(x: np.ndarray, g: np.ndarray) -> dict[str, np.ndarray]:
    """The same maths in plain numpy (float64, then rounded to each output's dtype)."""
    x64 = x.astype(np.float64)
    ss = (x64 * x64).sum(axis=1, keepdims=True)
    ms = ss / D + EPS
    rstd = 1.0 / np.sqrt(ms)
    return {"ss": ss.astype(np.float32), "ms": ms.astype(np.float32), "rstd": rstd.astype(np.float32),
            "y": (x64 * rstd * g.astype(np.float64)).astype(ml_dtypes.bfloat16)}


def compare(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> bool:
    ok = True
    for k, w in want.items():
        g = got[k]
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        if w.dtype == ml_dtypes.bfloat16:  # bf16 precision: at most one bfloat16 ulp apart (8 significant bits)
            ulp = np.exp2(np.floor(np.log2(np.maximum(np.abs(w64), 1e-30))) - 7)
            err = float(np.max(np.abs(g64 - w64) / ulp))
            same, what = err <= 1.0, f"max {err:.0f} bfloat16 ulp, within one ulp"
        else:
            err = float(np.max(np.abs(g64 - w64) / np.maximum(np.abs(w64), 1e-30)))
            same, what = err <= 1e-5, f"max relative error {err:.2e}, within 1e-5"
        same = same and g.shape == w.shape and g.dtype == w.dtype
        ok &= same
        print(f"  {k:<5} {str(g.shape):<11} {str(g.dtype):<9} {what if same else 'OUTSIDE: ' + what}")
    return ok


def main(argv: list[str]) -> int:
    if "--write-json" in argv:
        JSON.write_text(build().to_json_text() + "\n")
        print(f"wrote {JSON}")
        return 0
    rng = np.random.default_rng(7)
    x = rng.standard_normal((P, D)).astype(np.float32)
    g = np.tile((1.0 + 0.1 * rng.standard_normal(D)).astype(np.float32), (P, 1))
    res = run_kernel(read_bir(JSON), {"x": x, "g": g})
    got = res.outputs(["ss", "ms", "rstd", "y"])
    print(f"rmsnorm: {P} rows x {D} features, {res.stats.executed} bundles on the simulator")
    ok = compare(got, reference(x, g))
    print("rmsnorm: " + ("all outputs match numpy" if ok else "MISMATCH"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
