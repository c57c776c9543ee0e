"""Instruction templates (tongasm.codegen.templates) and the one-pass streamed reader give exactly what
reading every instruction gives: the same streams, manifest and findings, or the same error."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import load_file
from tongasm.codegen import assemble
from tongasm.codegen.templates import find_holes
from tongasm.errors import TongasmError
from tongasm.ir.stream_reader import StreamRestart, stream_bir

ROOT = Path(__file__).resolve().parent.parent
KERNELS = load_file(ROOT / "benchmarks" / "kernels.py", "bench_kernels")


def _outcome(path: Path, *, fast: bool, check: str = "refuse") -> tuple[Any, ...]:
    """What assembling gives: (streams, manifest, findings) or the error."""
    try:
        k = stream_bir(path, one_pass=fast)
        a = assemble(k, templates=fast, check=check)
        # the manifest's columns worked out at once equal the entry-by-entry table
        assert a.log.columns(a.streams) == a.log._columns_by_entry(a.streams)
        return ("ok", {n: bytes(s) for n, s in a.streams.items()}, a.manifest(),
                [(f.check, f.inst_name, f.inst_index, f.inst_opcode, f.bundle, f.message, f.severity)
                 for f in a.findings])
    except TongasmError as e:
        return ("error", type(e).__name__, str(e))


def _kernel_text(insts: list[dict[str, Any]], rnd: random.Random, *, layouts: bool = True) -> str:
    """The benchmark kernel's skeleton with these instructions, each written in one of a few JSON
    layouts (compact, spaced, indented, keys sorted)."""
    head = json.dumps({"arch": "gen2", "version": 2})[:-1]
    out = [head, ', "functions": [{"name": "t", "allocations": ', json.dumps(KERNELS.ALLOCATIONS),
           ', "registers": ', json.dumps(KERNELS.REGISTERS), ', "blocks": [{"name": "b", "instructions": [\n']
    for k, d in enumerate(insts):
        style = rnd.randrange(4) if layouts else 0
        text = (json.dumps(d, separators=(",", ":")) if style == 0 else json.dumps(d) if style == 1
                else json.dumps(d, indent=1) if style == 2 else json.dumps(d, sort_keys=True))
        out.append((",\n" if k else "") + text)
    out.append("\n]}]}]}\n")
    return "".join(out)


def _mutate(d: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    """Vary what templates treat as holes, and some things they must not."""
    d = json.loads(json.dumps(d))
    r = rnd.random()
    if r < 0.05:
        d["name"] = rnd.choice(['we"ird', "back\\slash", "é", "\u2028", "", "tab\t"])
    for ops in (d.get("ins", []), d.get("outs", [])):
        for o in ops:
            if "offset" in o and rnd.random() < 0.03:
                o["offset"] = rnd.choice([10**7, 2**40, 0, 1, 8191])  # some off the ADDR4 ranges: errors
            if o.get("kind") == "imm_value" and rnd.random() < 0.2:
                o["value"] = rnd.choice([0, 1, 1.0, -0.0, 0.0, 7, -3, 0.5] if rnd.random() < 0.9 else [2**31 - 1, 1e30])
    if rnd.random() < 0.03:
        d["sync"] = {"wait": {"mode": "sem_ge_imm", "index": rnd.randrange(40), "value": rnd.randrange(3)}}
    if rnd.random() < 0.02 and d.get("ins"):
        d["ins"][0]["ap"] = [[64, 64], [1, 64]]  # a partition-count finding (TT, CopyPredicated)
    if d["opcode"] == "Select" and rnd.random() < 0.5:  # dst on on_true's location: overlaps at some offsets
        d["outs"][0].update(memref="a", dtype="float32", offset=d["ins"][1]["offset"] + rnd.choice([0, 32, 64, 4096]))
    return d


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 300), mutate=st.booleans(), check=st.sampled_from(
    ["refuse", "warn", "off"]))
def test_templates_equal_the_ordinary_path(tmp_path, seed, n, mutate, check):
    rnd = random.Random(seed)
    insts = list(KERNELS.instructions(n, seed=seed, variety=rnd.choice(["wide", "tiles"])))
    if mutate:
        insts = [_mutate(d, rnd) for d in insts]
    p = tmp_path / f"k{seed}.json"
    p.write_text(_kernel_text(insts, rnd))
    assert _outcome(p, fast=True, check=check) == _outcome(p, fast=False, check=check)


def _write(tmp_path: Path, insts: list[dict[str, Any]]) -> Path:
    p = tmp_path / "k.json"
    p.write_text(_kernel_text(insts, random.Random(0), layouts=False))
    return p


def test_templates_hit_on_the_benchmark_kernel(tmp_path, monkeypatch):
    """Most instructions of a repetitive kernel are not read at all (the templates match them)."""
    from tongasm.ir import stream_reader

    reads = []
    real = stream_reader.RawInstruction.read

    def counting(self):
        reads.append(self.index)
        return real(self)

    monkeypatch.setattr(stream_reader.RawInstruction, "read", counting)
    p = _write(tmp_path, list(KERNELS.instructions(3000, variety="wide")))
    assemble(stream_bir(p, one_pass=True))
    assert len(reads) < 300, len(reads)


def test_a_duplicate_key_in_a_matching_instruction_is_refused(tmp_path):
    insts = list(KERNELS.instructions(40))
    p = _write(tmp_path, insts)
    text = p.read_text()
    # instruction i33 has the shape of earlier ones: give it its name twice
    text = text.replace('"name":"i33",', '"name":"i33","name":"i33b",', 1)
    p.write_text(text)
    for fast in (True, False):
        got = _outcome(p, fast=fast)
        assert got[0] == "error" and "duplicate key 'name'" in got[2], got


def test_an_offset_off_the_addr4_range_raises_the_ordinary_error(tmp_path):
    insts = list(KERNELS.instructions(40))
    insts[32]["ins"][0]["offset"] = 2**40  # a TensorTensor like those before it
    p = _write(tmp_path, insts)
    fast, slow = _outcome(p, fast=True), _outcome(p, fast=False)
    assert fast == slow and fast[0] == "error" and "i32" in fast[2]


def test_one_pass_restarts_when_a_key_follows_the_blocks(tmp_path):
    insts = [{"opcode": "RegisterMove", "name": "m", "engine": "SP",
              "ins": [{"kind": "imm_value", "dtype": "int32", "value": 3}],
              "outs": [{"kind": "register_access", "dtype": "int32", "regref": "r5"}]}]
    # read before its registers, "r5" would be register 5; the registers name it 9
    doc = {"functions": [{"name": "f", "blocks": [{"name": "b", "instructions": insts}], "allocations": [],
                          "registers": {"r5": 9}}], "arch": "gen3"}
    p = tmp_path / "k.json"
    p.write_text(json.dumps(doc))
    k = stream_bir(p, one_pass=True)
    with pytest.raises(StreamRestart):
        for _ in k.instructions():
            pass
    a = assemble(stream_bir(p, one_pass=True))  # assemble starts again, reading in two passes
    assert a.target.name == "gen3" and bytes(a.streams["sp"])[0x18] == 9
    assert _outcome(p, fast=True) == _outcome(p, fast=False)


def test_one_pass_reads_later_functions_and_keeps_their_order(tmp_path):
    body = list(KERNELS.instructions(20))
    fn = {"name": "g", "allocations": KERNELS.ALLOCATIONS, "registers": KERNELS.REGISTERS}
    doc = {"arch": "gen2", "functions": [{**fn, "name": "f0", "blocks": [{"name": "b", "instructions": body}]},
                                         {**fn, "name": "f1"},
                                         {**fn, "name": "f2", "blocks": [{"name": "b", "instructions": body}]}]}
    p = tmp_path / "k.json"
    p.write_text(json.dumps(doc))
    k = stream_bir(p, one_pass=True)
    assert [f.name for f in k.kernel().functions] == ["f0"]
    assert len(list(k.instructions())) == 40
    assert [f.name for f in k.kernel().functions] == ["f0", "f1", "f2"]
    assert _outcome(p, fast=True) == _outcome(p, fast=False)


@pytest.mark.parametrize("text,holes", [
    ('{"opcode":"X","name":"a","ins":[{"kind":"physical_ap","offset":5,"ap":[[1,2]]}],"outs":[]}',
     [("name", '"a"'), ("offset", "5")]),
    ('{"name":"a\\"b","sync":{"wait":[{"mode":"m","index":1}]},"ins":[{"kind":"imm_value","value":1.5}]}',
     [("name", '"a\\"b"'), ("sync", '{"wait":[{"mode":"m","index":1}]}'), ("float", "1.5")]),
    ('{"name":"n","ins":[{"value":-3},{"value":true},{"offset":-1},{"offset":1.0}]}',
     [("name", '"n"'), ("int", "-3")]),  # a bool value and a signed or float offset are not holes
    ('{"name":"n","attrs":{"name":"x","offset":3}}', [("name", '"n"')]),  # only the instruction's own keys
])
def test_find_holes(text, holes):
    got = find_holes(text)
    assert got is not None
    assert [(kind, text[a:b]) for a, b, kind, _w in got] == holes


def test_find_holes_refuses_what_it_cannot_follow():
    assert find_holes('{"name": "a"} extra') is None
    assert find_holes('{"name": ') is None


def test_the_instruction_cap_holds_on_template_hits(tmp_path, monkeypatch):
    monkeypatch.setenv("TONGASM_MAX_INSTRUCTIONS", "150")
    p = _write(tmp_path, list(KERNELS.instructions(151)))
    fast, slow = _outcome(p, fast=True), _outcome(p, fast=False)
    assert fast == slow and fast[0] == "error" and "more than 150 instructions" in fast[2]
    monkeypatch.setenv("TONGASM_MAX_INSTRUCTIONS", "151")
    assert _outcome(p, fast=True)[0] == "ok"


def test_ir_checks_that_read_offsets_say_so():
    """An IR check whose code reads an operand's offset (directly or through the start/extent
    helpers) declares ``offsets`` (templates run such checks again per instruction)."""
    import inspect

    from tongasm.check.ir_checks import IR_CHECKS

    # (inst.offset is TensorLoad's register; start_partition is check.operands' start helper)
    readers = ("op.offset", "start_partition(", "_start(", "_extent(", "_may_overlap(")
    assert sum(any(r in inspect.getsource(c.fn) for r in readers) for c in IR_CHECKS) >= 4  # the guard sees them
    for c in IR_CHECKS:
        src = inspect.getsource(c.fn)
        if any(r in src for r in readers):
            assert c.offsets, f"{c.id} reads offsets but its ir_check does not say offsets=..."


def test_a_kernel_that_does_not_repeat_stops_making_templates(tmp_path, monkeypatch):
    """Every instruction a shape of its own (a distinct attribute): past the trial, no more templates
    are made, and the result is the ordinary one."""
    from tongasm.codegen import templates

    made = []
    real = templates.make_template

    def counting(*a):
        made.append(1)
        return real(*a)

    import tongasm.codegen.assembler as asm_mod

    monkeypatch.setattr(asm_mod, "make_template", counting)
    monkeypatch.setattr(templates.Templates, "TRIAL", 20)
    insts = [{"opcode": "Memset", "name": f"m{k}", "engine": "DVE", "mode": "Const", "constant": k,
              "ins": [], "outs": [{"kind": "physical_ap", "dtype": "float32", "ap": [[16384, 128], [1, 64]],
                                   "offset": 0, "memref": "a"}]} for k in range(200)]
    p = _write(tmp_path, insts)
    assert _outcome(p, fast=True) == _outcome(p, fast=False)
    assert len(made) <= 25, len(made)


def _load_save(k: int, offset: int, *, save: bool, dtype: str = "int32") -> dict[str, Any]:
    mem = {"kind": "physical_ap", "dtype": dtype, "ap": [[1, 1], [1, 1]], "offset": offset, "memref": "o"}
    reg = {"kind": "register_access", "dtype": dtype, "regref": f"r{k % 8}"}
    if save:
        return {"opcode": "TensorSave", "name": f"s{k}", "engine": "SP", "ins": [reg], "outs": [mem]}
    return {"opcode": "TensorLoad", "name": f"l{k}", "engine": "SP", "ins": [mem], "outs": [reg]}


def _load_save_kernel(tmp_path: Path, insts: list[dict[str, Any]]) -> Path:
    out = {"name": "o_set", "kind": "Internal", "dtype": "int32",
           "memorylocations": [{"name": "o", "type": "DRAM", "addr": 0, "dims": [1, 1 << 31], "tensor_id": 7}]}
    doc = {"arch": "gen2", "functions": [{"name": "f", "allocations": [*KERNELS.ALLOCATIONS, out],
                                          "registers": KERNELS.REGISTERS,
                                          "blocks": [{"name": "b", "instructions": insts}]}]}
    p = tmp_path / "ls.json"
    p.write_text(json.dumps(doc, separators=(",", ":")))
    return p


def test_load_save_offsets_are_placed_in_var_offset(tmp_path, monkeypatch):
    """TensorLoad/TensorSave's DRAM offset reaches the bundle only as var_offset = offset × size
    (D-8): every new offset is placed from the template (not re-encoded), and each bundle's bytes
    0x14..0x17 hold offset × 4 for int32 (and × 8 for int64)."""
    from tongasm.codegen import templates

    made = []
    real = templates.Template.instruction

    def counting(self, *a):
        made.append(1)
        return real(self, *a)

    monkeypatch.setattr(templates.Template, "instruction", counting)
    rnd = random.Random(5)
    offsets = rnd.sample(range(1, 1 << 29), 300)
    insts = [_load_save(k, off, save=k % 2 == 1) for k, off in enumerate(offsets)]
    insts += [_load_save(k, off, save=False, dtype="int64") for k, off in enumerate(offsets[:20])]
    p = _load_save_kernel(tmp_path, insts)
    fast = _outcome(p, fast=True)
    assert len(made) <= 4, len(made)  # the first of each shape's variants only
    monkeypatch.setattr(templates.Template, "instruction", real)
    assert fast == _outcome(p, fast=False) and fast[0] == "ok", fast[:3]
    sp = fast[1]["sp"]
    assert len(sp) == 64 * len(insts)
    for k, d in enumerate(insts):
        b = sp[64 * k: 64 * (k + 1)]
        size = 8 if k >= 300 else 4
        assert int.from_bytes(b[0x14:0x18], "little") == d[("outs" if d["opcode"] == "TensorSave" else "ins")][0][
            "offset"] * size, k


def test_a_load_offset_past_var_offset_raises_the_ordinary_error(tmp_path):
    """An offset whose byte offset does not fit var_offset's 32 bits (2**30 int32 elements = 2**32
    bytes) after placed ones: the same error as reading every instruction, naming the field."""
    insts = [_load_save(k, 100 + k, save=False) for k in range(10)]
    insts.append(_load_save(10, 1 << 30, save=False))
    insts.append(_load_save(11, (1 << 30) - 1, save=False))  # fits: 2**32 - 4
    p = _load_save_kernel(tmp_path, insts)
    fast, slow = _outcome(p, fast=True), _outcome(p, fast=False)
    assert fast == slow and fast[0] == "error" and "var_offset" in fast[2] and "l10" in fast[2], fast
    del insts[10]
    p = _load_save_kernel(tmp_path, insts)
    fast = _outcome(p, fast=True)
    assert fast == _outcome(p, fast=False) and fast[0] == "ok", fast
    assert int.from_bytes(fast[1]["sp"][64 * 10 + 0x14: 64 * 10 + 0x18], "little") == (1 << 32) - 4
