"""Growth is cheap: a new layout declared in ONE place (the record below) encodes from BIR JSON,
decodes (scalar and batch), lists (both listing paths), assembles back from its text, explains
every byte with its confidence, is checked, and appears in ``tongasm formats`` — with no other
module of tongasm edited. docs/adding-an-opcode.md walks through the same steps for a real opcode.
"""

from __future__ import annotations

import json
import struct
from typing import Iterator

import pytest

from tongasm.check.runner import check_stream
from tongasm.codegen import assemble
from tongasm.decode.batch import decode_stream
from tongasm.decode.bundle import decode_bundle
from tongasm.errors import EncodeError
from tongasm.isa import DecisionSet, build_formats
from tongasm.isa.descriptors import slot
from tongasm.isa.enums import ALU_WIRE, AluOp
from tongasm.isa.fields import Conf, Field, Kind
from tongasm.isa.layout import Binding, BirAttr, BirForm, EnumText, IntText, Layout, Sem, aps
from tongasm.isa.layouts import register
from tongasm.isa.layouts.common import dtype, u8
from tongasm.isa.opcodes import Op
from tongasm.isa.reference import formats_json, formats_markdown
from tongasm.isa.tables import ALU_TABLE
from tongasm.ir import read_bir
from tongasm.text.assembler import assemble_text
from tongasm.text.explain import explain_bundle
from tongasm.text.fast import fast_listing
from tongasm.text.listing import StreamInput, listing

# --- the one place: an opcode, its layout record (fields, slots, text, binding, BIR form) ----------------

TOY = Op(0xF3, "ToyScale", "ToyScale", "tensor", Conf.I, "toy: dst = src <op> factor (test only)")
TOY_OPS = {op: ALU_WIRE[op][0] for op in (AluOp.add, AluOp.mult, AluOp.max)}


def toy_layouts(ds: DecisionSet) -> list[Layout]:
    slots = (slot("src", 0x10, 3, dtype="src_dtype"), slot("dst", 0x30, 3, dtype="dst_dtype", write=True))
    body = (
        dtype("src_dtype", 0x0C, Conf.I, "wire(src dtype)"),
        dtype("dst_dtype", 0x0D, Conf.I, "wire(dst dtype)"),
        Field("op", 0x0E, 1, Kind.ENUM, enum=ALU_TABLE, conf=Conf.I, doc="ALU op"),
        u8("num_partitions", 0x0F, Conf.I, "active partitions (src)"),
        Field("factor", 0x20, 4, conf=Conf.D, decision="D-23", doc="the factor (u32)"),
    )
    return [Layout(
        "ToyScale", (TOY,), body, Sem.NONE,
        text=(EnumText(name="op", field="op"), *aps(slots, "src"), IntText(name="factor", field="factor")),
        slots=slots,
        binding=Binding({"src": "src", "dst": "dst"}, "src", dtypes={"src_dtype": "src", "dst_dtype": "dst"}),
        bir=BirForm("ToyScale", ins=("src",), outs=("dst",),
                    attrs=(BirAttr("op", "op", AluOp, wire=TOY_OPS, required=True),
                           BirAttr("factor", "factor", int, required=True))),
        doc="a toy layout declared by a test",
    )]


# --------------------------------------------------------------------------------------------------------------

@pytest.fixture
def toy() -> Iterator[None]:
    unregister = register(toy_layouts)
    try:
        yield
    finally:
        unregister()


def _kernel(factor: int = 3, op: str = "mult", parts: int = 128) -> dict:
    loc = {"name": "a", "type": "SB", "addr": 0x100, "base": 0, "bank": 0, "dims": [128, 65536]}
    src = {"kind": "physical_ap", "dtype": "float32", "ap": [[16384, parts], [1, 64]], "offset": 0, "memref": "a"}
    dst = {**src, "dtype": "bfloat16", "offset": 128}
    inst = {"opcode": "ToyScale", "name": "t0", "engine": "DVE", "op": op, "factor": factor,
            "ins": [src], "outs": [dst], "sync": {"update": {"mode": "sem_inc", "index": 4}}}
    return {"arch": "gen3", "functions": [{"name": "f", "allocations": [{"name": "a_set", "memorylocations": [loc]}],
                                           "blocks": [{"name": "b", "instructions": [inst]}]}]}


def _expected() -> bytes:
    """The bundle derived by hand from the record above (not from tongasm's output)."""
    b = bytearray(64)
    b[0], b[1] = 0xF3, 0x10  # opcode; D-1
    b[6], b[7] = 0x13, 4  # sem_inc (D-2 LUT), semaphore 4
    b[0x0C], b[0x0D], b[0x0E], b[0x0F] = 0x0A, 0x06, 0x06, 128  # fp32 src, bf16 dst, mult, 128 partitions
    b[0x10:0x20] = struct.pack("<I3h3H", 0x100, 1, 1, 1, 64, 1, 1)  # src: SBUF p0 + 0x100, [1x64], {1,1} fill
    b[0x20:0x24] = struct.pack("<I", 3)  # factor
    b[0x30:0x40] = struct.pack("<I3h3H", 0x100 + 256, 1, 1, 1, 64, 1, 1)  # dst: 128 bf16 elements later
    assert len(b) == 64
    return bytes(b)


def test_the_toy_layout_encodes_from_bir_json(toy: None) -> None:
    asm = assemble(read_bir(_kernel()), check="refuse")
    assert bytes(asm.streams["dve"]) == _expected()


def test_the_toy_layout_refuses_what_does_not_fit(toy: None) -> None:
    with pytest.raises(EncodeError, match="factor"):
        assemble(read_bir(_kernel(factor=1 << 32)))
    with pytest.raises(EncodeError, match="no wire value"):
        assemble(read_bir(_kernel(op="subtract")))
    with pytest.raises(EncodeError, match="num_partitions"):
        k = _kernel()
        k["functions"][0]["blocks"][0]["instructions"][0]["ins"][0]["ap"][0][1] = 300
        assemble(read_bir(k))


def test_the_toy_layout_decodes_scalar_and_batch(toy: None) -> None:
    raw = _expected()
    d = decode_bundle(raw)
    assert (d.fmt.name, d.fields["factor"], d.fields["op"], d.fields["dst.num0"]) == ("ToyScale", 3, 0x06, 64)
    cols = decode_stream(raw * 3)
    g = cols.groups["ToyScale"]
    assert len(g) == 3 and list(g.fields["factor"]) == [3, 3, 3] and list(g.fields["src.addr"]) == [0x100] * 3


def test_the_toy_layout_lists_and_assembles_back(toy: None) -> None:
    raw = _expected()
    lines = list(listing([StreamInput("dve", raw)]))
    assert lines == list(fast_listing([StreamInput("dve", raw)]))
    text = lines[-1]
    assert "ToyScale op=mult, src=sb[p0:128]+0x100[1x64].float32" in text and "factor=3" in text, text
    assert "upd sem4++" in text
    prog = assemble_text("\n".join(lines))
    assert bytes(prog.streams["dve"]) == raw


def test_the_toy_layout_explains_every_byte(toy: None) -> None:
    ex = explain_bundle(_expected())
    assert ex.layout == "ToyScale" and not ex.unexplained and not ex.error
    rows = {r.name: r for r in ex.rows}
    assert rows["factor"].conf == "D" and rows["factor"].decision == "D-23"
    assert rows["op"].meaning.startswith("mult")
    assert "toy: dst = src <op> factor" in rows["opcode"].meaning


def test_the_toy_layout_is_checked(toy: None) -> None:
    assert check_stream(_expected(), stream="dve") == []
    bad = bytearray(_expected())
    bad[0x10:0x14] = struct.pack("<I", 0x1F000000)  # neither SBUF nor the PSUM window
    bad[0x2A] = 0x55  # a byte no field explains
    found = {f.check for f in check_stream(bytes(bad), stream="dve")}
    assert {"addr4.region", "bundle.unexplained"} <= found


def test_the_toy_layout_appears_in_the_formats_reference(toy: None) -> None:
    assert "### ToyScale" in formats_markdown()
    entry = next(f for f in formats_json() if f["name"] == "ToyScale")
    assert entry["opcodes"] == {"0xf3": "ToyScale"} and {s["name"] for s in entry["slots"]} == {"src", "dst"}
    from tongasm.cli import main

    assert main(["formats", "--format", "json"]) == 0


def test_nothing_of_the_toy_is_left_behind(toy: None) -> None:
    assert "ToyScale" in build_formats().by_name
    json.dumps(formats_json())  # every record serialises


def test_without_the_toy_its_opcode_is_unknown() -> None:
    assert "ToyScale" not in build_formats().by_name
    assert 0xF3 not in build_formats().ops


def test_every_semantics_kind_has_a_simulator_handler() -> None:
    from tongasm.sim.execute import HANDLERS

    assert set(HANDLERS) == set(Sem)
    for fmt in build_formats():
        assert fmt.layout.sem in HANDLERS, fmt.name


def test_every_family_check_a_record_lists_exists() -> None:
    from tongasm.check.bundle_checks import BUNDLE_CHECKS

    known = {c.id for c in BUNDLE_CHECKS}
    for fmt in build_formats():
        missing = set(fmt.layout.checks) - known
        assert not missing, (fmt.name, missing)
