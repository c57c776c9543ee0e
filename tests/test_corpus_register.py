"""RegisterAlu 0xA8 on every bundle of the real-NEFF corpus (cayman Pool, R-31): each decodes as the
immediate form with src1 at +0x14, passes check, explains fully and goes through the text form
unchanged; the rules still catch wrong bundles.
"""

from __future__ import annotations

from corpus_bundles import all_rows, check_ids, explain_and_round_trip, findings_of, real_streams

ALU = (0xA8,)


def test_every_register_alu_of_the_corpus_passes_check() -> None:
    rows, _ = all_rows(ALU)
    assert len(rows) == 2_704
    assert findings_of(real_streams(ALU)) == []


def test_every_register_alu_explains_and_round_trips() -> None:
    tried, problems = explain_and_round_trip(real_streams(ALU), ())
    assert tried > 10 and problems == []


def test_r31_the_immediate_path_puts_src1_at_0x14() -> None:
    rows, _ = all_rows(ALU)
    assert (rows[:, 0x0E] == 1).all() and (rows[:, 0x0D] == 0x09).all() and (rows[:, 0x0F] == 0).all()
    assert (rows[:, 0x11:0x14] == 0).all() and (rows[:, 0x15:0x18] == 0).all()
    assert set(rows[:, 0x14].tolist()) == {0x1F, 0x3C, 0x3D} and set(rows[:, 0x10].tolist()) <= {0x3C, 0x3D}


def test_the_register_alu_rules_still_catch_wrong_bundles() -> None:
    s = real_streams(ALU)[0]
    raw = s.rows[0].copy()
    assert check_ids(raw, s) == set()
    bad = raw.copy()
    bad[0x0F] = 0x09  # D-7's dst dtype byte
    assert "field.constant" in check_ids(bad, s)
    bad = raw.copy()
    bad[0x11] = 0x3C  # D-7's src1 place
    assert "field.constant" in check_ids(bad, s)
