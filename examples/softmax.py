"""Softmax over the free axis, y = exp(x - max(x)) / sum(exp(x - max(x))), on the simulator.

The kernel (examples/softmax.json, written by ``build()`` below with the KernelBuilder) is the
chapter's §9 recipe, one row per partition:

1. DVE  TensorReduce max over X, negated      x → negmax [P,1]            (0x42)
2. ACT  LoadActFuncSet 0 (exp_and_others)                                 (0x23)
3. ACT  Activation Exp, bias = negmax (a [P,1] pointer), ZeroAccumulate  x → e, sum [P,1]  (0x21 + 0x24)
4. DVE  Reciprocal                            sum → rsum [P,1]            (0x48)
5. DVE  TensorScalarPtr mult by rsum (pointer)  e → y                     (0x43)

The engines run concurrently, so steps on different engines are ordered with semaphores (sem 1:
DVE → ACT, sem 2: ACT → DVE). The script assembles the kernel, runs the bundles on the simulator
and compares every output with numpy: float32 outputs within 1e-5 relative.

    python examples/softmax.py               # run and compare
    python examples/softmax.py --write-json  # regenerate examples/softmax.json from build()
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from tongasm.ir import read_bir
from tongasm.ir.builder import KernelBuilder, sync
from tongasm.sim.run import run_kernel

HERE = Path(__file__).resolve().parent
JSON = HERE / "softmax.json"
P, D = 128, 256  # rows on partitions, features on the free axis


def build() -> KernelBuilder:
    kb = KernelBuilder(arch="gen2", function="softmax")
    x = kb.sbuf("x", bytes_per_partition=4 * D, kind="Input", dtype="float32", shape=[P, D])
    e = kb.sbuf("e", bytes_per_partition=4 * D, addr=0x1000, kind="Internal", dtype="float32", shape=[P, D])
    y = kb.sbuf("y", bytes_per_partition=4 * D, addr=0x2000, kind="Output", dtype="float32", shape=[P, D])
    negmax = kb.sbuf("negmax", bytes_per_partition=4, addr=0x3000, kind="Output", dtype="float32", shape=[P, 1])
    total = kb.sbuf("sum", bytes_per_partition=4, addr=0x3010, kind="Output", dtype="float32", shape=[P, 1])
    rsum = kb.sbuf("rsum", bytes_per_partition=4, addr=0x3020, kind="Output", dtype="float32", shape=[P, 1])
    col = [[1, P], [1, 1]]  # one float32 per partition
    kb.tensor_reduce(negmax.ap("float32", col), x.tile("float32", P, D), "max", "X", negate=True, name="rowmax",
                     sync=sync(update=("sem_inc", 1)))
    kb.load_act_func_set(0, name="exp_set")
    kb.activation(e.tile("float32", P, D), x.tile("float32", P, D), "Exp", bias=negmax.ap("float32", col),
                  scale=1.0, acc="ZeroAccumulate", reduce_res=total.ap("float32", col), name="exp",
                  sync=sync(wait=("sem_ge_imm", 1, 1), update=("sem_inc", 2)))
    kb.reciprocal(rsum.ap("float32", col), total.ap("float32", col), name="recip",
                  sync=sync(wait=("sem_ge_imm", 2, 1)))
    kb.tensor_scalar(y.tile("float32", P, D), e.tile("float32", P, D), "mult", rsum.ap("float32", col), name="scale")
    return kb


def reference(x: np.ndarray) -> dict[str, np.ndarray]:
    """The same maths in plain numpy (float64, then float32)."""
    x64 = x.astype(np.float64)
    m = x64.max(axis=1, keepdims=True)
    ex = np.exp(x64 - m)
    s = ex.sum(axis=1, keepdims=True)
    return {"y": (ex / s).astype(np.float32), "negmax": (-m).astype(np.float32), "sum": s.astype(np.float32),
            "rsum": (1.0 / s).astype(np.float32)}


def compare(got: dict[str, np.ndarray], want: dict[str, np.ndarray], rtol: float = 1e-5) -> bool:
    ok = True
    for k, w in want.items():
        g = got[k]
        err = float(np.max(np.abs(g.astype(np.float64) - w) / np.maximum(np.abs(w.astype(np.float64)), 1e-30)))
        same = g.shape == w.shape and err <= rtol
        ok &= same
        print(f"  {k:<7} {str(g.shape):<11} max relative error {err:.2e} "
              f"{'within' if same else 'OUTSIDE'} {rtol:g}")
    return ok


def main(argv: list[str]) -> int:
    if "--write-json" in argv:
        JSON.write_text(build().to_json_text() + "\n")
        print(f"wrote {JSON}")
        return 0
    rng = np.random.default_rng(2026)
    x = (rng.standard_normal((P, D)) * 3).astype(np.float32)
    kernel = read_bir(JSON)
    res = run_kernel(kernel, {"x": x})
    got = res.outputs(["y", "negmax", "sum", "rsum"])
    print(f"softmax: {P} rows x {D} features, {res.stats.executed} bundles on the simulator")
    ok = compare(got, reference(x))
    print("softmax: " + ("all outputs match numpy" if ok else "MISMATCH"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
