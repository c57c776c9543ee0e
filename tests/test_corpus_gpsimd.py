"""Acceptance of the Pool-engine (GPSIMD) opcodes on every real bundle of the shared corpus:
TensorScalarAddr 0x74, CustomOpHeader 0x85 / CustomOpPayload 0x86, PoolBufferLoad 0x67 / Gather 0x68,
Iota 0x7E and TensorScalarAffineSelect 0x92. Every bundle of them decodes to its layout, no non-zero
bit is outside a field, ``explain`` leaves nothing unexplained on one bundle of each pattern of
non-zero bytes, bytes -> text -> bytes is the identity on every stream that holds them, and the checks
find nothing on them. The counts are the corpus's (PROVENANCE.tsv's 96 NEFFs).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from corpus_support import corpus_files
from tongasm.check import CheckSet, check_stream
from tongasm.decode.batch import decode_stream
from tongasm.decode.bundle import decode_bundle
from tongasm.isa import DecisionSet, Target, get_target
from tongasm.isa.descriptors import decode_addr4
from tongasm.sim.execute import execute
from tongasm.sim.machine import Machine
from tongasm.isa.decisions.gpsimd import AffineSelectCompare
from tongasm.neff import Neff
from tongasm.neff.run import custom_functions
from tongasm.text.assembler import assemble_text
from tongasm.text.explain import explain_bundle
from tongasm.text.fast import fast_listing
from tongasm.text.listing import StreamInput, listing

#: opcode -> (layout, bundles in the corpus)
EXPECTED = {
    0x74: ("TensorScalarAddr", 559),
    0x85: ("CustomOpHeader", 92),
    0x86: ("CustomOpPayload", 460),
    0x67: ("PoolBufferLoad", 18),
    0x68: ("Gather", 18),
    0x7E: ("Iota", 16),
    0x92: ("TensorScalarAffineSelect", 8),
}


@dataclass(frozen=True)
class RealStream:
    file: str
    name: str
    engine: str
    target: Target
    data: bytes

    @property
    def rows(self) -> np.ndarray:
        return np.frombuffer(self.data, np.uint8).reshape(-1, 64)

    @property
    def mine(self) -> np.ndarray:
        return np.isin(self.rows[:, 0], list(EXPECTED))


@cache
def streams() -> tuple[RealStream, ...]:
    """Every corpus stream that holds a bundle of these opcodes."""
    out = []
    for cf in corpus_files():
        n = Neff.read(cf.path)
        for s in n.streams():
            data = n.stream_data(s)
            rows = np.frombuffer(data, np.uint8).reshape(-1, 64)
            if np.isin(rows[:, 0], list(EXPECTED)).any():
                out.append(RealStream(cf.relative, s.name, s.stream, n.target, data))
    return tuple(out)


def test_the_corpus_holds_these_opcodes_in_these_numbers() -> None:
    seen: Counter[int] = Counter()
    for s in streams():
        seen.update(int(op) for op in s.rows[s.mine, 0])
    assert dict(seen) == {op: n for op, (_name, n) in EXPECTED.items()}
    assert {s.engine for s in streams()} == {"pool"}


def test_every_bundle_decodes_to_its_layout_with_no_bit_outside_a_field_batch_and_scalar_alike() -> None:
    for s in streams():
        cols = decode_stream(s.data)
        rows = s.rows
        for k in np.flatnonzero(s.mine):
            name = cols.layout_names[cols.layout[k]] if cols.layout[k] >= 0 else None
            assert name == EXPECTED[int(rows[k, 0])][0], (s.file, s.name, int(k))
        for name, g in cols.groups.items():
            if name not in {v[0] for v in EXPECTED.values()}:
                continue
            mask = np.frombuffer(g.fmt.covered_mask(), np.uint8)
            assert not (rows[g.index] & ~mask).any(), (s.file, name)
            for j, k in enumerate(g.index.tolist()):  # the one-bundle decoder reads the same fields
                one = decode_bundle(s.data, 64 * k)
                assert one.fmt.name == name
                assert one.fields == {f: int(col[j]) for f, col in g.fields.items()}, (s.file, k)


def test_explain_leaves_no_byte_unexplained() -> None:
    """One bundle of each (opcode, pattern of non-zero bytes): every field has a confidence tag, no byte
    is unexplained, no error finding."""
    patterns: dict[tuple[int, bytes], tuple[bytes, Target]] = {}
    for s in streams():
        rows = s.rows
        for k in np.flatnonzero(s.mine):
            patterns.setdefault((int(rows[k, 0]), np.packbits(rows[k] != 0).tobytes()), (rows[k].tobytes(), s.target))
    assert len({op for op, _p in patterns}) == len(EXPECTED)
    for (op, _p), (raw, target) in patterns.items():
        ex = explain_bundle(raw, target=target)
        assert ex.layout == EXPECTED[op][0] and not ex.error and ex.unexplained == [], raw.hex()
        assert all(r.conf for r in ex.rows), raw.hex()
        assert ex.findings == [], (raw.hex(), [f.line() for f in ex.findings])


@pytest.mark.parametrize("index", range(len(EXPECTED)), ids=[v[0] for v in EXPECTED.values()])
def test_text_round_trip_is_the_identity_on_every_stream_holding_them(index: int) -> None:
    op = list(EXPECTED)[index]
    for s in streams():
        if not (s.rows[:, 0] == op).any():
            continue
        lines = list(fast_listing([StreamInput(s.name, s.data)], target=s.target))
        prog = assemble_text("\n".join(lines))
        assert bytes(prog.streams[s.name]) == s.data, (s.file, s.name)
        mnemonic = EXPECTED[op][0]
        assert sum(line.lstrip().startswith(mnemonic + " ") or f" {mnemonic} " in line for line in lines) \
            >= int((s.rows[:, 0] == op).sum()), (s.file, mnemonic)


def test_the_checks_find_nothing_on_these_bundles_pedantic_ones_included() -> None:
    for s in streams():
        findings = check_stream(s.data, name=s.name, target=s.target, stream=s.engine, unmodelled="note",
                                checks=CheckSet(pedantic=True))
        ours = [f for f in findings if f.offset is not None and s.mine[f.offset // 64]]
        assert ours == [], (s.file, [f.line() for f in ours])


# --- Iota against the graphs' HLO -------------------------------------------------------------------------

def _varint(b: bytes, i: int) -> tuple[int, int]:
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def _fields(b: bytes) -> list[tuple[int, int, object]]:
    """One protobuf message's (field number, wire type, value): enough of the wire format for HLO."""
    i, out = 0, []
    while i < len(b):
        k, i = _varint(b, i)
        f, t = k >> 3, k & 7
        v: object
        if t == 0:
            v, i = _varint(b, i)
        elif t == 2:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        elif t in (1, 5):
            v, i = b[i:i + (8 if t == 1 else 4)], i + (8 if t == 1 else 4)
        else:
            raise ValueError(f"wire type {t}")
        out.append((f, t, v))
    return out


def _ints(t: int, v: object) -> list[int]:
    if t == 0:
        return [int(v)]  # type: ignore[call-overload]
    out, i, b = [], 0, bytes(v)  # type: ignore[call-overload]
    while i < len(b):
        x, i = _varint(b, i)
        out.append(x)
    return out


def hlo_iotas(path: str) -> list[tuple[list[int], list[int]]]:
    """(shape dims, iota dimension) of every iota of an HloModuleProto (computations = 3, instructions = 2;
    an instruction's opcode = 2, shape = 3 (its dimensions = 3), dimensions = 14)."""
    out = []
    for f, _t, comp in _fields(open(path, "rb").read()):
        if f != 3:
            continue
        for cf, _ct, inst in _fields(bytes(comp)):  # type: ignore[arg-type]
            if cf != 2:
                continue
            fs = _fields(bytes(inst))  # type: ignore[arg-type]
            if not any(x == 2 and bytes(v) == b"iota" for x, _y, v in fs):  # type: ignore[arg-type]
                continue
            shape = next(bytes(v) for x, _y, v in fs if x == 3)  # type: ignore[arg-type]
            dims = [d for x, y, v in _fields(shape) if x == 3 for d in _ints(y, v)]
            out.append((dims, [d for x, y, v in fs if x == 14 for d in _ints(y, v)]))
    return out


def _sb_place(word: int) -> tuple[int, int]:
    a = decode_addr4(word)
    assert a.space == "sbuf" and a.partition is not None and a.byte is not None
    return a.partition, a.byte


def _run_iotas(relative: str) -> tuple[Machine, list[dict[str, int]]]:
    cf = next(c for c in corpus_files() if c.relative == relative)
    n = Neff.read(cf.path)
    s = next(s for s in n.streams() if s.stream == "pool")
    data = n.stream_data(s)
    m = Machine(get_target("gen2"))
    done = []
    for k in range(len(data) // 64):
        if data[64 * k] == 0x7E:
            d = decode_bundle(data, 64 * k)
            execute(m, "pool", d, DecisionSet())
            done.append(d.fields)
    return m, done


def test_iota_bundles_compute_the_hlo_iota_partition_index() -> None:
    """MODULE_11369514141456202230: HLO iota s*[9,1,1], iota_dimension 0; its one Iota bundle (9 lanes, one
    element, channel_multiplier 1) must leave lane p holding p."""
    cf = next(c for c in corpus_files() if c.relative.endswith("MODULE_11369514141456202230.neff"))
    assert hlo_iotas(str(cf.path.with_suffix(".hlo.pb"))) == [([9, 1, 1], [0])]
    m, (f,) = _run_iotas(cf.relative)
    p0, b0 = _sb_place(f["dst.addr"])
    got = [int(m.sbuf[(p0 + p) * m.sbuf_stride + b0:][:4].view(np.int32)[0]) for p in range(9)]
    assert got == list(range(9))


def test_iota_bundles_compute_the_hlo_iota_column_index() -> None:
    """MODULE_15847435347519622229: HLO iota s*[8400,80], iota_dimension 1 (the column index). Its five Iota
    bundles (105 lanes x 1280 = 8400 x 80 elements together) write, for base b = 0..4, pattern slot 0 {5, 16}
    and slot 1 {0, 80}: element i1*16 + i0 of a lane holds b + 5*i0, the column c = b + 5*i0 of row i1.
    Every column 0..79 of every row is written once, and holds its index."""
    cf = next(c for c in corpus_files() if c.relative.endswith("MODULE_15847435347519622229.neff"))
    assert hlo_iotas(str(cf.path.with_suffix(".hlo.pb"))) == [([8400, 80], [1])]
    m, fields = _run_iotas(cf.relative)
    assert sorted(f["base"] for f in fields) == [0, 1, 2, 3, 4]
    assert sum(f["num_partitions"] * f["dst.num0"] for f in fields) == 8400 * 80
    for f in fields:
        p0, b0 = _sb_place(f["dst.addr"])
        rows = np.stack([m.sbuf[(p0 + p) * m.sbuf_stride + b0:][:4 * 1280].view(np.int32)
                         for p in range(105)]).reshape(105, 80, 16)
        # by hand: the block of base b holds columns b, b+5, ..., b+75 in every row of every lane
        assert (rows == (f["base"] + 5 * np.arange(16))[None, None, :]).all()


# --- a golden listing of one real bundle per opcode (the golden-listing test wants every opcode listed) ---------

#: one real bundle per opcode (corpus NEFF, pool bundle index): the listing below is theirs
GOLDEN_BUNDLES = [
    ("yolox-trn1/MODULE_10080151182636209274.neff", 5,
     "74100000051a1303500000000080010001000100010001000400000000000000"
     "5000000000000000181800010604670000000000580000000100010001000100"),
    ("yolox-trn1/MODULE_10080151182636209274.neff", 6,
     "741000000503130302000000f016000001000100010001005800000000000000"
     "0000000000000000811801000400670000000000680000000100010001000100"),
    ("yolox-trn1/MODULE_14856528739640727327.neff", 4664,
     "8510000005060000663200000500000400000000000000000000000000000000"
     "0000000000000000000000000000000000000000000000000000000000000000"),
    ("yolox-trn1/MODULE_14856528739640727327.neff", 4665,
     "8610000000000000000000000000000101000a0000000000020001008e000000"
     "0000000000000000d0ad00001c010000010000001c0100000000000000000000"),
    ("yolox-trn1/MODULE_15847435347519622229.neff", 16,
     "6710000005060000000a000058ff820101000100010001000600010001000100"
     "0a0006000000000000000000ff01000000000000000000000000000000000000"),
    ("yolox-trn1/MODULE_15847435347519622229.neff", 17,
     "6810000000001303000000004801800101000100010001000100010001000100"
     "090a0600000100000000000000c0800101000100010001000100010001000100"),
    ("yolox-trn1/MODULE_15847435347519622229.neff", 3,
     "7e10000005061303e20900000300000005000000010001001000500001000100"
     "000869000000000000000000c05d000001000100010001000005010001000100"),
    ("causal-attention-trn1/model_3c6ff38f.neff", 4,
     "9210000005061303040000008066033d00000000010001000100010080000100"
     "0100010050c20000010001008000010050c200000100010080000100ffffffff"),
]
GOLDEN_LISTING = Path(__file__).parent / "golden" / "listings" / "real" / "gpsimd.s"


def _golden_text() -> str:
    raw = b"".join(bytes.fromhex(h) for _f, _i, h in GOLDEN_BUNDLES)
    return "\n".join(listing([StreamInput("gpsimd", raw)], target=get_target("gen2"))) + "\n"


def test_the_golden_bundles_are_the_corpus_bytes() -> None:
    by_name = {c.relative: c for c in corpus_files()}
    for f, i, h in GOLDEN_BUNDLES:
        n = Neff.read(by_name[f].path)
        s = next(s for s in n.streams() if s.stream == "pool")
        assert n.stream_data(s)[64 * i:64 * i + 64].hex() == h, (f, i)


def test_the_golden_listing_is_current_and_assembles_back() -> None:
    text = _golden_text()
    if os.environ.get("TONGASM_UPDATE_GOLDEN") == "1":
        GOLDEN_LISTING.write_text("; one real bundle per Pool-engine (GPSIMD) opcode (tests/test_corpus_gpsimd.py)\n" + text)
    stored = GOLDEN_LISTING.read_text()
    assert stored.split("\n", 1)[1] == text
    raw = b"".join(bytes.fromhex(h) for _f, _i, h in GOLDEN_BUNDLES)
    assert bytes(assemble_text(stored).streams["gpsimd"]) == raw


# --- the decisions, on the real bytes ----------------------------------------------------------------------

def _distinct(op: int) -> list[bytes]:
    return sorted({bytes(r) for s in streams() for r in s.rows[s.rows[:, 0] == op]})


def test_r70_value_words_are_eight_bytes() -> None:
    """R-70: an immediate -1 fills +0x20..+0x27; under R-70=u32-words those bundles break +0x24's reserved run."""
    minus_one = [r for r in _distinct(0x74) if r[0x20:0x28] == b"\xff" * 8]
    assert len(minus_one) == 16
    assert all(decode_bundle(r).fields["s1_value"] == (1 << 64) - 1 for r in minus_one)
    narrow = DecisionSet.parse(["R-70=u32-words"])
    assert all(explain_bundle(r, decisions=narrow, target=get_target("gen2")).findings for r in minus_one)
    assert all(explain_bundle(r, target=get_target("gen2")).findings == [] for r in minus_one)


def test_r71_kind_one_is_a_pointer() -> None:
    """R-71: every kind-1 value word is an SBUF ADDR4 aligned to its 8-byte (uint64) or 4-byte (int32) element;
    every kind-0 word is a small integer or -1."""
    for r in _distinct(0x74):
        f = decode_bundle(r).fields
        for s in ("s0", "s1"):
            word, w = f[f"{s}_value"], f[f"{s}_dtype"]
            if f[f"{s}_kind"] == 1:
                a = decode_addr4(word)
                assert a.space == "sbuf" and a.byte is not None and a.byte % (8 if w == 1 else 4) == 0, r.hex()
            else:
                assert f[f"{s}_kind"] == 0 and (word < 1024 or word == (1 << 64) - 1), r.hex()


def test_r72_each_header_is_followed_by_its_payloads() -> None:
    """R-72: +0x0C of a CustomOpHeader counts the CustomOpPayload bundles right after it; +0x0E is a
    ucode_lib.json sub_opcode of opcode 133."""
    for s in streams():
        ops = s.rows[:, 0]
        for k in np.flatnonzero(ops == 0x85):
            f = decode_bundle(s.data, 64 * int(k)).fields
            n = f["payloads"]
            assert (ops[k + 1:k + 1 + n] == 0x86).all() and (k + 1 + n == len(ops) or ops[k + 1 + n] != 0x86)
            assert f["function"] in (0, 1)
    for cf in corpus_files():
        n = Neff.read(cf.path)
        if any(n.stream_data(s)[0::64].count(0x85) for s in n.streams()):
            g = next(iter(n.graphs.values()))
            assert custom_functions(n, g) == {0: "partial_sort_multicore_compute", 1: "partial_merge_multicore_compute"}


def test_r73_gather_halves_come_in_pairs_with_one_lane_count() -> None:
    """R-73: every PoolBufferLoad is followed by a Gather with its lane count (not always its partitions);
    0x67 +0x28 is 0 and +0x2C 0x1FF, 0x68 +0x24 is 256 and reads one index, writes one element per lane."""
    for s in streams():
        ops = s.rows[:, 0]
        for k in np.flatnonzero(ops == 0x67):
            a, g = decode_bundle(s.data, 64 * int(k)).fields, decode_bundle(s.data, 64 * int(k) + 64).fields
            assert g["opcode"] == 0x68 and a["num_partitions"] == g["num_partitions"]
            assert g["src.num0"] == g["dst.num0"] == 1
            assert (a["element_count"], a["mask"], g["depth"], g["param"]) == (0, 0x1FF, 256, 0)


def test_r74_the_fill_register_is_set_by_the_register_move_before() -> None:
    """R-74: +0x0F names the register the RegisterMove just before the AffineSelect sets to 1.0f
    ('IDAffineSelect(mask,fill=1)'); the offset is 0 and the channel multiplier -1 (the identity's f - p)."""
    for s in streams():
        for k in np.flatnonzero(s.rows[:, 0] == 0x92):
            f = decode_bundle(s.data, 64 * int(k)).fields
            j = int(k) - 1
            while s.rows[j, 0] == 0x92:  # attn_v6: two selects after one move
                j -= 1
            prev = decode_bundle(s.data, 64 * j)
            assert prev.fmt.name.startswith("RegisterMove") and prev.fields["dst"] == f["fill_reg"] == 0x3D
            assert prev.fields["imm"] == 0x3F800000
            assert (f["compare"], f["offset"], f["channel_multiplier"]) == (3, 0, -1)


def test_s76_code3_not_equal_makes_the_identity() -> None:
    """S-76: with the real bundle's value f - p, only 'not equal' keeps 0 off the diagonal and writes the fill on it."""
    ds = DecisionSet.parse(["S-76=code3-equal"])
    assert ds.get(AffineSelectCompare).compare(3) == "equal"
    assert DecisionSet().get(AffineSelectCompare).compare(3) == "not_equal"
    assert DecisionSet().get(AffineSelectCompare).compare(1) is None


def test_bir_golden_vector_of_tensor_scalar_addr_is_a_real_bundle() -> None:
    """The TensorScalarAddr golden vector expects the real 0x74 bundle (its kernel reproduces it)."""
    from corpus_bundles import vector_is_real

    vector_is_real("gpsimd/001_tensor_scalar_addr_real_imm.json", "yolox-trn1/MODULE_10101716439099106427.neff",
                   "pool", [1])


# --- the gather pair against the HLO of its graph, on the memory the program places ------------------------

GATHER_GRAPH = "yolox-trn1/MODULE_15847435347519622229.neff"
#: the bundles of HLO gather.3276 (output0 = R1[select(p0 < 0, p0 + p1, p0)], R1 = gather.1 [6, 7]) and of
#: the index and table moves before it, in the order their semaphores allow: (stream, byte offset, opcode)
GATHER_CHAIN = [
    ("dve", 0x2B340, 0x69), ("dve", 0x2B380, 0x6A),  # I-12598-0: p1 from p32 byte 0 to p32..37 +0x2fff8
    ("dve", 0x2B3C0, 0x43),                          # I-12595-0: mask = p0 < 0
    ("dve", 0x2B480, 0x47),                          # I-14092-0: p1 as float32 to p96..101 byte 0
    ("act", 0x4ED40, 0x21),                          # I-12599-0: p0 + p1 (the bias) to +0x148
    ("dve", 0x2B500, 0x46), ("dve", 0x2B540, 0x72),  # I-12600-0: the select
    ("dve", 0x2B5C0, 0x46),                          # I-14093-0: the indices to p96..101 +0x148
    ("act", 0x4ED80, 0x21),                          # I-14736-0: R1 [6, 7] (p96 +0x18060) transposed at p64
    ("dve", 0x2B640, 0x69), ("dve", 0x2B680, 0x6A),  # I-12603-0: R1^T from p64 to p96..101 +0x2ff58
    *[("pool", 0x400 + 0x40 * k, 0x67 + (k & 1)) for k in range(14)],  # I-12605-0..6: the 7 gather pairs
]


def _dma_blocks(n: Neff, engine_json: str) -> dict[str, list[dict]]:  # type: ignore[type-arg]
    import json

    j = json.loads(n.member(f"sg00/{engine_json}"))
    return {b["#comment"]: b["desc"] for b in j["dma"]}


def _apply_copy(m: Machine, dram: dict[str, np.ndarray], desc: dict) -> None:  # type: ignore[type-arg]
    """One def.json 'copy' descriptor: [inner bytes, rows] with byte steps; SB offsets are ADDR4-like
    (partition << 18 | byte), as in the bundles."""
    sb = m.sbuf.reshape(128, m.sbuf_stride)
    (inner, rows), (_one, step) = desc["from_sizes"], desc["from_steps"]
    (t_inner, t_rows), (_t1, t_step) = desc["to_sizes"], desc["to_steps"]
    assert inner * rows == t_inner * t_rows and desc["op"] == "copy"

    def side(name: str, off: int, n: int, st: int, k: int) -> tuple[np.ndarray, int]:
        if name == "SB":
            a = off + k * st
            return sb[a >> 18], a & 0x3FFFF
        return dram[name], off + k * st

    data = b"".join(bytes(buf[o:o + inner]) for buf, o in (side(desc["from"], desc["from_off"], inner, step, k)
                                                           for k in range(rows)))
    for k in range(t_rows):
        buf, o = side(desc["to"], desc["to_off"], t_inner, t_step, k)
        buf[o:o + t_inner] = np.frombuffer(data[k * t_inner:(k + 1) * t_inner], np.uint8)


def test_s78_gather_pairs_compute_the_hlo_gather_on_the_placed_memory() -> None:
    """S-78 against HLO gather.3276 of MODULE_15847435347519622229: output0[j, :] = R1[i_j, :] with
    i = select(p0 < 0, p0 + p1, p0) (p0 = input0 s64[6], p1 = input1 s64, R1 = the [6, 7] float32 of the
    graph's first gather, spilled to gather.1). The inputs are put where the NEFF's own DMA descriptors
    put them (SP.json blocks I-12593, I-12596, I-12602), the bundles that move the indices and the table
    run in their semaphore order (GATHER_CHAIN: the select, a StreamShuffle broadcast of the table's
    transpose to the 6 lanes, the 7 PoolBufferLoad/Gather pairs), and Pool.json's output block I-12606
    reads the result: it must be R1[i] (by hand: i = [5, 3, 0, 0, 5, 4] for p0 = [-1, 3, -6, 0, 5, -2], p1 = 6)."""
    cf = next(c for c in corpus_files() if c.relative == GATHER_GRAPH)
    assert "gather" in [op for op, *_ in _hlo_ops(str(cf.path.with_suffix(".hlo.pb")))]
    n = Neff.read(cf.path)
    rng = np.random.default_rng(78)
    r1 = rng.standard_normal((6, 7)).astype(np.float32)
    p0 = np.array([-1, 3, -6, 0, 5, -2], np.int64)  # HLO p0.1 s64[6], p1.2 s64[] (the DMAs read the low words)
    dram = {"input0": np.frombuffer(p0.tobytes(), np.uint8).copy(),
            "input1": np.frombuffer(np.int64(6).tobytes(), np.uint8).copy(),
            "gather.1": np.frombuffer(r1.tobytes(), np.uint8).copy(),
            "output0": np.zeros(168, np.uint8)}
    m = Machine(get_target("gen2"))
    sp = _dma_blocks(n, "SP.json")
    for block in ("I-12593-0-block-1", "I-12596-0-block-1", "I-12602-0-block-1"):
        for desc in sp[block]:
            _apply_copy(m, dram, desc)
    data = {s.stream: n.stream_data(s) for s in n.streams() if s.graph == "sg00"}
    for stream, off, op in GATHER_CHAIN:
        d = decode_bundle(data[stream], off)
        assert d.opcode == op, (stream, hex(off), hex(d.opcode))
        execute(m, stream, d, DecisionSet())
    for desc in _dma_blocks(n, "Pool.json")["I-12606-0-block-1"]:
        _apply_copy(m, dram, desc)
    got = dram["output0"].view(np.float32).reshape(6, 7)
    idx = [5, 3, 0, 0, 5, 4]
    assert np.where(p0 < 0, p0 + 6, p0).tolist() == idx
    np.testing.assert_array_equal(got, r1[idx])


def _hlo_ops(path: str) -> list[tuple[str, list[int]]]:
    """(opcode, shape dims) of every instruction of an HloModuleProto (see :func:`hlo_iotas`)."""
    out = []
    for f, _t, comp in _fields(open(path, "rb").read()):
        if f != 3:
            continue
        for cf, _ct, inst in _fields(bytes(comp)):  # type: ignore[arg-type]
            if cf != 2:
                continue
            fs = _fields(bytes(inst))  # type: ignore[arg-type]
            op = next(bytes(v).decode() for x, _y, v in fs if x == 2)  # type: ignore[arg-type]
            shape = next(bytes(v) for x, _y, v in fs if x == 3)  # type: ignore[arg-type]
            out.append((op, [d for x, y, v in _fields(shape) if x == 3 for d in _ints(y, v)]))
    return out
