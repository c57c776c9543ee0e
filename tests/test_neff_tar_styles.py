"""The tar styles of the real NEFFs (R-40) and the header of a new or replaced member (R-41).

Golden values are taken from the real bytes by hand (a 2.14 YOLOX member's PAX header) or from
Python's :mod:`tarfile` as an independent reader; the whole-corpus byte-identity is in
``test_corpus.py``.
"""

from __future__ import annotations

import io
import tarfile

import pytest
from corpus_support import corpus_files
from neff_support import neff_of_tar

from tongasm.isa.decisions import DecisionSet
from tongasm.neff.container import (
    PAX_TIMES,
    USTAR,
    MemberHeader,
    build_tar,
    detect_style,
    pax_records,
    pax_time,
    read_gzip,
    read_tar,
)
from tongasm.neff.errors import NeffError
from tongasm.neff.neff import Neff


def test_r40_pax_records_count_their_own_length() -> None:
    # from a 2.14 YOLOX file: "30 ctime=1724962345.625885404\n" is 30 bytes, the length included
    assert pax_records([("ctime", "1724962345.625885404")]) == b"30 ctime=1724962345.625885404\n"
    # the length's digits roll over: " a=xxxx\n" is 8 bytes + 1 digit = 9; " a=xxxxx\n" 9 + 2 digits = 11
    assert pax_records([("a", "xxxx")]) == b"9 a=xxxx\n"
    assert pax_records([("a", "xxxxx")]) == b"11 a=xxxxx\n"


def test_r40_pax_header_names_and_times() -> None:
    assert PAX_TIMES.pax_header_name("debug_info/debug_info_hlo.dbg_sg000000") == \
        "debug_info/PaxHeader/debug_info_hlo.dbg_sg000000"
    assert PAX_TIMES.pax_header_name("info.json") == "PaxHeader/info.json"
    assert pax_time(1724962345, 625885404) == "1724962345.625885404"
    assert pax_time(5, 7) == "5.000000007"


def _pax_tar() -> tuple[bytes, dict[str, MemberHeader]]:
    t = "1724962346.685876847"
    heads = {"info.json": MemberHeader(0o664, 1000, 1000, 1724962346, "", "",
                                       (("ctime", t), ("atime", "1724962346.737876427"), ("mtime", t))),
             "sg00/x.so": MemberHeader(0o775, 1000, 1000, 1724962346, "", "",
                                       (("ctime", t), ("atime", t), ("mtime", t)))}
    return build_tar([("info.json", b"{}"), ("sg00/x.so", b"\x7fELF")], heads, PAX_TIMES), heads


def test_r40_a_pax_times_tar_reads_back_with_tarfile() -> None:
    tar, heads = _pax_tar()
    with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
        infos = tf.getmembers()
    assert [i.name for i in infos] == ["info.json", "sg00/x.so"]
    assert infos[0].pax_headers == {"ctime": "1724962346.685876847", "atime": "1724962346.737876427",
                                    "mtime": "1724962346.685876847"}
    assert infos[1].mode == 0o775 and infos[1].uid == 1000 and infos[1].uname == ""
    got: dict[str, MemberHeader] = {}
    members, _ = read_tar(tar, headers=got)
    assert got == heads
    assert detect_style(tar, members, got) == (PAX_TIMES, "")
    # the PAX header's own ustar header: typeflag x, the member's mode and whole-second mtime
    assert tar[:28] == b"PaxHeader/info.json" + bytes(9) and tar[156:157] == b"x"
    assert tar[100:108] == b"000664 \0" and tar[136:148] == b"%011o " % 1724962346


def test_r40_a_style_no_writer_reproduces_is_named_and_refused_once_changed() -> None:
    kelf = b'{"version": "1", "target": "cayman", "graphs": []}'
    tar = bytearray(build_tar([("kelf-0.json", kelf)]))
    tar[100:108] = b"0000664\0"  # another mode spelling (GNU tar's): read fine, reproduced by no style
    tar[148:156] = b"        "
    tar[148:156] = b"%06o\0 " % sum(tar[:512])
    neff = Neff.from_bytes(neff_of_tar(bytes(tar)))
    assert neff.tar_style is None and "tar offset 0x67" in neff.tar_style_why
    data = neff_of_tar(bytes(tar))
    assert Neff.from_bytes(data).to_bytes() == data  # unchanged: written as read
    neff.replace_member("kelf-0.json", kelf + b" ")
    with pytest.raises(NeffError, match="R-40=ustar"):
        neff.to_bytes()
    again = Neff.from_bytes(neff.to_bytes(DecisionSet.parse(["R-40=ustar"])))
    assert again.tar_style is USTAR and again.members["kelf-0.json"] == kelf + b" "


def _yolox() -> Neff:
    f = next(c for c in corpus_files() if c.compiler.startswith("2.14"))
    return Neff.read(f.path)


def test_r41_a_replaced_member_of_a_2_14_file_keeps_its_pax_header() -> None:
    neff = _yolox()
    assert neff.tar_style is PAX_TIMES
    before = dict(neff.tar_headers)
    neff.replace_member("info.json", neff.members["info.json"] + b" ")
    out = Neff.from_bytes(neff.to_bytes())
    assert out.tar_style is PAX_TIMES and out.tar_headers == before
    tar, _ = read_gzip(out.to_bytes()[1024:])
    assert b"PaxHeader/info.json" in tar
    # R-41=now: the replaced member is stamped now, as the 2.14 style writes times; the others keep theirs
    stamped = _yolox()
    stamped.replace_member("info.json", stamped.members["info.json"] + b" ")
    style, heads = stamped.write_headers(list(stamped.members), DecisionSet.parse(["R-41=now"]), now=1800000000.5)
    assert style is PAX_TIMES
    assert heads["info.json"].pax == (("ctime", "1800000000.500000000"), ("atime", "1800000000.500000000"),
                                      ("mtime", "1800000000.500000000"))
    assert heads["info.json"].mtime == 1800000000 and heads["info.json"].uname == ""
    assert heads["kelf-0.json"] == before["kelf-0.json"]


def test_r41_an_added_member_copies_its_neighbours_header_and_r40_ustar_drops_the_times() -> None:
    neff = _yolox()
    neff.members["zz_extra.json"] = b"{}"
    last = list(neff.tar_headers)[-1]
    _style, heads = neff.write_headers(list(neff.members))
    assert heads["zz_extra.json"] == neff.tar_headers[last]
    style, plain = neff.write_headers(list(neff.members), DecisionSet.parse(["R-40=ustar"]))
    assert style is USTAR and all(not h.pax and h.mtime == 0 and h.uname == "nobody" for h in plain.values())
    out = Neff.from_bytes(neff.to_bytes(DecisionSet.parse(["R-40=ustar"])))
    assert out.tar_style is USTAR and "zz_extra.json" in out.members
