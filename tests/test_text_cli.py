"""disasm / asm / explain from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from tongasm.cli import main

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "vector_add.json"


def test_disasm_asm_round_trip_through_files(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["assemble", str(EXAMPLE), "-o", str(out), "-q"]) == 0
    bins = sorted(str(p) for p in out.glob("*.bin"))
    listing = tmp_path / "k.s"
    assert main(["disasm", *bins, "-o", str(listing)]) == 0
    text = listing.read_text()
    assert ".stream dve" in text and "TensorTensorArithOp op=add" in text and "upd sem3++" in text
    back = tmp_path / "back"
    assert main(["asm", str(listing), "-o", str(back), "-q"]) == 0
    for b in bins:
        assert (back / Path(b).name).read_bytes() == Path(b).read_bytes()
    man = json.loads((back / "manifest.json").read_text())
    assert man["streams"]["dve"]["bundles"] == 3


def test_disasm_bytes_and_json(tmp_path, capsys):
    out = tmp_path / "o"
    main(["assemble", str(EXAMPLE), "-o", str(out), "-q"])
    assert main(["disasm", str(out / "sp.bin"), "--bytes"]) == 0
    line = capsys.readouterr().out.splitlines()[2]
    assert line.count(" ") >= 16 and "…" not in line.split("|")[1]
    assert main(["disasm", str(out / "sp.bin"), "--format", "json"]) == 0
    js = json.loads(capsys.readouterr().out)
    row = js["streams"][0]["bundles"][1]
    assert row["mnemonic"] == "Move.imm" and row["text"].startswith("Move.imm dst=r4") and row["offset"] == 64


def test_asm_syntax_error_exit_1_with_line_and_column(tmp_path, capsys):
    src = tmp_path / "bad.s"
    src.write_text(".stream sp\nMove.imm dst=r4, imm=1:int32\nMove.imm dst=r4, imm=1:int99\n")
    assert main(["asm", str(src), "-o", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert f"{src}:3:" in err and "unknown dtype 'int99'" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_explain_forms(tmp_path, capsys):
    out = tmp_path / "o"
    main(["assemble", str(EXAMPLE), "-o", str(out), "-q"])
    assert main(["explain", f"{out / 'dve.bin'}:0"]) == 0
    text = capsys.readouterr().out
    assert "TensorTensorArithOp" in text and "D-6=innermost-first" in text and "checks: clean" in text
    raw = (out / "sp.bin").read_bytes()[64:128]
    assert main(["explain", raw.hex(), "--format", "json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert js["layout"] == "RegisterMove.imm" and {r["confidence"] for r in js["fields"]} <= {"C", "H", "I", "D"}
    assert main(["explain", f"{out / 'sp.bin'}@0x40"]) == 0
    assert "Move.imm" in capsys.readouterr().out
    assert main(["explain", "abcd"]) == 2  # unusable input
    assert "128 hex digits" in capsys.readouterr().err
    assert main(["explain", f"{out / 'sp.bin'}:9"]) == 2
    assert "no bundle at byte offset" in capsys.readouterr().err
