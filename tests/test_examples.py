"""The next families' example kernels (issue 15): softmax, RMSNorm and the GELU MLP.

Each example's JSON is what its script's ``build()`` writes (no drift), passes ``tongasm check``,
runs on the simulator and matches numpy (the scripts' own comparisons: fp32 within 1e-5 relative,
bf16/fp16 within one ulp), and the bundle simulator agrees with the IR reference interpreter bit for
bit. The MLP's matmuls are the PE pair (0x01 Ldweights + 0x02 Matmul, issue 13); the IR interpreter runs
Matmult as one instruction (plain W^T @ x with the simulator's S-41/S-43 rounding, sim/reference/pe.py),
so the whole MLP is compared; its non-PE part is also run alone, with the two matmul results given as
inputs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from conftest import load_file
from test_sim_agreement import check_agreement
from tongasm.codegen import check_kernel
from tongasm.ir import read_bir
from tongasm.isa.decisions import DecisionSet
from tongasm.sim.run import run_kernel

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NAMES = ["softmax", "rmsnorm", "mlp_gelu"]


def _module(name: str):  # type: ignore[no-untyped-def]
    return load_file(EXAMPLES / f"{name}.py", f"example_{name}")


@pytest.mark.parametrize("name", NAMES)
def test_the_json_is_what_build_writes(name: str) -> None:
    mod = _module(name)
    assert json.loads((EXAMPLES / f"{name}.json").read_text()) == json.loads(mod.build().to_json_text())


@pytest.mark.parametrize("name", ["softmax", "rmsnorm"])
def test_the_example_checks_runs_and_matches_numpy(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    kernel = read_bir(EXAMPLES / f"{name}.json")
    assert check_kernel(kernel).findings == []
    assert _module(name).main([]) == 0
    assert "all outputs match numpy" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["softmax", "rmsnorm"])
def test_the_example_simulator_agrees_with_the_interpreter(name: str) -> None:
    check_agreement(read_bir(EXAMPLES / f"{name}.json"), "gen2", DecisionSet(), [name], 3)


def test_the_mlp_checks_runs_and_matches_numpy(capsys: pytest.CaptureFixture[str]) -> None:
    kernel = read_bir(EXAMPLES / "mlp_gelu.json")
    assert check_kernel(kernel).findings == []
    assert _module("mlp_gelu").main([]) == 0
    out = capsys.readouterr().out
    assert "all outputs match numpy" in out and "7 bundles" in out  # 2 x (0x01 + 0x02), 0x23, 0x21, 0x46


@pytest.mark.parametrize("decisions", [(), ("S-41=fp32",)], ids=["defaults", "S-41=fp32"])
def test_the_mlp_simulator_agrees_with_the_interpreter(decisions: tuple[str, ...]) -> None:
    """The whole MLP, matmuls included: 0x01 + 0x02 on the bundle simulator, Matmult in the interpreter."""
    check_agreement(read_bir(EXAMPLES / "mlp_gelu.json"), "gen3", DecisionSet.parse(decisions), ["mlp"], 4)


@pytest.mark.parametrize("decisions", [(), ("S-41=fp32",), ("R-11=book-accu",), ("R-10=natural",),
                                       ("R-12=fp32",)], ids=lambda d: d[0] if d else "defaults")
def test_matmult_accumulation_groups_and_transposes_agree(decisions: tuple[str, ...]) -> None:
    """A three-Matmult accumulation group (start, interior, stop) into one PSUM bank, a standalone
    LoadStationary + MultiplyMoving pair reusing the held stationary (S-42), and a PE transpose (the
    identity as moving, R-12): the bundle simulator and the interpreter agree bit for bit."""
    from tongasm.ir.builder import KernelBuilder, sync
    from tongasm.ir.instructions import LoadStationary, MultiplyMoving

    ds = DecisionSet.parse(decisions)
    kb = KernelBuilder(arch="gen3", function="mm")
    n = 128
    w = [kb.sbuf(f"w{i}", bytes_per_partition=2 * n, addr=0x1000 * i, kind="Input", dtype="float16", shape=[n, n])
         for i in range(3)]
    x = kb.sbuf("x", bytes_per_partition=2 * n, addr=0x3000, kind="Input", dtype="float16", shape=[n, n])
    eye = kb.sbuf("eye", bytes_per_partition=2 * n, addr=0x4000, kind="Input", dtype="float16", shape=[n, n])
    acc = kb.psum("acc", bytes_per_partition=4 * n, bank=0, kind="Output", dtype="float32", shape=[n, n])
    two = kb.psum("two", bytes_per_partition=4 * n, bank=1, kind="Output", dtype="float32", shape=[n, n])
    tr = kb.psum("tr", bytes_per_partition=2 * n, bank=2, kind="Output", dtype="float16", shape=[n, n])
    for i, (start, stop) in enumerate(((True, False), (False, False), (False, True))):
        kb.matmult(acc.tile("float32", n, n), w[i].tile("float16", n, n), x.tile("float16", n, n), start=start,
                   stop=stop, name=f"mm{i}")
    kb._add(LoadStationary(ins=[w[1].tile("float16", n, n)], attrs={"is_transpose": False}), "ld", "PE", None)
    kb._add(MultiplyMoving(ins=[x.tile("float16", n, n)], outs=[two.tile("float32", n, n)],
                           attrs={"start_tensor_calc": True, "stop_tensor_calc": True}), "mv", "PE", None)
    transpose = ds["R-12"] == "input-dtype"
    dst = tr.tile("float16", n, n) if transpose else two.tile("float32", n, n)
    kb.matmult(dst, x.tile("float16", n, n), eye.tile("float16", n, n), transpose=True, name="transpose",
               sync=sync(update=("sem_inc", 1)))
    check_agreement(kb.build(), "gen3", ds, ["matmult"], 6)


@pytest.mark.parametrize("reading", ["S-120=exact-f64", "S-120=f32-accumulate"])
def test_the_interpreter_computes_the_mlp_as_numpy(reading: str) -> None:
    """The interpreter's Matmult is W^T @ x, independently of the bundles: under S-120=exact-f64 the float64
    sum rounded once, under f32-accumulate (the default) a float32 product (the fp16 products are exact in
    float32, each addition rounded in the BLAS's order)."""
    from tongasm.isa import DecisionSet
    from tongasm.sim.reference import interpret

    mod = _module("mlp_gelu")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((mod.K, mod.N)).astype(np.float16)
    w1 = (rng.standard_normal((mod.K, mod.M)) / math.sqrt(mod.K)).astype(np.float16)
    w2 = (rng.standard_normal((mod.M, mod.M)) / math.sqrt(mod.M)).astype(np.float16)
    b1 = (0.1 * rng.standard_normal((mod.M, 1))).astype(np.float32)
    got = interpret(read_bir(EXAMPLES / "mlp_gelu.json"), {"x": x, "w1": w1, "w2": w2, "b1": b1}, target="gen3",
                    decisions=DecisionSet.parse([reading]))
    out = got.outputs(["a", "y"])
    if reading == "S-120=exact-f64":  # one rounding of the exact-in-float64 fp16 products' sum
        want_y = (w2.astype(np.float64).T @ out["a"].astype(np.float64)).astype(np.float32)
    else:
        want_y = w2.astype(np.float32).T @ out["a"].astype(np.float32)
    assert out["y"].tobytes() == want_y.tobytes()
    if reading == "S-120=f32-accumulate":  # the example's reference accumulates in float32 as the default does
        want, scale = mod.reference(x, w1, w2, b1, out["a"])
        assert mod.compare(out, want, scale)


def test_the_mlp_without_its_matmuls() -> None:
    """Bias + GELU from PSUM into fp16, and the PSUM drain, with the matmul results given as inputs."""
    mod = _module("mlp_gelu")
    data = json.loads((EXAMPLES / "mlp_gelu.json").read_text())
    block = data["functions"][0]["blocks"][0]
    block["instructions"] = [i for i in block["instructions"] if i["opcode"] != "Matmult"]
    for i in block["instructions"]:  # the matmuls' semaphores are gone: so are the waits on them
        i.get("sync", {}).pop("wait", None)
    rng = np.random.default_rng(3)
    h = rng.standard_normal((mod.M, mod.N)).astype(np.float32)
    o = rng.standard_normal((mod.M, mod.N)).astype(np.float32)
    b1 = (0.1 * rng.standard_normal((mod.M, 1))).astype(np.float32)
    res = run_kernel(read_bir(data), {"h": h, "o": o, "b1": b1})
    got = res.outputs(["a", "y"])
    want = mod.gelu_tanh(h.astype(np.float64) + b1).astype(np.float16)
    ulp = np.exp2(np.floor(np.log2(np.maximum(np.abs(want.astype(np.float64)), 2.0 ** -14))) - 10)
    assert np.max(np.abs(got["a"].astype(np.float64) - want.astype(np.float64)) / ulp) <= 1.0
    assert got["y"].tobytes() == o.tobytes()
    check_agreement(read_bir(data), "gen3", DecisionSet(), ["mlp-no-pe"], 4)
    assert math.isfinite(float(np.abs(got["a"]).max()))
