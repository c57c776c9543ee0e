"""``FILE.neff`` selectors for the stream commands (disasm, decode, check, explain).

Grammar::

    FILE.neff                       every engine stream of every graph
    FILE.neff:GRAPH                 every stream of one graph            (FILE.neff:sg00)
    FILE.neff:GRAPH/STREAM          one stream                            (FILE.neff:sg00/pe)
    FILE.neff:GRAPH/STREAM:INDEX    one bundle by index (explain)         (FILE.neff:sg00/pe:3)
    FILE.neff:GRAPH/STREAM@OFFSET   one bundle by byte offset (explain)   (FILE.neff:sg00/pe@0xc0)

STREAM is a tongasm stream name (``pe``, ``pool``, ``act``, ``dve``, ``sp``) or the NEFF's engine file
name (``PE``, ``Activation``...). A path is taken as a NEFF when it ends in ``.neff`` or when the file
starts with a NEFF header. :func:`resolve_selector` returns the streams with their target (from
``kelf-0.json``) and the BIR instruction name of every bundle (from the ``.dbg`` members).
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path

from ..isa.fields import BUNDLE_SIZE
from ..isa.targets import Target
from .errors import NeffError
from .header import HEADER_FIELD_MAP, HEADER_SIZE, PACKAGING_VERSIONS
from .neff import EngineStream, Neff

_SEL = re.compile(r"^(?P<graph>[^/:@]+)(?:/(?P<stream>[^/:@]+))?"
                  r"(?::(?P<index>\d+)|@(?P<offset>0[xX][0-9a-fA-F]+|\d+))?$")


@dataclass(frozen=True)
class Selector:
    """A parsed ``FILE.neff[:GRAPH[/STREAM]][:INDEX|@OFFSET]``."""

    path: str
    graph: str | None = None
    stream: str | None = None
    index: int | None = None  # bundle index
    offset: int | None = None  # bundle byte offset

    @property
    def bundle_offset(self) -> int | None:
        if self.index is not None:
            return self.index * BUNDLE_SIZE
        return self.offset


@dataclass(frozen=True)
class NamedStream:
    """One engine stream picked by a selector: its listing name, bytes, target and BIR names."""

    name: str  # "sg00.pe": the .stream name in a listing (asm writes sg00.pe.bin)
    graph: str
    stream: str  # tongasm stream / engine name: "pe"
    member: str  # "sg00/PE.bin"
    data: bytes
    target: Target
    bir_names: list[str | None] | None  # per bundle (None where the .dbg entry is empty)


@dataclass(frozen=True)
class NeffSelection:
    """What a selector resolved to."""

    neff: Neff
    selector: Selector
    streams: list[NamedStream]

    @property
    def target(self) -> Target:
        return self.neff.target


def _looks_like_neff(path: str) -> bool:
    """A regular file that starts with a NEFF header (a FIFO or device is never opened here; a name
    the OS refuses, too long say, is simply not a NEFF)."""
    try:
        if not Path(path).is_file():
            return False
        with open(path, "rb") as fh:
            head = fh.read(16)
    except OSError:
        return False
    if len(head) < 16:
        return False
    version, size = struct.unpack_from("<QQ", head)
    assert HEADER_FIELD_MAP["packaging_version"].offset == 0 and HEADER_FIELD_MAP["header_size"].offset == 8
    return version in PACKAGING_VERSIONS and size == HEADER_SIZE


def parse_selector(spec: str) -> Selector | None:
    """The selector in ``spec``, or None when ``spec`` does not name a NEFF."""
    m = re.match(r"^(?P<path>.*?\.neff)(?P<rest>[:@].*)?$", spec, re.IGNORECASE)
    if m is None:  # no .neff suffix: a file that starts with a NEFF header
        return Selector(spec) if _looks_like_neff(spec) else None
    path, rest = m.group("path"), m.group("rest")
    if rest is None:
        return Selector(path)
    s = _SEL.match(rest[1:]) if rest.startswith(":") else None
    if s is None:
        raise NeffError(f"bad NEFF selector {spec!r}: expected FILE.neff, FILE.neff:sg00, FILE.neff:sg00/pe, "
                         "FILE.neff:sg00/pe:INDEX or FILE.neff:sg00/pe@OFFSET")
    if (s.group("index") or s.group("offset")) and not s.group("stream"):
        raise NeffError(f"bad NEFF selector {spec!r}: a bundle index or offset needs a stream (FILE.neff:sg00/pe:3)")
    off = s.group("offset")
    number = s.group("index") or off or ""
    if len(number) > 40:  # no stream has that many bytes (and Python refuses decimal text past 4300 digits)
        raise NeffError(f"bad NEFF selector: the bundle {'index' if s.group('index') else 'offset'} "
                         f"{number[:20]}... has {len(number)} digits; no stream is that long")
    return Selector(path, s.group("graph"), s.group("stream"),
                    int(s.group("index")) if s.group("index") else None,
                    int(off, 16) if off and off.lower().startswith("0x") else (int(off) if off else None))


def is_neff_spec(spec: str) -> bool:
    """Does a command-line argument name a NEFF (with or without a selector)?"""
    try:
        return parse_selector(spec) is not None
    except NeffError:
        return True  # a malformed selector is still meant for a NEFF: resolving it reports the error


def _pick_stream(neff: Neff, graph: str, name: str) -> EngineStream:
    g = neff.graph(graph)
    if name in g.streams:
        return g.streams[name]
    for s in g.streams.values():
        if s.engine_file.lower() == name.lower() or s.token == name:
            return s
    raise NeffError(f"{neff.path or 'NEFF'}: graph {graph} has no stream {name!r}; streams: "
                     + ", ".join(f"{s.stream} ({s.engine_file})" for s in g.streams.values()))


def resolve_selector(spec: str | Selector, *, neff: Neff | None = None, names: bool = True) -> NeffSelection:
    """Open the NEFF of a selector and return its streams (with target and, when ``names``, the
    BIR instruction name of every bundle). A bundle index/offset is checked against the stream."""
    sel = parse_selector(spec) if isinstance(spec, str) else spec
    if sel is None:
        raise NeffError(f"{spec!r} does not name a NEFF file")
    neff = neff or Neff.read(sel.path)
    target = neff.target  # refuses an unknown target, naming it
    if sel.graph is None:
        picked = list(neff.streams())
    elif sel.stream is None:
        picked = list(neff.graph(sel.graph).streams.values())
    else:
        picked = [_pick_stream(neff, sel.graph, sel.stream)]
    out = []
    for s in picked:
        data = neff.stream_data(s)
        if len(data) % BUNDLE_SIZE:
            raise NeffError(f"{neff.path or 'NEFF'}: {s.member} has {len(data)} bytes, not a whole number of "
                             f"{BUNDLE_SIZE}-byte bundles")
        out.append(NamedStream(s.name, s.graph, s.stream, s.member, data, target,
                               neff.bir_names(s) if names else None))
    off = sel.bundle_offset
    if off is not None:
        n = len(out[0].data)
        if off % BUNDLE_SIZE or off + BUNDLE_SIZE > n:
            raise NeffError(f"{sel.path}:{sel.graph}/{sel.stream} has {n // BUNDLE_SIZE} bundles; no bundle at "
                             f"byte offset {off:#x}")
    return NeffSelection(neff, sel, out)
