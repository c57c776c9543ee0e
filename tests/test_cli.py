"""The command line: files written, manifest, exit codes 0/1/2, no partial output on error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ap, imm, inst, kernel, loc, reg
from tongasm import expand_manifest
from tongasm.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "vector_add.json"


def run(*args: str) -> int:
    return main(list(args))


def test_assemble_example_writes_streams_and_manifest(tmp_path, capsys):
    out = tmp_path / "o"
    assert run("assemble", str(EXAMPLE), "-o", str(out)) == 0
    files = sorted(p.name for p in out.iterdir())
    assert files == ["act.bin", "dve.bin", "manifest.json", "memory.json", "sp.bin"]
    man = json.loads((out / "manifest.json").read_text())
    assert man["target"] == "gen2"
    assert man["instructions"]["name"] == ["add_ab", "sum_to_psum", "pick", "load_n", "set_limit", "add_count",
                                           "save_count"]
    entries = list(expand_manifest(man))
    add = entries[0]
    assert add["engine"] == "dve" and add["opcodes"] == [0x41] and add["offset"] == 0
    pick = entries[2]  # a Select: two bundles, copy then predicated copy
    assert pick["opcodes"] == [0x46, 0x72] and pick["offsets"] == [64, 128]
    mem = json.loads((out / "memory.json").read_text())
    assert {v["name"]: v["var_id"] for v in mem["variables"]}["n"] == 7
    sizes = {p.name: p.stat().st_size for p in out.iterdir() if p.suffix == ".bin"}
    assert sizes == {"dve.bin": 192, "act.bin": 64, "sp.bin": 256}
    for entry in entries:
        data = (out / f"{entry['engine']}.bin").read_bytes()
        assert data[entry["offset"]] == entry["opcodes"][0]
    assert "dve.bin" in capsys.readouterr().out


def test_assemble_census_and_target(tmp_path):
    out = tmp_path / "o"
    assert run("assemble", str(EXAMPLE), "-o", str(out), "--census", "--target", "gen3", "-q") == 0
    census = (out / "census.bin").read_bytes()
    assert len(census) == 8 * 64
    man = json.loads((out / "manifest.json").read_text())
    assert man["target"] == "gen3" and man["census"]["bundles"] == 8
    # program order: the census interleaves the streams in instruction order
    assert [census[i * 64] for i in range(8)] == [0x41, 0x46, 0x46, 0x72, 0xCE, 0xA7, 0xA8, 0xCD]


def test_error_writes_nothing_and_names_the_instruction(tmp_path, capsys):
    bad = kernel(inst("RegisterMove", [imm("int32", 1)], [reg("x", "int32")], name="good"),
                 inst("RegisterMove", [reg("x", "int64")], [reg("x", "int64")], name="bad_move"),
                 registers={"x": 1})
    src = tmp_path / "k.json"
    src.write_text(json.dumps(bad))
    out = tmp_path / "o"
    assert run("assemble", str(src), "-o", str(out)) == 1
    err = capsys.readouterr().err
    assert "bad_move" in err and "#1" in err and "64bit REG MOVE instr must have ImmediateValue src" in err
    assert "Traceback" not in err
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".o.tmp")]


def test_rerun_replaces_stale_streams(tmp_path):
    out = tmp_path / "o"
    assert run("assemble", str(EXAMPLE), "-o", str(out), "-q") == 0
    only_sp = kernel(inst("RegisterMove", [imm("int32", 1)], [reg("x")]), registers={"x": 1})
    src = tmp_path / "k.json"
    src.write_text(json.dumps(only_sp))
    assert run("assemble", str(src), "-o", str(out), "-q") == 0
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "memory.json", "sp.bin"]


@pytest.mark.parametrize("text,needle", [
    ("{not json", "not valid JSON"),
    ('{"arch": "gen2"}', "functions"),
    ('{"functions": [{"blocks": [{"instructions": [{"opcode": "TensorTensor", "op": "frobnicate"}]}]}]}',
     "unknown ALU op 'frobnicate'"),
    ('{"arch": "gen9", "functions": []}', "unknown arch 'gen9'"),
])
def test_bad_input_exits_2_with_a_clear_message(tmp_path, capsys, text, needle):
    src = tmp_path / "k.json"
    src.write_text(text)
    assert run("assemble", str(src), "-o", str(tmp_path / "o")) == 2  # unusable input (README)
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_usage_errors_exit_2(tmp_path, capsys):
    assert run("assemble", str(EXAMPLE)) == 2  # neither -o DIR nor --neff OUT.neff
    with pytest.raises(SystemExit) as e:
        run("assemble", str(EXAMPLE), "-o", str(tmp_path), "--target", "gen9")
    assert e.value.code == 2
    assert run("assemble", str(EXAMPLE), "-o", str(tmp_path / "o"), "--decision", "D-6=sideways") == 2
    with pytest.raises(SystemExit) as e:
        run("frobnicate")
    assert e.value.code == 2


def test_opcodes_command(capsys):
    assert run("opcodes", str(EXAMPLE), "--format", "json") == 0
    sets = json.loads(capsys.readouterr().out)
    assert [s["opcodes"] for s in sets] == [[0x41], [0x46], [0x46, 0x72], [0xCE], [0xA7], [0xA8], [0xCD]]
    sel = kernel(inst("Select", [ap("a", "uint8", [[1, 1]]), ap("a", "float32", [[1, 1]]),
                                 ap("a", "float32", [[1, 1]])], [ap("a", "float32", [[1, 1]])]),
                 allocs=[loc("a")])
    from tongasm.codegen import collect_opcodes
    from tongasm.ir import read_bir
    assert collect_opcodes(read_bir(sel))[0].opcodes == [0x46, 0x72]  # a lowered Select maps to two


def test_decode_command(tmp_path, capsys):
    out = tmp_path / "o"
    assert run("assemble", str(EXAMPLE), "-o", str(out), "-q") == 0
    assert run("decode", str(out / "dve.bin"), "--format", "json") == 0
    rows = json.loads(capsys.readouterr().out)
    assert [sorted(r) for r in rows] == [["fields", "format", "mnemonic", "offset", "opcode"]] * 3
    assert rows[0]["opcode"] == 0x41 and rows[0]["mnemonic"] == "TensorTensorArithOp"
    assert rows[0]["fields"]["op"] == 4 and rows[0]["offset"] == 0
    assert run("decode", str(out / "sp.bin")) == 0
    text = capsys.readouterr().out
    assert "Move" in text and "imm=0x64" in text


def test_decode_reports_bad_streams(tmp_path, capsys):
    p = tmp_path / "x.bin"
    p.write_bytes(bytes(70))
    assert run("decode", str(p)) == 2  # not a stream: unusable input
    assert "not a whole number of 64-byte bundles" in capsys.readouterr().err
    p.write_bytes(bytes([0x7F, 0x10]) + bytes(62) + bytes([0x41, 0x10]) + bytes(62))
    assert run("decode", str(p)) == 1
    io = capsys.readouterr()
    assert "0x7f (Dropout)" in io.err and "TensorTensorArithOp" in io.out
    p.write_bytes(bytes([0x77 + 0x80]) + bytes(63))
    assert run("decode", str(p)) == 1


def test_python_dash_m_and_help():
    r = subprocess.run([sys.executable, "-m", "tongasm", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "assemble" in r.stdout
    r = subprocess.run([sys.executable, "-m", "tongasm", "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and "tongasm" in r.stdout
