"""The NEFF payload: one gzip member holding a ustar tar, zero-padded (neff-and-real-opcodes.md §1.4-§1.5).

Reading is strict and never trusts the archive: a bad gzip magic or stream, a truncated member, a
CRC or size that disagrees, a tar header whose checksum is wrong, a member that is not a regular
file (links, devices, directories, PAX global headers) and a member name that could leave a
destination directory (absolute, ``..``, empty components, NUL, backslash) are each an
:class:`~tongasm.errors.NeffError` naming the member and what is wrong. A PAX extended header
(typeflag ``x``) or a GNU long-name header (``L``) is ordinary tar, not a defect: compilers up to
2.18 write one before most members (R-40); its records are parsed strictly (``LENGTH KEY=VALUE\n``,
UTF-8), ``path`` and ``size`` apply to the member that follows, and every record is kept
(:func:`read_tar`'s ``extensions``) so a writer can reproduce it. Nothing is extracted here;
:func:`safe_member_path` is what an unpacker joins a name with.

Writing follows the rules that rebuild both real NEFFs byte for byte: the tar headers of
:data:`TAR_FIELDS` with the exact per-member bytes of §1.5, the archive's two zero end blocks, then a
hand-written gzip header (``1f 8b 08 00 MTIME 04 03``: Python's :mod:`gzip` writes OS byte 0xFF, the
files have 3 = Unix), a raw zlib deflate stream (level 1, memLevel 8, wbits -15), the CRC32/ISIZE
trailer and zero padding to a multiple of 10 240 bytes (libarchive's output blocking).
"""

from __future__ import annotations

import bisect
import struct
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from .errors import NeffError
from .limits import MAX_MEMBER_BYTES, MAX_MEMBERS, MAX_TAR_BYTES, LimitExceeded

BLOCK = 512
#: tar end-of-archive: two zero blocks, not padded further inside the gzip (§1.5).
TAR_END = 2 * BLOCK
#: the payload (gzip member + zero padding) is a multiple of this (§1.4).
PAYLOAD_BLOCKING = 10240
#: inflate at most this many bytes per step: a bomb is refused within one step of a limit
INFLATE_STEP = 1 << 20
#: feed the inflater this much compressed input at a time (keeps its unconsumed tail small)
DEFLATE_FEED = 1 << 16
#: a read NEFF keeps the inflater's state (~40 KB) every this many inflated bytes, so a member is
#: inflated from at most this far before it (not from the start of the tar)
CHECKPOINT_EVERY = 1 << 20

GZIP_MAGIC = b"\x1f\x8b"
GZIP_CM_DEFLATE = 8
GZIP_XFL_FASTEST = 4  # what zlib level 1 sets (§1.4: "04 03")
GZIP_OS_UNIX = 3
DEFLATE_LEVEL, DEFLATE_MEMLEVEL, DEFLATE_WBITS = 1, 8, -15
_FHCRC, _FEXTRA, _FNAME, _FCOMMENT = 0x02, 0x04, 0x08, 0x10


@dataclass(frozen=True)
class TarField:
    """One field of a ustar member header: where it is, how it is written, and tongasm's value."""

    offset: int
    width: int
    name: str
    kind: str  # "str" NUL-padded text, "octal" digits + terminator, "chksum", "raw"
    digits: int  # octal digits (kind "octal"/"chksum")
    term: bytes  # octal terminator after the digits
    value: object  # what tongasm writes for every member (None: per member)


#: A ustar member header, exactly as both real NEFFs write it (§1.5, V on every member).
TAR_FIELDS: tuple[TarField, ...] = (
    TarField(0, 100, "name", "str", 0, b"", None),
    TarField(100, 8, "mode", "octal", 6, b" \0", 0o664),
    TarField(108, 8, "uid", "octal", 6, b" \0", 1000),
    TarField(116, 8, "gid", "octal", 6, b" \0", 1000),
    TarField(124, 12, "size", "octal", 11, b" ", None),
    TarField(136, 12, "mtime", "octal", 11, b" ", 0),
    TarField(148, 8, "chksum", "chksum", 6, b"\0 ", None),
    TarField(156, 1, "typeflag", "str", 0, b"", "0"),
    TarField(157, 100, "linkname", "str", 0, b"", ""),
    TarField(257, 6, "magic", "str", 0, b"", "ustar"),
    TarField(263, 2, "version", "raw", 0, b"", b"00"),
    TarField(265, 32, "uname", "str", 0, b"", "nobody"),
    TarField(297, 32, "gname", "str", 0, b"", "nobody"),
    TarField(329, 8, "devmajor", "octal", 6, b" \0", 0),
    TarField(337, 8, "devminor", "octal", 6, b" \0", 0),
    TarField(345, 155, "prefix", "str", 0, b"", ""),
    TarField(500, 12, "pad", "raw", 0, b"", bytes(12)),
)
_TF = {f.name: f for f in TAR_FIELDS}

_TYPE_NAMES = {"1": "a hard link", "2": "a symbolic link", "3": "a character device", "4": "a block device",
               "5": "a directory", "6": "a FIFO", "7": "a contiguous file",
               "g": "a PAX global header", "K": "a GNU long-link header"}
#: at most this many bytes of PAX records or a GNU long name before one member (real ones are < 200).
MAX_EXTENSION_BYTES = 1 << 16
#: PAX keys that change how the following member is read; every other key is kept, not applied.
_PAX_APPLIED = ("path", "size")


@dataclass(frozen=True)
class TarExtension:
    """The extension headers the archive put before one member, as read (for reproducing them)."""

    kind: str  # "pax" (typeflag x) or "gnu-longname" (typeflag L)
    header: bytes  # the extension's own 512-byte header
    records: tuple[tuple[str, str], ...]  # PAX records in order; for L: (("path", name),)


def parse_pax_records(data: bytes, where: str) -> tuple[tuple[str, str], ...]:
    """The ``LENGTH KEY=VALUE\\n`` records of a PAX extended header, strictly (POSIX pax format)."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(data):
        if not any(data[i:]):  # NUL padding after the last record
            break
        sp = data.find(b" ", i, i + 21)
        digits = data[i:sp] if sp > i else b""
        if not digits or not digits.isdigit():
            raise NeffError(f"{where}: PAX record at byte {i} has no decimal length; refused")
        length = int(digits)
        rec = data[i:i + length]
        if length <= sp - i + 1 or len(rec) != length or not rec.endswith(b"\n") or b"=" not in rec[sp - i + 1:]:
            raise NeffError(f"{where}: PAX record at byte {i} (length {length}) is malformed; refused")
        key, _, value = rec[sp - i + 1:-1].partition(b"=")
        try:
            out.append((key.decode("utf-8"), value.decode("utf-8")))
        except UnicodeDecodeError:
            raise NeffError(f"{where}: PAX record at byte {i} is not UTF-8; refused") from None
        i += length
    return tuple(out)


@dataclass(frozen=True)
class GzipInfo:
    """What the payload's gzip wrapper says, beyond the tar it holds."""

    header: bytes  # the gzip header as read (10 bytes for the real files)
    mtime: int
    xfl: int
    os: int
    member_size: int  # bytes of the gzip member (header + deflate + trailer)
    padding: int  # zero bytes after the member


# --- gzip ---------------------------------------------------------------------------------------

def gzip_header(mtime: int) -> bytes:
    """The 10-byte gzip header tongasm writes: no name, no extra fields, XFL 4, OS 3 (Unix)."""
    if not 0 <= mtime <= 0xFFFFFFFF:
        raise NeffError(f"gzip MTIME {mtime} does not fit (allowed 0..{0xFFFFFFFF})")
    return GZIP_MAGIC + bytes([GZIP_CM_DEFLATE, 0]) + struct.pack("<I", mtime) + bytes([GZIP_XFL_FASTEST,
                                                                                            GZIP_OS_UNIX])


def gzip_member(data: bytes, mtime: int) -> bytes:
    """One gzip member of ``data`` as neuronx-cc writes it (reproduces both real payloads with zlib 1.2.13)."""
    return gzip_stream([data], mtime)


def gzip_stream(chunks: Iterable[bytes], mtime: int) -> bytes:
    """:func:`gzip_member` of the concatenated ``chunks``, compressed as they come (the same deflate
    bytes: zlib's output does not depend on how its input is split)."""
    c = zlib.compressobj(DEFLATE_LEVEL, zlib.DEFLATED, DEFLATE_WBITS, DEFLATE_MEMLEVEL)
    parts = [gzip_header(mtime)]
    crc = size = 0
    for chunk in chunks:
        parts.append(c.compress(chunk))
        crc = zlib.crc32(chunk, crc)
        size += len(chunk)
    parts.append(c.flush())
    parts.append(struct.pack("<II", crc, size & 0xFFFFFFFF))
    return b"".join(parts)


def pad_payload(member: bytes) -> bytes:
    """The gzip member followed by zeros up to a multiple of :data:`PAYLOAD_BLOCKING`."""
    return member + bytes(-len(member) % PAYLOAD_BLOCKING)


def _gzip_header_end(p: memoryview, what: str, base: int) -> tuple[int, int, int, int]:
    """Check the gzip header at the start of ``p``; its length, MTIME, XFL and OS bytes."""
    if len(p) < 18:
        raise NeffError(f"{what}: truncated: the payload at {base:#x} has {len(p)} bytes, too short for a gzip member")
    if bytes(p[:2]) != GZIP_MAGIC:
        raise NeffError(f"{what}: bad gzip magic at {base:#x}: {bytes(p[:2]).hex(' ')} (expected 1f 8b)")
    if p[2] != GZIP_CM_DEFLATE:
        raise NeffError(f"{what}: gzip member at {base:#x}: compression method {p[2]} is not deflate (8)")
    flg = p[3]
    if flg & 0xE0:
        raise NeffError(f"{what}: gzip member at {base:#x}: reserved flag bits set (FLG = {flg:#04x})")
    mtime, xfl, osb = struct.unpack_from("<IBB", p, 4)
    i = 10
    try:
        if flg & _FEXTRA:
            (xlen,) = struct.unpack_from("<H", p, i)
            i += 2 + xlen
        for bit in (_FNAME, _FCOMMENT):
            if flg & bit:
                end = bytes(p[i:i + MAX_EXTENSION_BYTES]).index(b"\0")
                i += end + 1
        if flg & _FHCRC:
            i += 2
    except (struct.error, ValueError):
        raise NeffError(f"{what}: truncated gzip header at {base:#x}") from None
    if i > len(p):
        raise NeffError(f"{what}: truncated gzip header at {base:#x}")
    return i, mtime, xfl, osb


def read_gzip(payload: bytes | memoryview, *, what: str = "NEFF", base: int = 0) -> tuple[bytes, GzipInfo]:
    """Inflate the payload's gzip member whole; returns the tar bytes and the wrapper's facts.

    The payload is checked first by :func:`scan_payload` (limits, tar headers, CRC) without holding
    what it inflates; only then is the tar inflated into memory. ``base`` is the payload's offset in
    the file (for messages)."""
    index = scan_payload(payload, what=what, base=base)
    return b"".join(index.chunks()), index.gzip


@dataclass(frozen=True)
class _Checkpoint:
    """The inflater's state after ``out_pos`` bytes of output, ``in_pos`` bytes of deflate input
    consumed (None: the start), so a member's bytes can be inflated from near it."""

    out_pos: int
    in_pos: int
    state: Any  # a zlib decompress object (copied again on each use)


class _Inflater:
    """A raw deflate stream inflated step by step: at most :data:`INFLATE_STEP` bytes of output per
    step, so the tar's total is refused (:data:`MAX_TAR_BYTES`) within a step of its limit; with
    ``verify`` the CRC32 of the output is kept and a :class:`_Checkpoint` is taken every
    :data:`CHECKPOINT_EVERY` bytes of output. A zlib error or the limit sets ``failed``."""

    def __init__(self, deflate: memoryview, what: str, at: int, *, verify: bool = False,
                 start: _Checkpoint | None = None) -> None:
        self.src, self.what, self.at = deflate, what, at
        self.limit = MAX_TAR_BYTES.value()
        self.d = start.state.copy() if start is not None and start.state is not None \
            else zlib.decompressobj(DEFLATE_WBITS)
        self.in_pos = start.in_pos if start is not None else 0
        self.out_pos = start.out_pos if start is not None else 0
        self.verify = verify
        self.crc = 0
        self.checkpoints = [_Checkpoint(0, 0, None)]
        self.eof = False
        self.failed = False

    def step(self) -> bytes:
        """The next piece of output (b"" at the end of the stream)."""
        if self.eof:
            return b""
        try:
            while True:
                feed = self.src[self.in_pos:self.in_pos + DEFLATE_FEED]
                out = self.d.decompress(feed, INFLATE_STEP)
                if self.d.eof:  # (what follows the stream is unused_data; unconsumed_tail is stale)
                    used = len(feed) - len(self.d.unused_data)
                    self.eof = True
                else:
                    used = len(feed) - len(self.d.unconsumed_tail)
                self.in_pos += used
                if out or self.eof:
                    break
                if not used:
                    self.failed = True
                    raise NeffError(f"{self.what}: truncated gzip stream (the deflate data ends before its last block)")
        except zlib.error as e:
            self.failed = True
            raise NeffError(f"{self.what}: bad gzip stream at {self.at:#x}: {e}") from None
        self.out_pos += len(out)
        if self.out_pos > self.limit:
            self.failed = True
            raise MAX_TAR_BYTES.error(f"at least {self.out_pos}", f"{self.what}: the gzip payload at {self.at:#x}",
                                      "bytes")
        if self.verify:
            self.crc = zlib.crc32(out, self.crc)
            if not self.eof and self.out_pos - self.checkpoints[-1].out_pos >= CHECKPOINT_EVERY:
                self.checkpoints.append(_Checkpoint(self.out_pos, self.in_pos, self.d.copy()))
        return out

    def drain(self) -> None:
        while self.step():
            pass


class _Source:
    """What the tar reader reads from: ``read`` (up to n bytes, fewer only at the end), ``skip``
    (discard up to n, returns how many) and ``rest`` (the bytes left and the offset among them of
    the first that is not zero); ``pos`` counts the bytes consumed."""

    pos = 0

    def read(self, n: int) -> bytes:
        raise NotImplementedError

    def skip(self, n: int) -> int:
        raise NotImplementedError

    def rest(self) -> tuple[int, int | None]:
        raise NotImplementedError


class _BytesSource(_Source):
    def __init__(self, data: bytes | memoryview) -> None:
        self.t = memoryview(data)

    def read(self, n: int) -> bytes:
        out = bytes(self.t[self.pos:self.pos + n])
        self.pos += len(out)
        return out

    def skip(self, n: int) -> int:
        k = max(0, min(n, len(self.t) - self.pos))
        self.pos += k
        return k

    def rest(self) -> tuple[int, int | None]:
        tail = bytes(self.t[self.pos:])
        self.pos = len(self.t)
        left = tail.lstrip(b"\0")
        return len(tail), (len(tail) - len(left) if left else None)


class _InflateSource(_Source):
    """A :class:`_Source` over an :class:`_Inflater`: holds one step of output at most (plus what
    ``read`` returns)."""

    def __init__(self, inflater: _Inflater) -> None:
        self.inf = inflater
        self.buf = b""
        self.off = 0

    def read(self, n: int) -> bytes:
        avail = len(self.buf) - self.off
        if avail >= n:
            out = self.buf[self.off:self.off + n]
            self.off += n
        else:
            parts, got = [self.buf[self.off:]], avail
            self.buf, self.off = b"", 0
            while got < n:
                chunk = self.inf.step()
                if not chunk:
                    break
                if len(chunk) > n - got:
                    self.buf, self.off = chunk, n - got
                    chunk = chunk[:n - got]
                parts.append(chunk)
                got += len(chunk)
            out = b"".join(parts)
        self.pos += len(out)
        return out

    def skip(self, n: int) -> int:
        left = n
        while left:
            avail = len(self.buf) - self.off
            if not avail:
                self.buf, self.off = self.inf.step(), 0
                if not self.buf:
                    break
                continue
            k = min(avail, left)
            self.off += k
            left -= k
        self.pos += n - left
        return n - left

    def rest(self) -> tuple[int, int | None]:
        count, first = 0, None
        chunk = self.buf[self.off:]
        self.buf, self.off = b"", 0
        while True:
            if first is None:
                left = chunk.lstrip(b"\0")
                if left:
                    first = count + len(chunk) - len(left)
            count += len(chunk)
            self.pos += len(chunk)
            if first is not None:
                return count, first  # (the caller refuses the archive: no need to read on)
            chunk = self.inf.step()
            if not chunk:
                return count, first


@dataclass(frozen=True)
class TarEntry:
    """One member of a NEFF's tar as listed by :func:`scan_payload`: where its bytes are, not the bytes."""

    name: str
    start: int  # tar offset of its first header block (its extension header's, when it has one)
    offset: int  # tar offset of its data
    size: int
    header: MemberHeader
    blocks: bytes  # the archive's bytes from ``start`` to ``offset`` (extension header, records, header)
    pad_at: int | None  # tar offset of the first non-zero byte of the padding after the data (None: all zero)
    extension: TarExtension | None


@dataclass
class TarIndex:
    """A NEFF payload checked and listed without holding its inflated tar: the members (names,
    sizes, headers, where each is), the gzip facts and inflater checkpoints from which one member's
    bytes are inflated on demand (at most :data:`CHECKPOINT_EVERY` bytes inflated before it)."""

    payload: memoryview  # the gzip member and its padding, as read
    deflate_at: int  # offset of the deflate stream in ``payload``
    what: str
    base: int
    entries: list[TarEntry]
    tail: int  # zero bytes after the last member (the end-of-archive blocks and any more)
    size: int  # bytes of the inflated tar
    gzip: GzipInfo
    checkpoints: list[_Checkpoint] = field(repr=False)

    def _inflater(self, start: _Checkpoint | None = None) -> _Inflater:
        return _Inflater(self.payload[self.deflate_at:], self.what, self.base + self.deflate_at, start=start)

    def data(self, e: TarEntry) -> bytes:
        """One member's bytes, inflated from the checkpoint nearest before it."""
        k = bisect.bisect_right([c.out_pos for c in self.checkpoints], e.offset) - 1
        cp = self.checkpoints[max(k, 0)]
        src = _InflateSource(self._inflater(cp))
        src.skip(e.offset - cp.out_pos)
        return src.read(e.size)

    def iter_data(self) -> Iterator[tuple[TarEntry, bytes]]:
        """Every member with its bytes, in archive order, in one pass (one member held at a time)."""
        src = _InflateSource(self._inflater())
        for e in self.entries:
            src.skip(e.offset - src.pos)
            yield e, src.read(e.size)

    def chunks(self) -> Iterator[bytes]:
        """The inflated tar, piece by piece."""
        inf = self._inflater()
        while chunk := inf.step():
            yield chunk

    def first_difference(self, style: TarStyle, headers: Mapping[str, MemberHeader] | None = None) -> int | None:
        """The tar offset where :func:`build_tar` of the members (archive order, ``headers`` or
        their own) in ``style`` would first differ from the tar as read; None when it would be
        identical. Compares headers, padding and the end only: the member bytes are the same."""
        for e in self.entries:
            built = member_blocks(e.name, e.size, headers[e.name] if headers is not None else e.header, style)
            if built != e.blocks:
                return e.start + next((k for k, (a, b) in enumerate(zip(built, e.blocks)) if a != b),
                                      min(len(built), len(e.blocks)))
            if e.pad_at is not None:
                return e.pad_at
        if self.tail != TAR_END:
            return self.size - self.tail + min(self.tail, TAR_END)
        return None

    def detect_style(self) -> tuple[TarStyle | None, str]:
        """As :func:`detect_style`, from the headers alone."""
        why = ""
        pax = any(e.header.pax for e in self.entries)
        for style in TAR_STYLES:
            if pax and not style.pax_name:
                continue
            try:
                at = self.first_difference(style)
            except NeffError as e:
                why = str(e)
                continue
            if at is None:
                return style, ""
            why = f"style {style.name!r} differs from the file at tar offset {at:#x}"
        return None, why or "no style matched"


def scan_payload(payload: bytes | memoryview, *, what: str = "NEFF", base: int = 0) -> TarIndex:
    """Check a NEFF payload (gzip header, deflate stream, every tar header, CRC32, ISIZE, padding)
    and list its members, inflating it once and holding one step of it at a time: a member count
    or a member size past its limit is refused when its header arrives, before its bytes are
    inflated; the tar's total within a step of its limit."""
    p = memoryview(payload)
    i, mtime, xfl, osb = _gzip_header_end(p, what, base)
    inf = _Inflater(p[i:], what, base + i, verify=True)
    entries: list[TarEntry] = []
    try:
        _, tail = _parse_tar(_InflateSource(inf), what, entries=entries)
    except LimitExceeded:
        raise
    except NeffError:
        if inf.failed:
            raise
        try:  # a damaged gzip stream is named as such, not by the tar garbage it inflates to
            inf.drain()
            _gzip_trailer(p, i + inf.in_pos, inf, what, base)
        except LimitExceeded:
            pass
        raise
    member_size, padding = _gzip_trailer(p, i + inf.in_pos, inf, what, base)
    gz = GzipInfo(bytes(p[:i]), mtime, xfl, osb, member_size, padding)
    return TarIndex(p, i, what, base, entries, tail, inf.out_pos, gz, inf.checkpoints)


def _gzip_trailer(p: memoryview, end: int, inf: _Inflater, what: str, base: int) -> tuple[int, int]:
    """Check the CRC32/ISIZE trailer after the deflate stream (ending at ``end``) and the zero
    padding after it; the gzip member's size and the padding's."""
    rest = p[end:]
    if len(rest) < 8:
        raise NeffError(f"{what}: truncated gzip member: its 8-byte CRC32/ISIZE trailer is missing")
    crc, isize = struct.unpack_from("<II", rest)
    if crc != inf.crc:
        raise NeffError(f"{what}: bad gzip stream: CRC32 {crc:#010x} in the trailer, {inf.crc:#010x} computed")
    if isize != inf.out_pos & 0xFFFFFFFF:
        raise NeffError(f"{what}: bad gzip stream: ISIZE {isize} in the trailer, {inf.out_pos} bytes inflated")
    pad = bytes(rest[8:])
    member_size = len(p) - len(pad)
    left = pad.lstrip(b"\0")
    if left:
        at = base + member_size + len(pad) - len(left)
        raise NeffError(f"{what}: data after the gzip member at {at:#x} is not zero padding "
                         "(a second gzip member or trailing garbage)")
    return member_size, len(pad)


# --- tar ----------------------------------------------------------------------------------------

def _octal(f: TarField, value: int) -> bytes:
    text = f"{value:0{f.digits}o}".encode()
    if len(text) > f.digits:
        raise NeffError(f"tar header field {f.name}: value {value} does not fit in {f.digits} octal digits "
                         f"(allowed 0..{8 ** f.digits - 1})")
    return text + f.term


def _text(f: TarField, value: str, member: str) -> bytes:
    b = value.encode()
    if len(b) > f.width or (f.name == "name" and len(b) == f.width):
        raise NeffError(f"tar member {member!r}: {f.name} is {len(b)} bytes; allowed at most "
                         f"{f.width - (f.name == 'name')} (tongasm writes no long-name extensions)")
    return b + bytes(f.width - len(b))


@dataclass(frozen=True)
class MemberHeader:
    """What one member's tar header says beyond its name, size and type, and the PAX records the
    archive writes before it (none: no PAX header). :data:`TAR_FIELDS` says how each is written."""

    mode: int = 0o664
    uid: int = 1000
    gid: int = 1000
    mtime: int = 0
    uname: str = "nobody"
    gname: str = "nobody"
    pax: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"mode": self.mode, "uid": self.uid, "gid": self.gid, "mtime": self.mtime, "uname": self.uname,
                "gname": self.gname, "pax": [list(r) for r in self.pax]}

    @classmethod
    def from_json(cls, j: object, where: str) -> MemberHeader:
        """The inverse of :meth:`to_json`; anything else is a :class:`NeffError` naming ``where``."""
        try:
            assert isinstance(j, dict)
            ints = [j[k] for k in ("mode", "uid", "gid", "mtime")]
            names = [j[k] for k in ("uname", "gname")]
            pax = tuple((str(k), str(v)) for k, v in j["pax"])
            if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in ints) or \
                    not all(isinstance(v, str) for v in names):
                raise ValueError
        except (AssertionError, KeyError, TypeError, ValueError):
            raise NeffError(f"{where}: malformed tar header record {j!r}") from None
        return cls(ints[0], ints[1], ints[2], ints[3], names[0], names[1], pax)


def pax_time(seconds: float | int, nanos: int | None = None) -> str:
    """A PAX time value as libarchive writes it: whole seconds, ``.`` and nine digits of nanoseconds."""
    if nanos is None:
        ns = round(float(seconds) * 1_000_000_000)
        whole, nanos = divmod(ns, 1_000_000_000)
    else:
        whole = int(seconds)
    return f"{whole}.{nanos:09d}"


@dataclass(frozen=True)
class TarStyle:
    """How one family of compilers writes the NEFF's tar: which PAX headers precede members, how they
    are named, and the header a member the file did not have gets (R-40, R-41). The field formats
    (digits, terminators) are :data:`TAR_FIELDS`, the same in every style seen."""

    name: str
    compilers: str  # which real files write it (evidence)
    doc: str
    pax_name: str  # the PAX header's member name ({dir} with its trailing slash, {base}); "" for none
    pax_keys: tuple[str, ...]  # the time records of a PAX header, in order ((): the style writes none)
    template: MemberHeader  # the header of a member the file did not have (its times set on writing)

    def pax_header_name(self, name: str) -> str:
        d, _, base = name.rpartition("/")
        return self.pax_name.format(dir=d + "/" if d else "", base=base)

    def member_header(self, like: MemberHeader | None, seconds: float | None) -> MemberHeader:
        """The header of a new or replaced member stamped at ``seconds`` (None: ``like``'s own times):
        ``like``'s mode and owner (the style's template without one), the times as the style writes
        them (a style without PAX times writes its template's mtime, 0)."""
        base = like if like is not None else self.template
        if not self.pax_keys:  # a style without times (2.23's mtime 0): nothing to stamp
            return replace(base, mtime=self.template.mtime, pax=())
        if seconds is None:
            return replace(base, pax=base.pax if base.pax else tuple((k, pax_time(base.mtime)) for k in self.pax_keys))
        stamp = pax_time(seconds)
        return replace(base, mtime=int(stamp.partition(".")[0]), pax=tuple((k, stamp) for k in self.pax_keys))


#: The tar styles of the real NEFFs (R-40): each corpus file is written in exactly one of them.
USTAR = TarStyle(
    "ustar", "neuronx-cc 2.23.6484 (16 corpus files, 923 members; both matmul NEFFs)",
    "plain ustar: no PAX header; every member mode 0664, uid/gid 1000, uname/gname 'nobody', mtime 0",
    "", (), MemberHeader())
PAX_TIMES = TarStyle(
    "pax-times", "neuronx-cc 2.14.227 (80 corpus files, 3,525 members)",
    "libarchive pax: before every member a PAX header named DIR/PaxHeader/BASE holding ctime, atime and "
    "mtime with nanoseconds (its own ustar header: the member's mode, owner and whole-second mtime, typeflag "
    "x); the member's header: mode as on disk (0664, 0775 for executables), uid/gid 1000, uname/gname empty, "
    "mtime in whole seconds",
    "{dir}PaxHeader/{base}", ("ctime", "atime", "mtime"), MemberHeader(uname="", gname=""))
TAR_STYLES: tuple[TarStyle, ...] = (USTAR, PAX_TIMES)
TAR_STYLE_BY_NAME = {s.name: s for s in TAR_STYLES}


def pax_records(records: Iterable[tuple[str, str]]) -> bytes:
    """PAX records ``LENGTH KEY=VALUE\n``, the length counting its own digits (POSIX pax format)."""
    out = []
    for key, value in records:
        body = f" {key}={value}\n".encode()
        n = len(body) + 1
        while len(str(n)) + len(body) != n:
            n = len(str(n)) + len(body)
        out.append(str(n).encode() + body)
    return b"".join(out)


def tar_header(name: str, size: int, hdr: MemberHeader = MemberHeader(), typeflag: str = "0") -> bytes:
    """The 512-byte ustar header of one member, exactly as §1.5 gives it (``hdr``: mode, owner, mtime)."""
    if typeflag == "0":
        check_member_name(name)
    per = {"name": name, "size": size, "mode": hdr.mode, "uid": hdr.uid, "gid": hdr.gid, "mtime": hdr.mtime,
           "uname": hdr.uname, "gname": hdr.gname, "typeflag": typeflag}
    h = bytearray(BLOCK)
    for f in TAR_FIELDS:
        v: object = per.get(f.name, f.value)
        if f.kind == "octal":
            assert isinstance(v, int)
            b = _octal(f, v)
        elif f.kind == "str":
            assert isinstance(v, str)
            b = _text(f, v, name)
        elif f.kind == "raw":
            assert isinstance(v, bytes)
            b = v
        else:  # the checksum: computed below with the field as 8 spaces
            b = b" " * f.width
        h[f.offset:f.offset + f.width] = b
    ck = _TF["chksum"]
    h[ck.offset:ck.offset + ck.width] = f"{sum(h):0{ck.digits}o}".encode() + ck.term
    return bytes(h)


def member_blocks(name: str, size: int, hdr: MemberHeader, style: TarStyle) -> bytes:
    """What precedes one member's data in a tar of ``style``: its PAX header and records when
    ``hdr`` has records (named the style's way), then its ustar header."""
    parts: list[bytes] = []
    if hdr.pax:
        if not style.pax_name:
            raise NeffError(f"tar member {name!r} has PAX records but tar style {style.name!r} writes no PAX "
                             "header")
        body = pax_records(hdr.pax)
        parts.append(tar_header(style.pax_header_name(name), len(body), hdr, "x"))
        parts.append(body)
        parts.append(bytes(-len(body) % BLOCK))
    parts.append(tar_header(name, size, hdr))
    return b"".join(parts)


def tar_chunks(members: Iterable[tuple[str, bytes]], headers: Mapping[str, MemberHeader] | None = None,
               style: TarStyle = USTAR) -> Iterator[bytes]:
    """:func:`build_tar`'s bytes piece by piece (one member's at a time)."""
    for name, data in members:
        hdr = headers.get(name) if headers is not None else None
        yield member_blocks(name, len(data), hdr if hdr is not None else style.template, style)
        yield bytes(data)
        yield bytes(-len(data) % BLOCK)
    yield bytes(TAR_END)


def build_tar(members: Iterable[tuple[str, bytes]], headers: Mapping[str, MemberHeader] | None = None,
              style: TarStyle = USTAR) -> bytes:
    """A tar archive of ``members`` in the given order: for each, its PAX header when its
    :class:`MemberHeader` has records (named the ``style``'s way), its header, its data padded to 512;
    then two zero blocks. A member ``headers`` does not name gets the style's template."""
    return b"".join(tar_chunks(members, headers, style))


def detect_style(tar: bytes, members: list[tuple[str, bytes]], headers: Mapping[str, MemberHeader]) \
        -> tuple[TarStyle | None, str]:
    """The style of :data:`TAR_STYLES` that rebuilds ``tar`` byte for byte from its members and their
    headers, and why none does (the first member whose bytes differ) when none does."""
    why = ""
    for style in TAR_STYLES:
        if any(h.pax for h in headers.values()) and not style.pax_name:
            continue
        try:
            built = build_tar(members, headers, style)
        except NeffError as e:
            why = str(e)
            continue
        if built == tar:
            return style, ""
        at = next((k for k, (a, b) in enumerate(zip(built, tar)) if a != b), min(len(built), len(tar)))
        why = f"style {style.name!r} differs from the file at tar offset {at:#x}"
    return None, why or "no style matched"


def _field(h: bytes, name: str) -> bytes:
    f = _TF[name]
    return h[f.offset:f.offset + f.width]


def _parse_octal(raw: bytes, what: str) -> int:
    s = raw.replace(b"\0", b" ").strip()
    if not s:
        return 0
    try:
        if not all(0x30 <= c <= 0x37 for c in s):
            raise ValueError
        return int(s, 8)
    except ValueError:
        raise NeffError(f"{what}: not an octal number: {raw!r}") from None


def _cstr(raw: bytes) -> bytes:
    return raw.split(b"\0", 1)[0]


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_member_name(name: str) -> None:
    """Refuse a member name that is not a plain relative path inside the archive's root."""
    why = None
    if not name:
        why = "is empty"
    elif "\0" in name:
        why = "contains a NUL byte"
    elif not name.isascii() and not _utf8(name):
        why = "is not valid UTF-8 (it holds a lone surrogate)"
    elif "\\" in name:
        why = "contains a backslash"
    elif name.startswith("/"):
        why = "is an absolute path"
    elif len(name) > 1 and name[1] == ":":
        why = "starts with a drive letter"
    else:
        parts = name.split("/")
        if ".." in parts:
            why = "contains a '..' component"
        elif any(p in ("", ".") for p in parts):
            why = "has an empty or '.' component"
    if why:
        raise NeffError(f"tar member name {name!r} {why}; refused (a NEFF member is a relative path like sg00/PE.bin)")


def safe_member_path(dest: Path, name: str) -> Path:
    """``dest / name`` for a checked member name, verified to stay inside ``dest`` (symlinks resolved)."""
    check_member_name(name)
    root = dest.resolve()
    target = (root / PurePosixPath(name)).resolve()
    if root != target and root not in target.parents:
        raise NeffError(f"tar member {name!r} would be written outside {dest}; refused")
    return target


def read_tar(tar: bytes | memoryview, *, what: str = "NEFF",
             extensions: dict[str, TarExtension] | None = None,
             headers: dict[str, MemberHeader] | None = None) -> tuple[list[tuple[str, bytes]], int]:
    """The members of a ustar archive, in archive order, and the number of zero bytes after the last
    one. Every header is checked (magic, checksum, type, name, size within the archive).

    A PAX extended header or GNU long-name header before a member is applied to it (``path``,
    ``size``) and, when ``extensions`` is given, recorded there under the member's name; ``headers``
    receives each member's :class:`MemberHeader` (mode, owner, mtime, PAX records) for a writer.
    """
    entries: list[TarEntry] = []
    members, tail = _parse_tar(_BytesSource(tar), what, entries=entries, keep=True)
    for e in entries:
        if extensions is not None and e.extension is not None:
            extensions[e.name] = e.extension
        if headers is not None:
            headers[e.name] = e.header
    return members, tail


def _parse_tar(src: _Source, what: str, *, entries: list[TarEntry],
               keep: bool = False) -> tuple[list[tuple[str, bytes]], int]:
    """Read a ustar archive from ``src`` strictly, appending a :class:`TarEntry` per member to
    ``entries`` (and, with ``keep``, returning the members' bytes; without, skipping them); the
    members kept and the zero bytes after the last member. The member count and size limits are
    applied as each header is read, before its bytes."""
    members: list[tuple[str, bytes]] = []
    seen: set[str] = set()
    pending: TarExtension | None = None
    first = 0  # tar offset of the current member's first header block
    ext_raw = b""  # the pending extension's header, records and padding, as read
    while True:
        pos = src.pos
        if pending is None:
            first = pos
        h = src.read(BLOCK)
        if not h:
            raise NeffError(f"{what}: truncated tar: no end-of-archive blocks after {len(entries)} members")
        if len(h) < BLOCK:
            raise NeffError(f"{what}: truncated tar: {len(h)} bytes left at tar offset {pos:#x}, less than a header")
        if not h.strip(b"\0"):
            if pending is not None:
                raise NeffError(f"{what}: tar ends after an extension header with no member to apply it to")
            n, nonzero = src.rest()
            if nonzero is not None:
                raise NeffError(f"{what}: data after the tar end-of-archive blocks (tar offset "
                                 f"{pos + BLOCK + nonzero:#x})")
            return members, BLOCK + n
        raw_name = _field(h, "name")
        label = raw_name.split(b"\0", 1)[0].decode("utf-8", "backslashreplace") or f"at tar offset {pos:#x}"
        where = f"{what}: tar member {label!r}"
        stored = _parse_octal(_field(h, "chksum"), f"{where}: chksum")
        ck = _TF["chksum"]
        blank = h[:ck.offset] + b" " * ck.width + h[ck.offset + ck.width:]
        unsigned = sum(blank)
        signed = unsigned - 2 * sum(b for b in blank if b >= 0x80)
        if stored not in (unsigned, signed):
            raise NeffError(f"{where}: bad tar header checksum: {stored:o} stored, {unsigned:o} computed")
        if _field(h, "magic")[:5] != b"ustar":
            raise NeffError(f"{where}: not a ustar header (magic {_field(h, 'magic')!r})")
        tf = _field(h, "typeflag").decode("latin-1")
        size = _parse_octal(_field(h, "size"), f"{where}: size")
        if tf in ("x", "L"):
            kind = "PAX extended header" if tf == "x" else "GNU long-name header"
            if pending is not None:
                raise NeffError(f"{where}: a second extension header before one member; refused")
            if size > MAX_EXTENSION_BYTES:
                raise NeffError(f"{where}: {kind} of {size} bytes (at most {MAX_EXTENSION_BYTES}); refused")
            body = src.read(size)
            if len(body) < size:
                raise NeffError(f"{where}: {kind} of {size} bytes, only {len(body)} remain; refused")
            if tf == "x":
                records = parse_pax_records(body, f"{where} ({kind})")
            else:
                try:
                    records = (("path", _cstr(body).decode("utf-8")),)
                except UnicodeDecodeError:
                    raise NeffError(f"{where}: GNU long name is not UTF-8; refused") from None
            pending = TarExtension("pax" if tf == "x" else "gnu-longname", h, records)
            ext_raw = h + body + src.read(-size % BLOCK)
            continue
        if tf not in ("0", "\0"):
            kind = _TYPE_NAMES.get(tf, f"of type {tf!r}")
            raise NeffError(f"{where} is {kind}; a NEFF holds regular files only; refused")
        if raw_name.rstrip(b"\0").count(b"\0"):
            raise NeffError(f"{where}: member name contains a NUL byte; refused")
        prefix = _cstr(_field(h, "prefix"))
        try:
            name = (prefix + b"/" if prefix else b"") + _cstr(raw_name)
            text = name.decode("utf-8")
        except UnicodeDecodeError:
            raise NeffError(f"{where}: member name is not UTF-8; refused") from None
        if pending is not None:
            applied = dict(r for r in pending.records if r[0] in _PAX_APPLIED)
            text = applied.get("path", text)
            if "size" in applied:
                if not applied["size"].isdigit() or len(applied["size"]) > 20:
                    raise NeffError(f"{where}: PAX size {applied['size'][:40]!r} is not a number; refused")
                size = int(applied["size"])
        check_member_name(text)
        if text in seen:
            raise NeffError(f"{what}: tar member {text!r} occurs twice; refused")
        seen.add(text)
        header = MemberHeader(
            _parse_octal(_field(h, "mode"), f"{where}: mode"), _parse_octal(_field(h, "uid"), f"{where}: uid"),
            _parse_octal(_field(h, "gid"), f"{where}: gid"), _parse_octal(_field(h, "mtime"), f"{where}: mtime"),
            _cstr(_field(h, "uname")).decode("utf-8", "backslashreplace"),
            _cstr(_field(h, "gname")).decode("utf-8", "backslashreplace"),
            pending.records if pending is not None and pending.kind == "pax" else ())
        MAX_MEMBERS.check(len(entries) + 1, f"{what}: at tar member {text!r}", "members")
        MAX_MEMBER_BYTES.check(size, f"{what}: tar member {text!r}", "bytes")
        start = src.pos
        if keep:
            data = src.read(size)
            got = len(data)
        else:
            got = src.skip(size)
        if got < size:
            raise NeffError(f"{what}: truncated tar: member {text!r} declares {size} bytes, only {got} remain")
        pad = src.read(-size % BLOCK)
        left = pad.lstrip(b"\0")
        entries.append(TarEntry(text, first, start, size, header, (ext_raw if pending is not None else b"") + h,
                                None if not left else start + size + len(pad) - len(left), pending))
        if keep:
            members.append((text, data))
        pending = None


def read_payload(payload: bytes | memoryview, *, what: str = "NEFF", base: int = 0,
                 headers: dict[str, MemberHeader] | None = None) -> tuple[list[tuple[str, bytes]], GzipInfo, bytes]:
    """Members (in archive order), gzip facts and the tar bytes of a NEFF payload (``headers``: see
    :func:`read_tar`)."""
    tar, gz = read_gzip(payload, what=what, base=base)
    members, _end = read_tar(tar, what=what, headers=headers)
    return members, gz, tar


def build_payload(members: Iterable[tuple[str, bytes]], mtime: int) -> tuple[bytes, bytes]:
    """The payload (gzip member + padding) of ``members`` in order, and the tar it compresses."""
    tar = build_tar(members)
    return pad_payload(gzip_member(tar, mtime)), tar


