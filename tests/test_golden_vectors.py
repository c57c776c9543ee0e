"""Data-driven golden vectors: tests/golden/vectors/**/NNN_name.json.

Each file holds a BIR JSON kernel, the expected bytes of every stream (derived by hand from the
spec, with the derivation in the file), or the error it must raise. A vector whose kernel encodes
but breaks an ISA-validator rule lists the check ids under ``"findings"``: ``assemble`` must refuse
it naming those checks, and ``assemble(check="warn")`` must still produce the expected bytes. The vectors were written from
SPEC.md alone, without looking at tongasm's code, so they check the encoder against an independent
reading of the spec.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import hex_streams
from tongasm.codegen import assemble
from tongasm.errors import TongasmError, ValidationError
from tongasm.isa.decisions import DecisionSet
from tongasm.ir import read_bir

VECTORS = sorted((Path(__file__).parent / "golden" / "vectors").glob("**/*.json"))


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_vector(path: Path) -> None:
    case = json.loads(path.read_text())
    assert case.get("derivation") or "error" in case["expect"], f"{path.name} has no derivation"
    decisions = DecisionSet.parse(case.get("decisions") or [])
    expect = case["expect"]
    if "error" in expect:
        with pytest.raises(TongasmError) as ei:
            assemble(read_bir(case["kernel"]), target=case.get("target"), decisions=decisions)
        if isinstance(expect["error"], str):
            assert expect["error"] in str(ei.value)
        return
    check = "refuse"
    if case.get("findings"):
        with pytest.raises(ValidationError) as vi:
            assemble(read_bir(case["kernel"]), target=case.get("target"), decisions=decisions)
        assert {f.check for f in vi.value.findings} == set(case["findings"])
        check = "warn"
    asm = assemble(read_bir(case["kernel"]), target=case.get("target"), decisions=decisions, check=check)
    got = hex_streams(asm)
    want = {n: [h.lower() for h in v] for n, v in expect["streams"].items()}
    assert got == want, case.get("description")


def _single_block(case: dict) -> bool:
    fs = case["kernel"].get("functions", [])
    return (len(fs) == 1 and len(fs[0].get("blocks", [])) == 1
            and all(i.get("opcode") != "Loop" for i in fs[0]["blocks"][0].get("instructions", [])))


ENCODED = [p for p in VECTORS if "error" not in json.loads(p.read_text())["expect"]]


@pytest.mark.parametrize("path", ENCODED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_vector_on_the_hot_path_first_and_second_time(path: Path) -> None:
    """GENERATE_ISACODE (``check="off"``) gives the vector's bytes, and so does every instruction the
    second time over: the first occurrence builds each family's plan from the full codegen, the
    second goes through the plan's generated builder and the memoised descriptors and sync bands."""
    case = json.loads(path.read_text())
    decisions = DecisionSet.parse(case.get("decisions") or [])
    want = {n: [h.lower() for h in v] for n, v in case["expect"]["streams"].items()}
    asm = assemble(read_bir(case["kernel"]), target=case.get("target"), decisions=decisions, check="off")
    assert hex_streams(asm) == want
    if not _single_block(case):
        return
    kernel = json.loads(json.dumps(case["kernel"]))
    block = kernel["functions"][0]["blocks"][0]
    block["instructions"] = block["instructions"] * 2
    asm = assemble(read_bir(kernel), target=case.get("target"), decisions=decisions, check="off")
    assert hex_streams(asm) == {n: v * 2 for n, v in want.items()}


def test_most_vectors_are_repeated_on_the_hot_path() -> None:
    assert sum(_single_block(json.loads(p.read_text())) for p in ENCODED) >= 0.8 * len(ENCODED)
