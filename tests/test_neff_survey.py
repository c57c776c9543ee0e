"""``tongasm neff survey`` on small hand-built NEFFs (the whole corpus is ``test_corpus.py``'s)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from neff_support import neff_of_members

from tongasm.cli import main
from tongasm.neff.survey import survey

ORDERING = bytes([0xB1, 0x10]) + bytes(62)  # SetOrderingMode, as the first bundle of every real stream
NO_LAYOUT = bytes([0x4E, 0x10]) + bytes(62)  # TensorCumulativeArithOp: an ISA opcode with no layout yet


def _neff(tmp_path: Path, name: str, pe: bytes, target: str = "cayman") -> Path:
    kelf = {"version": "1", "target": target, "graphs": [{"name": "sg00", "definition": "sg00/def.json"}]}
    defn = {"version": "0.6", "pe_instr": "PE.bin"}
    p = tmp_path / name
    p.write_bytes(neff_of_members([("kelf-0.json", json.dumps(kelf).encode()),
                                   ("sg00/def.json", json.dumps(defn).encode()), ("sg00/PE.bin", pe)]))
    return p


def test_survey_counts_bundles_files_and_distinct_bundles(tmp_path: Path) -> None:
    a = _neff(tmp_path, "a.neff", ORDERING + ORDERING + NO_LAYOUT)
    b = _neff(tmp_path, "b.neff", ORDERING)
    sv = survey([tmp_path], workers=1)
    assert sv.files == [str(a), str(b)] and not sv.unreadable
    ok = sv.lines[("gen3", "pe", 0xB1)]
    assert (ok.bundles, ok.distinct, len(ok.files), ok.decoded, ok.unexplained, ok.roundtrip) == (3, 1, 2, 3, 0, 3)
    assert ok.has_layout and ok.clean and not ok.findings
    odd = sv.lines[("gen3", "pe", 0x4E)]
    assert (odd.bundles, odd.decoded, odd.roundtrip, odd.has_layout) == (1, 0, 0, False)
    assert odd.examples["undecoded"] == ["a.neff:sg00/pe[2]"]
    assert sv.totals()["bundles"] == 4 and sv.totals()["lines_without_layout"] == 1


def test_survey_cli_exit_codes_json_and_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _neff(tmp_path, "a.neff", ORDERING)
    assert main(["neff", "survey", str(tmp_path), "--workers", "1"]) == 0  # every line with a layout clean
    assert "SetOrderingMode" in capsys.readouterr().out
    out = tmp_path / "s.json"
    assert main(["neff", "survey", str(tmp_path / "a.neff"), "--format", "json", "-o", str(out), "--workers", "1"]) == 0
    j = json.loads(out.read_text())
    assert j["totals"]["bundles"] == 1 and j["lines"][0]["opcode"] == 0xB1 and j["lines"][0]["clean"]
    assert main(["neff", "survey", str(tmp_path / "missing.neff")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["neff", "survey", str(tmp_path), "--workers", "0"]) == 2
    (tmp_path / "junk.neff").write_bytes(b"not a neff")
    assert main(["neff", "survey", str(tmp_path), "--workers", "1"]) == 2
    assert "junk.neff" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["neff", "survey", str(empty)]) == 2
