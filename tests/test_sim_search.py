"""The DVE search family without the corpus: bundles written here byte by byte from the byte map
(docs/formats.md: Max8, MatchValueLoad, MatchReplace8; the derivation is beside each value), decoded
to the fields they were written from, and run on hand-chosen data (S-70, S-71)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from tongasm.check import check_stream
from tongasm.decode.bundle import decode_bundle
from tongasm.isa import DecisionSet, get_target
from tongasm.sim.execute import execute
from tongasm.sim.machine import Machine, SimError
from tongasm.text.assembler import assemble_text
from tongasm.text.fast import fast_listing
from tongasm.text.listing import StreamInput

GEN2 = get_target("gen2")
P, N = 2, 16


def tensor4d(addr: int, n: int) -> bytes:
    return struct.pack("<I4h4H", addr, 1, 1, 1, 1, n, 1, 1, 1)  # ADDR4, steps (1, 1, 1, 1), counts (n, 1, 1, 1)


def max8_bundle(src_elements: int = N) -> bytes:
    b = bytearray(64)
    b[0:4] = bytes([0x6C, 0x10, 0, 0])                     # opcode, 16 dwords
    b[0x0C:0x20] = tensor4d(0x100, src_elements)            # src: SBUF p0 byte 0x100, 16 float32
    b[0x20:0x23] = bytes([0x0A, 0x0A, P])                   # float32 in, float32 out, 2 partitions
    b[0x30:0x3C] = struct.pack("<IhhHH", 0x200 + 7 * 4, -1, 0, 8, 1)  # dst: last of 8 at 0x21C, step -1, {0, 1}
    return bytes(b)


def mvl_bundle(n: int = 8) -> bytes:
    b = bytearray(64)
    b[0:4] = bytes([0x6D, 0x10, 0, 0])
    b[0x10:0x1C] = struct.pack("<IhhHH", 0x200, 1, 1, n, 1)  # the 8 values at 0x200, ascending, fill {1, 1}
    b[0x20], b[0x22] = 0x0A, P
    return bytes(b)


def mr8_bundle() -> bytes:
    b = bytearray(64)
    b[0:4] = bytes([0x6F, 0x10, 0, 0])
    b[0x0C:0x20] = tensor4d(0x100, N)                       # data
    b[0x20:0x23] = bytes([0x0A, 0x0A, P])
    b[0x28:0x2C] = struct.pack("<I", 0xFF800000)            # -inf
    b[0x2C:0x40] = tensor4d(0x100, N)                       # in place
    return bytes(b)


def machine(x: np.ndarray) -> Machine:
    m = Machine(GEN2)
    for p in range(P):
        m.sbuf[p * m.sbuf_stride + 0x100:p * m.sbuf_stride + 0x100 + 4 * N] = x[p].astype(np.float32).view(np.uint8)
    return m


def read(m: Machine, byte: int, n: int) -> np.ndarray:
    return np.stack([m.sbuf[p * m.sbuf_stride + byte:p * m.sbuf_stride + byte + 4 * n].view(np.float32)
                     for p in range(P)])


def run(m: Machine, raw: bytes, *decisions: str) -> None:
    ds = DecisionSet.parse(list(decisions))
    execute(m, "dve", decode_bundle(raw, decisions=ds), ds)


def test_the_hand_written_bundles_decode_to_their_fields() -> None:
    d = decode_bundle(max8_bundle())
    assert d.fmt.name == "Max8"
    assert (d.fields["src.addr"], d.fields["src.num0"], d.fields["num_partitions"]) == (0x100, N, P)
    assert (d.fields["dst.addr"], d.fields["dst.step0"], d.fields["dst.step1"], d.fields["dst.num0"]) == (0x21C, -1, 0, 8)
    d = decode_bundle(mvl_bundle())
    assert d.fmt.name == "MatchValueLoad" and (d.fields["src.addr"], d.fields["src.num0"]) == (0x200, 8)
    d = decode_bundle(mr8_bundle())
    assert d.fmt.name == "MatchReplace8" and d.fields["imm"] == 0xFF800000


def test_text_round_trip_and_checks() -> None:
    data = max8_bundle() + mvl_bundle() + mr8_bundle()
    lines = list(fast_listing([StreamInput("s.dve", data)], target=GEN2))
    assert "imm=-inf:float32" in "\n".join(lines)
    assert bytes(assemble_text("\n".join(lines)).streams["s.dve"]) == data
    assert check_stream(data, name="s.dve", target=GEN2, stream="dve") == []


def test_the_checks_refuse_what_the_book_asserts() -> None:
    bad = max8_bundle(src_elements=7) + mvl_bundle(n=4)
    found = [(f.check, f.field, f.value) for f in check_stream(bad, name="s.dve", target=GEN2, stream="dve")]
    assert ("search.eight", "src", 7) in found and ("search.eight", "src", 4) in found


X = np.array([[5, 3, 9, 1, 7, 2, 8, 6, 4, 0, 15, 11, 13, 10, 14, 12],
              [-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16]], dtype=np.float32)


def test_max8_leaves_the_8_largest_descending_in_memory() -> None:
    m = machine(X)
    run(m, max8_bundle())
    assert read(m, 0x200, 8).tolist() == [[15, 14, 13, 12, 11, 10, 9, 8], [-1, -2, -3, -4, -5, -6, -7, -8]]
    m = machine(X)
    run(m, max8_bundle(), "S-70=descending")
    assert read(m, 0x200, 8).tolist() == [[8, 9, 10, 11, 12, 13, 14, 15], [-8, -7, -6, -5, -4, -3, -2, -1]]


def test_match_replace_strikes_the_top_8() -> None:
    m = machine(X)
    for raw in (max8_bundle(), mvl_bundle(), mr8_bundle()):
        run(m, raw)
    inf = -np.inf
    assert read(m, 0x100, N).tolist() == [[5, 3, inf, 1, 7, 2, inf, 6, 4, 0, inf, inf, inf, inf, inf, inf],
                                          [inf] * 8 + [-9, -10, -11, -12, -13, -14, -15, -16]]


def test_duplicates_first_each_versus_all_equal() -> None:
    """Two latched 9s strike the first two of three 9s (S-71=first-each); all-equal strikes all three."""
    x = X.copy()
    x[0, :] = [9, 9, 9, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0]
    vals = np.array([[9, 9, 8, 7, 6, 5, 4, 3], [-1] * 8], dtype=np.float32)
    for reading, row0 in (("S-71=first-each", [-np.inf, -np.inf, 9]), ("S-71=all-equal", [-np.inf] * 3)):
        m = machine(x)
        for p in range(P):
            m.sbuf[p * m.sbuf_stride + 0x200:p * m.sbuf_stride + 0x220] = vals[p].view(np.uint8)
        run(m, mvl_bundle(), reading)
        run(m, mr8_bundle(), reading)
        assert read(m, 0x100, 3)[0].tolist() == row0


def test_match_replace_without_a_latch_stops() -> None:
    with pytest.raises(SimError, match="no MatchValueLoad before it"):
        run(machine(X), mr8_bundle())


def test_max8_of_fewer_than_8_stops() -> None:
    with pytest.raises(SimError, match="Max8 needs >= 8 src elements"):
        run(machine(X), max8_bundle(src_elements=7))


# --- the golden listing of one real bundle of each opcode of the search and batch-norm backward families ------

LISTING = Path(__file__).parent / "golden" / "listings" / "real" / "search_batchnorm_bf16_reduce.s"
#: copied from the corpus: MODULE_10341811298787591934 sg00/DVE.bin bundles 8496..8498,
#: MODULE_10954531377403532558 bundles 5, 8, 9 (yolox-trn1), model_795597d1 bundle 23 (causal-attention-trn1)
REAL = [
    "6c100000052113065000000040ce01010100010001000100a1030100010001000a0a3b0000000000000000000000000084f10201ffff"
    "00000800010000000000",
    "6d10000005060000781900000000000068f102010100010008000100000000000a003b000000000000000000000000000000000000"
    "0000000000000000000000",
    "6f100000000013060000000040ce01010100010001000100a1030100010001000a0a3b0000000000000080ff40ce0101010001000100"
    "0100a103010001000100",
    "63100000050413060200000068f30200b0f9020001000100010090010100010070f302000100010001009001010001003000000001"
    "00030018000000aa0a0a80",
    "641000000504000003000000000000002000000001000100030001000000c8430a008000000000000000000068f302000100000000"
    "0000000000000000000000",
    "651000000000130600000000aa0a0080b0f9020001000100010090010100010070f30200010001000100900101000100400000000100"
    "01000100900101000100",
    "8c10000005041306060000002885000001000100010001000004010001000100060a80000402000000000000289500000100010001"
    "0001000100010001000100",
]


def test_the_golden_listing_assembles_back_to_the_real_bytes() -> None:
    data = b"".join(bytes.fromhex(h) for h in REAL)
    stored = LISTING.read_text()
    assert bytes(assemble_text(stored, path=str(LISTING)).streams["real.dve"]) == data
    assert stored.split("\n", 1)[1] == "\n".join(fast_listing([StreamInput("real.dve", data)], target=GEN2)) + "\n"


def test_bir_match_replace_strikes_the_values_of_a_bir_max() -> None:
    """Max then MatchReplace from BIR (the top-k fold): the 8 largest of each row struck with -inf,
    each once (S-71: a duplicate of a struck value strikes a second element only if listed twice)."""
    from conftest import ap, inst, kernel, loc
    from tongasm.ir import read_bir
    from tongasm.sim.run import run_kernel

    x = np.zeros((128, 16384), np.float32)
    rows = np.array([[9, 1, 8, 2, 7, 3, 6, 4, 5, 0, 9.5, -1, 10, 11, 12, 0]] * 2, np.float32)
    rows[1] = rows[1][::-1]
    x[:2, 0:16] = rows
    data = ap("a", "float32", [[16384, 2], [1, 16]])
    vals = ap("a", "float32", [[16384, 2], [1, 8]], 64)
    k = kernel(inst("Max", [data], [vals], name="mx", engine="DVE"),
               inst("MatchReplace", [vals, data], [data], name="mr", engine="DVE", imm_value="-inf"),
               allocs=[loc("a")])
    out = run_kernel(read_bir(k), {"a": x}).outputs(["a"])["a"]
    for p in range(2):
        top = sorted(rows[p], reverse=True)[:8]  # 12, 11, 10, 9.5, 9, 8, 7, 6
        assert sorted(out[p, 64:72], reverse=True) == top
        want = rows[p].copy()
        for v in top:
            want[np.flatnonzero(want == v)[0]] = -np.inf
        np.testing.assert_array_equal(out[p, 0:16], want)
