"""The DVE search family on the real bytes: every Max8 (0x6C), MatchValueLoad (0x6D) and MatchReplace8
(0x6F) bundle of the corpus (yolox-trn1, neuronx-cc 2.14, the ``AwsNeuronTopK`` graphs) decodes to its
layout, ``explain`` finds no unexplained byte, bytes -> text -> bytes is the identity, the checks find
nothing, the fields the layouts tag V hold what the bytes hold (read here with ``struct`` at the
offsets the per-byte statistics found, not through tongasm), and the real top-k sequence (Max8,
MatchValueLoad, MatchReplace8 with -inf, Max8) leaves the 16 largest values in descending order in
memory, as ``AwsNeuronTopK`` returns them (S-70, S-71).
"""

from __future__ import annotations

import struct
from collections import Counter, defaultdict

import numpy as np
import pytest

from corpus_support import CorpusBundle, assert_explained, assert_text_round_trip, corpus_bundles
from tongasm.check import check_stream
from tongasm.decode.batch import decode_stream
from tongasm.decode.bundle import decode_bundle
from tongasm.isa import DecisionSet, get_target
from tongasm.sim.execute import execute
from tongasm.sim.machine import Machine

GEN2 = get_target("gen2")
MAX8, MVL, MR8 = 0x6C, 0x6D, 0x6F
OPS = frozenset({MAX8, MVL, MR8})
LAYOUT = {MAX8: "Max8", MVL: "MatchValueLoad", MR8: "MatchReplace8"}
#: the corpus census (bundles, distinct bundles), counted from the bytes
CENSUS = {MAX8: (30, 14), MVL: (15, 7), MR8: (15, 7)}


def bundles(op: int | None = None) -> list[CorpusBundle]:
    return [b for b in corpus_bundles(OPS) if op is None or b.raw[0] == op]


def distinct(op: int) -> list[bytes]:
    return sorted({b.raw for b in bundles(op)})


def u16(raw: bytes, off: int) -> int:
    return int(struct.unpack_from("<H", raw, off)[0])


def i16(raw: bytes, off: int) -> int:
    return int(struct.unpack_from("<h", raw, off)[0])


def u32(raw: bytes, off: int) -> int:
    return int(struct.unpack_from("<I", raw, off)[0])


@pytest.mark.parametrize("op", sorted(OPS))
def test_census(op: int) -> None:
    assert (len(bundles(op)), len(distinct(op))) == CENSUS[op]


@pytest.mark.parametrize("op", sorted(OPS))
def test_every_real_bundle_decodes_to_its_layout(op: int) -> None:
    data = b"".join(b.raw for b in bundles(op))
    cols = decode_stream(data)
    assert not cols.undecodable.any()
    assert list(cols.groups) == [LAYOUT[op]]


@pytest.mark.parametrize("op", sorted(OPS))
def test_no_unexplained_byte(op: int) -> None:
    assert_explained(distinct(op), LAYOUT[op], GEN2)


def test_text_round_trip_is_the_identity() -> None:
    assert_text_round_trip(bundles(), "dve", GEN2)


def test_the_checks_find_nothing() -> None:
    data = b"".join(b.raw for b in bundles())
    assert [f.line() for f in check_stream(data, name="search.dve", target=GEN2, stream="dve")] == []


# --- the per-byte statistics, field by field (values read with struct, not through tongasm) ------------------

def test_max8_fields() -> None:
    for raw in distinct(MAX8):
        d = decode_bundle(raw).fields
        src_elements = u16(raw, 0x18) * u16(raw, 0x1A) * u16(raw, 0x1C) * u16(raw, 0x1E)
        assert 8 <= src_elements <= 16384
        # +0x22 is the partition count, not the book's 'lane = element count low byte'
        assert raw[0x22] != src_elements & 0xFF and d["num_partitions"] == raw[0x22]
        # the destination: start at the last of 8 float32, step -1, the unused dim {0, 1} (the book's table)
        assert (i16(raw, 0x34), i16(raw, 0x36), u16(raw, 0x38), u16(raw, 0x3A)) == (-1, 0, 8, 1)
        assert (d["dst.step0"], d["dst.step1"], d["dst.num0"], d["dst.num1"]) == (-1, 0, 8, 1)
        assert raw[0x20] == raw[0x21] == 0x0A  # float32 in and out
        assert raw[0x23:0x30] == bytes(13) and raw[0x3C:0x40] == bytes(4)


def test_match_value_load_fields() -> None:
    for raw in distinct(MVL):
        d = decode_bundle(raw).fields
        # a plain ascending TENSOR2D: step0 +1, step1 1 (the D-6 fill); the book's negated step and zero step1
        # are contradicted by every real bundle
        assert (i16(raw, 0x14), i16(raw, 0x16), u16(raw, 0x18), u16(raw, 0x1A)) == (1, 1, 8, 1)
        assert (d["src.step0"], d["src.step1"], d["src.num0"], d["src.num1"]) == (1, 1, 8, 1)
        assert raw[0x21] == 0 and raw[0x0C:0x10] == bytes(4) and raw[0x1C:0x20] == bytes(4)
        assert raw[0x23:] == bytes(0x1D) and d["num_partitions"] == raw[0x22]


def test_match_replace8_fields() -> None:
    for raw in distinct(MR8):
        d = decode_bundle(raw).fields
        assert u32(raw, 0x28) == 0xFF800000 == d["imm"]  # -inf
        assert raw[0x0C:0x20] == raw[0x2C:0x40]  # in place
        assert raw[0x23:0x28] == bytes(5)


def test_each_top_k_sequence_runs_max8_mvl_mr8_max8_on_one_tile() -> None:
    """Per stream: Max8 (A), MatchValueLoad of A's 8 values, MatchReplace8 of Max8's source, Max8 (B) into
    the next 8 slots; all four share the partition count."""
    seqs: dict[tuple[str, str], list[CorpusBundle]] = defaultdict(list)
    for b in bundles():
        seqs[(b.file.relative, b.stream)].append(b)
    assert len(seqs) == 15
    for seq in seqs.values():
        assert [b.raw[0] for b in seq] == [MAX8, MVL, MR8, MAX8], seq[0].file.relative
        m1, mvl, mr, m2 = (b.raw for b in seq)
        assert [b.index for b in seq] == list(range(seq[0].index, seq[0].index + 4))
        assert len({m1[0x22], mvl[0x22], mr[0x22], m2[0x22]}) == 1
        assert u32(mvl, 0x10) == u32(m1, 0x30) - 7 * 4  # A's first element (Max8 starts at its last)
        assert u32(m2, 0x30) == u32(m1, 0x30) + 8 * 4  # B follows A
        assert m1[0x0C:0x20] == mr[0x0C:0x20] == m2[0x0C:0x20]


# --- the real sequence computes top-k ---------------------------------------------------------------------

def _sbuf_put(m: Machine, word: int, parts: int, arr: np.ndarray) -> None:
    p0, byte = word >> 18, word & 0x3FFFF
    a = np.ascontiguousarray(arr, dtype=np.float32).view(np.uint8).reshape(parts, -1)
    for p in range(parts):
        base = (p0 + p) * m.sbuf_stride + byte
        m.sbuf[base:base + a.shape[1]] = a[p]


def _sbuf_get(m: Machine, word: int, parts: int, n: int) -> np.ndarray:
    p0, byte = word >> 18, word & 0x3FFFF
    return np.stack([m.sbuf[(p0 + p) * m.sbuf_stride + byte:(p0 + p) * m.sbuf_stride + byte + 4 * n].view(np.float32)
                     for p in range(parts)])


def _run_top_k(seq: list[bytes], x: np.ndarray, ds: DecisionSet) -> np.ndarray:
    m1 = seq[0]
    parts = m1[0x22]
    m = Machine(GEN2)
    _sbuf_put(m, u32(m1, 0x0C), parts, x)
    for raw in seq:
        execute(m, "dve", decode_bundle(raw, decisions=ds), ds)
    return _sbuf_get(m, u32(seq[1], 0x10), parts, 16)  # A then B, ascending addresses


@pytest.mark.parametrize("reading", ["S-70=ascending", "S-70=descending"])
def test_the_real_top_k_sequence_leaves_the_16_largest_descending(reading: str) -> None:
    """What AwsNeuronTopK returns (values sorted descending). Under S-70=descending memory would hold each
    block of 8 ascending: that reading fails this test."""
    rng = np.random.default_rng(70)
    firsts = [b for b in bundles() if b.raw[0] == MAX8]
    seqs = [[b.raw for b in bundles() if b.file == f.file and b.stream == f.stream][:4] for f in firsts[::2]]
    ok = []
    for seq in seqs[:3]:
        parts, n = seq[0][0x22], u16(seq[0], 0x18)
        x = rng.permutation(parts * n).reshape(parts, n).astype(np.float32)  # distinct values
        got = _run_top_k(seq, x, DecisionSet.parse([reading]))
        ok.append(np.array_equal(got, -np.sort(-x, axis=1)[:, :16]))
    assert all(ok) is (reading == "S-70=ascending")


def test_duplicates_strike_distinct_elements_on_the_real_sequence() -> None:
    """S-71=first-each: a value that occurs 3 times among the top 8 is struck 3 times (once per latched copy),
    so the second Max8 finds the next values; under S-71=all-equal a 4th copy beyond the top 8 is struck too."""
    seq = [b.raw for b in bundles()][:4]
    parts, n = seq[0][0x22], u16(seq[0], 0x18)
    base = np.tile(np.arange(n, dtype=np.float32), (parts, 1))
    x = base.copy()
    x[:, :4] = n + 10.0  # 4 copies of the largest value: 4 of the top 8 (and top 16)
    want = np.concatenate([np.full((parts, 4), n + 10.0), np.tile(np.arange(n - 1, n - 13, -1, dtype=np.float32),
                                                                  (parts, 1))], axis=1)
    got = _run_top_k(seq, x, DecisionSet())
    assert np.array_equal(got, want)
    got_all = _run_top_k(seq, x, DecisionSet.parse(["S-71=all-equal"]))
    assert np.array_equal(got_all, want)  # all 4 copies are in the top 8 either way
    x[:, 4:8] = n + 10.0  # now 8 copies: the top 8 is all one value
    x[:, 8] = n + 10.0  # and a 9th copy
    first = _run_top_k(seq, x, DecisionSet())
    every = _run_top_k(seq, x, DecisionSet.parse(["S-71=all-equal"]))
    assert np.array_equal(first[:, 8], np.full(parts, n + 10.0))  # the 9th copy survives the first strike
    assert not np.isin(n + 10.0, every[:, 8:])  # every copy struck at once


def test_census_of_the_layouts_across_files() -> None:
    files = Counter(b.file.relative for b in bundles())
    assert len(files) == 15 and set(files.values()) == {4}


def test_bir_golden_vectors_are_real_bundles() -> None:
    """The MatchReplace golden vector expects the real pair (its kernel was written to reproduce it)."""
    from corpus_bundles import vector_is_real

    vector_is_real("search/003_match_replace_real_pair.json", "yolox-trn1/MODULE_10341811298787591934.neff", "dve",
                   [8497, 8498])
