"""``tongasm check`` and ``tongasm checks`` through ``tongasm.cli.main``: exit 0 clean, 1 when a check
fails (one line per finding naming the check id, the field and the value), 2 for unusable input;
the JSON report; ``--engine`` (or the engine from a file name such as pool.bin), ``--target``,
``--decision``, ``--pedantic``, ``--disable``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import imm, inst, reg
from tongasm.check import CHECKS, UNCHECKED, all_checks
from tongasm.cli import main

from test_checks import K, a, legal, mv, patched, sr, tt

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):
    def run(*args: Any) -> tuple[int, str, str]:
        rc = main([str(x) for x in args])
        io = capsys.readouterr()
        return rc, io.out, io.err
    return run


def write_kernel(tmp_path: Path, k: dict[str, Any], name: str = "k.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(k))
    return p


def write_bin(tmp_path: Path, data: bytes, name: str = "x.bin") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


# --- exit codes --------------------------------------------------------------------------------------

def test_clean_kernel_and_clean_stream_exit_0(cli, tmp_path):
    k = write_kernel(tmp_path, K(tt(), mv(imm("int32", 1)), sr(), tt(engine="Activation")))
    out_dir = tmp_path / "o"
    assert cli("assemble", k, "-o", out_dir, "-q")[0] == 0
    streams = sorted(out_dir.glob("*.bin"))
    assert [s.name for s in streams] == ["act.bin", "dve.bin", "sp.bin"]
    rc, out, err = cli("check", k, *streams)
    assert rc == 0, (out, err)
    assert out == ""
    assert f"{k}: 4 instructions, 4 bundles: clean" in err
    assert f"{out_dir / 'dve.bin'}: 2 bundles: clean" in err
    assert f"{out_dir / 'sp.bin'}: 1 bundle: clean" in err
    assert cli("check", write_bin(tmp_path, legal("tt")))[0] == 0


def test_failing_kernel_exits_1_with_one_line_per_finding(cli, tmp_path):
    k = K(dict(mv(imm("int32", 1), reg("r62")), name="bad_reg"),   # bundle level: register.id_range
          dict(tt(), name="fine"),
          dict(mv(reg("q", "int64"), reg("p", "int64")), name="bad_move"),  # encode level
          dict(tt(in0=a(pairs=[[1, 1], [1, 256]], offset=256, memref="edge")), name="bad_addr"))
    p = write_kernel(tmp_path, k)
    rc, out, err = cli("check", p)
    assert rc == 1
    lines = out.splitlines()
    assert len(lines) == 3, out
    assert "instruction 'bad_reg' #0 (RegisterMove)" in lines[0]
    assert "error[register.id_range]" in lines[0] and "dst = 62:" in lines[0] and "(allowed: 0..61)" in lines[0]
    assert "instruction 'bad_move' #2" in lines[1] and "error[move.64bit_src]" in lines[1] and " src:" in lines[1]
    assert "64bit REG MOVE instr must have ImmediateValue src" in lines[1]
    assert "error[addr4.composition]" in lines[2] and "in0.addr = (128, 0):" in lines[2]
    assert f"{p}: 4 instructions, 2 bundles: 3 findings" in err
    assert "Traceback" not in err


def test_failing_stream_exits_1_and_names_file_and_offset(cli, tmp_path):
    p = write_bin(tmp_path, legal("tt") + patched("tt", {"num_partitions": 0}))
    rc, out, err = cli("check", p)
    assert rc == 1
    (line,) = out.splitlines()
    assert line.startswith(f"{p}+0x40: error[partitions.count] num_partitions = 0:"), line
    assert "(allowed: 1..128)" in line
    assert f"{p}: 2 bundles: 1 finding" in err


def test_stream_level_findings(cli, tmp_path):
    p = write_bin(tmp_path, bytes([0x7F, 0x10]) + bytes(62) + legal("tt") + bytes(5))
    rc, out, _ = cli("check", p)
    assert rc == 1
    assert "+0x80: error[stream.length] length = 133:" in out
    assert "+0x0: error[bundle.opcode] opcode = 127:" in out and "0x7f (Dropout)" in out


def test_bir_stage_findings_fail_check(cli, tmp_path):
    """``assemble`` only warns about the BIR verifier's rules; ``check`` reports them and fails."""
    p = write_kernel(tmp_path, K(sr(op="min")))
    rc, out, _ = cli("check", p)
    assert rc == 1 and "error[sr.op_max] reduce_op = 9:" in out
    rc, _, err = cli("assemble", p, "-o", tmp_path / "o", "-q")
    assert rc == 0 and "warning[sr.op_max]" in err


def test_any_failing_input_fails_the_run(cli, tmp_path):
    good = write_kernel(tmp_path, K(tt()), "good.json")
    bad = write_bin(tmp_path, patched("tt", {"out.num1": 0}), "bad.bin")
    rc, out, err = cli("check", good, bad)
    assert rc == 1
    assert "error[desc.count_range] out.num1 = 0:" in out
    # a zero count also leaves out with fewer elements than in0/in1: two findings
    assert "error[tt.equal_elements] elements = out=0, in0=512, in1=512:" in out
    assert f"{good}: 1 instruction, 1 bundle: clean" in err and f"{bad}: 1 bundle: 2 findings" in err


@pytest.mark.parametrize("content,needle", [
    (None, "cannot read"),
    ("{not json", "not valid JSON"),
    ('{"arch": "gen2"}', "functions"),
    ('{"functions": [{"blocks": [{"instructions": [{"opcode": "TensorTensor", "ins": [{"kind": "physical_ap", '
     '"dtype": "float32", "ap": [[1, 1]], "memref": "nowhere"}], "outs": [], "op": "add"}]}]}]}',
     "unknown memory location 'nowhere'"),
    ('{"functions": [{"blocks": [{"instructions": [{"opcode": "TensorTensor", "op": "frobnicate"}]}]}]}',
     "unknown ALU op 'frobnicate'"),
    ('{"arch": "gen9", "functions": []}', "unknown arch 'gen9'"),
    ("[]", "must be a JSON object"),
], ids=["missing", "broken-json", "no-functions", "unknown-memref", "unknown-op", "unknown-arch", "not-an-object"])
def test_unusable_input_exits_2(cli, tmp_path, content, needle):
    p = tmp_path / "k.json"
    if content is not None:
        p.write_text(content)
    rc, out, err = cli("check", p)
    assert rc == 2, (out, err)
    assert needle in err and "Traceback" not in err and out == ""


def test_unusable_input_among_good_ones_exits_2(cli, tmp_path):
    good = write_kernel(tmp_path, K(tt()), "good.json")
    assert cli("check", good, tmp_path / "missing.bin")[0] == 2
    assert cli("check", tmp_path)[0] == 2  # a directory


def test_usage_errors_exit_2(cli, tmp_path):
    p = write_kernel(tmp_path, K(tt()))
    rc, _, err = cli("check", p, "--disable", "no.such_check")
    assert rc == 2 and "no.such_check" in err
    assert cli("check", p, "--decision", "D-6=sideways")[0] == 2
    for argv in (["check"], ["check", str(p), "--engine", "gpu"], ["check", str(p), "--target", "gen9"],
                 ["checks", "--format", "xml"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2


# --- JSON report -------------------------------------------------------------------------------------

def test_json_report_shape(cli, tmp_path):
    k = write_kernel(tmp_path, K(mv(imm("int32", 1), reg("r62")), mv(reg("q", "int64"), reg("p", "int64"))))
    s = write_bin(tmp_path, legal("tt") + patched("tt", {"in0.addr": 0x802}), "dve.bin")
    rc, out, _ = cli("check", k, s, "--format", "json")
    assert rc == 1
    doc = json.loads(out)
    assert set(doc) == {"clean", "inputs"} and doc["clean"] is False
    ki, si = doc["inputs"]
    assert {"input", "kind", "findings"} <= set(ki) and ki["kind"] == "kernel" and ki["input"] == str(k)
    assert (ki["instructions"], ki["bundles"]) == (2, 1)
    assert si["kind"] == "stream" and si["bundles"] == 2 and si["input"] == str(s)
    for f in ki["findings"]:
        assert {"check", "field", "value", "allowed", "instruction", "index"} <= set(f)
        assert "stream" not in f and "offset" not in f
    for f in si["findings"]:
        assert {"check", "field", "value", "allowed", "stream", "offset"} <= set(f)
        assert "instruction" not in f and "index" not in f
    reg_f, move_f = ki["findings"]
    assert (reg_f["check"], reg_f["field"], reg_f["value"], reg_f["allowed"]) == ("register.id_range", "dst", 62,
                                                                                 "0..61")
    assert (reg_f["instruction"], reg_f["index"], reg_f["opcode"]) == ("i0", 0, "RegisterMove")
    assert (move_f["check"], move_f["field"], move_f["value"], move_f["index"]) == ("move.64bit_src", "src", None, 1)
    (al,) = si["findings"]
    assert (al["check"], al["field"], al["value"], al["allowed"]) == ("addr4.alignment", "in0.addr", 0x802,
                                                                      "a multiple of 4")
    assert (al["stream"], al["offset"]) == ("dve.bin", 64)


def test_json_report_clean(cli, tmp_path):
    rc, out, _ = cli("check", write_kernel(tmp_path, K(tt())), "--format", "json")
    assert rc == 0
    doc = json.loads(out)
    assert doc["clean"] is True and doc["inputs"][0]["findings"] == []


# --- options -----------------------------------------------------------------------------------------

def test_engine_option_and_engine_from_file_name(cli, tmp_path):
    """tt.gpsimd_psum needs the engine: unknown for x.bin, given by --engine, or inferred from pool.bin."""
    raw = legal("tt_psum_in")  # a TensorTensor reading PSUM (legal on DVE)
    x = write_bin(tmp_path, raw, "x.bin")
    assert cli("check", x)[0] == 0
    rc, out, _ = cli("check", x, "--engine", "pool")
    assert rc == 1 and "error[tt.gpsimd_psum] in0.addr = 33554432 (0x2000000):" in out
    assert cli("check", x, "--engine", "dve")[0] == 0
    pool = write_bin(tmp_path, raw, "pool.bin")
    rc, out, _ = cli("check", pool)
    assert rc == 1 and f"{pool}+0x0: error[tt.gpsimd_psum]" in out
    assert cli("check", pool, "--engine", "dve")[0] == 0  # --engine wins over the file name
    assert cli("check", write_bin(tmp_path, raw, "dve.bin"))[0] == 0
    assert cli("check", write_bin(tmp_path, raw, "my_pool.bin"))[0] == 0  # only an engine name is an engine
    j = json.loads(cli("check", x, "--engine", "pool", "--format", "json")[1])
    assert j["inputs"][0]["findings"][0]["stream"] == "x.bin"


def test_target_option(cli, tmp_path):
    band = write_bin(tmp_path, legal("tt_int_gen2"), "pool.bin")  # 0x8A: the gen2 GPSIMD form
    assert cli("check", band)[0] == 0
    rc, out, _ = cli("check", band, "--target", "gen3")
    assert rc == 1 and "error[tt.int_band] opcode = 138:" in out
    save_sb = write_kernel(tmp_path, K(inst("TensorSave", [reg("rd")], [a("int32", [[1, 1]])], engine="SP")))
    rc, out, _ = cli("check", save_sb)
    assert rc == 1 and "error[ls.save_target] memory = SB:" in out
    assert cli("check", save_sb, "--target", "gen3")[0] == 0


def test_decision_option(cli, tmp_path):
    band = write_bin(tmp_path, legal("tt_int_gen2"), "dve.bin")
    rc, out, _ = cli("check", band)
    assert rc == 1 and "error[tt.int_band] engine = dve:" in out
    assert cli("check", band, "--decision", "D-13=no-engine-gate")[0] == 0


def test_pedantic_option(cli, tmp_path):
    p = write_kernel(tmp_path, K(tt("divide")))
    assert cli("check", p) == (0, "", f"{p}: 1 instruction, 1 bundle: clean\n")
    rc, out, _ = cli("check", p, "--pedantic")
    assert rc == 1 and "error[tt.alu_legal] op = 7:" in out
    s = write_bin(tmp_path, patched("tt", {"in0_dtype": 0x0C}), "dve.bin")
    assert cli("check", s)[0] == 0
    rc, out, _ = cli("check", s, "--pedantic")
    assert rc == 1 and "error[dtype.datapath] in0_dtype = 12:" in out


def test_disable_option(cli, tmp_path):
    p = write_kernel(tmp_path, K(mv(imm("int32", 1), reg("r62")), tt(out=a("bfloat16", memref="ps"))))
    rc, out, _ = cli("check", p)
    assert rc == 1 and "register.id_range" in out and "addr4.psum_write_dtype" in out
    rc, out, _ = cli("check", p, "--disable", "register.id_range")
    assert rc == 1 and "register.id_range" not in out and "addr4.psum_write_dtype" in out
    assert cli("check", p, "--disable", "register.id_range", "--disable", "addr4.psum_write_dtype") == (
        0, "", f"{p}: 2 instructions, 2 bundles: clean\n")
    s = write_bin(tmp_path, patched("tt", {"num_partitions": 0}), "dve.bin")
    assert cli("check", s, "--disable", "partitions.count")[0] == 0


# --- tongasm checks ----------------------------------------------------------------------------------

def test_checks_text(cli):
    rc, out, _ = cli("checks")
    assert rc == 0
    lines = out.splitlines()
    ids = [c.id for c in all_checks()]
    listed = [ln.split()[0] for ln in lines[:len(ids)]]
    assert listed == ids  # every check, sorted by id, one per line
    row = next(ln for ln in lines if ln.startswith("tt.alu_legal "))
    assert "bundle" in row and "isa, pedantic" in row and "[semantics dossier" in row
    row = next(ln for ln in lines if ln.startswith("cps.imm_dtype "))
    assert "encode/bundle" in row and "[D-27]" in row
    assert "Listed but not checked" in out
    for name in UNCHECKED:
        assert name in out


def test_checks_json(cli):
    rc, out, _ = cli("checks", "--format", "json")
    assert rc == 0
    doc = json.loads(out)
    assert set(doc) == {"checks", "unchecked"}
    assert [c["id"] for c in doc["checks"]] == sorted(CHECKS)
    for c in doc["checks"]:
        assert set(c) == {"id", "title", "source", "levels", "stage", "pedantic"}
        assert c["levels"] == list(CHECKS[c["id"]].levels) and c["stage"] in ("encode", "isa", "bir", "lint")
        assert isinstance(c["pedantic"], bool)
    assert {u["name"] for u in doc["unchecked"]} == set(UNCHECKED)
    assert all(u["why"] for u in doc["unchecked"])
    # stt.acc: the book allows a ScalarTensorTensor accumulator command but not what it folds (chapter §4.4)
    assert {c["id"] for c in doc["checks"] if c["pedantic"]} == {"dtype.datapath", "tt.alu_legal", "stt.acc"}


# --- known bugs --------------------------------------------------------------------------------------

def test_fixed_bin_starting_with_0x7b_is_read_as_json(cli, tmp_path):
    p = write_bin(tmp_path, bytes([0x7B, 0x10]) + bytes(62), "x.bin")
    rc, out, err = cli("check", p)
    assert rc == 1 and "error[bundle.opcode] opcode = 123:" in out, err


def test_lint_warnings_print_but_do_not_fail(cli, tmp_path):
    """tongasm's own lint stage: a SelectReduce register fill under D-16=one-byte is legal per the
    spec but unreadable from the bytes; check and assemble warn, exit 0 and (assemble) write."""
    k = write_kernel(tmp_path, K(sr(reg("r", "float32"))))
    rc, out, err = cli("check", k, "--disable", "sr.operands")
    assert rc == 0
    assert "warning[lint.sr_register_fill] fill = register_access:" in out
    assert f"{k}: 1 instruction, 1 bundle: clean, 1 warning" in err
    rc, out, err = cli("check", k, "--disable", "sr.operands", "--format", "json")
    doc = json.loads(out)
    assert rc == 0 and doc["clean"] is True
    assert [f["severity"] for f in doc["inputs"][0]["findings"]] == ["warning"]
    rc, out, err = cli("assemble", k, "-o", str(tmp_path / "out"))
    assert rc == 0 and (tmp_path / "out" / "dve.bin").exists()
    assert "lint.sr_register_fill" in err


# --- the target of a bare stream is found beside it, or the assumption is said ---------------------------

def test_a_stream_unpacked_from_a_gen3_neff_is_checked_as_gen3(tmp_path, capsys):
    from neff_support import small

    assert main(["neff", "unpack", str(small()), "-o", str(tmp_path / "u"), "-q"]) == 0
    pe = tmp_path / "u" / "sg00" / "PE.bin"
    capsys.readouterr()
    assert main(["check", str(pe)]) == 0  # gen2 rules would find errors in these gen3 bundles
    assert "assuming" not in capsys.readouterr().err
    alone = tmp_path / "pe.bin"
    alone.write_bytes(pe.read_bytes())
    assert main(["check", str(alone), "--target", "gen3"]) == 0
    main(["check", str(alone)])
    err = capsys.readouterr().err
    assert f"{alone}: no target given or recorded beside it" in err and "assuming gen2" in err


def test_disasm_and_explain_take_the_target_from_the_manifest(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["assemble", str(EXAMPLES / "mlp_gelu.json"), "-o", str(out), "-q", "--target", "gen3"]) == 0
    capsys.readouterr()
    assert main(["disasm", str(out / "pe.bin")]) == 0
    cap = capsys.readouterr()
    assert cap.out.startswith(".target gen3") and "assuming" not in cap.err
    assert main(["explain", f"{out / 'pe.bin'}:0"]) == 0
    assert "assuming" not in capsys.readouterr().err
    assert main(["explain", "00" * 64]) == 0
    assert "the bundle: no --target given; assuming gen2" in capsys.readouterr().err


def test_decode_takes_a_target_and_says_the_one_it_assumes(tmp_path, capsys):
    from neff_support import small

    out = tmp_path / "o"
    assert main(["assemble", str(EXAMPLES / "vector_add.json"), "-o", str(out), "-q"]) == 0
    alone = tmp_path / "dve.bin"
    alone.write_bytes((out / "dve.bin").read_bytes())
    capsys.readouterr()
    assert main(["decode", str(out / "dve.bin")]) == 0  # gen2 recorded in the manifest beside it
    assert "assuming" not in capsys.readouterr().err
    assert main(["decode", str(alone)]) == 0
    assert f"{alone}: no target given or recorded beside it" in capsys.readouterr().err
    assert main(["decode", str(alone), "--target", "gen3"]) == 0
    assert capsys.readouterr().err == ""
    # a NEFF names its own target; a --target that disagrees is a usage error
    assert main(["decode", f"{small()}:sg00/pe", "--target", "gen2"]) == 2
    assert "is a gen3 NEFF" in capsys.readouterr().err
    assert main(["decode", f"{small()}:sg00/pe", "--target", "gen3"]) == 0


def test_asm_says_the_target_it_assumes_without_a_target_directive(tmp_path, capsys):
    src = tmp_path / "t.s"
    src.write_text(".stream dve\n.bytes " + "00" * 64 + "\n")
    assert main(["asm", str(src), "-o", str(tmp_path / "a"), "-q", "--no-check"]) == 0
    assert f"{src}: no .target directive and no --target; assuming gen2" in capsys.readouterr().err
    assert json.loads((tmp_path / "a" / "manifest.json").read_text())["target"] == "gen2"
    assert main(["asm", str(src), "-o", str(tmp_path / "b"), "-q", "--no-check", "--target", "gen3"]) == 0
    assert capsys.readouterr().err == ""
    assert json.loads((tmp_path / "b" / "manifest.json").read_text())["target"] == "gen3"
    src.write_text(".target gen3\n.stream dve\n.bytes " + "00" * 64 + "\n")
    assert main(["asm", str(src), "-o", str(tmp_path / "c"), "-q", "--no-check"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("command", [["check"], ["opcodes"], ["assemble", "-q", "-o", "OUT"], ["run", "-q", "-o", "OUT"]])
def test_a_kernel_without_arch_names_the_default_target(tmp_path, capsys, command):
    k = json.loads((EXAMPLES / "vector_add.json").read_text())
    del k["arch"]
    p = write_kernel(tmp_path, k)
    argv = [command[0], str(p), *(str(tmp_path / "o") if a == "OUT" else a for a in command[1:])]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.count(f'{p}: no "arch" in the kernel and no --target; assuming gen2') == 1
    assert main([*argv, "--target", "gen2"]) == 0
    assert "assuming" not in capsys.readouterr().err
