"""The PE family (0x01 Ldweights, 0x02 Matmul) on every bundle of the real-NEFF corpus: each one
decodes, passes check, explains with no unexplained byte and goes through the text form unchanged
(R-10, R-13, R-28), the decisions' evidence holds on the bytes (counted here with numpy, not with
tongasm's fields), and the rules still catch real bundles made wrong.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from corpus_bundles import RealStream, all_rows, check_ids, explain_and_round_trip, findings_of, real_streams

PE = (0x01, 0x02)
#: the bytes that vary with every bundle (sync value, the low ADDR4 bytes of both operands)
VARYING = (0x08, 0x09, 0x0A, 0x0B, 0x10, 0x11, 0x30, 0x31)


def _u16(rows: np.ndarray, off: int) -> np.ndarray:
    return rows[:, off].astype(np.int64) | rows[:, off + 1].astype(np.int64) << 8


def _i16(rows: np.ndarray, off: int) -> np.ndarray:
    v = _u16(rows, off)
    return np.where(v >= 0x8000, v - 0x10000, v)


def _partition(rows: np.ndarray) -> np.ndarray:
    w = rows[:, 0x10:0x14].astype(np.int64)
    word = w[:, 0] | w[:, 1] << 8 | w[:, 2] << 16 | w[:, 3] << 24
    return (word & 0x1FFFFFF) >> 18


def _book_group(start: np.ndarray, size: np.ndarray) -> np.ndarray:
    """The book's translateToRowGroup (isa/pe-matmul-encoding.md, LUT32 {1,2,4,8}, LUT64 {3,12,..})."""
    lut32, lut64 = np.array([1, 2, 4, 8, 1, 2, 4, 8]), np.array([3, 12, 32, 64])
    return np.where(size <= 32, lut32[(start >> 5) & 7], np.where(size <= 64, lut64[(start >> 6) & 3], 0x0F))


def test_every_pe_bundle_of_the_corpus_passes_check() -> None:
    streams = real_streams(PE)
    rows, _ = all_rows(PE)
    assert (int((rows[:, 0] == 1).sum()), int((rows[:, 0] == 2).sum())) == (379_567, 396_921)
    assert findings_of(streams) == []


def test_every_pe_shape_explains_and_round_trips() -> None:
    tried, problems = explain_and_round_trip(real_streams(PE), VARYING)
    assert tried > 1000 and problems == []


def test_r13_partial_tiles_and_the_book_group_codes() -> None:
    rows, _ = all_rows(PE)
    k, m = rows[:, 0x26].astype(np.int64), rows[:, 0x27].astype(np.int64)
    assert ((k >= 1) & (k <= 128) & (m >= 1) & (m <= 128)).all()
    assert int(((k < 128) | (m < 128)).sum()) == 659_691
    assert (rows[:, 0x2C] == _book_group(_partition(rows), k)).all()
    cg = rows[:, 0x2D]
    assert ((cg == _book_group(np.zeros_like(m), m)) | (cg == 0x0F)).all()


def test_r10_every_stationary_visits_its_columns_from_the_last() -> None:
    rows, _ = all_rows(PE)
    ldw = rows[rows[:, 0] == 1]
    steps = np.stack([_i16(ldw, 0x14 + 2 * i) for i in range(3)], 1)
    nums = np.stack([_u16(ldw, 0x1A + 2 * i) for i in range(3)], 1)
    m = ldw[:, 0x27].astype(np.int64)
    one_dim = (steps[:, 0] == -1) & (nums[:, 0] == m) & (nums[:, 1] == 1) & (nums[:, 2] == 1) & (steps[:, 1] == 0)
    quads = (steps[:, 0] == -1) & (nums[:, 0] == 32) & (steps[:, 2] == -32) & (nums[:, 2] * 32 == m) & \
        (nums[:, 1] == 1) & (steps[:, 1] == 0)
    assert (one_dim | quads).all()
    assert (int(quads.sum()), int(one_dim.sum())) == (76_382, 303_185)
    assert (m[quads] == 128).all() and (ldw[quads, 0x20] != 0x0A).all()  # quadrant runs: 128 columns, not fp32


def test_r28_fp32_mode_is_set_exactly_on_the_fp32_bundles() -> None:
    rows, _ = all_rows(PE)
    fp32 = rows[:, 0x20] == 0x0A
    mode = rows[:, 0x21]
    assert ((mode != 0) == fp32).all()
    assert set(mode[fp32 & (rows[:, 0] == 1)].tolist()) == {1, 2}  # LOW, HIGH
    assert set(mode[fp32 & (rows[:, 0] == 2)].tolist()) == {2, 3}  # HIGH (sunda), LOW_HIGH


def _first(op: int, want: Callable[[np.ndarray], bool]) -> tuple[np.ndarray, RealStream]:
    for s in real_streams(PE):
        for raw in s.rows:
            if raw[0] == op and want(raw):
                return raw.copy(), s
    raise AssertionError("no such bundle in the corpus")


def test_the_pe_rules_still_catch_wrong_bundles() -> None:
    raw, s = _first(0x01, lambda r: r[0x26] == 64 and r[0x2C] == 0x03)  # a real 64-row tile
    assert check_ids(raw, s) == set()
    bad = raw.copy()
    bad[0x2C] = 0x0F  # the whole-array code on a 64-row tile
    assert "pe.geometry" in check_ids(bad, s)
    bad = raw.copy()
    bad[0x12], bad[0x13] = 0x00, 0x01  # partition 64 with 64 rows: fits, but the row group must be 0x0C
    assert "pe.geometry" in check_ids(bad, s)
    bad[0x26] = 100  # 100 rows from partition 64: beyond the array
    assert "pe.geometry" in check_ids(bad, s)
    raw, s = _first(0x01, lambda r: r[0x27] == 128 and r[0x1E] == 4)  # a real quadrant-form stationary
    assert check_ids(raw, s) == set()
    bad = raw.copy()
    bad[0x14], bad[0x15] = 0x01, 0x00  # step +1: visits the columns first to last
    assert "pe.stationary_pattern" in check_ids(bad, s)
    bad = raw.copy()
    bad[0x1E] = 3  # 3 quadrants for 128 columns
    assert "pe.stationary_pattern" in check_ids(bad, s)
    bad = raw.copy()
    bad[0x2D] = 0x03  # column group of 64 columns on a 128-column tile
    assert "pe.geometry" in check_ids(bad, s)


@pytest.mark.parametrize("reading", ["R-13=whole-array"])
def test_r13_whole_array_reading_is_contradicted_by_the_corpus(reading: str) -> None:
    from tongasm.check.runner import check_stream
    from tongasm.isa import DecisionSet

    ds = DecisionSet.parse([reading])
    raw, s = _first(0x01, lambda r: r[0x26] == 64 and r[0x2C] == 0x03)
    found = check_stream(bytes(raw), target=s.target, stream=s.stream, decisions=ds, unmodelled="note")
    assert {f.check for f in found} == {"pe.geometry"}
