"""The 1024-byte NEFF header, declared once as data (neff-and-real-opcodes.md §1.2).

:data:`HEADER_FIELDS` lists every byte range of the header in order: offset, width, name, kind,
evidence tag, the decision that governs it on a repack and what is known about it. Parsing
(:func:`parse_header`), building (:func:`build_header`), the ``neff info`` table and the byte map in
``docs/neff-header.md`` (:func:`header_markdown`) are all generated from that table; no other code
writes a header offset. The fields tile the 1024 bytes without gaps, so every byte, known or not,
is a field's value and a header round-trips bit for bit.

Kinds: ``u32``/``u64`` little-endian integers; ``bytes`` raw bytes (kept as they are); ``cstr`` a
NUL-padded string (the value is the raw bytes; :meth:`NeffHeader.text` gives the text up to the
first NUL); ``u8[]`` one byte per entry (a tuple of ints).

Tags (the chapter's §0.2): ``V`` verified on both real NEFFs, ``I`` inferred, ``B`` from the book only.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import NeffError

HEADER_SIZE = 0x400
#: ``packaging_version`` values tongasm reads (KLR's ``KLR.NEFF``: 1 = tgz + sha256, 2 = tgz + md5).
PACKAGING_VERSIONS = (1, 2)

HeaderValue = int | bytes | tuple[int, ...]


@dataclass(frozen=True)
class HeaderField:
    """One byte range of the NEFF header."""

    offset: int
    width: int  # bytes
    name: str
    kind: str  # "u32", "u64", "bytes", "cstr", "u8[]"
    tag: str  # "V", "I", "B"; "V value, I meaning" is written "V/I"
    decision: str | None  # the R-n that decides it on a repack
    rule: str  # what the writer does with it
    doc: str

    @property
    def end(self) -> int:
        return self.offset + self.width

    def decode(self, raw: bytes | bytearray | memoryview) -> HeaderValue:
        b = bytes(raw[self.offset:self.end])
        if self.kind == "u32":
            return int(struct.unpack("<I", b)[0])
        if self.kind == "u64":
            return int(struct.unpack("<Q", b)[0])
        if self.kind == "u8[]":
            return tuple(b)
        return b

    def encode(self, value: HeaderValue) -> bytes:
        """The field's bytes; a value that does not fit is an error naming the field and its limit."""
        if self.kind in ("u32", "u64"):
            if not isinstance(value, int) or isinstance(value, bool):
                raise NeffError(f"NEFF header field {self.name}: expected an integer, got {value!r}")
            hi = (1 << (8 * self.width)) - 1
            if not 0 <= value <= hi:
                raise NeffError(f"NEFF header field {self.name} (+{self.offset:#05x}, {self.kind}): value {value} "
                                 f"does not fit (allowed 0..{hi})")
            return value.to_bytes(self.width, "little")
        if self.kind == "u8[]":
            if not isinstance(value, (tuple, list)):
                raise NeffError(f"NEFF header field {self.name}: expected a list of bytes, got {value!r}")
            if len(value) > self.width or any(not isinstance(v, int) or not 0 <= v <= 255 for v in value):
                raise NeffError(f"NEFF header field {self.name} (+{self.offset:#05x}): {len(value)} entries; "
                                 f"allowed at most {self.width} entries of 0..255")
            return bytes(value) + bytes(self.width - len(value))
        if not isinstance(value, (bytes, bytearray)):
            raise NeffError(f"NEFF header field {self.name}: expected bytes, got {type(value).__name__}")
        if len(value) > self.width:
            raise NeffError(f"NEFF header field {self.name} (+{self.offset:#05x}): {len(value)} bytes do not fit "
                             f"(allowed at most {self.width})")
        return bytes(value) + bytes(self.width - len(value))


def _f(offset: int, width: int, name: str, kind: str, tag: str, decision: str | None, rule: str,
       doc: str) -> HeaderField:
    return HeaderField(offset, width, name, kind, tag, decision, rule, doc)


#: The header, in offset order. Names are those of Amazon's NEFF serializer in Lean (KLR.NEFF.Header)
#: where it has one; the book's name follows in the doc when it differs.
HEADER_FIELDS: tuple[HeaderField, ...] = (
    _f(0x000, 8, "packaging_version", "u64", "V", None, "copy",
       "2 in both files (KLR: 1 = tgz+sha256, 2 = tgz+md5); book: version"),
    _f(0x008, 8, "header_size", "u64", "V", None, "0x400",
       "size of this header; the gzip payload starts here; book: region_size"),
    _f(0x010, 8, "data_size", "u64", "V", None, "computed",
       "payload length = file size - 0x400, zero padding included; book contradicted ('reserved 0')"),
    _f(0x018, 8, "kelp_version_major", "u64", "V/I", "R-2", "copy",
       "2 in both files; book: section_flag '=1' (contradicted)"),
    _f(0x020, 8, "kelp_version_minor", "u64", "V", None, "copy", "0 in both files"),
    _f(0x028, 128, "kelp_version_build", "bytes", "V", None, "copy", "all zero in both files"),
    _f(0x0A8, 4, "num_tpb", "u32", "V", None, "info.json num_tpb",
       "= info.json num_tpb (1); book: version_major"),
    _f(0x0AC, 16, "hash", "bytes", "V/I", "R-1", "R-1",
       "16-byte digest (MD5-sized); its input is unknown (not MD5/SHA of the payload, tar or members)"),
    _f(0x0BC, 16, "hash_rest", "bytes", "V", "R-1", "R-1",
       "rest of the 32-byte hash field, zero in both files (the book's 64-bit feature_flags at 0x0C0 "
       "would lie here; zero although def.json lists neff_feature_vnc)"),
    _f(0x0CC, 16, "uuid", "bytes", "V", "R-4", "R-4",
       "RFC 4122 version-4 UUID (version nibble 4 at byte 6, variant 0b10 at byte 8 in both files)"),
    _f(0x0DC, 256, "name", "cstr", "V", None, "info.json name",
       "NUL-padded = info.json name ('file.neff')"),
    _f(0x1DC, 4, "requested_tpb_count", "u32", "V", None, "info.json num_tpb_requested",
       "= info.json num_tpb_requested (1); book: version_minor"),
    _f(0x1E0, 64, "tpb_per_node", "u8[]", "V", None, "info.json num_tpb_per_node",
       "one byte per node = info.json num_tpb_per_node (64 entries); book: engine-present bitmap"),
    _f(0x220, 8, "unknown_0x220", "u64", "V/I", "R-3", "R-3",
       "meaning unknown (0x209C00 small, 0x201C00 large); book: cc_field"),
    _f(0x228, 8, "unknown_0x228", "u64", "V/I", "R-3", "R-3",
       "equals the number of graphs in kelf-0.json in both files (2); book: arch_mode"),
    _f(0x230, 464, "pad", "bytes", "V", None, "copy", "padding, zero in both files"),
)

HEADER_FIELD_MAP: Mapping[str, HeaderField] = {f.name: f for f in HEADER_FIELDS}


def _check_tiling() -> None:
    at = 0
    for f in HEADER_FIELDS:
        assert f.offset == at, f"NEFF header declaration: gap or overlap at {at:#x} ({f.name})"
        at = f.end
    assert at == HEADER_SIZE, f"NEFF header declaration covers {at:#x} bytes, not {HEADER_SIZE:#x}"


_check_tiling()


@dataclass
class NeffHeader:
    """A parsed header: every field's value (known or not), by name.

    ``values`` holds one entry per :data:`HEADER_FIELDS` name; :meth:`to_bytes` builds the 1024 bytes
    back from them (bit for bit what :func:`parse_header` read).
    """

    values: dict[str, HeaderValue] = field(default_factory=dict)

    def __getitem__(self, name: str) -> HeaderValue:
        return self.values[name]

    def number(self, name: str) -> int:
        v = self.values[name]
        assert isinstance(v, int), name
        return v

    def raw(self, name: str) -> bytes:
        v = self.values[name]
        return bytes(v) if not isinstance(v, int) else HEADER_FIELD_MAP[name].encode(v)

    def text(self, name: str) -> str:
        """A ``cstr`` field's text: up to the first NUL, decoded as UTF-8 (undecodable bytes escaped)."""
        return self.raw(name).split(b"\0", 1)[0].decode("utf-8", "backslashreplace")

    def replace(self, **values: HeaderValue) -> NeffHeader:
        unknown = [k for k in values if k not in HEADER_FIELD_MAP]
        if unknown:
            raise KeyError(f"no NEFF header field {', '.join(unknown)}")
        return NeffHeader({**self.values, **values})

    def to_bytes(self) -> bytes:
        return build_header(self.values)

    def rows(self) -> list[dict[str, Any]]:
        """One row per field (name, offset, width, kind, value, tag, decision, doc), for reports."""
        out = []
        for f in HEADER_FIELDS:
            v = self.values[f.name]
            if isinstance(v, int):
                shown: Any = v
            elif f.kind == "cstr":
                shown = self.text(f.name)
            elif f.kind == "u8[]":
                shown = list(v)
            else:
                shown = bytes(v).hex()
            out.append({"name": f.name, "offset": f.offset, "width": f.width, "kind": f.kind, "value": shown,
                        "tag": f.tag, "decision": f.decision, "rule": f.rule, "doc": f.doc})
        return out


def parse_header(data: bytes | bytearray | memoryview, *, what: str = "NEFF") -> NeffHeader:
    """Parse the first 1024 bytes of a NEFF into a :class:`NeffHeader` (no consistency checks; see
    :func:`check_header`). Fewer than 1024 bytes is an :class:`NeffError`."""
    if len(data) < HEADER_SIZE:
        raise NeffError(f"{what}: truncated: {len(data)} bytes, shorter than the {HEADER_SIZE}-byte NEFF header")
    return NeffHeader({f.name: f.decode(data) for f in HEADER_FIELDS})


def build_header(values: Mapping[str, HeaderValue]) -> bytes:
    """The 1024 header bytes from field values (a missing field is zero)."""
    out = bytearray(HEADER_SIZE)
    for f in HEADER_FIELDS:
        if f.name in values:
            out[f.offset:f.end] = f.encode(values[f.name])
    unknown = set(values) - set(HEADER_FIELD_MAP)
    if unknown:
        raise NeffError(f"no NEFF header field {', '.join(sorted(unknown))}")
    return bytes(out)


def check_header(h: NeffHeader, file_size: int, *, what: str = "NEFF") -> None:
    """Refuse a header that cannot start a NEFF: unknown packaging version, a header size other
    than 0x400, a data size that disagrees with the file size."""
    if h.number("packaging_version") not in PACKAGING_VERSIONS:
        raise NeffError(f"{what}: not a NEFF: packaging_version (u64 at +0x000) is {h.number('packaging_version')}, "
                         f"expected one of {', '.join(map(str, PACKAGING_VERSIONS))}")
    if h.number("header_size") != HEADER_SIZE:
        raise NeffError(f"{what}: not a NEFF: header_size (u64 at +0x008) is {h.number('header_size'):#x}, "
                         f"expected {HEADER_SIZE:#x}")
    ds = h.number("data_size")
    if ds != file_size - HEADER_SIZE:
        state = "truncated" if ds > file_size - HEADER_SIZE else "sizes disagree"
        raise NeffError(f"{what}: {state}: header data_size (u64 at +0x010) is {ds} bytes but the file has "
                         f"{file_size - HEADER_SIZE} bytes after the {HEADER_SIZE}-byte header")


def header_markdown() -> str:
    """``docs/neff-header.md``: the byte map of the header, generated from :data:`HEADER_FIELDS`."""
    lines = [
        "# The NEFF header (generated)",
        "",
        "Generated from `tongasm.neff.header.HEADER_FIELDS` by `tongasm neff header --format markdown`;",
        "a test keeps this file in sync. Little-endian; the fields tile all 1024 bytes, so an unmodified",
        "header round-trips bit for bit. Tags: V verified on both real NEFFs, I inferred, B book only",
        "(`../shared/spec/neff-and-real-opcodes.md` §0.2). *Rule* is what `Neff.to_bytes()` writes on a",
        "repack; the R-n decisions are selectable (`tongasm decisions`, `-D R-1=zero`).",
        "",
        "| offset | width | name | kind | tag | decision | rule | what is known |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for f in HEADER_FIELDS:
        lines.append(f"| {f.offset:#05x} | {f.width} | `{f.name}` | {f.kind} | {f.tag} | {f.decision or ''} | "
                     f"{f.rule} | {f.doc} |")
    return "\n".join(lines) + "\n"
