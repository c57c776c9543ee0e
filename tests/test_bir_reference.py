"""The BIR JSON reference (docs/bir-reference.md) is generated from the declarations, kept current in
the repo, covers every opcode tongasm encodes, and every example in it assembles and checks clean."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tongasm.ir import read_bir
from tongasm.ir.instructions import INSTRUCTION_CLASSES, RefusedInstruction
from tongasm.text.bir_reference import (
    bir_opcodes, bir_reference_markdown, check_example, example, opcode_reference, refused_opcodes,
)

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "bir-reference.md"


def _tongasm(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tongasm", *args], capture_output=True, text=True, cwd=ROOT)


def test_docs_bir_reference_md_is_current():
    text = bir_reference_markdown()
    if os.environ.get("TONGASM_UPDATE_GOLDEN"):
        DOC.write_text(text)
    assert DOC.read_text() == text, "docs/bir-reference.md is stale: regenerate with " \
                                    "`tongasm bir-reference --format markdown > docs/bir-reference.md`"


def test_cli_markdown_is_the_document():
    r = _tongasm("bir-reference", "--format", "markdown")
    assert r.returncode == 0, r.stderr
    assert r.stdout == DOC.read_text()


def test_every_encoded_opcode_has_a_section_and_the_refused_ones_are_listed():
    text = DOC.read_text()
    ops = bir_opcodes()
    # the hand-written classes the user reads about in the README and the examples
    for op in ("Activation", "TensorScalarPtr", "TensorReduce", "LoadActFuncSet", "Reciprocal", "Matmult",
               "DMACopy", "EventSemaphore", "Memset", "TensorTensor", "RegisterMove", "Iota"):
        assert op in ops
    for op in ops:
        assert f"\n## {op}\n" in text
    for name, cls in INSTRUCTION_CLASSES.items():
        if issubclass(cls, RefusedInstruction):
            assert name not in ops and f"| `{name}` |" in text
    assert set(refused_opcodes()) == {"Load", "Save", "TensorDequantize"}


@pytest.mark.parametrize("opcode", bir_opcodes())
def test_example_is_a_minimal_kernel_that_assembles_and_checks_clean(opcode: str, tmp_path: Path):
    source, kernel = example(opcode)
    assert check_example(kernel) == []
    insts = [i for f in kernel["functions"] for b in f["blocks"] for i in b["instructions"]]
    assert any(i["opcode"] == opcode for i in insts)
    # minimal: the opcode itself, plus at most the one instruction it needs first (a LoadActFuncSet
    # before an Activation, a LoadStationary before its MultiplyMoving)
    assert len(insts) <= 2, [i["opcode"] for i in insts]
    # every location the kernel declares is used by an operand
    used = {op.get("memref") for i in insts for op in [*i.get("ins", []), *i.get("outs", [])] if isinstance(op, dict)}
    declared = {m["name"] for f in kernel["functions"] for a in f.get("allocations", [])
                for m in a.get("memorylocations", [])}
    assert declared <= used, declared - used
    # the document shows it as valid JSON, and the command line assembles and checks the same kernel
    path = tmp_path / f"{opcode}.json"
    path.write_text(json.dumps(kernel))
    assert read_bir(path.read_bytes()).functions
    chk = _tongasm("check", str(path))
    assert chk.returncode == 0, chk.stdout + chk.stderr
    asm = _tongasm("assemble", str(path), "-o", str(tmp_path / "out"))
    assert asm.returncode == 0, asm.stdout + asm.stderr
    assert source.startswith(("examples/", "tests/golden/vectors/"))


def test_example_json_in_the_document_parses_to_the_shipped_kernel():
    text = DOC.read_text()
    for op in bir_opcodes():
        section = text.split(f"\n## {op}\n", 1)[1]
        block = section.split("```json\n", 1)[1].split("\n```", 1)[0]
        assert json.loads(block) == example(op)[1], op


def test_keys_and_roles_follow_the_declarations():
    # hand-read from the class declarations: TensorTensor (op required, acc default Idle; in0, in1 -> out)
    tt = opcode_reference("TensorTensor")
    assert [(k["key"], k["required"], k["default"]) for k in tt["keys"]] == [("op", True, None), ("acc", False, "Idle")]
    assert [(r["list"], r["index"], r["role"]) for r in tt["operands"]] == [("ins", 0, "in0"), ("ins", 1, "in1"),
                                                                          ("outs", 0, "out")]
    assert "add" in tt["keys"][0]["values"] and "bypass" in tt["keys"][0]["values"]
    assert {"0x41", "0x51"} <= {b["opcode"] for b in tt["bundles"]}
    # a form declared by a layout record: LoadActFuncSet has one int key, default 0, and no operands
    la = opcode_reference("LoadActFuncSet")
    assert [(k["key"], k["type"], k["default"]) for k in la["keys"]] == [("act_func_set_id", "int", 0)]
    assert la["operands"] == [] and [b["opcode"] for b in la["bundles"]] == ["0x23"]
    # a dtype list comes from the wire-dtype field: a TensorTensor output may be bfloat16 or float32
    out = next(r for r in tt["operands"] if r["role"] == "out")
    assert {"bfloat16", "float32", "int32"} <= set(out["dtypes"])


def test_engines_come_from_the_checks():
    # the sync/control and DMA ops run on every engine and must name one
    for op in ("DMACopy", "EventSemaphore", "Halt"):
        e = opcode_reference(op)
        assert e["unassigned_stream"] is None and "SP" in e["engines"] and "Pool" in e["engines"]
    # Activation is refused off the Activation engine; TensorScalarCache is DVE only (chapter §4.3)
    assert opcode_reference("Activation")["engines"] == ["Activation"]
    assert opcode_reference("TensorScalarCache")["engines"] == ["DVE"]
    assert opcode_reference("RegisterMove")["unassigned_stream"] == "sp"


def test_cli_text_json_and_errors():
    r = _tongasm("bir-reference", "Memset")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Memset: 0x49 Memset") and "key  mode" in r.stdout and "Const" in r.stdout
    j = _tongasm("bir-reference", "--format", "json", "Halt", "Exit")
    assert j.returncode == 0, j.stderr
    assert [e["opcode"] for e in json.loads(j.stdout)] == ["Halt", "Exit"]
    bad = _tongasm("bir-reference", "Nope")
    assert bad.returncode == 2 and "unknown BIR opcode(s) Nope" in bad.stderr and "TensorTensor" in bad.stderr
    md = _tongasm("bir-reference", "--format", "markdown", "Halt")
    assert md.returncode == 2 and "drop the opcode names" in md.stderr


def test_readme_links_the_reference():
    readme = (ROOT / "README.md").read_text()
    assert "docs/bir-reference.md" in readme
