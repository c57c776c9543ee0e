"""The text layer: bytes → text → bytes identity (property-based and on every golden kernel), the
listing's behaviour on bad bundles, syntax errors with line and column, explain, and the decision
switches applied consistently to encode, decode, listing and explain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conftest import ap, inst, kernel, loc
from strategies import ALL_FORMATS, format_and_values
from tongasm.codegen import assemble
from tongasm.isa import DecisionSet, build_formats
from tongasm.ir import read_bir
from tongasm.text import StreamInput, TextSyntaxError, assemble_text, explain_bundle, listing, render_text

VECTORS = sorted((Path(__file__).parent / "golden" / "vectors").glob("**/*.json"))


def text_round_trip(raw: bytes, ds: DecisionSet) -> tuple[str, bytes]:
    lines = list(listing([StreamInput("dve", raw)], decisions=ds))
    prog = assemble_text("\n".join(lines))
    assert prog.decisions == ds
    return "\n".join(lines), bytes(prog.streams["dve"])


@settings(max_examples=500, deadline=None)
@given(format_and_values())
def test_bytes_text_bytes_is_the_identity_for_every_layout(case):
    ds, fmt, vals = case
    raw = fmt.encode(vals)
    text, back = text_round_trip(raw, ds)
    assert back == raw, text


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ALL_FORMATS), st.binary(min_size=64, max_size=64))
def test_identity_holds_with_unexplained_bytes(case, noise):
    ds, fmt, op = case
    raw = bytearray(noise)
    raw[0] = op
    for name, exp in fmt.match.items():  # keep the layout selectable
        f = fmt.field_map[name]
        if isinstance(exp, int):
            raw[f.offset:f.offset + f.size] = exp.to_bytes(f.size, "little")
    sel = build_formats(ds).select(op, bytes(raw))
    assume(sel is not None and sel[0] is fmt)
    text, back = text_round_trip(bytes(raw), ds)
    assert back == bytes(raw), text


@pytest.mark.parametrize("path", [p for p in VECTORS if "streams" in json.loads(p.read_text())["expect"]],
                         ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_kernel_bytes_text_bytes_is_stable(path):
    case = json.loads(path.read_text())
    ds = DecisionSet.parse(case.get("decisions") or [])
    asm = assemble(read_bir(case["kernel"]), target=case.get("target"), decisions=ds, check="off")
    text = "\n".join(listing([StreamInput(n, s) for n, s in asm.streams.items()], decisions=ds, target=asm.target))
    prog = assemble_text(text)
    assert {n: bytes(s) for n, s in prog.streams.items()} == {n: bytes(s) for n, s in asm.streams.items()}
    assert prog.target == asm.target
    again = "\n".join(listing([StreamInput(n, s) for n, s in prog.streams.items()], decisions=ds, target=prog.target))
    assert again == text


def test_undecodable_bundles_print_as_bytes_and_the_listing_goes_on():
    good = bytes.fromhex("a7100000000000000000000001080100" + "00" * 8 + "04" + "00" * 7 + "64000000" + "00" * 28)
    bad = bytes([0x7F, 0x10]) + bytes(62)
    weird = bytearray(good)
    weird[0x0C] = 3  # valid_num 3 matches no RegisterMove layout
    lines = list(listing([StreamInput("sp", good + bad + bytes(weird) + good)]))
    assert lines[2].endswith("Move.imm dst=r4, imm=100:int32")
    assert ".bytes 7f10" in lines[3] and "0x7f (Dropout)" in lines[3]
    assert ".bytes a710" in lines[4] and "no layout matches" in lines[4]
    assert lines[5].endswith("Move.imm dst=r4, imm=100:int32")
    back = assemble_text("\n".join(lines)).streams["sp"]
    assert bytes(back) == good + bad + bytes(weird) + good


def test_hand_written_text_assembles_to_the_golden_bytes():
    src = """
    ; a hand-written listing: offsets and byte columns are optional
    .target gen2
    .stream dve
    TensorTensorArithOp op=add, out=sb[p0:128]+0x1000[1x512].float32, in0=sb[p0:128][1x512].float32,
    """.replace(",\n", ", in1=sb[p0:128]+0x800[1x512].float32, upd sem3++\n")
    prog = assemble_text(src)
    # the bundle of tests/test_golden_tensor.py::test_tensor_tensor_add_float32 with an update sem_inc 3
    # in0 +0x10, in1 +0x20, out +0x30)
    expect = ("41100000" "00001303" "00000000" "aa0a0480" "00000000" "010001000100" "000201000100"
              "00080000" "010001000100" "000201000100" "00100000" "010001000100" "000201000100")
    assert bytes(prog.streams["dve"]).hex() == expect


@pytest.mark.parametrize("text,line,col,needle", [
    (".stream dve\nFrobnicate op=add", 2, 1, "unknown mnemonic 'Frobnicate'"),
    (".stream dve\nMove.imm dst=r4, imm=100", 2, 22, "needs its dtype"),
    (".stream dve\nMove.imm dst=r4, imm=1:int32, bogus=3", 2, 31, "no operand 'bogus'"),
    (".stream dve\nMove dst=r4", 2, 1, "this opcode has layouts"),
    ("Move.imm dst=r4, imm=1:int32", 1, 1, "no .stream directive"),
    (".stream dve\nCopy src=sb[p0:128][1x4].float32, dst=sb[p0:64][1x4].float32", 2, 39, "partition count 64"),
    (".stream dve\nCopy src=sb[q0:128][1x4].float32, dst=sb[p0:128][1x4].float32", 2, 10, "not an access pattern"),
    (".stream dve\n.bytes 00", 2, 1, "exactly 64 bytes"),
    # the cross-lane reduce's dst has one partition and no count field (the bundle does not store it)
    (".stream pool\nCrossLaneReduceArith op=add, src=sb[p0:128][1x8].float32, dst=sb[p0:2][1x8].float32, "
     "per_element=1", 2, 63, "no partition-count field: write sb[p0], not sb[p0:2]"),
    (".stream sp\nMove.imm dst=r4, imm=300:int8", 2, 22, "does not fit int8"),
    (".stream sp\nMove.imm dst=r999, imm=1:int32", 2, 14, "does not fit"),
    (".stream sp\nMove.imm dst=r4, imm=1:int32, wait sem3>=5 / upd sem4+=6", 2, 46, "share one value dword"),
    (".target gen7\n", 1, 9, "unknown target"),
    (".stream sp\nMove.imm dst=r4, imm=1:int32\n.target gen3", 3, 1, "before the first instruction"),
])
def test_syntax_errors_point_at_line_and_column(text, line, col, needle):
    with pytest.raises(TextSyntaxError) as ei:
        assemble_text(text, path="k.s")
    e = ei.value
    assert needle in str(e)
    assert (e.line, e.col + 1) == (line, col), str(e)
    assert str(e).startswith(f"k.s:{line}:{col}: ")
    assert "^" in str(e)


def test_explain_shows_every_field_with_its_confidence_and_flags_unexplained_bytes():
    raw = bytearray(bytes.fromhex("a7100000000000000000000001080100" + "00" * 8 + "04" + "00" * 7 + "64000000"
                                  + "00" * 28))
    ex = explain_bundle(bytes(raw))
    fmt = build_formats(DecisionSet()).by_name["RegisterMove.imm"]
    assert [r.name for r in ex.rows] == [f.name for f in fmt.fields]
    assert all(r.conf in ("C", "H", "I", "D") for r in ex.rows)
    imm = next(r for r in ex.rows if r.name == "imm")
    assert imm.decision == "D-23" and "100:int32" in imm.meaning and imm.offset == 0x20
    assert not ex.unexplained and not ex.findings
    raw[0x3C] = 0x55
    raw[0x10] = 0x01
    ex = explain_bundle(bytes(raw))
    assert [(r.offset, r.raw) for r in ex.unexplained] == [(0x10, "0x01"), (0x3C, "0x55")]
    assert {f.check for f in ex.findings} == {"bundle.unexplained"}
    text = render_text(ex)
    assert "!! bits 0x55 not explained" in text and "confidence: C = confirmed" in text
    js = ex.to_json()
    assert js["layout"] == "RegisterMove.imm" and len(js["unexplained"]) == 2


def test_explain_undecodable_bundle():
    ex = explain_bundle(bytes([0x7F, 0x10]) + bytes(62))
    assert ex.layout is None and "Dropout" in (ex.error or "")
    assert [r.offset for r in ex.unexplained] == [0, 1]


# --- decision switches: encode, decode, listing and explain agree (D-2, D-6, D-13, D-14, D-15, D-20) --

SW = [loc("a", "SB"), loc("m", "SB", addr=0x8000), loc("d", "DRAM", dims=(1, 4096))]
F = [[512, 128], [64, 4], [1, 64]]


@pytest.mark.parametrize("decision,kern,probe", [
    ("D-6=outermost-first", inst("TensorCopy", [ap("a", "float32", F)], [ap("a", "float32", F, offset=8192)],
                                 engine="DVE"), "src=sb[p0:128][64x4][1x64].float32"),
    ("D-2=raw", inst("TensorCopy", [ap("a", "float32", F)], [ap("a", "float32", F, offset=8192)], engine="DVE",
                     sync={"update": {"mode": "sem_sub_imm", "index": 2, "value": 3}}), "upd sem2-=3"),
    ("D-13=no-engine-gate", inst("TensorTensor", [ap("a", "int32", F)] * 2, [ap("a", "int32", F)], engine="DVE",
                                 op="add"), "TensorTensorIntAdd op=add_int"),
    ("D-14=reverse-pred", inst("CopyPredicated", [ap("m", "uint8", F), {"kind": "imm_value", "dtype": "float32",
                                                                         "value": 2.0}], [ap("a", "float32", F)],
                               engine="DVE"), "scalar=2.0:float32"),
    ("D-15=unencoded", inst("CopyPredicated", [ap("m", "uint8", [[512, 128], [1, 64]]),
                                               ap("a", "float32", [[512, 128], [1, 64]]),
                                               {"kind": "imm_value", "dtype": "float32", "value": 0.0}],
                            [ap("a", "float32", [[512, 128], [1, 64]], offset=4096)], engine="DVE", op="max"),
     "SelectReduce op=max"),
    ("D-20=u32", inst("MoveShape", [ap("d", "int8", [[0, 1], [100, 3], [1, 100]])]), "shape=[1x1][1x1][100x3][1x100]"),
])
def test_decision_switches_are_consistent(decision, kern, probe):
    ds = DecisionSet.parse([decision])
    asm = assemble(read_bir(kernel(kern, allocs=SW)), decisions=ds, check="off")
    default = assemble(read_bir(kernel(kern, allocs=SW)), check="off")
    assert asm.streams != default.streams or decision == "D-14=reverse-pred"
    (name, data), = asm.streams.items()
    lines = list(listing([StreamInput(name, data)], decisions=ds))
    assert f".decision {decision}" in lines
    assert probe in lines[-1], lines[-1]
    prog = assemble_text("\n".join(lines))
    assert bytes(prog.streams[name]) == bytes(data)
    ex = explain_bundle(bytes(data[:64]), decisions=ds)
    did = decision.split("=")[0]
    if any(r.decision.startswith(did + "=") for r in ex.rows):
        assert any(r.decision == decision for r in ex.rows)


def test_d6_reading_changes_what_the_same_bytes_mean():
    x = ap("a", "float32", F)
    data = assemble(read_bir(kernel(inst("TensorCopy", [x], [x], engine="DVE"), allocs=SW))).streams["dve"]
    inner = list(listing([StreamInput("dve", data)]))[-1]
    outer = list(listing([StreamInput("dve", data)], decisions=DecisionSet.parse(["D-6=outermost-first"])))[-1]
    assert "src=sb[p0:128][64x4][1x64].float32" in inner
    assert "src=sb[p0:128][1x64][64x4].float32" in outer
    ex = explain_bundle(bytes(data), decisions=DecisionSet.parse(["D-6=outermost-first"]))
    row = next(r for r in ex.rows if r.name == "src.step0")
    assert "from the outermost" in row.meaning and row.decision == "D-6=outermost-first"


# --- the fast listing path produces exactly the reference listing ---------------------------------

@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(format_and_values(), st.binary(min_size=64, max_size=64), st.integers(0, 9)),
                min_size=1, max_size=12), st.booleans())
def test_fast_listing_equals_the_reference_listing(cases, full):
    from tongasm.text.fast import fast_listing

    ds = cases[0][0][0]
    chunks = []
    for (cds, fmt, vals), noise, kind in cases:
        if cds != ds:
            continue
        raw = bytearray(fmt.encode(vals))
        if kind == 0:  # sprinkle bits no field explains
            mask = fmt.covered_mask()
            raw = bytearray(r | (n & ~m & 0xFF) for r, n, m in zip(raw, noise, mask))
        elif kind == 1:  # an undecodable bundle
            raw = bytearray([0x7F]) + bytearray(noise[1:])
        chunks.append(bytes(raw))
    data = b"".join(chunks)
    streams = [StreamInput("dve", data), StreamInput("sp", data[::-1][:0] + data[-64:])]
    assert list(fast_listing(streams, decisions=ds, full_bytes=full)) == \
        list(listing(streams, decisions=ds, full_bytes=full))


@st.composite
def repetitive_streams(draw):
    """A stream of 1-300 bundles of a few layouts whose fields take values from small pools, so the
    fast listing's memos see repeated keys, columns that are constant, and columns that vary in some
    key words only (what real streams look like); now and then a bundle with bits no field explains,
    an undecodable one, and BIR names for some bundles."""
    import random

    from strategies import field_values

    ds, _, _ = draw(st.sampled_from(ALL_FORMATS))
    fmts = [(fmt, op) for fmt in build_formats(ds) for op in fmt.opcodes]
    protos = [(fmt, draw(field_values(fmt, op))) for fmt, op in draw(st.lists(st.sampled_from(fmts), min_size=1,
                                                                                max_size=4))]
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    pools: dict[tuple[int, str], list[int]] = {}
    chunks = []
    for _ in range(draw(st.integers(1, 300))):
        k = rng.randrange(len(protos))
        fmt, base = protos[k]
        vals = dict(base)
        free = [f for f in fmt.fields if f.const is None and f.name not in fmt.match and f.name != "opcode"]
        for f in rng.sample(free, min(len(free), rng.choice([0, 1, 1, 2, 5]))):
            pool = pools.setdefault((k, f.name), [rng.randint(f.lo, f.hi) for _ in range(rng.choice([1, 2, 8]))])
            vals[f.name] = rng.choice(pool + [f.lo, 0, f.hi])
        raw = bytearray(fmt.encode(vals))
        roll = rng.random()
        if roll < 0.03:  # bits no field explains
            mask = fmt.covered_mask()
            raw = bytearray(r | (rng.randrange(256) & ~m & 0xFF) for r, m in zip(raw, mask))
        elif roll < 0.05:  # an undecodable bundle
            raw = bytearray([0x7F]) + bytearray(rng.randrange(256) for _ in range(63))
        chunks.append(bytes(raw))
    names = None
    if draw(st.booleans()):
        names = [rng.choice([None, "I-1", f"I-{rng.randrange(99)}"]) for _ in range(rng.randrange(len(chunks) + 2))]
    return ds, b"".join(chunks), names


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(repetitive_streams(), st.booleans(), st.sampled_from([3, 17, 64, 65536]), st.sampled_from([1, 4, 50, 10**6]),
       st.sampled_from([1, 3, 64]), st.sampled_from([0, 12]), st.booleans())
def test_fast_listing_equals_the_reference_listing_on_long_streams(case, full, chunk, limit, tables, direct, clash):
    """The fast listing's structure (layouts in columns, memos keyed on the words that vary, tables
    that fill and start again, listing in pieces) must not change a character: the lines equal the
    reference listing's, with small memo limits, few tables, no direct tables and a hash under which
    every key collides (so every probe path runs), and the text assembles back to the bytes."""
    from tongasm.text import fast

    ds, data, names = case
    saved = (fast.CHUNK, fast.CACHE_LIMIT, fast.MAX_TABLES, fast.DIRECT_BITS, dict(fast._TEMPLATES))
    hash_ = fast.MemoTable.__dict__["_hash"]  # the staticmethod itself
    try:
        fast.CHUNK, fast.CACHE_LIMIT, fast.MAX_TABLES, fast.DIRECT_BITS = chunk, limit, tables, direct
        fast._TEMPLATES.clear()  # fresh memos under these limits
        if clash:
            fast.MemoTable._hash = staticmethod(lambda k: k[0] & 0)  # type: ignore[method-assign]
        streams = [StreamInput("dve", data, names)]
        lines = list(fast.fast_listing(streams, decisions=ds, full_bytes=full))
        assert list(fast.fast_listing(streams, decisions=ds, full_bytes=full)) == lines  # warm memos: the same
    finally:
        fast.MemoTable._hash = hash_  # type: ignore[method-assign]  # (setattr keeps the staticmethod)
        fast.CHUNK, fast.CACHE_LIMIT, fast.MAX_TABLES, fast.DIRECT_BITS = saved[:4]
        fast._TEMPLATES.clear()
        fast._TEMPLATES.update(saved[4])
    assert lines == list(listing(streams, decisions=ds, full_bytes=full))
    assert bytes(assemble_text("\n".join(lines)).streams.get("dve", b"")) == data


def _bodies_of(lines: list[str]) -> list[str]:
    """The instruction text of each bundle line of a listing (after the bytes column, or the .bytes directive)."""
    out = []
    for ln in lines:
        if ln.startswith("."):
            continue
        rest = ln[ln.index(":") + 3:]
        out.append(rest if rest.startswith(".bytes") else rest[rest.index("|", 1) + 3:])
    return out


@settings(max_examples=25, deadline=None)
@given(repetitive_streams())
def test_stream_bodies_are_the_reference_instruction_texts(case):
    from tongasm.text.fast import stream_bodies

    ds, data, _ = case
    assert stream_bodies(data, decisions=ds) == _bodies_of(list(listing([StreamInput("dve", data)], decisions=ds)))


def test_stream_lines_past_4_gib_offsets():
    """A piece of a stream past 4 GiB lists with 9-digit offsets (the plain path), names included."""
    from tongasm.text.fast import stream_lines

    data = bytes(assemble(read_bir(Path(__file__).resolve().parents[1] / "examples" / "vector_add.json"))
                 .streams["dve"])[:3 * 64] + bytes([0x7F]) + bytes(63)
    ref = [ln for ln in listing([StreamInput("dve", data)]) if not ln.startswith(".")]
    base = (1 << 32) - 128
    names = ["I-1", None, "I-3"]
    want = [f"{base + 64 * i:08x}" + ln[8:] + (f"  ; {names[i]}" if i < 3 and names[i] else "") for i, ln in enumerate(ref)]
    assert len(want[2].split(":")[0]) == 9
    assert stream_lines(data, base=base, bir_names=names) == want


def test_memo_table_collisions_growth_and_packed_keys():
    """MemoTable: every key finds its own text under a hash where all keys collide, across table
    growth; a narrow key of several bit runs in two words packs into a direct index."""
    import numpy as np

    from tongasm.text import fast

    rng = np.random.default_rng(7)
    keys = np.unique(rng.integers(0, 2**63, 900, dtype=np.uint64))
    for clash in (False, True):
        t = fast.MemoTable([(3, 2**64 - 1), (5, 0xFF00)])
        if clash:
            t._hash = lambda k: k[0] & 0  # type: ignore[method-assign]
        lo = keys % np.uint64(7) << np.uint64(8)
        calls = []
        for part in (slice(0, 100), slice(50, 700), slice(0, len(keys))):  # the table grows past 256 entries

            def render(rows, part=part):  # rows of this lookup's keys
                calls.append(len(rows))
                return [f", k={int(keys[part][r])}:{int(lo[part][r])}" for r in rows]

            e = t.lookup([keys[part], lo[part]], render)
            assert [t.text[i] for i in e] == [f", k={int(a)}:{int(b)}" for a, b in zip(keys[part], lo[part])]
        assert sum(calls) == len(keys)  # each key rendered once
    t = fast.MemoTable([(0, 0b11 << 4 | 0b1 << 60), (1, 0b101)])  # 3 runs over two words, 6 bits
    assert t.direct is not None
    k0 = np.array([0, 1 << 4, 3 << 4, 1 << 60, 3 << 4 | 1 << 60], dtype=np.uint64)
    k1 = np.array([0, 1, 4, 5, 5], dtype=np.uint64)
    e = t.lookup([k0, k1], lambda rows: [f", r={int(r)}" for r in rows])
    assert [t.text[i] for i in e] == [", r=0", ", r=1", ", r=2", ", r=3", ", r=4"]
    assert len(set(t._index([k0, k1]).tolist())) == 5
    assert (t.lookup([k0[::-1], k1[::-1]], lambda rows: []) == e[::-1]).all()  # all found, none rendered


def test_fast_listing_in_pieces_equals_the_whole(monkeypatch):
    """fast_listing lists a long stream in pieces: offsets and lines must not change at the seams."""
    from tongasm.text import fast

    k = read_bir(Path(__file__).resolve().parents[1] / "examples" / "vector_add.json")
    asm = assemble(k)
    data = b"".join(bytes(s) for s in asm.streams.values()) * 3 + bytes([0x7F]) + bytes(63)  # + an undecodable one
    streams = [StreamInput("dve", data)]
    whole = list(listing(streams))
    monkeypatch.setattr(fast, "CHUNK", 4)
    assert list(fast.fast_listing(streams)) == whole


@pytest.mark.parametrize("name", ["sg00.pe", "my graph.pe", "a;b#c.dve", "grafo-ü.act", 'q"uote.pool'])
def test_a_stream_name_the_bare_directive_cannot_hold_is_quoted_and_reads_back(name: str) -> None:
    """A NEFF's graph names are data: a listing writes a name the bare ``.stream`` form cannot hold as a
    JSON string, and the assembler reads either form back to the same stream and bytes."""
    from tongasm.text.assembler import assemble_text
    from tongasm.text.listing import StreamInput, listing

    data = bytes.fromhex("b1100000" + "00" * 60) * 2  # two SetOrderingMode bundles
    text = "\n".join(listing([StreamInput(name, data)]))
    directive = next(line for line in text.splitlines() if line.startswith(".stream"))
    assert directive == (f".stream {name}" if name == "sg00.pe" else f".stream {json.dumps(name)}")
    prog = assemble_text(text)
    assert {k: bytes(v) for k, v in prog.streams.items()} == {name: data}


def test_a_stream_directive_with_a_broken_json_name_is_a_syntax_error() -> None:
    from tongasm.text.assembler import TextSyntaxError, assemble_text

    with pytest.raises(TextSyntaxError, match="a JSON string"):
        assemble_text('.stream "unterminated\n')
