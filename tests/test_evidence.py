"""``tongasm decisions --evidence FILE.neff``: every D-n and R-n weighed against real compiled bytes."""

from __future__ import annotations

import hashlib
import json

import pytest
from neff_support import groundtruth_dir, large, small

from tongasm.cli import main
from tongasm.isa import DecisionSet
from tongasm.isa.decisions import DECISIONS
from tongasm.isa.opcodes import TT_ARITH
from tongasm.neff import read_neff
from tongasm.neff.evidence import CONFIRMED, CONTRADICTED, NOT_EXERCISED, decision_evidence

#: the first 16 hex digits of each real NEFF's SHA-256 (groundtruth README)
SHA = {"matmul_small.neff": "5100752fb155fff1", "matmul_large.neff": "9b96f4cffb6b5180"}


@pytest.mark.parametrize("name", sorted(SHA))
def test_the_real_neffs_are_the_ones_the_provenance_names(name: str) -> None:
    assert hashlib.sha256((groundtruth_dir() / name).read_bytes()).hexdigest()[:16] == SHA[name]


@pytest.fixture(scope="module")
def large_evidence() -> dict:
    return {e.id: e for e in decision_evidence(read_neff(large()))}


@pytest.fixture(scope="module")
def small_evidence() -> dict:
    return {e.id: e for e in decision_evidence(read_neff(small()))}


def test_every_wire_decision_gets_a_verdict(small_evidence: dict) -> None:
    want = {d for d in DECISIONS if d[0] in "DR"}
    assert set(small_evidence) == want
    for e in small_evidence.values():
        assert e.status in (CONFIRMED, CONTRADICTED, NOT_EXERCISED)
        assert {r.reading for r in e.readings} == set(DECISIONS[e.id].choices)


def test_nothing_the_spec_chose_is_contradicted_by_the_real_files(small_evidence: dict, large_evidence: dict) -> None:
    for evs in (small_evidence, large_evidence):
        assert [e.id for e in evs.values() if e.status == CONTRADICTED] == []


def test_the_update_lut_and_the_sync_band_are_confirmed_and_their_alternatives_ruled_out(large_evidence: dict) -> None:
    d2, d3 = large_evidence["D-2"], large_evidence["D-3"]
    assert d2.status == d3.status == CONFIRMED
    assert {r.reading: r.fits for r in d2.readings} == {"lut": True, "raw": False}
    assert {r.reading: r.fits for r in d3.readings} == {"all": True, "sp-only": False}
    assert d2.bundles and all(b.startswith("sg0") for b in d2.bundles)


def test_r7_the_book_slot_order_is_ruled_out_on_the_large_neff(large_evidence: dict, small_evidence: dict) -> None:
    r7 = large_evidence["R-7"]
    assert r7.status == CONFIRMED
    fits = {r.reading: r.fits for r in r7.readings}
    assert fits["in0-in1-out"] is True and fits["out-in0-in1"] is False
    # the bytes cannot tell the output +0x20 from +0x30, nor the input order of a commutative add
    assert fits["in0-out-in1"] is True and fits["in1-in0-out"] is True
    assert small_evidence["R-7"].status == NOT_EXERCISED  # no TensorTensor in the small file


def test_container_decisions(small_evidence: dict) -> None:
    r1 = {r.reading: r.fits for r in small_evidence["R-1"].readings}
    assert r1 == {"copy": True, "md5-payload": False, "zero": False}
    r6 = {r.reading: r.fits for r in small_evidence["R-6"].readings}
    assert r6["neff-json-last"] is True and r6["byte-order"] is False


def test_decisions_the_files_do_not_touch_are_not_exercised(large_evidence: dict) -> None:
    for did in ("D-7", "D-8", "D-14", "D-15", "D-16", "D-20", "D-22", "D-27"):
        assert large_evidence[did].status == NOT_EXERCISED, did


def test_a_tampered_bundle_contradicts_the_update_lut(tmp_path) -> None:
    """Write a TensorTensor's update as the raw ordinal 3 (sem_inc under D-2=raw): the LUT reading no
    longer fits that bundle, the raw one does, and the report names it."""
    neff = read_neff(large())
    s = next(s for s in neff.streams() if s.graph == "sg00" and s.stream == "dve")
    data = bytearray(neff.stream_data(s))
    k = next(i for i in range(0, len(data), 64) if data[i] == TT_ARITH.byte and data[i + 6] == 0x13)
    data[k + 6] = 3
    neff.replace_stream("sg00", "dve", bytes(data))
    path = tmp_path / "tampered.neff"
    path.write_bytes(neff.to_bytes())
    ev = {e.id: e for e in decision_evidence(read_neff(path))}
    d2 = ev["D-2"]
    assert d2.status == CONTRADICTED
    assert f"sg00/dve[{k // 64}]" in d2.readings[0].bundles
    assert main(["decisions", "--evidence", str(path)]) == 1


def test_cli_text_and_json(capsys) -> None:
    assert main(["decisions", "--evidence", str(small())]) == 0
    text = capsys.readouterr().out
    assert "D-2   confirmed" in text and "raw" in text and "ruled out" in text
    assert main(["decisions", "--evidence", str(small()), "--format", "json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert {d["id"] for d in js["decisions"]} == {d for d in DECISIONS if d[0] in "DR"}


def test_cli_refuses_what_is_not_a_neff(tmp_path, capsys) -> None:
    bad = tmp_path / "x.neff"
    bad.write_bytes(b"not a neff")
    assert main(["decisions", "--evidence", str(bad)]) == 2
    assert "Traceback" not in capsys.readouterr().err
    assert main(["decisions", "--evidence", str(tmp_path / "missing.neff")]) == 2


def test_the_default_selection_is_what_the_report_calls_chosen(small_evidence: dict) -> None:
    ds = DecisionSet()
    for e in small_evidence.values():
        assert e.chosen == ds[e.id]
