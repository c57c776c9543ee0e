"""The DMA family on every bundle of the real-NEFF corpus: PseudoDmaDirect2d 0xD4 (R-23: the DGE
register mode's offset register), PseudoRangeCheck 0xD6 (R-29) and PseudoExtension 0xDA (R-30). Each
bundle decodes, passes check, explains with no unexplained byte and goes through the text form
unchanged; the decisions' evidence holds on the bytes; the rules still catch real bundles made wrong.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from corpus_bundles import RealStream, all_rows, check_ids, explain_and_round_trip, findings_of, real_streams

DMA = (0xD4, 0xD6, 0xDA)
VARYING = (0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x10, 0x11, 0x18, 0x19, 0x20, 0x21, 0x28, 0x29, 0x34, 0x35)


def test_every_dma_bundle_of_the_corpus_passes_check() -> None:
    rows, _ = all_rows(DMA)
    assert {op: int((rows[:, 0] == op).sum()) for op in DMA} == {0xD4: 2_159, 0xD6: 234, 0xDA: 912}
    assert findings_of(real_streams(DMA)) == []


def test_every_dma_shape_explains_and_round_trips() -> None:
    tried, problems = explain_and_round_trip(real_streams(DMA), VARYING)
    assert tried > 100 and problems == []


def test_r23_an_offset_register_exactly_on_the_dge_register_sides() -> None:
    rows, _ = all_rows((0xD4,))
    reg_mode = rows[:, 0x17] == 0x28
    assert int(reg_mode.sum()) == 912
    assert (rows[reg_mode, 0x26] == 0xBD).all()  # 0x80 | r61
    assert (rows[~reg_mode, 0x26] == 0).all() and (rows[:, 0x27] == 0).all() and (rows[:, 0x2F] != 0x28).all()


def test_r29_range_check_operands_are_two_tensor2d_and_an_sbuf_address() -> None:
    rows, _ = all_rows((0xD6,))
    for off in (0x0C, 0x34, 0x18):  # ADDR4 words in SBUF: below PSUM, partition < 128
        w = rows[:, off:off + 4].astype(np.int64)
        word = w[:, 0] | w[:, 1] << 8 | w[:, 2] << 16 | w[:, 3] << 24
        assert (word < 0x2000000).all()
    ones = np.array([1, 0] * 4, dtype=np.uint8)
    assert (rows[:, 0x10:0x18] == ones).all() and (rows[:, 0x38:0x40] == ones).all()  # steps 1, 1; counts 1, 1
    assert (rows[:, 0x1C:0x20] == 0).all() and (rows[:, 0x28] == 0x11).all() and (rows[:, 0x2A] == 1).all()


def test_r30_every_extension_continues_a_dge_register_dma() -> None:
    seen = 0
    for s in real_streams((0xD4, 0xDA)):
        pos = {int(i): r for i, r in zip(s.index, s.rows)}
        for i, r in zip(s.index, s.rows):
            if r[0] != 0xDA:
                continue
            seen += 1
            dma = pos[int(i) - 1]
            assert dma[0] == 0xD4 and dma[0x17] == 0x28, s.where
            assert r[0x0F] == {1: 0x10, 2: 0x08}[int(dma[0x14])], s.where  # in step with the DGE-table entry
            assert r[1] == 0 and not r[2:0x0F].any() and not r[0x10:].any()
        for i, r in zip(s.index, s.rows):  # and every register-mode DMA is followed by one
            if r[0] == 0xD4 and r[0x17] == 0x28:
                assert pos.get(int(i) + 1) is not None and pos[int(i) + 1][0] == 0xDA
    assert seen == 912


def _first(op: int, want: Callable[[np.ndarray], bool]) -> tuple[np.ndarray, RealStream]:
    for s in real_streams(DMA):
        for raw in s.rows:
            if raw[0] == op and want(raw):
                return raw.copy(), s
    raise AssertionError("no such bundle in the corpus")


def test_the_dma_rules_still_catch_wrong_bundles() -> None:
    raw, s = _first(0xD4, lambda r: r[0x17] == 0x28)
    assert check_ids(raw, s) == set()
    bad = raw.copy()
    bad[0x26] = 0  # a register-mode side without its offset register
    assert "dma.offset_reg" in check_ids(bad, s)
    raw, s = _first(0xD4, lambda r: r[0x17] == 0x20)
    bad = raw.copy()
    bad[0x26] = 0xBD  # an offset register on a DGE-immediate side
    assert "dma.offset_reg" in check_ids(bad, s)
    raw, s = _first(0xDA, lambda r: True)
    bad = raw.copy()
    bad[0x01] = 0x10  # a whole instruction's word length on a continuation
    assert "field.constant" in check_ids(bad, s)
    bad = raw.copy()
    bad[0x20] = 1  # a byte the continuation never holds
    assert "field.constant" in check_ids(bad, s)
    raw, s = _first(0xD6, lambda r: True)
    assert check_ids(raw, s) == set()
    bad = raw.copy()
    bad[0x28] = 0x12  # the book's constant tag
    assert "field.constant" in check_ids(bad, s)
    bad = raw.copy()
    bad[0x14] = 0  # a zero count in the first TENSOR2D operand
    assert "desc.count_range" in check_ids(bad, s)
