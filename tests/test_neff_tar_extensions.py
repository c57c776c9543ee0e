"""PAX extended headers and GNU long names in a NEFF's tar (R-40): read as ordinary tar, strictly.

The writers here are independent of tongasm's: Python's :mod:`tarfile` (PAX and GNU formats) and
hand-built raw headers for the hostile cases. Real NEFFs of compilers up to 2.18 carry PAX headers
(timestamps only) before most members: ``test_corpus.py`` reads all of them.
"""

from __future__ import annotations

import io
import tarfile

import pytest
from neff_support import neff_of_tar, raw_tar_member

from tongasm.neff.errors import NeffError
from tongasm.neff.container import parse_pax_records, read_tar
from tongasm.neff.neff import Neff

LONG = "debug_info/" + "d" * 120 + "/sg00.dbg"  # longer than the 100-byte ustar name field


def _tarfile(fmt: int, entries: list[tuple[str, bytes]], pax: dict[str, str] | None = None) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt) as tf:
        for name, data in entries:
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            ti.mtime = 1_700_000_000
            if pax:
                ti.pax_headers = dict(pax)
            tf.addfile(ti, io.BytesIO(data))
    return buf.getvalue()


@pytest.mark.parametrize("fmt", [tarfile.PAX_FORMAT, tarfile.GNU_FORMAT], ids=["pax", "gnu"])
def test_long_names_written_by_tarfile_are_read(fmt: int) -> None:
    tar = _tarfile(fmt, [("kelf-0.json", b"{}"), (LONG, b"abc")])
    ext: dict = {}
    members, _ = read_tar(tar, extensions=ext)
    assert members == [("kelf-0.json", b"{}"), (LONG, b"abc")]
    assert LONG in ext and ("path", LONG) in ext[LONG].records
    assert ext[LONG].kind == ("pax" if fmt == tarfile.PAX_FORMAT else "gnu-longname")


def test_timestamp_only_pax_records_are_kept_not_applied() -> None:
    # what the 2.14 compiler writes: atime/ctime/mtime records, the name in the ustar header
    tar = _tarfile(tarfile.PAX_FORMAT, [("kelf-0.json", b"{}")],
                   pax={"atime": "1700000000.25", "ctime": "1700000000.5", "mtime": "1700000000.75"})
    ext: dict = {}
    members, _ = read_tar(tar, extensions=ext)
    assert members == [("kelf-0.json", b"{}")]
    assert dict(ext["kelf-0.json"].records) == {"atime": "1700000000.25", "ctime": "1700000000.5",
                                                "mtime": "1700000000.75"}
    assert len(Neff.from_bytes(neff_of_tar(tar)).members) == 1


def test_pax_records_parse_by_hand() -> None:
    # "18 path=a/b/c.txt\n" is 18 bytes: the length counts itself, the space, the record and the newline
    assert parse_pax_records(b"18 path=a/b/c.txt\n10 size=7\n", "t") == (("path", "a/b/c.txt"), ("size", "7"))


def _rec(key: str, value: str) -> bytes:
    """One well-formed PAX record (its length counts its own digits)."""
    body = f" {key}={value}\n".encode()
    n = len(body) + 1
    while len(str(n)) + len(body) != n:
        n += 1
    return str(n).encode() + body


def _pax(body: bytes, then: bytes) -> bytes:
    return raw_tar_member(b"PaxHeader/x", body, b"x") + then + bytes(1024)


@pytest.mark.parametrize("label,tar,message", [
    ("no length", _pax(b"path=a\n", raw_tar_member(b"kelf-0.json", b"{}")), "no decimal length"),
    ("short length", _pax(b"99 path=a\n", raw_tar_member(b"kelf-0.json", b"{}")), "malformed"),
    ("no newline", _pax(b"9 path=ab", raw_tar_member(b"kelf-0.json", b"{}")), "malformed"),
    ("no equals", _pax(b"9 pathab\n", raw_tar_member(b"kelf-0.json", b"{}")), "malformed"),
    ("escaping path", _pax(_rec("path", "../evil"), raw_tar_member(b"kelf-0.json", b"{}")), "'..'"),
    ("absolute path", _pax(_rec("path", "/etc/passwd"), raw_tar_member(b"kelf-0.json", b"{}")), "absolute"),
    ("size not a number", _pax(_rec("size", "abc"), raw_tar_member(b"kelf-0.json", b"{}")), "not a number"),
    ("dangling", raw_tar_member(b"kelf-0.json", b"{}") + raw_tar_member(b"P", _rec("size", "1"), b"x")
     + bytes(1024), "no member to apply"),
    ("two in a row", _pax(_rec("size", "2"), raw_tar_member(b"P", _rec("size", "2"), b"x")
                          + raw_tar_member(b"kelf-0.json", b"{}")), "second extension"),
    ("huge", raw_tar_member(b"P", bytes(70000), b"x") + bytes(1024), "refused"),
    ("global header", raw_tar_member(b"G", _rec("size", "2"), b"g") + bytes(1024), "PAX global header"),
])
def test_malformed_extensions_are_refused(label: str, tar: bytes, message: str) -> None:
    with pytest.raises(NeffError, match=message):
        Neff.from_bytes(neff_of_tar(tar), path="bad.neff")


def test_pax_path_overrides_the_ustar_name() -> None:
    tar = _pax(_rec("path", "kelf-0.json"), raw_tar_member(b"truncated-name", b"{}"))
    assert read_tar(tar)[0] == [("kelf-0.json", b"{}")]
