"""The sync/control bundles of the real-NEFF corpus (EventSemaphore 0xA0, Nop 0xA4, SetOrderingMode
0xB1, PseudoBranchLabel 0xCC): each decodes, passes check, explains fully and goes through the text
form unchanged; R-27's label ids are what PseudoRangeCheck branches to; the rules still catch wrong
bundles.
"""

from __future__ import annotations

from corpus_bundles import check_ids, explain_and_round_trip, findings_of, real_streams

CONTROL = (0xA0, 0xA4, 0xB1, 0xCC)
VARYING = (0x08, 0x09, 0x0A, 0x0B, 0x24, 0x25)


def test_every_control_bundle_of_the_corpus_passes_check() -> None:
    assert findings_of(real_streams(CONTROL)) == []


def test_every_control_shape_explains_and_round_trips() -> None:
    tried, problems = explain_and_round_trip(real_streams(CONTROL), VARYING)
    assert tried > 100 and problems == []


def test_r27_label_ids_are_unique_and_each_range_check_branches_to_a_later_one() -> None:
    labels = checks = 0
    for s in real_streams((0xCC, 0xD6)):
        at = {int(r[0x0C]) | int(r[0x0D]) << 8: int(i) for i, r in zip(s.index, s.rows) if r[0] == 0xCC}
        ids = [int(r[0x0C]) | int(r[0x0D]) << 8 for r in s.rows if r[0] == 0xCC]
        assert len(set(ids)) == len(ids), s.where
        labels += len(ids)
        for i, r in zip(s.index, s.rows):
            if r[0] == 0xD6:
                checks += 1
                target = int.from_bytes(bytes(r[0x30:0x34]), "little")
                assert target in at and at[target] > int(i), s.where
        assert all(not r[0x10:].any() and not r[0x0E:0x10].any() for r in s.rows if r[0] == 0xCC)
    assert (labels, checks) == (364, 234)


def test_the_label_rules_still_catch_wrong_bundles() -> None:
    s = next(x for x in real_streams((0xCC,)) if (x.rows[:, 0x0C] != 0).any())
    raw = s.rows[s.rows[:, 0x0C] != 0][0].copy()
    assert check_ids(raw, s) == set()
    raw[0x10] = 1  # a byte after the label id
    assert "field.constant" in check_ids(raw, s)
