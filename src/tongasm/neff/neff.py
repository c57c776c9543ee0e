"""A NEFF in memory: header, payload facts and members, with typed views and a writer.

:class:`Neff` keeps every member's bytes in archive order, so an unmodified NEFF writes back byte
for byte, and parses the JSON and debug-info members on demand into the typed views of
:mod:`tongasm.neff.members` and :mod:`tongasm.neff.debuginfo`. :meth:`Neff.to_bytes` writes a NEFF
under the R-1..R-6 readings of a :class:`~tongasm.isa.decisions.DecisionSet` (§1.12): copy the
header, recompute ``data_size`` and the ``info.json`` mirrors, apply R-1 (hash), R-3 (0x220/0x228),
R-4 (UUID), R-5 (gzip MTIME) and R-6 (member order).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.decisions.archive import ArchiveStyle, NewMemberHeader
from ..isa.decisions.neff import GzipMtime, HeaderHash, HeaderUuid, MemberOrder, UnknownHeaderWords
from ..isa.fields import BUNDLE_SIZE
from ..isa.targets import Target
from .container import (
    USTAR,
    GzipInfo,
    MemberHeader,
    TarIndex,
    TarStyle,
    pad_payload,
    scan_payload,
    tar_chunks,
)
from .container import gzip_stream as _gzip_stream
from .errors import NeffError
from .header import HEADER_SIZE, NeffHeader, check_header, parse_header
from .members import (
    EngineSidecar,
    GraphDef,
    InfoJson,
    KelfJson,
    NeffJson,
    stream_of_engine_file,
)

KELF = "kelf-0.json"
INFO = "info.json"
GRAPH_JSON = "neff.json"


@dataclass(frozen=True)
class EngineStream:
    """One engine's instruction stream in a graph: tongasm stream name and the members behind it."""

    graph: str
    stream: str  # tongasm stream name: pe, pool, act, dve, sp
    token: str  # def.json token (equal to ``stream`` in both real NEFFs)
    member: str  # sg00/PE.bin
    sidecar: str | None  # sg00/PE.json
    dbg: tuple[str, ...]  # backend .dbg members
    asm_dbg: tuple[str, ...]  # asm .dbg members (one entry per bundle)

    @property
    def name(self) -> str:
        """The ``.stream`` name of this stream in a listing: ``sg00.pe`` (``asm`` writes ``sg00.pe.bin``)."""
        return f"{self.graph}.{self.stream}"

    @property
    def engine_file(self) -> str:
        """The engine's file stem (``PE``, ``Activation``...)."""
        return self.member.rpartition("/")[2].rpartition(".")[0]


@dataclass(frozen=True)
class Graph:
    """One graph (one physical core's program) of a NEFF."""

    name: str
    directory: str  # "sg00/"
    definition: GraphDef
    streams: Mapping[str, EngineStream]  # tongasm stream name → stream


class Members(MutableMapping[str, bytes]):
    """A read NEFF's members, in archive order, listed from its tar headers: a member's bytes are
    inflated when first asked for (then kept), so a command holds the members it uses, not the
    tar. Assigning a member keeps the new bytes; :meth:`size` and ``in`` inflate nothing."""

    def __init__(self, index: TarIndex) -> None:
        self.index = index
        self.entries = {e.name: e for e in index.entries}
        self._names: dict[str, None] = dict.fromkeys(self.entries)
        self._data: dict[str, bytes] = {}
        #: values in the JSON members inflated so far (bounded by MAX_NEFF_JSON_VALUES: each is parsed)
        self.json_values = 0

    def __getitem__(self, name: str) -> bytes:
        data = self._data.get(name)
        if data is None:
            if name not in self._names:
                raise KeyError(name)
            data = self.index.data(self.entries[name])
            if name.endswith(".json"):
                from .limits import MAX_JSON_VALUES, MAX_NEFF_JSON_VALUES
                from .members import json_values

                n = json_values(data, min(MAX_JSON_VALUES.value(), MAX_NEFF_JSON_VALUES.value() - self.json_values))
                MAX_JSON_VALUES.check(n, f"NEFF member {name}", "values")  # (as load_json would, before the total)
                self.json_values += n
                MAX_NEFF_JSON_VALUES.check(self.json_values, f"{self.index.what}: at member {name}", "values")
            self._data[name] = data
        return data

    def __setitem__(self, name: str, data: bytes) -> None:
        self._names[name] = None
        self._data[name] = data

    def __delitem__(self, name: str) -> None:
        del self._names[name]
        self._data.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def size(self, name: str) -> int:
        """A member's size in bytes (from its tar header while it has not been inflated)."""
        data = self._data.get(name)
        if data is not None:
            return len(data)
        if name not in self._names:
            raise KeyError(name)
        return self.entries[name].size

    def stream(self, order: Iterable[str]) -> Iterator[tuple[str, bytes]]:
        """Each member of ``order`` with its bytes, holding one at a time (the ones not yet inflated
        are not kept): in archive order, one pass over the tar."""
        order = list(order)
        if order == list(self.entries):
            for e, data in self.index.iter_data():
                yield e.name, self._data.get(e.name, data)
            return
        for n in order:
            kept = self._data.get(n)
            yield n, kept if kept is not None else self.index.data(self.entries[n])


@dataclass
class Neff:
    """A NEFF's header, payload facts and members (in archive order; a read NEFF's are
    :class:`Members`, inflated when used)."""

    header: NeffHeader
    gzip: GzipInfo
    members: MutableMapping[str, bytes]
    path: str | None = None
    #: the payload as read, listed (None when built, e.g. by pack): an unchanged payload is written
    #: back as it was
    source: TarIndex | None = field(default=None, repr=False)
    input_order: dict[str, int] = field(default_factory=dict, repr=False)
    #: each member's tar header as read (mode, owner, mtime, PAX records) and the file's tar style
    #: (None: read, but no known style rebuilds its tar; ``tar_style_why`` says where it differs)
    tar_headers: dict[str, MemberHeader] = field(default_factory=dict, repr=False)
    tar_style: TarStyle | None = USTAR
    tar_style_why: str = field(default="", repr=False)
    #: members whose bytes were replaced since reading (their header is R-41's)
    replaced: set[str] = field(default_factory=set, repr=False)
    #: (an unpacked directory) each member's size and SHA-256 as unpacked, for saying what changed
    recorded: dict[str, tuple[int | None, str | None]] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        """A one-line summary: a NEFF's members are megabytes, not something to print."""
        size = sum(self.member_size(n) for n in self.members)
        return (f"Neff(path={self.path!r}, members={len(self.members)}, member_bytes={size}, "
                f"data_size={self.header.number('data_size')})")

    # --- reading ---------------------------------------------------------------------------------

    @classmethod
    def from_bytes(cls, data: bytes | memoryview, *, path: str | None = None) -> Neff:
        """Parse a whole NEFF file; any defect is an :class:`NeffError` naming the file and what is wrong."""
        what = path or "NEFF"
        if len(data) >= 2 and bytes(data[:2]) == b"\x1f\x8b":
            raise NeffError(f"{what}: starts with gzip magic: a bare gzip'ed tar, not a NEFF (a NEFF starts "
                             f"with its {HEADER_SIZE}-byte header; the gzip payload follows at {HEADER_SIZE:#x})")
        header = parse_header(data, what=what)
        check_header(header, len(data), what=what)
        index = scan_payload(memoryview(data)[HEADER_SIZE:], what=what, base=HEADER_SIZE)
        style, why = index.detect_style()
        neff = cls(header, index.gzip, Members(index), path, index, {e.name: i for i, e in enumerate(index.entries)},
                   {e.name: e.header for e in index.entries}, style, why)
        if KELF not in neff.members:
            raise NeffError(f"{what}: no {KELF} member: not a NEFF (members: "
                             f"{', '.join(list(neff.members)[:8])}{'...' if len(neff.members) > 8 else ''})")
        return neff

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Neff:
        """Read and check a NEFF file. A regular file is read whole; a pipe or device (``/dev/zero``,
        or a link to it) only up to :data:`tongasm.io.inputs.PIPE_LIMIT` bytes, then refused."""
        from ..io.inputs import read_input

        return cls.from_bytes(read_input(path), path=str(path))

    @property
    def source_payload(self) -> bytes | None:
        """The payload (gzip member and padding) as read; None when the NEFF was built."""
        return bytes(self.source.payload) if self.source is not None else None

    @property
    def source_tar(self) -> bytes | None:
        """The tar as read, inflated whole (for tests and tools; the reader itself never holds it)."""
        return b"".join(self.source.chunks()) if self.source is not None else None

    def member_size(self, path: str) -> int:
        """A member's size in bytes, without inflating it."""
        m = self.members
        return m.size(path) if isinstance(m, Members) else len(m[path])

    def iter_members(self) -> Iterator[tuple[str, bytes]]:
        """Every member with its bytes, in order, one at a time (a read NEFF: one pass over its tar)."""
        m = self.members
        if isinstance(m, Members):
            yield from m.stream(list(m))
        else:
            yield from m.items()

    # --- typed views -----------------------------------------------------------------------------

    def member(self, path: str) -> bytes:
        try:
            return self.members[path]
        except KeyError:
            raise NeffError(f"{self.path or 'NEFF'}: no member {path!r}") from None

    @cached_property
    def kelf(self) -> KelfJson:
        return KelfJson.parse(self.member(KELF), KELF)

    @cached_property
    def info(self) -> InfoJson | None:
        return InfoJson.parse(self.members[INFO], INFO) if INFO in self.members else None

    @cached_property
    def graph_json(self) -> NeffJson | None:
        """``neff.json``: the data entries (inputs, outputs) with shapes and dtypes."""
        return NeffJson.parse(self.members[GRAPH_JSON], GRAPH_JSON) if GRAPH_JSON in self.members else None

    @property
    def target(self) -> Target:
        """The tongasm target (``cayman`` → gen3, ``sunda`` → gen2; others refused, naming them)."""
        return self.kelf.target

    @cached_property
    def graphs(self) -> dict[str, Graph]:
        """Graph name → :class:`Graph`, in ``kelf-0.json`` order."""
        out = {}
        for ref in self.kelf.graphs:
            d = GraphDef.parse(self.member(ref.definition), ref.definition)
            streams: dict[str, EngineStream] = {}
            for tok, files in d.engines.items():
                member = ref.directory + files.instr
                stem = files.instr.rpartition(".")[0]
                name = stream_of_engine_file(stem) or tok
                if name in streams:
                    raise NeffError(f"{ref.definition}: two engines map to stream {name!r}")
                streams[name] = EngineStream(ref.name, name, tok, member,
                                             ref.directory + files.sidecar if files.sidecar else None,
                                             tuple(ref.directory + f for f in files.dbg),
                                             tuple(ref.directory + f for f in files.asm_dbg))
            out[ref.name] = Graph(ref.name, ref.directory, d, streams)
        return out

    def graph(self, name: str) -> Graph:
        g = self.graphs.get(name)
        if g is None:
            from ..io.inputs import brief_repr

            raise NeffError(f"{self.path or 'NEFF'}: no graph {brief_repr(name)}; graphs: {', '.join(self.graphs)}")
        return g

    def streams(self) -> Iterator[EngineStream]:
        """Every engine stream of every graph, graphs in ``kelf-0.json`` order, streams in ``def.json`` order."""
        for g in self.graphs.values():
            yield from g.streams.values()

    def stream_data(self, s: EngineStream) -> bytes:
        return self.member(s.member)

    def sidecar(self, s: EngineStream) -> EngineSidecar | None:
        return EngineSidecar.parse(self.member(s.sidecar), s.sidecar) if s.sidecar and s.sidecar in self.members \
            else None

    def activation_function_sets(self, graph: str) -> tuple[str, ...] | None:
        """The graph's activation function sets, by index: its Activation engine sidecar's
        ``activation_function_sets`` (set names; a LoadActFuncSet's +0x23 is a position in it, R-21).
        None when the graph has no Activation stream or its sidecar has no such list."""
        act = self.graph(graph).streams.get("act")
        side = self.sidecar(act) if act is not None else None
        if side is None or "activation_function_sets" not in side.extra:
            return None
        names = side.extra["activation_function_sets"]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise NeffError(f"{act.sidecar if act else graph}: activation_function_sets should be a list of set "
                            f"names, got {names!r}")
        return tuple(names)

    def bir_names(self, s: EngineStream) -> list[str | None] | None:
        """The BIR instruction name of every bundle of ``s`` from its ``.dbg`` members (None where the
        entry is empty); None when the NEFF has no asm debug info for the stream or it does not have
        one entry per bundle."""
        from .debuginfo import backend_instructions, bundle_names, count_entries

        asm = [p for p in s.asm_dbg if p in self.members]
        if not asm:
            return None
        if count_entries(self.members[asm[0]], asm[0]) != len(self.stream_data(s)) // BUNDLE_SIZE:
            return None  # counted on the wire: nothing is parsed for debug info that does not fit
        backends = [backend_instructions(self.members[p], p) for p in s.dbg if p in self.members]
        names = bundle_names(self.members[asm[0]], backends, asm[0])
        if len(names) != len(self.stream_data(s)) // BUNDLE_SIZE:
            return None
        return names

    def source_lines(self, s: EngineStream) -> list[str | None] | None:
        """The kernel source line of every bundle of ``s`` (``file:line``) from its ``.dbg`` members: the
        first BIR instruction of the bundle's entry whose attributes hold ``kernel_line`` (``kernel_file``
        '0' is the backend file's ``source_file``); None per bundle without one, None for the stream when
        it has no asm debug info of one entry per bundle."""
        from .debuginfo import bundle_parent_ids, parse_debug_info

        asm = [p for p in s.asm_dbg if p in self.members]
        if not asm:
            return None
        where: dict[int, str] = {}
        for p in s.dbg:
            if p not in self.members:
                continue
            msg = parse_debug_info(self.members[p], p)
            for i in msg.instructions:
                attrs = {a.key: a.value for a in i.attributes}
                if "kernel_line" in attrs:
                    f = attrs.get("kernel_file", "")
                    name = msg.source_file if f in ("", "0") and msg.source_file else f"file {f}"
                    where[i.id] = f"{name}:{attrs['kernel_line']}"
        ids = bundle_parent_ids(self.members[asm[0]], asm[0])
        if len(ids) != len(self.stream_data(s)) // BUNDLE_SIZE:
            return None
        return [next((where[i] for i in e if i in where), None) for e in ids]

    # --- changing --------------------------------------------------------------------------------

    def _instr_members(self) -> dict[str, EngineStream]:
        return {s.member: s for s in self.streams()}

    def replace_member(self, path: str, data: bytes) -> None:
        """Replace one member's bytes. An engine stream must be a whole number of 64-byte bundles."""
        if path not in self.members:
            raise NeffError(f"{self.path or 'NEFF'}: no member {path!r} to replace")
        s = self._instr_members().get(path)
        if s is not None and len(data) % BUNDLE_SIZE:
            raise NeffError(f"replacement for {path} has {len(data)} bytes, not a whole number of {BUNDLE_SIZE}-byte "
                             f"bundles ({len(data) // BUNDLE_SIZE} bundles and {len(data) % BUNDLE_SIZE} extra bytes)")
        self.members[path] = bytes(data)
        self.replaced.add(path)
        for cached in ("kelf", "info", "graphs", "graph_json"):
            self.__dict__.pop(cached, None)

    def replace_stream(self, graph: str, stream: str, data: bytes) -> None:
        """Replace a graph's engine stream, named the tongasm way (``sg00``, ``pe``)."""
        g = self.graph(graph)
        s = g.streams.get(stream)
        if s is None:
            raise NeffError(f"{self.path or 'NEFF'}: graph {graph} has no stream {stream!r}; streams: "
                             f"{', '.join(g.streams)}")
        self.replace_member(s.member, data)

    # --- writing ---------------------------------------------------------------------------------

    def payload(self, decisions: DecisionSet = DEFAULT_DECISIONS, *, reuse: bool = True) -> bytes:
        """The payload under R-5 (gzip MTIME), R-6 (member order) and R-40/R-41 (tar headers).

        With ``reuse`` an unchanged archive (the same tar bytes and MTIME as read) is written as the
        gzip member that was read, so the output is identical whatever deflate implementation this
        Python has; without it the member is compressed afresh (identical with zlib 1.2.13).
        """
        order = decisions.get(MemberOrder).order(self.members, self.input_order)
        src = self.source
        unchanged = src is not None and order == [e.name for e in src.entries] and self._same_members()
        chunks: Iterable[bytes]
        if src is not None and unchanged and self.tar_style is None and decisions.get(ArchiveStyle).as_read:
            chunks, same = src.chunks(), True  # a style no writer here reproduces, nothing changed: as read
        else:
            style, headers = self.write_headers(order, decisions)
            same = src is not None and unchanged and src.first_difference(style, headers) is None
            m = self.members
            chunks = tar_chunks(m.stream(order) if isinstance(m, Members) else ((n, m[n]) for n in order),
                                headers, style)
        mtime = decisions.get(GzipMtime).mtime(self.gzip.mtime)
        if reuse and src is not None and same and mtime == self.gzip.mtime:
            return bytes(src.payload)
        return pad_payload(_gzip_stream(chunks, mtime))

    def read_bytes_of(self, name: str) -> bytes | None:
        """A member's bytes as read from the NEFF file (None when they are not at hand: a NEFF built
        or packed from a directory, or a member the file did not have)."""
        m = self.members
        if isinstance(m, Members) and name in m.entries:
            return m.index.data(m.entries[name])
        return None

    def _same_members(self) -> bool:
        """Whether every member is the one read: the same names, and a replaced member's new bytes
        equal to its old (compared only when the sizes agree)."""
        m = self.members
        if not isinstance(m, Members) or list(m) != list(m.entries):
            return False
        return all(m.size(n) == m.entries[n].size and m[n] == m.index.data(m.entries[n]) for n in self.replaced)

    def write_headers(self, order: list[str], decisions: DecisionSet = DEFAULT_DECISIONS,
                      now: float | None = None) -> tuple[TarStyle, dict[str, MemberHeader]]:
        """The tar style and every member's header for writing the members in ``order``, under R-40
        (the file's style or plain ustar) and R-41 (an added or replaced member's header).

        A NEFF whose tar no known style rebuilds is refused under R-40 ``as-read`` once anything
        changed (an unchanged one is written as read by :meth:`payload`'s reuse)."""
        as_read = decisions.get(ArchiveStyle).as_read
        stamp = decisions.get(NewMemberHeader).stamps_now
        if not as_read:
            style = USTAR
            return style, {n: replace(USTAR.template, mode=self.tar_headers[n].mode) if n in self.tar_headers
                           else USTAR.template for n in order}
        if self.tar_style is None:
            raise NeffError(f"{self.path or 'NEFF'}: its tar headers are in a style tongasm does not reproduce "
                             f"({self.tar_style_why}); write it with -D R-40=ustar (plain 2.23 headers) instead")
        style = self.tar_style
        when = (time.time() if now is None else now) if stamp else None
        headers: dict[str, MemberHeader] = {}
        prev: MemberHeader | None = None
        for n in order:
            old = self.tar_headers.get(n)
            if old is not None and n not in self.replaced:
                h = old
            elif old is not None:  # replaced: its own header, stamped under R-41 now
                h = style.member_header(old, when) if stamp else old
            else:  # added: the header of the member before it
                h = style.member_header(prev, when)
            headers[n] = prev = h
        return style, headers

    def build_header(self, payload: bytes, decisions: DecisionSet = DEFAULT_DECISIONS) -> NeffHeader:
        """The header for ``payload``: the input's, with data_size and the info.json mirrors
        recomputed and R-1/R-3/R-4 applied (R-2: kelp_version_major copied)."""
        v: dict[str, Any] = {"data_size": len(payload)}
        info = self.info
        if info is not None:
            name = info.name.encode()
            if info.raw.get("name") is not None:
                v["name"] = name
            for key, hname in (("num_tpb", "num_tpb"), ("num_tpb_requested", "requested_tpb_count")):
                if key in info.raw:
                    v[hname] = getattr(info, key)
            if "num_tpb_per_node" in info.raw:
                v["tpb_per_node"] = info.num_tpb_per_node
        digest = decisions.get(HeaderHash).digest(payload)
        if digest is not None:
            v["hash"], v["hash_rest"] = digest
        word = decisions.get(UnknownHeaderWords).word_0x228(len(self.kelf.graphs))
        if word is not None:
            v["unknown_0x228"] = word
        fresh = decisions.get(HeaderUuid).uuid()
        if fresh is not None:
            v["uuid"] = fresh
        return self.header.replace(**v)

    def to_bytes(self, decisions: DecisionSet = DEFAULT_DECISIONS, *, reuse: bool = True) -> bytes:
        """The NEFF file: header + payload (see :meth:`payload` and :meth:`build_header`)."""
        payload = self.payload(decisions, reuse=reuse)
        return self.build_header(payload, decisions).to_bytes() + payload


def read_neff(path: str | os.PathLike[str]) -> Neff:
    """Read and check a NEFF file (:class:`NeffError` on any defect)."""
    return Neff.read(path)


def write_neff(neff: Neff, path: str | os.PathLike[str], decisions: DecisionSet = DEFAULT_DECISIONS) -> None:
    """Write ``neff`` to ``path`` atomically (nothing is left behind on an error).

    The bytes are read back with the same strict reader as any NEFF before they are written, so
    tongasm never writes a file it would itself refuse (an unpacked directory's edited header or
    members are checked here, whatever path built them)."""
    from ..io.outputs import atomic_write

    data = neff.to_bytes(decisions)
    try:
        Neff.from_bytes(data, path=str(path))
    except NeffError as e:
        raise NeffError(f"the NEFF built for {path} would not read back, so it is not written: {e}") from None
    atomic_write(Path(path), data)
