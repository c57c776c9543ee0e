"""The next families' example kernels (issue 15): softmax, RMSNorm and the GELU MLP.

Each example's JSON is what its script's ``build()`` writes (no drift), passes ``tongasm check``,
runs on the simulator and matches numpy (the scripts' own comparisons: fp32 within 1e-5 relative,
bf16/fp16 within one ulp), and the bundle simulator agrees with the IR reference interpreter bit for
bit. The MLP's matmuls are the PE pair (0x01 Ldweights + 0x02 Matmul, issue 13); the IR interpreter has
no Matmult, so the MLP's agreement test runs its non-PE part alone, with the two matmul results given
as inputs.
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
