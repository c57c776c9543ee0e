"""The NEFF command line: neff info/unpack/pack/header, and disasm/decode/check/explain on FILE.neff
selectors; the edit loop (disasm -> asm -> pack) on real NEFFs; exit code 2 and no partial output
for every unusable NEFF."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neff_support import large, neff_of_members, small
from tongasm.cli import main
from tongasm.neff import read_neff


def run(*args: str) -> int:
    return main([str(a) for a in args])


def test_neff_info_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("neff", "info", small()) == 0
    out = capsys.readouterr().out
    assert "'cayman' = gen3" in out and "2.23.6484.0+3b612583" in out
    assert "sg00.pe" in out and "0x01 Ldweights x4" in out and "0x46 Copy x2" in out
    assert "qPoolDynamic" in out and "semaphores 24..39" in out and "var   1  x" in out
    assert "+0x010" in out and "data_size" in out and "61440" in out and "[R-1]" in out
    assert run("neff", "info", large(), "--format", "json") == 0
    j = json.loads(capsys.readouterr().out)
    assert j["target"] == "gen3" and [g["name"] for g in j["graphs"]] == ["sg00", "sg01"]
    pe = next(s for s in j["graphs"][0]["streams"] if s["stream"] == "pe")
    assert pe["bundles"] == 21269
    assert {c["opcode"]: (c["count"], c["layout"]) for c in pe["census"]} == \
        {0x01: (4352, True), 0x02: (16640, True), 0xA0: (275, True), 0xB1: (1, True), 0xCC: (1, True)}
    dve = next(s for s in j["graphs"][0]["streams"] if s["stream"] == "dve")
    assert {c["opcode"]: c["count"] for c in dve["census"] if c["layout"]} == {0x41: 512, 0x46: 10, 0x47: 17,
                                                                             0x49: 64, 0xA0: 496, 0xB1: 1, 0xCC: 1}
    rows = {r["name"]: r for r in j["header"]}
    assert rows["data_size"]["value"] == 0x172000 and rows["hash"]["tag"] == "V/I" and rows["uuid"]["decision"] == "R-4"
    assert j["notes"] == []


@pytest.mark.parametrize("which", ["small", "large"])
def test_unpack_then_pack_gives_the_identical_file(tmp_path: Path, which: str) -> None:
    src = small() if which == "small" else large()
    assert run("neff", "unpack", src, "-o", tmp_path / "u", "-q") == 0
    meta = json.loads((tmp_path / "u" / "tongasm-neff.json").read_text())
    assert meta["members"][-1]["path"] == "neff.json" and len(meta["header"]) == 2048
    assert (tmp_path / "u" / "sg01" / "DVE.bin").is_file()
    assert run("neff", "pack", tmp_path / "u", "-o", tmp_path / "o.neff", "-q") == 0
    assert (tmp_path / "o.neff").read_bytes() == src.read_bytes()


def test_disasm_prints_bir_names_and_asm_rebuilds_the_streams(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("disasm", f"{small()}:sg00/act") == 0
    out = capsys.readouterr().out
    lines = [x for x in out.splitlines() if not x.startswith((".var ", ".act_sets "))]  # the graph's variables
    assert lines[:2] == [".target gen3", ".stream sg00.act"]
    assert lines[5].endswith("  ; I-80-0-accel-tc-act") and "Copy src=psum" in lines[5]
    # the NEFF's LoadActFuncSet decodes (next families: 0x23, set 0)
    assert lines[4].startswith("00000080:  |23100000") and "ActivationTableLoad set=0" in lines[4]
    assert lines[4].endswith("  ; I-80-0-accel-tc-act-PWP")
    assert lines[2].endswith("SetOrderingMode") and lines[3].endswith("PseudoBranchLabel")
    # the whole NEFF: listing -> asm -> the same bytes in every stream
    assert run("disasm", small(), "-o", tmp_path / "all.s") == 0
    assert run("asm", tmp_path / "all.s", "-o", tmp_path / "A", "-q") == 0
    neff = read_neff(small())
    for s in neff.streams():
        assert (tmp_path / "A" / f"{s.name}.bin").read_bytes() == neff.stream_data(s), s.name


def test_disasm_json_carries_bir_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("disasm", f"{small()}:sg00/pe", "--format", "json") == 0
    j = json.loads(capsys.readouterr().out)
    assert j["target"] == "gen3" and j["streams"][0]["stream"] == "sg00.pe"
    assert [b["bir"] for b in j["streams"][0]["bundles"]][2:5] == ["I-87-0-wait-0", "I-87-0", "I-87-0"]


def test_edit_loop_on_a_neff(tmp_path: Path) -> None:
    # disasm -> edit the text -> asm -> pack --streams: a valid NEFF differing in that stream only
    src = small()
    assert run("neff", "unpack", src, "-o", tmp_path / "u", "-q") == 0
    assert run("disasm", f"{src}:sg00/act", "-o", tmp_path / "act.s") == 0
    text = (tmp_path / "act.s").read_text()
    assert "wait sem5>=2 / upd sem4++" in text
    (tmp_path / "act.s").write_text(text.replace("wait sem5>=2 / upd sem4++", "wait sem5>=3 / upd sem4++"))
    assert run("asm", tmp_path / "act.s", "-o", tmp_path / "A", "-q") == 0
    assert run("neff", "pack", tmp_path / "u", "--streams", tmp_path / "A", "-o", tmp_path / "e.neff", "-q") == 0
    orig, edited = read_neff(src), read_neff(tmp_path / "e.neff")
    diff = [n for n in orig.members if orig.members[n] != edited.members[n]]
    assert diff == ["sg00/Activation.bin"]
    a, b = orig.members[diff[0]], edited.members[diff[0]]
    assert [i for i in range(len(a)) if a[i] != b[i]] == [3 * 64 + 8]  # the wait value of bundle 3
    assert edited.header.number("data_size") == (tmp_path / "e.neff").stat().st_size - 1024


def test_pack_replace_and_its_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("neff", "unpack", small(), "-o", tmp_path / "u", "-q") == 0
    (tmp_path / "odd.bin").write_bytes(bytes(63))
    out = tmp_path / "o.neff"
    assert run("neff", "pack", tmp_path / "u", "--replace", f"sg00/PE.bin={tmp_path / 'odd.bin'}", "-o", out) == 2
    assert "not a whole number of 64-byte bundles" in capsys.readouterr().err and not out.exists()
    assert run("neff", "pack", tmp_path / "u", "--replace", "sg00/PE.bin", "-o", out) == 2
    (tmp_path / "u" / "sg00" / "PE.bin~").write_bytes(b"backup")
    assert run("neff", "pack", tmp_path / "u", "-o", out) == 2
    assert "not members of the NEFF" in capsys.readouterr().err and not out.exists()
    (tmp_path / "u" / "sg00" / "PE.bin~").unlink()
    (tmp_path / "u" / "sg00" / "PE.bin").unlink()
    assert run("neff", "pack", tmp_path / "u", "-o", out) == 2
    assert "sg00/PE.bin" in capsys.readouterr().err and not out.exists()
    (tmp_path / "A").mkdir()
    (tmp_path / "A" / "sg07.pe.bin").write_bytes(bytes(64))
    assert run("neff", "pack", tmp_path / "u", "--streams", tmp_path / "A", "-o", out) == 2
    assert not out.exists()
    assert run("neff", "pack", tmp_path / "nowhere", "-o", out) == 2


def test_unpack_refuses_a_non_empty_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "u"
    d.mkdir()
    (d / "keep.txt").write_text("x")
    assert run("neff", "unpack", small(), "-o", d) == 2
    assert "not empty" in capsys.readouterr().err and sorted(p.name for p in d.iterdir()) == ["keep.txt"]


def test_check_decode_explain_on_a_neff(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("check", small(), "-q") == 0
    out = capsys.readouterr().out
    assert "error" not in out and "unmodelled" not in out  # every real bundle decodes, 0x23 too
    assert run("check", large(), "--format", "json") == 0
    j = json.loads(capsys.readouterr().out)
    # matmul_large: two graphs of five streams each, and each whole graph's race check (on by default)
    assert j["clean"] and len(j["inputs"]) == 12
    assert sorted(i["kind"] for i in j["inputs"]) == ["neff"] * 10 + ["races"] * 2
    assert run("check", small(), "--target", "gen2") == 2
    assert "gen3 NEFF" in capsys.readouterr().err
    assert run("decode", f"{small()}:sg00/act") == 0
    cap = capsys.readouterr()
    assert "0x0000c0  0x46  Copy  [TensorCopy]  ; I-80-0-accel-tc-act" in cap.out
    assert run("decode", f"{small()}:sg00/pe", "--format", "json") == 0
    j = json.loads(capsys.readouterr().out)
    rows = j["streams"][0]["bundles"]
    assert rows[3]["format"] == "Ldweights" and rows[3]["bir"] == "I-87-0" and "error" not in rows[3]
    assert rows[3]["fields"]["stationary.addr"] == 0x37CFE and rows[3]["fields"]["num_rows"] == 128
    assert run("explain", f"{small()}:sg00/act:3") == 0
    out = capsys.readouterr().out
    assert "BIR instruction I-80-0-accel-tc-act" in out and "target gen3" in out and "Copy" in out
    assert run("explain", f"{small()}:sg00/pe@0xc0", "--format", "json") == 0
    j = json.loads(capsys.readouterr().out)
    assert j["where"]["bir"] == "I-87-0" and j["opcode"] == 1 and not j["error"] and j["unexplained"] == []
    assert j["layout"] == "Ldweights" and j["findings"] == []
    assert run("explain", f"{small()}:sg00/pe") == 2
    assert run("explain", f"{small()}:sg00/pe:12") == 2


def _bad_neff(tmp_path: Path) -> Path:
    p = tmp_path / "bad.neff"
    p.write_bytes(small().read_bytes()[:30000])
    return p


@pytest.mark.parametrize("cmd", [["disasm", "{p}", "-o", "{o}"], ["decode", "{p}"], ["check", "{p}"],
                                 ["explain", "{p}:sg00/pe:1"], ["neff", "info", "{p}"],
                                 ["neff", "unpack", "{p}", "-o", "{o}"]])
def test_a_malformed_neff_is_exit_2_without_output(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   cmd: list[str]) -> None:
    p, o = _bad_neff(tmp_path), tmp_path / "out"
    assert run(*[c.format(p=p, o=o) for c in cmd]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tongasm: error: ") and "truncated" in err and "Traceback" not in err
    assert not o.exists() and sorted(x.name for x in tmp_path.iterdir()) == ["bad.neff"]


def test_hostile_member_names_are_refused_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from neff_support import neff_of_tar, raw_tar_member

    p = tmp_path / "evil.neff"
    p.write_bytes(neff_of_tar(raw_tar_member(b"kelf-0.json", b"{}") + raw_tar_member(b"../../pwned", b"x")
                              + bytes(1024)))
    assert run("neff", "unpack", p, "-o", tmp_path / "u") == 2
    assert "'..' component" in capsys.readouterr().err
    assert not (tmp_path / "u").exists() and not (tmp_path.parent / "pwned").exists()


def test_unknown_target_is_exit_2_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    neff = read_neff(small())
    members = dict(neff.members, **{"kelf-0.json": neff.members["kelf-0.json"].replace(b"cayman", b"mariana")})
    p = tmp_path / "m.neff"
    p.write_bytes(neff_of_members(list(members.items())))
    assert run("disasm", p) == 2
    assert "'mariana'" in capsys.readouterr().err
    assert run("neff", "info", p) == 0  # info still shows what the file holds
    assert "not supported" in capsys.readouterr().out


def test_neff_header_command_and_decisions_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("neff", "header") == 0
    out = capsys.readouterr().out
    assert "+0x0cc" in out and "uuid" in out
    assert run("neff", "header", "--format", "markdown") == 0
    assert capsys.readouterr().out == (Path(__file__).resolve().parent.parent / "docs" / "neff-header.md").read_text()
    assert run("decisions") == 0
    out = capsys.readouterr().out
    for did in ("R-1", "R-2", "R-3", "R-4", "R-5", "R-6"):
        assert f"\n{did} " in out
    assert run("neff", "pack", "x", "-o", "y.neff", "-D", "R-9=copy") == 2


def test_repack_with_asm_streams(tmp_path: Path) -> None:
    src = small()
    assert run("neff", "repack", src, "-o", tmp_path / "same.neff", "-q") == 0
    assert (tmp_path / "same.neff").read_bytes() == src.read_bytes()
    assert run("disasm", f"{src}:sg01/pe", "-o", tmp_path / "pe.s") == 0
    assert run("asm", tmp_path / "pe.s", "-o", tmp_path / "A", "-q") == 0
    assert run("neff", "repack", src, "--streams", tmp_path / "A", "-o", tmp_path / "r.neff", "-q",
               "-D", "R-1=zero") == 0
    r = read_neff(tmp_path / "r.neff")
    assert r.members == read_neff(src).members and r.header.raw("hash") == bytes(16)
    assert run("neff", "repack", src, "--replace", "sg00/PE.bin=/nonexistent", "-o", tmp_path / "x.neff") == 2
    assert not (tmp_path / "x.neff").exists()


def test_pack_never_writes_a_neff_tongasm_would_refuse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("neff", "unpack", small(), "-o", tmp_path / "u", "-q") == 0
    meta_path = tmp_path / "u" / "tongasm-neff.json"
    meta = json.loads(meta_path.read_text())
    header = bytearray.fromhex(meta["header"])
    header[0:8] = b"NOTANEFF"  # the header's magic/version words, which the reader checks
    meta["header"] = header.hex()
    meta_path.write_text(json.dumps(meta))
    out = tmp_path / "o.neff"
    assert run("neff", "pack", tmp_path / "u", "-o", out) == 2
    assert "would not read back" in capsys.readouterr().err and not out.exists()
    # a kelf-0.json naming one graph twice would drop a graph when run: refused the same way
    assert run("neff", "unpack", small(), "-o", tmp_path / "v", "-q") == 0
    kelf = json.loads((tmp_path / "v" / "kelf-0.json").read_text())
    kelf["graphs"][1]["name"] = kelf["graphs"][0]["name"]
    (tmp_path / "v" / "kelf-0.json").write_text(json.dumps(kelf))
    assert run("neff", "pack", tmp_path / "v", "-o", out) == 2
    assert "occurs twice" in capsys.readouterr().err and not out.exists()


def test_dev_zero_is_refused_not_read_forever(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "z.neff"
    link.symlink_to("/dev/zero")
    for argv in (["neff", "info", "/dev/zero"], ["disasm", str(link)], ["neff", "info", str(link)]):
        assert run(*argv) == 2
        assert "character device" in capsys.readouterr().err
    assert run("neff", "repack", small(), "--replace", "sg00/PE.bin=/dev/zero", "-o", tmp_path / "o.neff") == 2
    assert "character device" in capsys.readouterr().err and not (tmp_path / "o.neff").exists()


@pytest.mark.parametrize("sems,message", [([0, 2 ** 62], "semaphore_set entry 4611686018427387904 is not a semaphore"),
                                          ([-2 ** 63 - 1], "is not a semaphore number"),
                                          ([True], "list of integers")])
def test_absurd_semaphore_numbers_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], sems: list,
                                              message: str) -> None:
    n = read_neff(small())
    member = n.graph("sg00").definition.path
    j = json.loads(n.members[member])
    next(iter(j["dma_queue"].values()))["semaphore_set"] = sems
    n.replace_member(member, json.dumps(j).encode())
    bad = tmp_path / "bad.neff"
    bad.write_bytes(n.to_bytes())
    assert run("neff", "info", bad) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_huge_selector_numbers_and_non_integer_metadata_are_refused(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    huge = "9" * 5000  # past the 4,300 digits Python converts
    for argv in (["explain", f"{small()}:sg00/pe:{huge}"], ["disasm", f"{small()}:sg00/pe@{huge}"]):
        assert run(*argv) == 2
        err = capsys.readouterr().err
        assert "has 5000 digits" in err and "internal error" not in err
    assert run("neff", "unpack", small(), "-o", tmp_path / "u", "-q") == 0
    meta = tmp_path / "u" / "tongasm-neff.json"
    text = meta.read_text()
    j = json.loads(text)
    for bad in (float("inf"), 1.5, "0", -1):
        j["gzip"]["mtime"] = bad
        meta.write_text(json.dumps(j))
        assert run("neff", "pack", tmp_path / "u", "-o", tmp_path / "o.neff") == 2
        err = capsys.readouterr().err
        assert "'mtime' should be an integer" in err and "internal error" not in err
    assert not (tmp_path / "o.neff").exists()


def test_a_lone_surrogate_in_a_member_path_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("neff", "unpack", small(), "-o", tmp_path / "u", "-q") == 0
    meta = tmp_path / "u" / "tongasm-neff.json"
    j = json.loads(meta.read_text())
    j["members"][0]["path"] = "a\ud800"
    meta.write_text(json.dumps(j))
    assert run("neff", "pack", tmp_path / "u", "-o", tmp_path / "o.neff") == 2
    err = capsys.readouterr().err
    assert "lone surrogate" in err and "internal error" not in err and not (tmp_path / "o.neff").exists()


def test_pack_and_repack_check_the_streams_they_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tongasm.decode.bundle import decode_bundle

    neff = read_neff(small())
    s = neff.graph("sg00").streams["pe"]
    data = bytearray(neff.stream_data(s))
    k = next(i for i in range(len(data) // 64) if data[i * 64] == 0x02)  # a Matmul
    d = decode_bundle(bytes(data[k * 64:(k + 1) * 64]))
    dtype_field = next(n for n in d.fields if n.endswith("dtype"))
    data[k * 64:(k + 1) * 64] = d.fmt.encode({**d.fields, dtype_field: 0})  # wire dtype 0 does not exist
    bad = tmp_path / "PE.bin"
    bad.write_bytes(bytes(data))
    out = tmp_path / "o.neff"
    assert run("neff", "repack", small(), "--replace", f"sg00/PE.bin={bad}", "-o", out) == 1
    err = capsys.readouterr().err
    assert "fail check (1 finding)" in err and "sg00/PE.bin" in err and dtype_field in err and not out.exists()
    assert run("neff", "unpack", small(), "-o", tmp_path / "u", "-q") == 0
    (tmp_path / "u" / "sg00" / "PE.bin").write_bytes(bytes(data))
    assert run("neff", "pack", tmp_path / "u", "-o", out) == 1 and not out.exists()
    assert "nothing written" in capsys.readouterr().err
    assert run("neff", "pack", tmp_path / "u", "-o", out, "--no-check", "-q") == 0 and out.exists()


def test_neff_info_shows_the_legend_only_when_used_and_each_tensor_once(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert run("neff", "info", small()) == 0
    out = capsys.readouterr().out
    assert "* = no tongasm layout" not in out  # every opcode of the file has a layout
    tensors = next(line for line in out.splitlines() if line.startswith("tensors (neff.json): "))
    assert tensors.count("output0 float16 [128, 128]") == 1
    n = read_neff(small())
    s = n.graph("sg00").streams["pe"]
    n.replace_stream("sg00", "pe", n.stream_data(s) + bytes([0x4E, 0x10]) + bytes(62))  # no layout: 0x4E
    odd = tmp_path / "odd.neff"
    odd.write_bytes(n.to_bytes())
    assert run("neff", "info", odd) == 0
    out = capsys.readouterr().out
    assert "0x4e TensorCumulativeArithOp* x1" in out and out.count("* = no tongasm layout") == 1


def test_pack_and_repack_say_what_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "o.neff"
    assert run("neff", "repack", small(), "-o", out) == 0
    assert "no member changed: the members are those of" in capsys.readouterr().out
    assert out.read_bytes() == Path(small()).read_bytes()
    # one bundle of the PE stream edited through the listing, as the README's edit loop does
    assert run("disasm", f"{small()}:sg00/pe", "-o", tmp_path / "pe.s") == 0
    lines = (tmp_path / "pe.s").read_text().splitlines()
    k = next(i for i, line in enumerate(lines) if " Matmul " in line and "upd sem5++" in line)
    lines[k] = lines[k].replace("upd sem5++", "upd sem6++")
    (tmp_path / "pe.s").write_text("\n".join(lines) + "\n")
    assert run("asm", tmp_path / "pe.s", "-o", tmp_path / "asm", "-q") == 0
    capsys.readouterr()
    assert run("neff", "repack", small(), "--streams", tmp_path / "asm", "-o", out) == 0
    text = capsys.readouterr().out
    index = k - 2 - sum(x.startswith((".var ", ".act_sets ")) for x in lines)  # .target, .var.., .stream first
    assert "1 member changed from" in text
    assert f"sg00/PE.bin: 12 bundles, 1 of 12 differs (the first at bundle {index}, offset {index * 64:#x})" in text
    # from an unpacked directory: what differs from what was unpacked (sizes and digests are recorded)
    assert run("neff", "unpack", small(), "-o", tmp_path / "u", "-q") == 0
    assert run("neff", "pack", tmp_path / "u", "-o", out) == 0
    assert "no member changed: the members are those of the unpacked NEFF" in capsys.readouterr().out
    (tmp_path / "u" / "sg00" / "tensor_map.json").write_text("{}")
    pe = (tmp_path / "u" / "sg00" / "PE.bin").read_bytes()
    assert run("neff", "pack", tmp_path / "u", "-o", out, "--replace", "sg00/PE.bin=" + str(tmp_path / "half.bin")) == 2
    (tmp_path / "half.bin").write_bytes(pe[:6 * 64])
    assert run("neff", "pack", tmp_path / "u", "-o", out, "--no-check",
               "--replace", "sg00/PE.bin=" + str(tmp_path / "half.bin")) == 0
    text = capsys.readouterr().out
    assert "2 members changed from the unpacked NEFF" in text
    assert "sg00/PE.bin: 6 bundles (was 12), other bytes" in text and "sg00/tensor_map.json: 2 bytes (was " in text


def test_run_log_lists_each_bundle_as_the_listing_does_with_its_bir_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``run F.neff --log``: one line per executed bundle, its listing text (operands, not only the
    mnemonic) and the BIR instruction the .dbg members name."""
    import numpy as np

    np.save(tmp_path / "x.npy", np.ones((128, 256), np.float16))
    np.save(tmp_path / "y.npy", np.ones((256, 128), np.float16))
    assert run("run", str(small()), "-i", f"x={tmp_path / 'x.npy'}", "-i", f"y={tmp_path / 'y.npy'}",
               "-o", str(tmp_path / "r"), "--log", "-q", "--format", "json") == 0
    out = capsys.readouterr()
    lines = [line for line in out.err.splitlines() if line.startswith("[")]
    assert len(lines) == json.loads(out.out)["executed"]  # one line per executed bundle
    neff = read_neff(small())
    g = neff.graph("sg00")
    matmul = [line for line in lines if " Matmul" in line or "Matmul " in line]
    assert matmul and all("psum" in line.lower() or "[" in line.split("Matmul", 1)[1] for line in matmul)
    named = {line.rsplit("; ", 1)[1] for line in lines if "; " in line}
    expected = {n for s in g.streams.values() for n in neff.bir_names(s) if n}
    assert named and named <= expected
