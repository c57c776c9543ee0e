"""A GELU MLP layer, y = W2^T gelu(W1^T x + b1), on the simulator: matmul → bias → GELU → matmul.

The kernel (examples/mlp_gelu.json, written by ``build()``), with K = M = 128 (the PE geometry the
real NEFFs show, R-13) and N = 128 tokens on the free axis:

1. PE   Matmult  h[M,N] (PSUM bank 0, fp32) = W1[K,M]^T x[K,N]          (0x01 Ldweights + 0x02 Matmul)
2. ACT  LoadActFuncSet 11 (gelu_apprx_tanh_and_others)                   (0x23)
3. ACT  Activation Gelu_apprx_tanh, bias b1 (a [M,1] pointer)  h → a[M,N] (fp16, SBUF)   (0x21)
4. PE   Matmult  o[M,N] (PSUM bank 1, fp32) = W2[M,M]^T a[M,N]           (0x01 + 0x02)
5. DVE  TensorCopy  o → y (fp32, SBUF)                                    (0x46)

The PE matmul is the real-opcode chapter's (neff-and-real-opcodes.md §2.1/§2.2); its BIR form here is
``Matmult`` with ``ins = [stationary, moving]`` (NKI ``nc_matmul(stationary, moving)`` order),
``start_tensor_calc`` and ``stop_tensor_calc`` both true (one matmul per accumulation group, R-11),
lowered by tongasm to the 0x01 + 0x02 pair the compiler emits. Outputs are compared with numpy: the fp16 activation at fp16 precision (one ulp), the fp32 result
within 1e-5 relative to the sum of the magnitudes of its terms (the PE accumulates in its own order).

    python examples/mlp_gelu.py               # run and compare
    python examples/mlp_gelu.py --write-json  # regenerate examples/mlp_gelu.json from build()
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

from tongasm.ir import read_bir
from tongasm.ir.builder import KernelBuilder, sync
from tongasm.sim.run import run_kernel

HERE = Path(__file__).resolve().parent
JSON = HERE / "mlp_gelu.json"
K = M = 128
N = 128


def build() -> KernelBuilder:
    kb = KernelBuilder(arch="gen3", function="mlp_gelu")
    x = kb.sbuf("x", bytes_per_partition=2 * N, kind="Input", dtype="float16", shape=[K, N])
    w1 = kb.sbuf("w1", bytes_per_partition=2 * M, addr=0x1000, kind="Input", dtype="float16", shape=[K, M])
    w2 = kb.sbuf("w2", bytes_per_partition=2 * M, addr=0x2000, kind="Input", dtype="float16", shape=[M, M])
    b1 = kb.sbuf("b1", bytes_per_partition=4, addr=0x3000, kind="Input", dtype="float32", shape=[M, 1])
    a = kb.sbuf("a", bytes_per_partition=2 * N, addr=0x4000, kind="Output", dtype="float16", shape=[M, N])
    y = kb.sbuf("y", bytes_per_partition=4 * N, addr=0x5000, kind="Output", dtype="float32", shape=[M, N])
    h = kb.psum("h", bytes_per_partition=4 * N, bank=0, kind="Internal", dtype="float32", shape=[M, N])
    o = kb.psum("o", bytes_per_partition=4 * N, bank=1, kind="Internal", dtype="float32", shape=[M, N])
    kb.matmult(h.tile("float32", M, N), w1.tile("float16", K, M), x.tile("float16", K, N), name="mm1",
               sync=sync(update=("sem_inc", 1)))
    kb.load_act_func_set(11, name="gelu_set")
    kb.activation(a.tile("float16", M, N), h.tile("float32", M, N), "Gelu_apprx_tanh",
                  bias=b1.ap("float32", [[1, M], [1, 1]]), name="gelu",
                  sync=sync(wait=("sem_ge_imm", 1, 1), update=("sem_inc", 2)))
    kb.matmult(o.tile("float32", M, N), w2.tile("float16", M, M), a.tile("float16", M, N), name="mm2",
               sync=sync(wait=("sem_ge_imm", 2, 1), update=("sem_inc", 3)))
    kb.tensor_copy(y.tile("float32", M, N), o.tile("float32", M, N), name="drain", sync=sync(wait=("sem_ge_imm", 3, 1)))
    return kb


def gelu_tanh(v: np.ndarray) -> np.ndarray:
    return 0.5 * v * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v ** 3)))


def reference(x: np.ndarray, w1: np.ndarray, w2: np.ndarray, b1: np.ndarray, a_got: np.ndarray) -> tuple[
        dict[str, np.ndarray], np.ndarray]:
    """numpy, stage by stage: the activation from the inputs (the fp16 products are exact in float32, and the
    K-sum is float32 as the hardware accumulates it, S-120; rounded to fp16 as the kernel stores it), and the second matmul from the activation the kernel
    stored (a one-ulp difference in ``a`` would otherwise dominate ``y``'s error). Also the scale of
    each ``y`` element (the sum of the magnitudes of its terms) for the fp32 comparison."""
    h = (w1.astype(np.float32).T @ x.astype(np.float32)).astype(np.float64)
    a = gelu_tanh(h + b1.astype(np.float64)).astype(np.float16)
    a64 = a_got.astype(np.float64)
    terms = np.abs(w2.astype(np.float64)).T @ np.abs(a64)
    return {"a": a, "y": (w2.astype(np.float64).T @ a64).astype(np.float32)}, terms


def compare(got: dict[str, np.ndarray], want: dict[str, np.ndarray], scale: np.ndarray) -> bool:
    ok = True
    a64, w64 = got["a"].astype(np.float64), want["a"].astype(np.float64)
    ulp = np.exp2(np.floor(np.log2(np.maximum(np.abs(w64), 2.0 ** -14))) - 10)  # fp16: 11 significant bits
    err = float(np.max(np.abs(a64 - w64) / ulp))
    ok &= err <= 1.0
    print(f"  a  {got['a'].shape} float16  max {err:.0f} fp16 ulp {'within' if err <= 1 else 'OUTSIDE'} one ulp")
    rel = float(np.max(np.abs(got["y"].astype(np.float64) - want["y"].astype(np.float64)) / np.maximum(scale, 1e-30)))
    ok &= rel <= 1e-5
    print(f"  y  {got['y'].shape} float32  max error / sum|terms| {rel:.2e} {'within' if rel <= 1e-5 else 'OUTSIDE'}"
          " 1e-5 (numpy's W2^T a on the stored a)")
    return ok


def main(argv: list[str]) -> int:
    if "--write-json" in argv:
        JSON.write_text(build().to_json_text() + "\n")
        print(f"wrote {JSON}")
        return 0
    rng = np.random.default_rng(11)
    x = rng.standard_normal((K, N)).astype(np.float16)
    w1 = (rng.standard_normal((K, M)) / math.sqrt(K)).astype(np.float16)
    w2 = (rng.standard_normal((M, M)) / math.sqrt(M)).astype(np.float16)
    b1 = (0.1 * rng.standard_normal((M, 1))).astype(np.float32)
    res = run_kernel(read_bir(JSON), {"x": x, "w1": w1, "w2": w2, "b1": b1})
    print(f"mlp_gelu: {K}x{M} weights, {N} tokens, {res.stats.executed} bundles on the simulator")
    got = res.outputs(["a", "y"])
    want, scale = reference(x, w1, w2, b1, got["a"])
    ok = compare(got, want, scale)
    print("mlp_gelu: " + ("all outputs match numpy" if ok else "MISMATCH"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
