"""Where the two real NEFFs are, and helpers that build (malformed) NEFFs for the NEFF tests.

The real files live outside the repository, in ``shared/groundtruth`` beside the checkout (CI lays a
copy of shared/ there). ``TONGASM_GROUNDTRUTH`` overrides the place. A missing directory fails the
tests that need it: the real bytes are the final word, so their tests must not silently vanish.
"""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from tongasm.neff.container import build_tar, gzip_member, pad_payload
from tongasm.neff.header import parse_header

ROOT = Path(__file__).resolve().parent.parent


def groundtruth_dir() -> Path:
    env = os.environ.get("TONGASM_GROUNDTRUTH")
    candidates = [Path(env)] if env else []
    candidates += [ROOT.parent / "shared" / "groundtruth", ROOT.parent.parent / "shared" / "groundtruth",
                   Path("/work/shared/groundtruth"),
                   # a byte-identical copy kept in the repository (tests/test_neff.py pins its SHA-256)
                   ROOT / "tests" / "data" / "groundtruth"]
    for c in candidates:
        if (c / "matmul_small.neff").is_file():
            return c
    pytest.fail("the real NEFFs (shared/groundtruth/matmul_small.neff, matmul_large.neff) were not found beside "
                "the checkout; set TONGASM_GROUNDTRUTH")


def small() -> Path:
    return groundtruth_dir() / "matmul_small.neff"


def large() -> Path:
    return groundtruth_dir() / "matmul_large.neff"


def real_header() -> bytes:
    return small().read_bytes()[:1024]


def with_payload(payload: bytes, header: bytes | None = None) -> bytes:
    """A NEFF: the small file's header with data_size set to ``payload``'s length, then ``payload``."""
    h = parse_header(header or real_header()).replace(data_size=len(payload))
    return h.to_bytes() + payload


def neff_of_tar(tar: bytes, mtime: int = 0) -> bytes:
    return with_payload(pad_payload(gzip_member(tar, mtime)))


def neff_of_members(members: list[tuple[str, bytes]]) -> bytes:
    return neff_of_tar(build_tar(members))


def foreign_tar(entries: list[tuple[str, str, bytes]]) -> bytes:
    """A tar written by Python's tarfile (not tongasm's writer): (name, type, data) with type "file",
    "symlink", "hardlink", "chardev", "dir" or "fifo" — for the must-refuse cases."""
    types = {"file": tarfile.REGTYPE, "symlink": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE,
             "chardev": tarfile.CHRTYPE, "dir": tarfile.DIRTYPE, "fifo": tarfile.FIFOTYPE}
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        for name, kind, data in entries:
            ti = tarfile.TarInfo(name)
            ti.type = types[kind]
            if kind == "file":
                ti.size = len(data)
                tf.addfile(ti, io.BytesIO(data))
            else:
                ti.linkname = "/etc/passwd" if kind in ("symlink", "hardlink") else ""
                tf.addfile(ti)
    return buf.getvalue()


def raw_tar_member(name: bytes, data: bytes, typeflag: bytes = b"0") -> bytes:
    """One ustar member with an arbitrary (possibly hostile) raw name and a correct checksum."""
    h = bytearray(512)
    h[0:len(name)] = name
    h[100:108] = b"000664 \0"
    h[108:116] = b"001750 \0"
    h[116:124] = b"001750 \0"
    h[124:136] = b"%011o " % len(data)
    h[136:148] = b"00000000000 "
    h[156:157] = typeflag
    h[257:265] = b"ustar\x0000"
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h) + data + bytes(-len(data) % 512)
