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


# --- asm reports every error and checks what it assembled -------------------------------------------------

_BAD = """.target gen2
.stream dve
Copy src=sb[p0:128][1x512].float32
Bogus x=1
Copy src=sb[p0:128][1x512].float32, dst=sb[p0:128]+0x2000[1x512].float32
Nope
"""


def test_asm_reports_every_syntax_error_with_its_line(tmp_path, capsys):
    src = tmp_path / "k.s"
    src.write_text(_BAD)
    assert main(["asm", str(src), "-o", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert f"{src}:4:1: unknown mnemonic 'Bogus'" in err and f"{src}:6:1: unknown mnemonic 'Nope'" in err
    assert "2 errors" in err and not (tmp_path / "o").exists()


def test_asm_checks_the_streams_and_writes_nothing_on_a_finding(tmp_path, capsys):
    src = tmp_path / "k.s"
    src.write_text("\n".join(line for line in _BAD.splitlines() if "Bogus" not in line and "Nope" not in line))
    assert main(["asm", str(src), "-o", str(tmp_path / "o")]) == 1
    cap = capsys.readouterr()
    # the Copy on line 3 has no dst: its dst descriptor is all zero
    assert f"{src}:3: dve+0x0: error[desc.count_range]" in cap.out
    assert f"{src}:5:" not in cap.out  # the Copy on line 5 is legal
    assert "nothing written" in cap.err and not (tmp_path / "o").exists()
    assert main(["asm", str(src), "-o", str(tmp_path / "o"), "--no-check", "-q"]) == 0
    assert (tmp_path / "o" / "dve.bin").stat().st_size == 128


def test_check_of_a_listing_checks_its_bundles_with_their_lines(tmp_path, capsys):
    """`check` assembles a listing as `asm` does (it used to read the text as raw bundles: dozens of
    findings about ASCII bytes), names each finding by line, and reports it in JSON with the line."""
    import json

    src = tmp_path / "k.s"
    src.write_text("\n".join(line for line in _BAD.splitlines() if "Bogus" not in line and "Nope" not in line))
    assert main(["check", str(src)]) == 1
    cap = capsys.readouterr()
    out = cap.out
    assert f"{src}:3: dve+0x0: error[desc.count_range]" in out and f"{src}:5:" not in out
    assert f"{src}:dve: 2 bundles: 7 findings" in cap.err
    assert main(["asm", str(src), "-o", str(tmp_path / "o")]) == 1
    assert capsys.readouterr().out == out  # the very findings asm prints, line for line
    assert main(["check", str(src), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    (inp,) = doc["inputs"]
    assert inp["kind"] == "listing" and inp["bundles"] == 2
    assert {(f["line"], f["offset"]) for f in inp["findings"]} == {(3, 0)} and len(inp["findings"]) == 7
    assert [f["field"] for f in inp["findings"] if f["check"] == "desc.count_range"] == \
        ["dst.num0", "dst.num1", "dst.num2", "dst.num3"]  # the Copy on line 3 has no dst descriptor
    raw = tmp_path / "k.txt"  # no .s suffix: sniffed (its first line is a directive or a comment)
    raw.write_bytes(src.read_bytes())
    assert main(["check", str(raw)]) == 1
    assert f"{raw}:3: dve+0x0: error[desc.count_range]" in capsys.readouterr().out
    bad = tmp_path / "bad.s"
    bad.write_text(_BAD)
    assert main(["check", str(bad)]) == 2  # a listing that does not assemble is unusable input
    assert "unknown mnemonic 'Bogus'" in capsys.readouterr().err


def test_run_says_which_inputs_start_as_zeros(tmp_path, capsys):
    import numpy as np

    kernel = Path(__file__).resolve().parents[1] / "examples" / "vector_add.json"
    assert main(["run", str(kernel), "-o", str(tmp_path / "r"), "-q"]) == 0
    assert "inputs a, b, mask, n not given (-i NAME=FILE.npy): they start as zeros" in capsys.readouterr().err
    for n in ("a", "b"):
        np.save(tmp_path / f"{n}.npy", np.ones((128, 512), np.float32))
    assert main(["run", str(kernel), "-i", f"a={tmp_path / 'a.npy'}", "-i", f"b={tmp_path / 'b.npy'}",
                 "-o", str(tmp_path / "r"), "-q"]) == 0
    assert "inputs mask, n not given" in capsys.readouterr().err


def test_a_misspelt_bir_key_is_named_with_the_key_it_resembles(tmp_path, capsys):
    kernel = json.loads((Path(__file__).resolve().parents[1] / "examples" / "vector_add.json").read_text())
    inst = kernel["functions"][0]["blocks"][0]["instructions"][0]
    inst["ouputs"] = inst.pop("outs")
    inst["compiler_private_note"] = 1  # far from every key: kept silently, as real BIR's many extra keys are
    src = tmp_path / "k.json"
    src.write_text(json.dumps(kernel))
    assert main(["assemble", str(src), "-o", str(tmp_path / "o")]) != 0
    err = capsys.readouterr().err
    assert "unknown key 'ouputs' kept as it is; did you mean 'outs'?" in err
    assert "compiler_private_note" not in err
    assert main(["check", str(src)]) == 1
    assert "did you mean 'outs'?" in capsys.readouterr().err


def _memset_kernel(tmp_path: Path, dtype: str, **fill: object) -> Path:
    """A kernel whose only instruction fills the Output tensor t (128 x 16 of ``dtype``) with ``fill``."""
    k = {"arch": "gen2", "functions": [{"name": "f", "allocations": [
        {"name": "t", "kind": "Output", "dtype": dtype, "tensor_shape": [128, 16],
         "memorylocations": [{"name": "t", "type": "SB", "addr": 0, "base": 0, "bank": 0, "dims": [128, 64]}]}],
        "blocks": [{"name": "b", "instructions": [
            {"opcode": "Memset", "name": "fill", "engine": "DVE", "mode": "Const", **fill, "ins": [],
             "outs": [{"kind": "physical_ap", "dtype": dtype, "ap": [[64, 128], [1, 16]], "offset": 0,
                       "memref": "t"}]}]}]}]}
    src = tmp_path / "k.json"
    src.write_text(json.dumps(k))
    return src


def test_memset_constant_is_a_value_in_the_dst_dtype_and_constant_bits_the_raw_pattern(tmp_path, capsys):
    import numpy as np

    src = _memset_kernel(tmp_path, "float32", constant=1)
    assert main(["run", str(src), "-o", str(tmp_path / "v"), "--reference", "-q"]) == 0
    assert (np.load(tmp_path / "v" / "t.npy") == np.float32(1.0)).all()  # 1 on float32 is 1.0, not 1.4e-45
    src = _memset_kernel(tmp_path, "float32", constant_bits=1)
    assert main(["run", str(src), "-o", str(tmp_path / "b"), "--reference", "-q"]) == 0
    assert (np.load(tmp_path / "b" / "t.npy").view(np.uint32) == 1).all()  # the smallest denormal
    src = _memset_kernel(tmp_path, "int16", constant=-2)
    assert main(["assemble", str(src), "-o", str(tmp_path / "o"), "-q"]) == 0
    assert (tmp_path / "o" / "dve.bin").read_bytes()[0x28:0x2C] == bytes([0xFE, 0xFF, 0, 0])


def test_a_memset_constant_its_dtype_cannot_hold_is_refused_in_one_line(tmp_path, capsys):
    src = _memset_kernel(tmp_path, "uint8", constant=256)
    assert main(["assemble", str(src), "-o", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "constant 256 is not a uint8 value" in err[0] and "256 does not fit uint8" in err[0]
    src = _memset_kernel(tmp_path, "float32", constant=1, constant_bits=0x3F800000)
    assert main(["assemble", str(src), "-o", str(tmp_path / "o")]) == 2
    assert "needs exactly one of the keys 'constant' or 'constant_bits'" in capsys.readouterr().err


def test_misspelt_keys_are_named_at_every_level_of_a_kernel(tmp_path, capsys):
    kernel = json.loads(EXAMPLE.read_text())
    kernel["functons"] = []
    f = kernel["functions"][0]
    f["allocatons"] = []
    f["allocations"][0]["tensor_shap"] = [128, 512]
    f["allocations"][0]["memorylocations"][0]["addrr"] = 0
    f["allocations"][1]["memorylocations"][0]["dtype"] = "float32"  # the allocation's key, on its location
    f["blocks"][0]["instrutions"] = []
    inst = f["blocks"][0]["instructions"][0]
    inst["ins"][0]["memsetrf"] = "x"
    src = tmp_path / "k.json"
    src.write_text(json.dumps(kernel))
    expected = [
        "the BIR module: unknown key 'functons' kept as it is; did you mean 'functions'?",
        "functions[0]: unknown key 'allocatons' kept as it is; did you mean 'allocations'?",
        "functions[0].allocations[0]: unknown key 'tensor_shap' kept as it is; did you mean 'tensor_shape'?",
        "functions[0].allocations[0].memorylocations[0]: unknown key 'addrr' kept as it is; did you mean 'addr'?",
        "functions[0].allocations[1].memorylocations[0]: 'dtype' is read on the allocation "
        "(functions[0].allocations[1]), not on its memory location",
        "functions[0].blocks[0]: unknown key 'instrutions' kept as it is; did you mean 'instructions'?",
        ".ins[0]: unknown key 'memsetrf' kept as it is; did you mean 'memsetref'?",
    ]
    for argv in (["assemble", str(src), "-o", str(tmp_path / "o"), "-q"], ["check", str(src), "-q"],
                 ["run", str(src), "-o", str(tmp_path / "r"), "-q"]):
        assert main(argv) == 0, argv
        err = capsys.readouterr().err
        for line in expected:
            assert err.count(line) == 1, (argv, line, err)


def test_a_misspelt_sync_key_is_refused_with_the_key_it_resembles(tmp_path, capsys):
    kernel = json.loads(EXAMPLE.read_text())
    kernel["functions"][0]["blocks"][0]["instructions"][0]["sync"] = {"updat": {"mode": "sem_inc", "index": 1}}
    src = tmp_path / "k.json"
    src.write_text(json.dumps(kernel))
    assert main(["assemble", str(src), "-o", str(tmp_path / "o")]) == 2
    assert "unknown key(s) ['updat'] in 'sync' (expected 'wait' and/or 'update'; did you mean 'updat' -> 'update'?)" \
        in capsys.readouterr().err


def test_the_activation_scale_refusal_says_the_way_out(tmp_path, capsys):
    kernel = json.loads((EXAMPLE.parent / "softmax.json").read_text())
    act = next(i for i in kernel["functions"][0]["blocks"][0]["instructions"] if i["opcode"] == "Activation")
    act["ins"][2] = {"kind": "imm_value", "dtype": "float32", "value": 0.5}  # args[2]: the scale
    src = tmp_path / "k.json"
    src.write_text(json.dumps(kernel))
    assert main(["assemble", str(src), "-o", str(tmp_path / "o"), "-q"]) == 0  # the default reading encodes it
    assert main(["assemble", str(src), "-o", str(tmp_path / "o"), "-q", "-D", "N-5=reserved-zero"]) == 1
    err = capsys.readouterr().err
    assert "Activation scale (args[2]) has no byte under N-5" in err
    assert "multiply it first with a TensorScalarPtr (op0 'mult', on the DVE) and give the Activation the " \
           "immediate 1.0, as examples/rmsnorm.py does" in err and "N-5=scale-at-0x24" in err


def test_dma_sides_print_the_one_access_pattern_syntax_and_the_old_hex_form_still_assembles(tmp_path, capsys):
    from neff_support import small

    assert main(["disasm", f"{small()}:sg00/pool", "-o", str(tmp_path / "new.s")]) == 0
    new = (tmp_path / "new.s").read_text()
    # the dims of a DMA side are [STEPxNUM] in decimal, as every access pattern writes them
    assert "src=dge0[512x128]/0x200.float16, dst=sb[p0]+0x37c00[262144x128]/0x200.float16" in new
    # the form listings wrote before: hex steps, '0x' + digits, then 'x' and the count
    old = new.replace("[512x128]", "[0x200x128]").replace("[262144x128]", "[0x40000x128]") \
        .replace("[256x128]", "[0x100x128]")
    assert old != new
    (tmp_path / "old.s").write_text(old)
    assert main(["asm", str(tmp_path / "new.s"), "-o", str(tmp_path / "a"), "-q"]) == 0
    assert main(["asm", str(tmp_path / "old.s"), "-o", str(tmp_path / "b"), "-q"]) == 0
    a, b = (tmp_path / "a" / "sg00.pool.bin").read_bytes(), (tmp_path / "b" / "sg00.pool.bin").read_bytes()
    assert a == b and len(a) == 7 * 64
    capsys.readouterr()
    assert main(["diff", f"{small()}:sg00/pool", str(tmp_path / "b" / "sg00.pool.bin")]) == 0
    # a step of 0 reads the same in both forms: [0x128] is step 0, count 128
    line = ".target gen3\n.stream pool\nPseudoDmaDirect2d src=dge1[0x128]/0x80.float16, " \
           "dst=sb[p0]+0x37f00[262144x128]/0x80.float16, sem=25\n"
    (tmp_path / "z.s").write_text(line)
    assert main(["asm", str(tmp_path / "z.s"), "-o", str(tmp_path / "z"), "-q", "--no-check"]) == 0
    assert main(["disasm", str(tmp_path / "z" / "pool.bin")]) == 0
    assert "src=dge1[0x128]/0x80.float16" in capsys.readouterr().out


def test_asm_reports_syntax_errors_and_the_check_findings_of_the_other_lines_together(tmp_path, capsys):
    src = tmp_path / "bad.s"
    src.write_text(".target gen2\n.stream act\n"
                   "Copy src=sb[p0:128][1x256].float32\n"  # line 3: no dst=
                   "Bogus x=1\n"  # line 4: a syntax error
                   "Copy src=psum.b9[p0:128][1x256].float32, dst=sb[p0:128][1x256].float32\n")  # line 5: no bank 9
    assert main(["asm", str(src), "-o", str(tmp_path / "o")]) == 1
    cap = capsys.readouterr()
    assert f"{src}:3: act+0x0: error[copy.equal_elements]" in cap.out
    assert f"{src}:5: act+0x40: error[addr4.psum_window]" in cap.out
    assert f"{src}:4:1: unknown mnemonic 'Bogus'" in cap.err and "lines in error below left out" in cap.err
    assert not (tmp_path / "o").exists()
    assert main(["asm", str(src), "-o", str(tmp_path / "o"), "--no-check"]) == 1  # the syntax error alone
    cap = capsys.readouterr()
    assert cap.out == "" and "unknown mnemonic 'Bogus'" in cap.err


def test_disasm_then_asm_keeps_a_stream_name_with_a_space(tmp_path, capsys):
    """The fast listing path quotes a stream name the bare directive cannot hold; asm reads it back."""
    src = tmp_path / "my graph.bin"
    data = bytes.fromhex("b1100000" + "00" * 60) * 3
    src.write_bytes(data)
    assert main(["disasm", str(src), "-o", str(tmp_path / "l.s"), "-q"]) == 0
    assert '.stream "my graph"' in (tmp_path / "l.s").read_text()
    assert main(["asm", str(tmp_path / "l.s"), "-o", str(tmp_path / "o"), "--target", "gen3", "-q"]) == 0
    assert (tmp_path / "o" / "my graph.bin").read_bytes() == data
