"""tongasm.neff against the two real NEFFs: byte-exact round trips, the header declaration, the
payload rules of neff-and-real-opcodes.md §1.2-§1.6, typed members, .dbg names, selectors, the writer's
R-1..R-6 readings, every malformed-container class, and the real bundles tongasm has layouts for.

Expected values come from the spec chapter's tables (which were read off the bytes independently) or
from an independent reader (Python's zlib/gzip/tarfile), never from tongasm's own output.
"""

from __future__ import annotations

import gzip
import hashlib
import struct
import tarfile
import time
import zlib
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neff_support import (
    foreign_tar, large, neff_of_members, neff_of_tar, raw_tar_member, real_header, small, with_payload,
)
from tongasm.check.runner import check_stream
from tongasm.errors import InputError
from tongasm.isa import DecisionSet, build_formats
from tongasm.isa.decisions import DECISIONS
from tongasm.neff import (
    HEADER_FIELDS, Neff, parse_header, read_neff, resolve_selector, unpack_neff, write_neff,
)
from tongasm.neff.container import (
    TAR_FIELDS, build_tar, gzip_member, read_tar, safe_member_path, tar_header,
)
from tongasm.neff.errors import NeffError
from tongasm.neff.header import HEADER_FIELD_MAP, build_header, header_markdown
from tongasm.neff.members import neff_target
from tongasm.neff.select import parse_selector
from tongasm.text.assembler import assemble_text
from tongasm.text.fast import fast_listing
from tongasm.text.listing import StreamInput, listing

ROOT = Path(__file__).resolve().parent.parent
STOCK_ZLIB = "ng" not in zlib.ZLIB_RUNTIME_VERSION and zlib.ZLIB_RUNTIME_VERSION.startswith(("1.2.", "1.3"))


@pytest.fixture(scope="module")
def small_neff() -> Neff:
    return read_neff(small())


@pytest.fixture(scope="module")
def large_neff() -> Neff:
    return read_neff(large())


def _fresh(path: Path) -> Neff:
    return read_neff(path)


# --- round trips -----------------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["small", "large"])
def test_unmodified_neff_writes_back_byte_for_byte(which: str) -> None:
    path = small() if which == "small" else large()
    data = path.read_bytes()
    neff = read_neff(path)
    assert neff.to_bytes() == data
    # the tar rebuilt from the members by tongasm's writer is the tar inside the file
    assert build_tar((n, neff.members[n]) for n in _order(neff.members, "neff-json-last")) == neff.source_tar


@pytest.mark.skipif(not STOCK_ZLIB, reason=f"deflate bytes are zlib's: {zlib.ZLIB_RUNTIME_VERSION}")
@pytest.mark.parametrize("which", ["small", "large"])
def test_fresh_compression_reproduces_the_file(which: str) -> None:
    # raw deflate level 1, memLevel 8, wbits -15, hand-written gzip header: the compiler's bytes exactly
    path = small() if which == "small" else large()
    assert read_neff(path).to_bytes(reuse=False) == path.read_bytes()


def test_python_gzip_module_writes_a_different_os_byte(small_neff: Neff) -> None:
    # §1.1/§1.4: Python's gzip writes OS 0xFF; the files (and tongasm) write 3 (Unix); all else equal
    tar = small_neff.source_tar
    assert tar is not None
    theirs = gzip.compress(tar, 1, mtime=small_neff.gzip.mtime)
    ours = gzip_member(tar, small_neff.gzip.mtime)
    assert theirs[9] == 0xFF and ours[9] == 3
    assert theirs[:9] == ours[:9] and theirs[10:] == ours[10:]


def test_payload_facts_match_the_spec(small_neff: Neff, large_neff: Neff) -> None:
    # §1.4: MTIME, XFL/OS, member sizes and padding to 10 240
    assert (small_neff.gzip.mtime, large_neff.gzip.mtime) == (0x6A39B44A, 0x6A39A7FE)
    for n, member, total in ((small_neff, 53601, 61440), (large_neff, 1514364, 1515520)):
        assert (n.gzip.xfl, n.gzip.os, n.gzip.header) == (4, 3, n.gzip.header[:10])
        assert n.gzip.member_size == member and member + n.gzip.padding == total and total % 10240 == 0
    # §1.5: the tar sizes and two end blocks
    assert small_neff.source_tar is not None and large_neff.source_tar is not None
    assert (len(small_neff.source_tar), len(large_neff.source_tar)) == (356864, 9285120)
    assert read_tar(small_neff.source_tar)[1] == 1024


def test_tar_member_headers_are_the_exact_bytes_of_the_files(small_neff: Neff) -> None:
    # every member header tongasm writes equals the file's, checked with Python's tarfile as the reader
    tar = small_neff.source_tar
    assert tar is not None
    pos = 0
    for name, data in small_neff.members.items():
        assert tar[pos:pos + 512] == tar_header(name, len(data)), name
        pos += 512 + len(data) + (-len(data) % 512)
    import io
    with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
        infos = tf.getmembers()
    assert [i.name for i in infos] == list(small_neff.members)
    assert {(i.mode, i.uid, i.gid, i.uname, i.gname, i.mtime, i.type) for i in infos} == \
        {(0o664, 1000, 1000, "nobody", "nobody", 0, tarfile.REGTYPE)}
    assert tar[148:156].endswith(b"\0 ") and tar[100:108] == b"000664 \0"


def test_tar_field_table_tiles_the_header_block() -> None:
    at = 0
    for f in TAR_FIELDS:
        assert f.offset == at, f.name
        at += f.width
    assert at == 512


def test_member_order_r6(small_neff: Neff) -> None:
    names = list(small_neff.members)
    assert names[-1] == "neff.json"
    assert _order(reversed(names), "neff-json-last") == names
    plain = _order(names, "byte-order")
    assert plain[-1] != "neff.json" and plain == sorted(names, key=str.encode)
    # uppercase before lowercase, as the files have it
    assert names.index("sg00/SP.json") < names.index("sg00/act_info.json")
    pos = {n: i for i, n in enumerate(reversed(names))}
    assert _order(names + ["zz/new.bin", "aa.bin"], "input-order", pos) == \
        list(reversed(names)) + ["aa.bin", "zz/new.bin"]


# --- header ----------------------------------------------------------------------------------------

def test_header_fields_tile_1024_bytes_without_gaps() -> None:
    at = 0
    for f in HEADER_FIELDS:
        assert f.offset == at, f.name
        at = f.end
    assert at == 1024


def test_header_values_are_the_spec_tables(small_neff: Neff, large_neff: Neff) -> None:
    # §1.2, column "small" / "large"
    for n, data_size, digest, uuid, w220 in (
            (small_neff, 0xF000, "bcb3e9ef77301698cd8b4cb9471ff5ac", "00a04c535fd94f07bffdd5eacdefc852", 0x209C00),
            (large_neff, 0x172000, "e116846fc3dd76b7fb2b87229a70151a", "25e09fd2caca464a9ec358c85854fd38", 0x201C00)):
        h = n.header
        assert (h.number("packaging_version"), h.number("header_size"), h.number("data_size")) == (2, 0x400, data_size)
        assert (h.number("kelp_version_major"), h.number("kelp_version_minor"), h.number("num_tpb")) == (2, 0, 1)
        assert h.raw("hash").hex() == digest and h.raw("hash_rest") == bytes(16)
        assert h.raw("uuid").hex() == uuid and h.raw("uuid")[6] >> 4 == 4 and h.raw("uuid")[8] >> 6 == 0b10
        assert h.text("name") == "file.neff" and h.number("requested_tpb_count") == 1
        assert h["tpb_per_node"] == (1,) + (0,) * 63
        assert (h.number("unknown_0x220"), h.number("unknown_0x228")) == (w220, 2)
        assert h.raw("pad") == bytes(464) and h.raw("kelp_version_build") == bytes(128)


def test_header_hash_is_not_md5_of_the_payload(small_neff: Neff) -> None:
    # §1.3: the digest's input is unknown; the obvious candidate is not it
    assert small_neff.source_payload is not None
    assert hashlib.md5(small_neff.source_payload).digest() != small_neff.header.raw("hash")


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=1024, max_size=1024))
def test_any_1024_bytes_round_trip_through_the_header(raw: bytes) -> None:
    assert parse_header(raw).to_bytes() == raw


@settings(max_examples=100, deadline=None)
@given(st.fixed_dictionaries({
    f.name: (st.integers(0, (1 << (8 * f.width)) - 1) if f.kind in ("u32", "u64")
             else st.tuples(*[st.integers(0, 255)] * f.width) if f.kind == "u8[]"
             else st.binary(min_size=f.width, max_size=f.width))
    for f in HEADER_FIELDS}))
def test_header_build_then_parse_gives_the_values(values: dict) -> None:
    assert parse_header(build_header(values)).values == values


@pytest.mark.parametrize("name,value", [("data_size", 1 << 64), ("num_tpb", -1), ("num_tpb", 1 << 32),
                                        ("uuid", bytes(17)), ("tpb_per_node", (0,) * 65), ("tpb_per_node", (256,))])
def test_header_values_that_do_not_fit_are_refused_naming_the_field(name: str, value: object) -> None:
    with pytest.raises(NeffError, match=name):
        build_header({name: value})  # type: ignore[dict-item]


def test_header_markdown_doc_is_current() -> None:
    doc = ROOT / "docs" / "neff-header.md"
    assert doc.read_text() == header_markdown(), "docs/neff-header.md is stale: `tongasm neff header --format markdown`"
    for f in HEADER_FIELDS:
        assert f"`{f.name}`" in doc.read_text()


# --- typed members, engines, targets -------------------------------------------------------------

def test_graphs_engines_and_target(small_neff: Neff) -> None:
    assert small_neff.target.name == "gen3" and small_neff.kelf.target_name == "cayman"
    assert list(small_neff.graphs) == ["sg00", "sg01"]
    g = small_neff.graph("sg00")
    files = {s.stream: (s.member, s.token, s.engine_file) for s in g.streams.values()}
    assert files == {"pe": ("sg00/PE.bin", "pe", "PE"), "pool": ("sg00/Pool.bin", "pool", "Pool"),
                     "act": ("sg00/Activation.bin", "act", "Activation"), "dve": ("sg00/DVE.bin", "dve", "DVE"),
                     "sp": ("sg00/SP.bin", "sp", "SP")}
    assert g.streams["act"].sidecar == "sg00/Activation.json"
    side = small_neff.sidecar(g.streams["act"])
    assert side is not None and side.instr == "Activation.bin" and side.extra["act_semaphore"] == 12


def test_info_and_def_json_views(small_neff: Neff, large_neff: Neff) -> None:
    info = small_neff.info
    assert info is not None and info.tool_version == "2.23.6484.0+3b612583" and info.num_tpb_per_node[0] == 1
    d = small_neff.graph("sg00").definition
    v = {n: (x.type, x.var_id, x.size) for n, x in d.variables.items()}
    assert v["SB"] == ("state-buffer", 0, None) and v["x"] == ("input", 1, 65536) and v["y"] == ("input", 2, 65536)
    assert v["output0"] == ("output", 3, 32768) and v["DGETable0"] == ("dge-table", 5, None)
    assert d.variables["identity_82_sg0000"].file_name == "value_sg0000_identity_82_CRSM.npy"
    q = d.dma_queues
    assert (q["qPoolDynamic"].owner, q["qPoolDynamic"].semaphore_set) == ("pool", tuple(range(24, 40)))
    assert (q["qSPDynamicHW"].owner, q["qSPDynamicHW"].semaphore_set) == ("sp", tuple(range(8, 24)))
    assert d.runtime_statebuffer_reservation[0]["offset"] == 229368 and d.runtime_semaphore_count == 3
    dl = large_neff.graph("sg00").definition
    assert dl.dma_queues["qActDynamicHW"].semaphore_set == tuple(range(40, 56))
    assert sorted(x.var_id for x in dl.variables.values() if x.type == "virtual") == list(range(5, 21))
    assert dl.variables["DGETable0"].var_id == 21 and dl.variables["y"].size == 1 << 32


def test_targets() -> None:
    assert neff_target("cayman").name == "gen3" and neff_target("sunda").name == "gen2"
    for bad in ("mariana", "inferentia", "trn9"):
        with pytest.raises(NeffError, match=repr(bad)):
            neff_target(bad)


def test_unknown_target_is_refused_naming_it(small_neff: Neff) -> None:
    kelf = small_neff.members["kelf-0.json"].replace(b'"cayman"', b'"mariana"')
    members = dict(small_neff.members, **{"kelf-0.json": kelf})
    neff = Neff.from_bytes(neff_of_members(list(members.items())))
    with pytest.raises(NeffError, match="'mariana'.*not supported"):
        _ = neff.target
    with pytest.raises(NeffError, match="mariana"):
        resolve_selector("x.neff", neff=neff)


# --- debug info ----------------------------------------------------------------------------------

def test_bir_names_of_matmul_small_are_the_spec_table(small_neff: Neff) -> None:
    # §4.4, bundle by bundle (0xB1/0xCC prologue entries are empty)
    g = small_neff.graph("sg00")
    names = {s: small_neff.bir_names(g.streams[s]) for s in g.streams}
    assert names["pe"] == [None, None, "I-87-0-wait-0", "I-87-0", "I-87-0", "I-87-1", "I-87-1", "I-72-0-wait-0",
                           "I-72-0", "I-72-0", "I-72-1", "I-72-1"]
    assert names["pool"] == [None, None, "I-76-0", "I-71-0", "I-71-1", "I-74-0", "Block1-final-DMA-NOP"]
    assert names["sp"] == [None, None, "I-86-0"]
    assert names["act"] == [None, None, "I-80-0-accel-tc-act-PWP", "I-80-0-accel-tc-act", "I-89-0-tc-act"]
    assert names["dve"] == [None, None]


def test_every_bundle_of_large_has_one_resolved_debug_entry(large_neff: Neff) -> None:
    total = 0
    for s in large_neff.streams():
        names = large_neff.bir_names(s)
        assert names is not None and len(names) == len(large_neff.stream_data(s)) // 64
        assert names[:2] == [None, None] and all(n and "#" not in n for n in names[2:])
        total += len(names)
    assert total == 59590  # §0.1: both cores' bundles


def test_debug_info_schema_fields(small_neff: Neff) -> None:
    from tongasm.neff.debuginfo import DEBUG_ENGINES, backend_instructions, parse_debug_info

    engines = {}
    for path, data in small_neff.members.items():
        if path.startswith("sg00/debug_info_"):
            msg = parse_debug_info(data, path)
            engines[path.rpartition("_")[2].removesuffix(".dbg")] = msg.engine
            assert msg.description.startswith("Debug info for")
    assert {e: DEBUG_ENGINES[n] for e, n in engines.items()} == {e: e for e in engines}
    pe = backend_instructions(small_neff.members["sg00/debug_info_backend_PE.dbg"])
    i = pe[106]
    assert i.name == "I-87-0" and i.parent_ids == (87,) and set(i.deps) == {94, 103}
    assert ("kernel_line", "58") in pe[117].attributes


def test_debug_info_keeps_unknown_fields() -> None:
    from tongasm.neff.debuginfo import parse_debug_info

    raw = b"\x0a\x01x" + b"\xf8\x01\x07"  # description "x", then field 31 (varint 7), not in the schema
    msg = parse_debug_info(raw)
    assert msg.description == "x" and msg.SerializeToString().endswith(b"\xf8\x01\x07")
    with pytest.raises(NeffError, match="not a debug-info protobuf"):
        parse_debug_info(b"\x0a\xff\xff\xff")


# --- writer: replacing, decisions ----------------------------------------------------------------

def test_replaced_stream_changes_that_member_and_data_size_only(tmp_path: Path) -> None:
    orig = read_neff(small())
    neff = read_neff(small())
    pe = neff.stream_data(neff.graph("sg00").streams["pe"])
    import random

    new = pe + random.Random(12).randbytes(64 * 300)  # longer and incompressible: the payload grows
    neff.replace_stream("sg00", "pe", new)
    out = tmp_path / "o.neff"
    write_neff(neff, out)
    back = read_neff(out)
    assert back.members["sg00/PE.bin"] == new
    assert {k: v for k, v in back.members.items() if k != "sg00/PE.bin"} == \
        {k: v for k, v in orig.members.items() if k != "sg00/PE.bin"}
    assert list(back.members) == list(orig.members)
    changed = [f.name for f in HEADER_FIELDS if back.header[f.name] != orig.header[f.name]]
    assert changed == ["data_size"] and back.header.number("data_size") == out.stat().st_size - 1024
    assert back.gzip.mtime == orig.gzip.mtime and out.stat().st_size % 10240 == 1024
    # an independent reader agrees
    with open(out, "rb") as fh:
        fh.seek(1024)
        tar = zlib.decompressobj(31).decompress(fh.read())
    import io
    with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
        assert tf.extractfile("sg00/PE.bin").read() == new  # type: ignore[union-attr]


def test_a_replaced_stream_must_be_whole_bundles(small_neff: Neff) -> None:
    neff = read_neff(small())
    with pytest.raises(NeffError, match="not a whole number of 64-byte bundles"):
        neff.replace_member("sg00/PE.bin", bytes(100))
    neff.replace_member("sg00/exp_and_others_bkt.bin", bytes(100))  # not a stream: any length
    with pytest.raises(NeffError, match="no member"):
        neff.replace_member("sg00/nope.bin", bytes(64))
    with pytest.raises(NeffError, match="no stream 'mm'"):
        neff.replace_stream("sg00", "mm", bytes(64))


def test_r_decisions_are_registered_with_their_readings() -> None:
    assert DECISIONS["R-1"].choices == ("copy", "md5-payload", "zero")
    assert DECISIONS["R-3"].choices == ("copy", "graph-count") and DECISIONS["R-4"].choices == ("keep", "fresh")
    assert DECISIONS["R-5"].choices == ("copy", "now") and DECISIONS["R-6"].default == "input-order"
    assert DecisionSet.parse(["r1=zero"])["R-1"] == "zero" and DecisionSet.parse(["R-6=byte-order"])["R-6"] == "byte-order"
    assert DecisionSet.parse(["6=outermost-first"])["D-6"] == "outermost-first"  # a bare number is still a D-n
    with pytest.raises(Exception, match="unknown decision 'N-99'"):
        DecisionSet.parse(["N-99=x"])


def test_writer_readings_r1_r3_r4_r5_r6() -> None:
    neff = read_neff(small())
    ds = DecisionSet.parse(["R-1=md5-payload", "R-4=fresh", "R-5=now", "R-6=byte-order"])
    t0 = int(time.time())
    data = neff.to_bytes(ds)
    back = Neff.from_bytes(data)
    assert back.header.raw("hash") == hashlib.md5(data[1024:]).digest() and back.header.raw("hash_rest") == bytes(16)
    u = back.header.raw("uuid")
    assert u != neff.header.raw("uuid") and u[6] >> 4 == 4 and u[8] >> 6 == 0b10
    assert back.gzip.mtime >= t0 and list(back.members)[-1] != "neff.json"
    assert back.members == neff.members
    zero = Neff.from_bytes(neff.to_bytes(DecisionSet.parse(["R-1=zero"])))
    assert zero.header.raw("hash") == bytes(16)
    # graph-count writes 0x228 = number of graphs; copy keeps whatever the input had
    odd = Neff.from_bytes(with_payload(neff.source_payload or b"",
                                       parse_header(real_header()).replace(unknown_0x228=7).to_bytes()))
    assert Neff.from_bytes(odd.to_bytes()).header.number("unknown_0x228") == 7
    assert Neff.from_bytes(odd.to_bytes(DecisionSet.parse(["R-3=graph-count"]))).header.number("unknown_0x228") == 2


def test_info_json_edits_reach_the_header_mirrors() -> None:
    neff = read_neff(small())
    info = neff.members["info.json"].replace(b'"name": "file.neff"', b'"name": "other.neff"')
    neff.replace_member("info.json", info)
    back = Neff.from_bytes(neff.to_bytes())
    assert back.header.text("name") == "other.neff"


# --- malformed containers ------------------------------------------------------------------------

def _bad_cases() -> list[tuple[str, bytes, str]]:
    good = small().read_bytes()
    h = real_header()
    payload = good[1024:]
    member = payload[:53601]
    cases = [
        ("empty", b"", "truncated"),
        ("short header", good[:1000], "truncated"),
        ("bare tgz", payload, "bare gzip"),
        ("packaging version", parse_header(h).replace(packaging_version=7).to_bytes() + payload, "packaging_version"),
        ("header size", parse_header(h).replace(header_size=512).to_bytes() + payload, "header_size"),
        ("truncated file", good[:-100], "truncated"),
        ("appended bytes", good + bytes(10), "sizes disagree"),
        ("gzip magic", with_payload(b"PK" + payload[2:]), "bad gzip magic"),
        ("deflate", with_payload(member[:10] + b"\xff" * 64 + member[74:]), "bad gzip stream"),
        ("truncated gzip", with_payload(member[:20000]), "truncated gzip"),
        ("crc", with_payload(member[:-8] + b"\0\0\0\0" + member[-4:]), "CRC32"),
        ("garbage after", with_payload(member + b"junk" + bytes(100)), "not zero padding"),
        ("no kelf", neff_of_members([("info.json", b"{}")]), "no kelf-0.json"),
        ("bad checksum", neff_of_tar(_corrupt_checksum(build_tar([("kelf-0.json", b"{}")]))), "checksum"),
        ("truncated tar", neff_of_tar(build_tar([("kelf-0.json", b"x" * 600)])[:700]), "truncated tar"),
        ("no end blocks", neff_of_tar(build_tar([("kelf-0.json", b"{}")])[:-1024]), "no end-of-archive"),
        ("duplicate", neff_of_tar(raw_tar_member(b"kelf-0.json", b"{}") * 2 + bytes(1024)), "occurs twice"),
    ]
    for label, name in (("dotdot", "../evil.json"), ("inner dotdot", "sg00/../../evil"), ("absolute", "/etc/evil"),
                        ("backslash", "a\\..\\b")):
        cases.append((label, neff_of_tar(raw_tar_member(name.encode(), b"x") + bytes(1024)), "refused"))
    cases.append(("nul", neff_of_tar(raw_tar_member(b"a\0b", b"x") + bytes(1024)), "NUL"))
    for kind in ("symlink", "hardlink", "chardev", "dir", "fifo"):
        cases.append((kind, neff_of_tar(foreign_tar([("kelf-0.json", "file", b"{}"), ("evil", kind, b"")])),
                      "regular files only"))
    return cases


def _corrupt_checksum(tar: bytes) -> bytes:
    b = bytearray(tar)
    b[0] ^= 1  # the name changes, the stored checksum does not
    return bytes(b)


@pytest.mark.parametrize("label,data,message", _bad_cases(), ids=[c[0] for c in _bad_cases()])
def test_malformed_containers_are_refused_clearly(label: str, data: bytes, message: str) -> None:
    with pytest.raises(NeffError, match=message) as e:
        Neff.from_bytes(data, path="bad.neff")
    assert isinstance(e.value, InputError) and e.value.exit_code == 2
    assert "bad.neff" in str(e.value) or "tar member" in str(e.value)


def test_bad_json_members_are_refused_naming_the_member(small_neff: Neff) -> None:
    members = dict(small_neff.members, **{"sg00/def.json": b"{not json"})
    neff = Neff.from_bytes(neff_of_members(list(members.items())))
    with pytest.raises(NeffError, match="sg00/def.json: not valid JSON"):
        _ = neff.graphs
    members = dict(small_neff.members, **{"kelf-0.json": b'{"graphs": 3, "target": "cayman"}'})
    with pytest.raises(NeffError, match="'graphs' should be list"):
        _ = Neff.from_bytes(neff_of_members(list(members.items()))).kelf


# --- unpack safety ---------------------------------------------------------------------------------

def test_unpack_never_writes_outside_the_destination(tmp_path: Path, small_neff: Neff) -> None:
    evil = Neff(small_neff.header, small_neff.gzip, {"kelf-0.json": b"{}", "../escape.txt": b"x"})
    with pytest.raises(NeffError, match="'..' component"):
        unpack_neff(evil, tmp_path / "out")
    assert not (tmp_path / "escape.txt").exists() and not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == []  # no temporary directory left either
    # a symlink inside the destination that points out of it is not followed
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "link").symlink_to(tmp_path)
    with pytest.raises(NeffError, match="outside"):
        safe_member_path(tmp_path / "d", "link/x")


def test_unpack_pack_round_trip_in_the_library(tmp_path: Path) -> None:
    from tongasm.neff import pack_dir

    neff = read_neff(small())
    unpack_neff(neff, tmp_path / "u")
    assert (tmp_path / "u" / "sg00" / "PE.bin").read_bytes() == neff.members["sg00/PE.bin"]
    pack_dir(tmp_path / "u", tmp_path / "o.neff")
    assert (tmp_path / "o.neff").read_bytes() == small().read_bytes()


# --- selectors -------------------------------------------------------------------------------------

def test_selector_parsing() -> None:
    s = parse_selector("a/b.neff:sg01/PE@0x80")
    assert s is not None and (s.path, s.graph, s.stream, s.bundle_offset) == ("a/b.neff", "sg01", "PE", 128)
    s = parse_selector("b.neff:sg00/pe:3")
    assert s is not None and s.bundle_offset == 192
    assert parse_selector("x.bin") is None and parse_selector("b.neff") == parse_selector("b.neff")
    for bad in ("b.neff:", "b.neff@3", "b.neff:sg00:3", "b.neff:sg00/pe:x", "b.neff:a/b/c"):
        with pytest.raises(NeffError, match="bad NEFF selector"):
            parse_selector(bad)


def test_a_neff_without_the_suffix_is_recognised_by_its_header(tmp_path: Path) -> None:
    p = tmp_path / "model.bin"
    p.write_bytes(small().read_bytes())
    s = parse_selector(str(p))
    assert s is not None and s.path == str(p)


def test_selector_resolution(small_neff: Neff) -> None:
    path = str(small())
    everything = resolve_selector(path)
    assert [s.name for s in everything.streams] == [f"sg0{g}.{e}" for g in (0, 1) for e in ("act", "dve", "pe", "pool", "sp")]
    assert all(s.target.name == "gen3" for s in everything.streams)
    assert len(resolve_selector(path + ":sg01").streams) == 5
    one = resolve_selector(path + ":sg00/Activation").streams
    assert [(s.name, s.member, s.stream) for s in one] == [("sg00.act", "sg00/Activation.bin", "act")]
    assert one[0].bir_names == small_neff.bir_names(small_neff.graph("sg00").streams["act"])
    assert resolve_selector(path + ":sg00/pe:11").selector.bundle_offset == 11 * 64
    for bad, msg in ((":sg09", "no graph 'sg09'"), (":sg00/mm", "no stream 'mm'"), (":sg00/pe:12", "12 bundles")):
        with pytest.raises(NeffError, match=msg):
            resolve_selector(path + bad)


# --- the real bundles ----------------------------------------------------------------------------

SPECIFIED = (0x41, 0x46, 0x47, 0x49)


def test_every_specified_real_bundle_decodes_and_reencodes_identically(small_neff: Neff, large_neff: Neff) -> None:
    fs = build_formats(DecisionSet())
    seen: Counter[int] = Counter()
    for neff in (small_neff, large_neff):
        for s in neff.streams():
            data = neff.stream_data(s)
            for off in range(0, len(data), 64):
                raw = data[off:off + 64]
                if raw[0] not in SPECIFIED:
                    continue
                sel = fs.select(raw[0], raw)
                assert sel is not None, f"{s.member}+{off:#x}: {raw.hex()}"
                fmt, fields = sel
                assert fmt.encode(fields) == raw, f"{s.member}+{off:#x} ({fmt.name})"
                seen[raw[0]] += 1
    # §0.1 populations (both cores): small 4 Copy; large 1024 TT, 64 Copy, 128 Cast, 128 Memset
    assert seen == {0x41: 1024, 0x46: 68, 0x47: 128, 0x49: 128}


def test_the_real_program_passes_check(small_neff: Neff, large_neff: Neff) -> None:
    for neff in (small_neff, large_neff):
        for s in neff.streams():
            findings = check_stream(neff.stream_data(s), name=s.name, target=neff.target, stream=s.stream,
                                    unmodelled="note")
            assert [f.line() for f in findings if f.severity == "error"] == []
            assert {f.check for f in findings} <= {"bundle.unmodelled"}


def test_unmodelled_note_counts_per_opcode_and_unknown_opcodes_stay_errors(small_neff: Neff) -> None:
    pe = small_neff.stream_data(small_neff.graph("sg00").streams["pe"])
    gen3 = small_neff.target
    assert check_stream(pe, unmodelled="note", stream="pe", target=gen3) == []  # issue 13: every PE bundle has a layout
    # live ISA opcodes without a layout (0xA5 Write, 0xA6 Notify) are counted per opcode
    extra = (bytes([0xA5, 0x10]) + bytes(62)) * 2 + bytes([0xA6, 0x10]) + bytes(62)
    notes = check_stream(pe + extra, unmodelled="note", stream="pe", target=gen3)
    assert {(f.value, f.message.split()[0]) for f in notes} == {(0xA5, "2"), (0xA6, "1")}
    assert all(f.severity == "warning" and f.check == "bundle.unmodelled" for f in notes)
    strict = check_stream(pe + extra, stream="pe", target=gen3)  # the default: each such bundle is a bundle.opcode error
    assert len([f for f in strict if f.check == "bundle.opcode"]) == 3
    unknown = bytes([0x0B, 0x10]) + bytes(62)  # 0x0B is not a live ISA opcode
    assert [f.check for f in check_stream(pe + unknown, unmodelled="note", target=gen3)
            if f.severity == "error"] == ["bundle.opcode"]


def test_listing_with_bir_names_is_the_same_on_both_paths_and_assembles_back(small_neff: Neff, large_neff: Neff) -> None:
    for neff in (small_neff, large_neff):
        sel = resolve_selector("x.neff", neff=neff)
        inputs = [StreamInput(s.name, s.data, s.bir_names) for s in sel.streams
                  if neff is small_neff or s.stream in ("dve", "act")]
        ref = list(listing(inputs, target=sel.target))
        fast = list(fast_listing(inputs, target=sel.target))
        assert ref == fast
        assert any(line.endswith("  ; I-87-0") for line in ref) or neff is large_neff
        prog = assemble_text("\n".join(ref))
        assert prog.target.name == "gen3"
        assert {n: bytes(d) for n, d in prog.streams.items()} == {s.name: s.data for s in inputs}


def test_import_tongasm_neff_does_not_load_protobuf() -> None:
    import subprocess
    import sys

    code = "import sys, tongasm.neff, tongasm.cli; tongasm.cli.build_parser(); print('google.protobuf' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_header_declaration_names_every_known_field() -> None:
    # §1.2's named fields, each declared once with its decision
    expected = {"packaging_version": None, "header_size": None, "data_size": None, "kelp_version_major": "R-2",
                "hash": "R-1", "uuid": "R-4", "name": None, "num_tpb": None, "requested_tpb_count": None,
                "tpb_per_node": None, "unknown_0x220": "R-3", "unknown_0x228": "R-3"}
    for name, dec in expected.items():
        assert HEADER_FIELD_MAP[name].decision == dec, name
    assert HEADER_FIELD_MAP["data_size"].offset == 0x10 and HEADER_FIELD_MAP["uuid"].offset == 0xCC
    assert struct.calcsize("<Q") == HEADER_FIELD_MAP["unknown_0x228"].width


def test_neff_json_entries_and_signature(small_neff: Neff, large_neff: Neff) -> None:
    # §1.7: x, y inputs and one output0 per core; shapes of the programs of §0.1
    g = small_neff.graph_json
    assert g is not None
    assert [(e.name, e.shape, e.dtype) for e in g.entries] == [
        ("x", (128, 256), "float16"), ("y", (256, 128), "float16"),
        ("output0", (128, 128), "float16"), ("output0", (128, 128), "float16")]
    assert {k: v["id"] for k, v in g.inputs.items()} == {"x": 0, "y": 1}
    assert g.nodes[2]["attrs"]["kelf"] == "kelf-0.json"
    gl = large_neff.graph_json
    assert gl is not None and gl.entries[1].shape == (32768, 65536)


def _exercise(data: bytes) -> None:
    from tongasm.neff.report import neff_report

    n = Neff.from_bytes(data)
    neff_report(n)
    for s in n.streams():
        n.bir_names(s)
    n.to_bytes()


@pytest.mark.parametrize("seed", range(3))
def test_mutated_neffs_fail_only_with_neff_errors(small_neff: Neff, seed: int) -> None:
    """Bounded fuzz: random bytes changed in the file, in the tar (recompressed) or in one JSON/.dbg
    member (rebuilt) never raise anything but a NeffError."""
    import random

    rng = random.Random(seed)
    good = small().read_bytes()
    tar = small_neff.source_tar
    assert tar is not None
    for _ in range(60):
        mode = rng.randrange(3)
        if mode == 0:
            b = bytearray(good)
            for _ in range(rng.randrange(1, 8)):
                b[rng.randrange(len(b))] = rng.randrange(256)
            data = bytes(b)
        elif mode == 1:
            t = bytearray(tar)
            for _ in range(rng.randrange(1, 8)):
                t[rng.randrange(len(t))] = rng.randrange(256)
            data = neff_of_tar(bytes(t))
        else:
            ms = dict(small_neff.members)
            k = rng.choice(sorted(m for m in ms if m.endswith((".json", ".dbg"))))
            v = bytearray(ms[k])
            for _ in range(rng.randrange(1, 5)):
                v[rng.randrange(len(v))] = rng.randrange(256)
            ms[k] = bytes(v)
            data = neff_of_members(list(ms.items()))
        try:
            _exercise(data)
        except NeffError:
            pass


@pytest.mark.parametrize("member,text", [
    ("kelf-0.json", b'{"graphs": [{"name": "sg00"}], "target": "cayman"}'),
    ("kelf-0.json", b'{"graphs": [{"name": "sg00", "definition": "sg09/def.json"}], "target": "cayman"}'),
    ("kelf-0.json", b'[1, 2]'),
    ("sg00/def.json", b'{"pe_instr": 5}'),
    ("sg00/def.json", b'{"pe_instr": "PE.bin", "var": {"x": 5}}'),
    ("sg00/def.json", b'{"dma_queue": {"q": {"semaphore_set": ["a"]}}}'),
    ("sg00/def.json", b'{"pe_instr": "PE.bin", "pe_dbg": "x.dbg"}'),
    ("sg00/def.json", b'{"pe_instr": "Nope.bin"}'),
    ("info.json", b'{"num_tpb_per_node": [true]}'),
    ("neff.json", b'{"nodes": [{"op": "null"}]}'),
    ("sg00/debug_info_asm_PE.dbg", b"\x1a\x05\x1a\x03\xff\xff"),
])
def test_json_and_dbg_members_of_the_wrong_shape_are_neff_errors(small_neff: Neff, member: str, text: bytes) -> None:
    ms = dict(small_neff.members, **{member: text})
    with pytest.raises(NeffError):
        _exercise(neff_of_members(list(ms.items())))


def test_odd_but_valid_neff_json_metadata_is_tolerated(small_neff: Neff) -> None:
    ms = dict(small_neff.members, **{"neff.json": b'{"nodes": [], "metadata": [1]}'})
    n = Neff.from_bytes(neff_of_members(list(ms.items())))
    assert n.graph_json is not None and n.graph_json.inputs == {} and n.graph_json.entries == ()


def _order(names, reading, pos=None):
    """R-6 under one reading (the decision's own behaviour)."""
    from tongasm.isa.decisions.neff import MemberOrder

    return DecisionSet.parse([f"R-6={reading}"]).get(MemberOrder).order(names, pos)
