"""Hostile NEFF containers and members are refused at a named limit, before the memory is spent.

Every bomb is built here, small, on the fly: a gzip member inflating far past a limit (zeros
compress ~1000:1), a tar of more members than allowed, a JSON member nested deeper than allowed, a
``.dbg`` protobuf declaring a huge id table or too many entries. Each must be a NeffError (exit 2
from the CLI) naming the limit, the figure and the member; where it is cheap, ``tracemalloc``
shows the peak stayed a small fraction of what the bomb announces. Limits are lowered through
their environment variables so the tests stay fast; a few run at the real default.
"""

from __future__ import annotations

import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from neff_support import neff_of_members, neff_of_tar, with_payload
from tongasm.cli import main
from tongasm.errors import UsageError
from tongasm.neff.container import (
    DEFLATE_LEVEL,
    DEFLATE_MEMLEVEL,
    DEFLATE_WBITS,
    INFLATE_STEP,
    build_tar,
    gzip_header,
    pad_payload,
    read_tar,
    tar_header,
)
from tongasm.neff.debuginfo import parse_debug_info
from tongasm.neff.errors import NeffError
from tongasm.neff.limits import (
    LIMITS,
    MAX_DBG_IDS,
    MAX_MEMBER_BYTES,
    MAX_MEMBERS,
    MAX_TAR_BYTES,
)
from tongasm.neff.members import json_depth, load_json
from tongasm.neff.neff import Neff

MiB = 1 << 20


def streamed_gzip(pieces: Iterator[bytes]) -> bytes:
    """A padded NEFF payload whose gzip member holds the concatenated ``pieces``, compressed one piece
    at a time (the inflated bytes are never held whole)."""
    c = zlib.compressobj(DEFLATE_LEVEL, zlib.DEFLATED, DEFLATE_WBITS, DEFLATE_MEMLEVEL)
    out, crc, size = [gzip_header(0)], 0, 0
    for p in pieces:
        out.append(c.compress(p))
        crc, size = zlib.crc32(p, crc), size + len(p)
    out.append(c.flush())
    out.append(crc.to_bytes(4, "little") + (size & 0xFFFFFFFF).to_bytes(4, "little"))
    return pad_payload(b"".join(out))


def zeros(n: int, step: int = MiB) -> Iterator[bytes]:
    chunk = bytes(step)
    while n > 0:
        yield chunk[:min(n, step)]
        n -= step


def peak_of(f: Callable[[], object]) -> tuple[BaseException | None, int]:
    """Run ``f``; the exception it raised (None) and the peak of Python allocations meanwhile."""
    tracemalloc.start()
    err: BaseException | None = None
    try:
        f()
    except Exception as e:  # (returned to the test, which checks its type)
        err = e
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return err, peak


def refused(data: bytes) -> NeffError:
    with pytest.raises(NeffError) as e:
        Neff.from_bytes(data, path="bomb.neff")
    return e.value


# --- the container -------------------------------------------------------------------------------

def test_a_member_announcing_more_than_the_member_limit_is_refused_before_it_is_inflated(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_MEMBER_BYTES.env, str(MiB))
    size = 64 * MiB
    bomb = with_payload(streamed_gzip(iter([tar_header("sg00/PE.bin", size), *zeros(size)])))
    assert len(bomb) < size // 100  # the bomb is small; what it announces is not
    err, peak = peak_of(lambda: Neff.from_bytes(bomb, path="bomb.neff"))
    assert isinstance(err, NeffError)
    assert str(err) == (f"bomb.neff: tar member 'sg00/PE.bin': the member size is {size} bytes, more than the "
                        f"limit of {MiB} bytes; refused ({MAX_MEMBER_BYTES.env} raises the limit)")
    assert peak < 8 * MiB, peak  # a step or two of inflation, not the 64 MiB announced


def test_a_member_exactly_at_the_member_limit_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_MEMBER_BYTES.env, "4096")
    members = [("kelf-0.json", b"{}"), ("sg00/PE.bin", bytes(range(256)) * 16)]
    assert read_tar(build_tar(members))[0] == members
    assert Neff.from_bytes(neff_of_members(members)).members["sg00/PE.bin"] == members[1][1]
    members[1] = ("sg00/PE.bin", bytes(4097))
    with pytest.raises(NeffError, match=r"'sg00/PE.bin': the member size is 4097 bytes, more than the limit of 4096"):
        read_tar(build_tar(members))  # (the tar reader on its own applies it too)


def test_at_the_real_member_limit_a_bomb_is_refused_without_inflating_it() -> None:
    size = MAX_MEMBER_BYTES.default + 1  # 128 MiB + 1 of zeros, streamed: never held
    bomb = with_payload(streamed_gzip(iter([tar_header("sg00/SP.bin", size), *zeros(size, 8 * MiB)])))
    err, peak = peak_of(lambda: Neff.from_bytes(bomb, path="bomb.neff"))
    assert isinstance(err, NeffError)
    assert f"the member size is {size} bytes, more than the limit of {MAX_MEMBER_BYTES.default} bytes" in str(err)
    assert peak < 8 * MiB, peak


def test_zeros_past_the_tar_limit_are_refused_at_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_TAR_BYTES.env, str(4 * MiB))
    tar = build_tar([("kelf-0.json", b"{}")])
    bomb = with_payload(streamed_gzip(iter([tar, *zeros(64 * MiB)])))  # a tar, then 64 MiB of "padding"
    err, peak = peak_of(lambda: Neff.from_bytes(bomb, path="bomb.neff"))
    assert isinstance(err, NeffError)
    past = (4 * MiB // INFLATE_STEP + 1) * INFLATE_STEP  # inflation stops at the first step past the limit
    assert str(err).startswith(f"bomb.neff: the gzip payload at 0x40a: the inflated tar is at least {past} "
                               f"bytes, more than the limit of {4 * MiB} bytes; refused ({MAX_TAR_BYTES.env}")
    assert peak < 12 * MiB, peak


def test_many_members_each_allowed_are_refused_at_the_tar_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_TAR_BYTES.env, str(4 * MiB))
    members = [("kelf-0.json", b"{}")] + [(f"m{i}.bin", bytes(MiB)) for i in range(5)]
    assert "the inflated tar is at least" in str(refused(neff_of_members(members)))
    monkeypatch.setenv(MAX_TAR_BYTES.env, str(8 * MiB))  # the same file under a raised limit: read
    assert len(Neff.from_bytes(neff_of_members(members)).members) == 6


def test_a_tar_of_more_members_than_the_limit_is_refused_while_its_headers_arrive() -> None:
    n = MAX_MEMBERS.default + 1  # at the real limit: 10,001 empty members, 5 MB of tar
    tar = b"".join(tar_header(f"m{i}", 0) for i in range(n)) + bytes(1024)
    err = refused(neff_of_tar(tar))
    assert str(err).startswith(f"bomb.neff: at tar member 'm{n - 1}': the member count is {n} members, more than "
                               f"the limit of {MAX_MEMBERS.default} members; refused ({MAX_MEMBERS.env}")


def test_the_member_limit_counts_members_not_pax_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    from tongasm.neff.container import PAX_TIMES, MemberHeader

    monkeypatch.setenv(MAX_MEMBERS.env, "2")
    hdr = MemberHeader(uname="", gname="", pax=(("mtime", "1.000000000"),))
    members = [("kelf-0.json", b"{}"), ("a.bin", b"x")]
    tar = build_tar(members, {n: hdr for n, _ in members}, PAX_TIMES)  # 4 headers, 2 members
    assert len(Neff.from_bytes(neff_of_tar(tar)).members) == 2
    tar3 = build_tar([*members, ("b.bin", b"y")], None, PAX_TIMES)
    assert "the member count is 3 members, more than the limit of 2" in str(refused(neff_of_tar(tar3)))


def test_a_limit_from_the_environment_must_be_a_positive_integer(monkeypatch: pytest.MonkeyPatch) -> None:
    for bad in ("0", "-5", "1e9", "lots"):
        monkeypatch.setenv(MAX_MEMBERS.env, bad)
        with pytest.raises(UsageError, match=MAX_MEMBERS.env):
            MAX_MEMBERS.value()
    monkeypatch.setenv(MAX_MEMBERS.env, " 7 ")
    assert MAX_MEMBERS.value() == 7
    assert len({lim.env for lim in LIMITS}) == len(LIMITS)  # one variable per limit


# --- JSON members ---------------------------------------------------------------------------------

def test_json_depth_is_counted_without_brackets_inside_strings() -> None:
    assert json_depth(b"3") == 0
    assert json_depth(b'{"a": [1, {"b": []}]}') == 4  # { [ { [
    assert json_depth(b'["[[[[", "\\"[[[", {"k]]": "{"}]') == 2


def test_a_deeply_nested_json_member_is_exit_2_from_neff_info(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    deep = b"[" * 200_000 + b"]" * 200_000
    f = tmp_path / "deep.neff"
    f.write_bytes(neff_of_members([("kelf-0.json", deep)]))
    assert main(["neff", "info", str(f)]) == 2
    err = capsys.readouterr().err
    assert "NEFF member kelf-0.json: the JSON nesting depth is 200000 levels, more than the limit of 256 levels" \
        in err
    assert "Traceback" not in err and "RecursionError" not in err


def test_a_json_member_at_the_depth_limit_parses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONGASM_MAX_NEFF_JSON_DEPTH", "30")
    assert load_json("x.json", b"[" * 30 + b"]" * 30) == eval("[" * 30 + "]" * 30)
    with pytest.raises(NeffError, match="nesting depth is 31 levels, more than the limit of 30"):
        load_json("x.json", b"[" * 31 + b"]" * 31)


def test_a_json_member_larger_than_its_limit_is_refused_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONGASM_MAX_NEFF_JSON_BYTES", "1000")
    with pytest.raises(NeffError, match=r"NEFF member def.json: the JSON member size is 1001 bytes, more than "
                                         r"the limit of 1000 bytes"):
        load_json("def.json", b'"' + b"a" * 999 + b'"')
    assert load_json("def.json", b'"' + b"a" * 998 + b'"') == "a" * 998


# --- .dbg protobufs --------------------------------------------------------------------------------

def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field (wire type 2)."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def entry_with_ids(n: int) -> bytes:
    """One DebugInfo.instructions entry (field 3) whose packed parent_ids (its field 3) hold ``n`` ids."""
    return field(3, field(3, b"\x07" * n))


def test_a_dbg_entry_with_too_many_parent_ids_is_refused_before_protobuf_parses_it() -> None:
    n = MAX_DBG_IDS.default + 1  # at the real limit: 65,537 one-byte ids
    dbg = field(2, b"debug_info_backend_PE.dbg") + entry_with_ids(3) + entry_with_ids(n)
    with pytest.raises(NeffError, match=rf"NEFF member sg00/debug_info_asm_PE.dbg: entry 1: parent_ids: the "
                                        rf"debug-info id table size is {n} ids, more than the limit of "
                                        rf"{MAX_DBG_IDS.default} ids"):
        parse_debug_info(dbg, "sg00/debug_info_asm_PE.dbg")
    ok = parse_debug_info(field(2, b"x") + entry_with_ids(3) + entry_with_ids(MAX_DBG_IDS.default), "a.dbg")
    assert [len(e.parent_ids) for e in ok.instructions] == [3, MAX_DBG_IDS.default]
    assert set(ok.instructions[1].parent_ids) == {7}


def test_a_dbg_of_more_entries_than_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONGASM_MAX_NEFF_DBG_ENTRIES", "1000")
    dbg = field(3, b"") * 1001
    with pytest.raises(NeffError, match="debug-info entry count is at least 1001 entries, more than the limit "
                                        "of 1000 entries"):
        parse_debug_info(dbg, "a.dbg")
    assert len(parse_debug_info(field(3, b"") * 1000, "a.dbg").instructions) == 1000


def test_a_dbg_member_larger_than_its_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONGASM_MAX_NEFF_DBG_BYTES", "100")
    with pytest.raises(NeffError, match="debug-info member size is 101 bytes, more than the limit of 100 bytes"):
        parse_debug_info(field(1, b"d" * 99), "a.dbg")


def test_a_dbg_whose_field_overruns_the_member_is_exit_2_not_a_parse_of_garbage() -> None:
    with pytest.raises(NeffError, match=r"a.dbg: not a debug-info protobuf: field 3 declares 200000000 bytes"):
        parse_debug_info(varint(3 << 3 | 2) + varint(200_000_000) + b"\x01" * 10, "a.dbg")


def test_the_readme_gives_every_limit_with_its_default_and_variable() -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    rows = {line.split("|")[-2].strip(" `"): line for line in readme.splitlines() if "TONGASM_MAX_NEFF_" in line}
    assert set(rows) == {lim.env for lim in LIMITS}
    for lim in LIMITS:
        assert f"| {lim.default:,}" in rows[lim.env], (lim.env, rows[lim.env])
