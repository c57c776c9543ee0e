"""``tongasm diff A B`` from the user's side: bundle streams, listings and NEFFs compared bundle by bundle.

Identical inputs exit 0; a NEFF with one bundle re-encoded (through its layout) with one field changed
reports exactly that bundle and that field; a listing equals the stream it assembles to; a truncated
stream reports its missing bundles as removed; unusable input exits 2 with one error line and no
traceback. The inputs are the real matmul_small NEFF and streams cut from it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neff_support import small
from tongasm.cli import main
from tongasm.decode.bundle import decode_bundle
from tongasm.isa.fields import BUNDLE_SIZE
from tongasm.neff import Neff, write_neff
from tongasm.neff.diff import Side, compare_bundles, diff_sides, diff_streams


def fresh() -> Neff:
    return Neff.from_bytes(small().read_bytes())


def edit_bundle(n: Neff, graph: str, stream: str, index: int, **fields: int) -> None:
    """Re-encode one bundle of a stream with some fields changed (through its layout, no byte offsets here)."""
    s = n.graph(graph).streams[stream]
    data = bytearray(n.stream_data(s))
    at = index * BUNDLE_SIZE
    d = decode_bundle(bytes(data[at:at + BUNDLE_SIZE]))
    data[at:at + BUNDLE_SIZE] = d.fmt.encode({**d.fields, **fields})
    n.replace_stream(graph, stream, bytes(data))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["diff", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code, out, _ = run(capsys, *argv, "--format", "json")
    return code, json.loads(out)


@pytest.fixture()
def pe_bin(tmp_path: Path) -> Path:
    """sg00's PE stream of the small NEFF as a raw stream file (12 bundles)."""
    n = fresh()
    p = tmp_path / "pe.bin"
    p.write_bytes(n.stream_data(n.graph("sg00").streams["pe"]))
    assert p.stat().st_size == 12 * BUNDLE_SIZE
    return p


# --- identical -------------------------------------------------------------------------------------------------

def test_a_neff_against_itself_is_identical(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(small()), str(small()))
    assert code == 0
    assert out.splitlines()[-1] == "identical: 10 streams, 58 bundles, every member equal"
    code, j = run_json(capsys, str(small()), str(small()))
    assert code == 0 and j["identical"] is True and j["counts"]["bundles_changed"] == 0


def test_a_stream_against_a_copy_is_identical(capsys: pytest.CaptureFixture[str], pe_bin: Path,
                                              tmp_path: Path) -> None:
    copy = tmp_path / "copy.bin"
    copy.write_bytes(pe_bin.read_bytes())
    code, out, _ = run(capsys, str(pe_bin), str(copy), "--target", "gen3")
    assert code == 0 and out.splitlines()[-1] == "identical: 1 stream, 12 bundles"


def test_a_stream_against_its_neff_stream_is_identical(capsys: pytest.CaptureFixture[str], pe_bin: Path) -> None:
    code, _, err = run(capsys, str(pe_bin), f"{small()}:sg00/pe")
    assert code == 0
    assert "assuming gen3" in err  # the bare stream takes the NEFF's target, said on stderr


# --- one edited bundle ---------------------------------------------------------------------------------------

def test_one_edited_bundle_is_reported_with_exactly_its_field(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    n = fresh()
    before = decode_bundle(n.stream_data(n.graph("sg00").streams["pe"])[8 * BUNDLE_SIZE:9 * BUNDLE_SIZE])
    assert before.mnemonic == "Ldweights" and before.fields["sync_value"] == 1
    edit_bundle(n, "sg00", "pe", 8, sync_value=3)
    edited = tmp_path / "edited.neff"
    write_neff(n, edited)

    code, j = run_json(capsys, str(small()), str(edited))
    assert code == 1 and j["identical"] is False
    differing = [s for s in j["streams"] if not s["identical"]]
    assert [s["stream"] for s in differing] == ["sg00.pe"]
    (change,) = differing[0]["changed"]
    assert change["index"] == 8 and change["offset"] == 0x200
    assert change["a"]["mnemonic"] == change["b"]["mnemonic"] == "Ldweights"
    assert change["by_bytes"] is False
    assert change["fields"] == [{"name": "sync_value", "a": 1, "b": 3}]
    assert j["counts"]["bundles_changed"] == 1 and j["counts"]["bundles_removed"] == j["counts"]["bundles_added"] == 0
    assert j["members"] == {"changed": [], "removed": [], "added": []}

    code, out, _ = run(capsys, str(small()), str(edited))
    assert code == 1
    lines = out.splitlines()
    assert "== sg00.pe: 12 -> 12 bundles, 1 changed" in lines
    assert "  #8 @0x200  Ldweights" in lines
    assert "      sync_value: 1 -> 3" in lines
    assert lines[-1] == "different: 1 of 10 streams differ, 1 bundle changed, 0 removed, 0 added"


def test_one_stream_of_a_neff_by_selector(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    n = fresh()
    edit_bundle(n, "sg01", "pe", 3, sync_value=0)
    edited = tmp_path / "edited.neff"
    write_neff(n, edited)
    assert run(capsys, f"{small()}:sg00/pe", f"{edited}:sg00/pe")[0] == 0  # the other graph's stream changed
    code, j = run_json(capsys, f"{small()}:sg01/pe", f"{edited}:sg01/pe")
    assert code == 1
    (s,) = j["streams"]
    assert [c["index"] for c in s["changed"]] == [3]
    assert s["changed"][0]["fields"] == [{"name": "sync_value", "a": 16, "b": 0}]


def test_a_changed_member_that_is_not_a_stream(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    n = fresh()
    member = n.graph("sg00").definition.path
    n.replace_member(member, n.members[member] + b" ")
    edited = tmp_path / "edited.neff"
    write_neff(n, edited)
    code, j = run_json(capsys, str(small()), str(edited))
    assert code == 1
    assert all(s["identical"] for s in j["streams"])
    assert j["members"] == {"changed": [member], "removed": [], "added": []}
    code, out, _ = run(capsys, str(small()), str(edited))
    assert f"== member {member}: changed" in out.splitlines()


# --- listings ----------------------------------------------------------------------------------------------------

def test_a_listing_equals_its_assembled_stream(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    listing, out_dir = tmp_path / "pe.s", tmp_path / "asm"
    assert main(["disasm", f"{small()}:sg00/pe", "-o", str(listing), "-q"]) == 0
    assert main(["asm", str(listing), "-o", str(out_dir), "-q"]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, str(listing), str(out_dir / "sg00.pe.bin"))
    assert code == 0 and out.splitlines()[-1] == "identical: 1 stream, 12 bundles"
    assert run(capsys, str(listing), f"{small()}:sg00/pe")[0] == 0


def test_a_whole_neff_listing_equals_the_neff_stream_by_stream(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    listing = tmp_path / "all.s"
    assert main(["disasm", str(small()), "-o", str(listing), "-q"]) == 0
    code, j = run_json(capsys, str(listing), str(small()))
    assert code == 0 and j["counts"]["streams"] == 10 and j["counts"]["bundles_a"] == 58


def test_an_edited_listing_line_is_the_bundle_that_differs(capsys: pytest.CaptureFixture[str],
                                                           tmp_path: Path) -> None:
    listing = tmp_path / "pe.s"
    assert main(["disasm", f"{small()}:sg00/pe", "-o", str(listing), "-q"]) == 0
    capsys.readouterr()
    lines = listing.read_text().splitlines()
    (i,) = [k for k, line in enumerate(lines) if line.startswith("00000200:")]  # bundle 8
    assert "wait sem4>=1" in lines[i], lines[i]
    lines[i] = lines[i].replace("wait sem4>=1", "wait sem4>=2")
    listing.write_text("\n".join(lines) + "\n")
    code, j = run_json(capsys, str(listing), f"{small()}:sg00/pe")
    assert code == 1
    (s,) = j["streams"]
    assert [(c["index"], c["fields"]) for c in s["changed"]] == [(8, [{"name": "sync_value", "a": 2, "b": 1}])]


# --- added and removed bundles -----------------------------------------------------------------------------------

def test_a_truncated_stream_reports_the_removed_bundles(capsys: pytest.CaptureFixture[str], pe_bin: Path,
                                                        tmp_path: Path) -> None:
    short = tmp_path / "short.bin"
    short.write_bytes(pe_bin.read_bytes()[:10 * BUNDLE_SIZE])
    code, j = run_json(capsys, str(pe_bin), str(short), "--target", "gen3")
    assert code == 1
    (s,) = j["streams"]
    assert s["changed"] == [] and s["removed"] == {"from_index": 10, "count": 2} and s["added"] is None
    code, out, _ = run(capsys, str(pe_bin), str(short), "--target", "gen3")
    assert "  removed: 2 bundles at the end of A (#10..#11, @0x280)" in out.splitlines()
    # the other way round they are added
    code, j = run_json(capsys, str(short), str(pe_bin), "--target", "gen3")
    assert code == 1 and j["streams"][0]["added"] == {"from_index": 10, "count": 2}


# --- the Python form ---------------------------------------------------------------------------------------------

def test_undecodable_bundles_are_compared_byte_by_byte() -> None:
    a = bytes([0xFF]) + bytes(63)  # 0xff: not an opcode of the ISA, no layout
    b = bytearray(a)
    b[5] = 0x07
    b[63] = 0x80
    c = compare_bundles(a, bytes(b), 4)
    assert c is not None and c.by_bytes and c.a_layout is None and c.offset == 4 * BUNDLE_SIZE
    assert [(f.name, f.a, f.b) for f in c.fields] == [("byte+0x05", 0, 7), ("byte+0x3f", 0, 0x80)]
    assert c.fields[0].line() == "byte+0x05: 0x00 -> 0x07"
    assert compare_bundles(a, a) is None


def test_field_lines_show_hex_and_enum_names_and_absent_fields() -> None:
    from tongasm.neff.diff import FieldChange

    assert FieldChange("wait_mode", 5, 0, "sem_ge_imm", "none").line() == "wait_mode: 5 (sem_ge_imm) -> 0 (none)"
    assert FieldChange("opcode", 160, 35, "EventSemaphore", "ActivationTableLoad").line() == \
        "opcode: 160 (0xa0, EventSemaphore) -> 35 (0x23, ActivationTableLoad)"
    assert FieldChange("reserved_06", 0, None).line() == "reserved_06: 0 -> (absent)"
    assert FieldChange("addr", -12, 4096).line() == "addr: -12 (-0xc) -> 4096 (0x1000)"


def test_diff_sides_matches_streams_by_name() -> None:
    n = fresh()
    pe = n.stream_data(n.graph("sg00").streams["pe"])
    act = n.stream_data(n.graph("sg00").streams["act"])
    a = Side("a", "stream", "gen3", {"sg00.pe": pe, "sg00.act": act})
    b = Side("b", "stream", "gen3", {"sg00.act": act, "sg00.pool": pe})
    d = diff_sides(a, b)
    assert not d.identical
    assert [(s.name, s.a_name, s.b_name, s.identical) for s in d.streams] == [
        ("sg00.pe", "sg00.pe", None, False), ("sg00.act", "sg00.act", "sg00.act", True),
        ("sg00.pool", None, "sg00.pool", False)]
    assert diff_streams(pe, pe).identical


def test_different_targets_are_a_difference() -> None:
    n = fresh()
    pe = n.stream_data(n.graph("sg00").streams["pe"])
    d = diff_sides(Side("a", "stream", "gen2", {"pe": pe}), Side("b", "stream", "gen3", {"pe": pe}))
    assert not d.identical and d.summary().endswith("target gen2 -> gen3")


# --- unusable input ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("make", ["missing", "ragged", "bad_selector", "bad_listing", "not_a_neff", "bundle_selector"])
def test_unusable_input_exits_2_without_a_traceback(capsys: pytest.CaptureFixture[str], pe_bin: Path,
                                                    tmp_path: Path, make: str) -> None:
    bad = {"missing": str(tmp_path / "missing.bin"),
           "ragged": str(tmp_path / "ragged.bin"),
           "bad_selector": f"{small()}:sg99/pe",
           "bad_listing": str(tmp_path / "bad.s"),
           "not_a_neff": str(tmp_path / "fake.neff"),
           "bundle_selector": f"{small()}:sg00/pe:3"}[make]
    (tmp_path / "ragged.bin").write_bytes(bytes(65))
    (tmp_path / "bad.s").write_text(".target gen3\n.stream pe\n  NotAnInstruction 1, 2\n")
    (tmp_path / "fake.neff").write_bytes(b"not a neff at all")
    code, out, err = run(capsys, str(pe_bin), bad, "--target", "gen3") if make != "bad_selector" \
        else run(capsys, str(pe_bin), bad)
    assert code == 2, (out, err)
    assert "tongasm: error:" in err and "Traceback" not in err and out == ""


def test_an_unknown_decision_is_a_usage_error(capsys: pytest.CaptureFixture[str], pe_bin: Path) -> None:
    code, _, err = run(capsys, str(pe_bin), str(pe_bin), "-D", "D-9999=x")
    assert code == 2 and "Traceback" not in err


# --- every real stream -------------------------------------------------------------------------------------------

def test_every_real_stream_one_byte_changed_is_reported_completely() -> None:
    """Over the corpus: in the middle bundle of every engine stream of every NEFF, flip one bit of each
    byte in turn. The diff names exactly that bundle; where both sides decode to the same layout, A's
    fields with the reported changes applied encode to B's bytes (the fields reported are the whole
    difference); where no field explains the byte, exactly that byte is reported."""
    from corpus_support import corpus_files

    from tongasm.isa.formats import build_formats
    from tongasm.neff.diff import neff_side

    fs = build_formats()
    seen = {"fields": 0, "bytes": 0, "layout": 0}
    for cf in corpus_files():
        for name, data in neff_side(str(cf.path)).streams.items():
            n = len(data) // BUNDLE_SIZE
            if not n:
                continue
            k = n // 2
            b_stream = bytearray(data)
            for pos in range(BUNDLE_SIZE):
                b_stream[k * BUNDLE_SIZE + pos] ^= 0x10
                (c,) = diff_streams(data, bytes(b_stream), name).changed
                b_stream[k * BUNDLE_SIZE + pos] ^= 0x10
                where = f"{cf.relative}:{name} bundle {k} byte {pos:#x}"
                assert c.index == k, where
                raw = bytes(data[k * BUNDLE_SIZE:(k + 1) * BUNDLE_SIZE])
                if c.by_bytes:
                    seen["bytes"] += 1
                    assert [f.name for f in c.fields] == [f"byte+{pos:#04x}"], where
                elif c.a_layout != c.b_layout:
                    seen["layout"] += 1
                else:
                    seen["fields"] += 1
                    sel = fs.select(raw[0], raw)
                    assert sel is not None, where
                    fmt, vals = sel
                    b = bytearray(raw)
                    b[pos] ^= 0x10
                    assert fmt.encode({**vals, **{f.name: f.b for f in c.fields}}) == bytes(b), where
    assert seen["fields"] > 10_000, seen  # most of every real layout's bytes are fields
