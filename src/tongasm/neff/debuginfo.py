"""The ``.dbg`` members: protobuf debug info that ties every bundle to its BIR instruction.

The schema below was worked out from a raw wire dump of every ``.dbg`` member of both real NEFFs
and from the self-describing ``description`` strings the files carry (field 1), e.g. "Debug info
for one engine's assembly instructions. ... instructions in this debug info occur in the same order
as those in the actual binary file. Using this file, all instructions in the binary can be connected
back to the BIR Instruction from which they were generated." It is declared once, here, as a
``FileDescriptorProto`` (no ``protoc`` at build time) and decoded with Google's ``protobuf``
package, imported on first use so that ``import tongasm`` and ``tongasm --help`` do not pay for it.
Fields the schema does not name are kept by the parser (unknown fields) and never lost: the
member's bytes are what a repack writes.

Layers (each file names its parent file in field 2)::

    sgNN/debug_info_asm_<E>.dbg      one entry per bundle of <E>.bin, in stream order;
                                     entry.parent_ids = ids in debug_info_backend_<E>.dbg
    sgNN/debug_info_backend_<E>.dbg  BIR instructions: id, name (I-87-0...), parent ids in the
                                     Penguin layer, dependencies, attributes (kernel_file/line)
    debug_info/...                   Penguin, HLO, framework layers (not decoded here)

Evidence per field (V = every instance in both NEFFs, I = inferred):

=====================  ====  ===========================================================
DebugInfo.1 description  V  a sentence describing the layer
DebugInfo.2 parent_file  V  the layer above (``debug_info_backend_PE.dbg``, ``debug_info_penguin.dbg``)
DebugInfo.3 instructions V  repeated DebugInstruction
DebugInfo.4 engine       V/I  1 PE, 2 Activation, 3 Pool, 4 DMA, 5 DVE, 6 SP (its own numbering,
                            not BIR's EngineType)
DebugInfo.5 source_file  V  the Python file the kernel came from (backend files)
Instr.1 id               V  the instruction's id (asm entries point at it)
Instr.2 name             V  BIR instruction name
Instr.3 parent_ids       V  packed ids in the parent file (asm: backend ids; backend: Penguin ids)
Instr.4 deps / 9 kinds   I  ids this instruction depends on (data: the DMA that loads its input),
                            with a parallel kind list (4 read-after-write, 1 write-after-write, ...)
Instr.5 sync_deps / 10   I  the ids it synchronises with (semaphore waits), with kinds
Instr.6 unknown_6        V value  1, 2 or 3; meaning unknown (3 on the PE transposes)
Instr.7 attributes       V  key/value strings (kernel_file, kernel_line)
=====================  ====  ===========================================================
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import NeffError
from .limits import MAX_DBG_BYTES, MAX_DBG_ENTRIES, MAX_DBG_IDS, MAX_DBG_TOTAL_IDS

#: The schema, declared once: message → ((number, name, type, repeated), ...).
SCHEMA: Mapping[str, tuple[tuple[int, str, str, bool], ...]] = {
    "KeyValue": ((1, "key", "string", False), (2, "value", "string", False)),
    "DebugInstruction": (
        (1, "id", "uint64", False), (2, "name", "string", False), (3, "parent_ids", "uint64", True),
        (4, "deps", "uint64", True), (5, "sync_deps", "uint64", True), (6, "unknown_6", "uint64", False),
        (7, "attributes", ".tongasm.neff.KeyValue", True), (9, "dep_kinds", "uint64", True),
        (10, "sync_dep_kinds", "uint64", True),
    ),
    "DebugInfo": (
        (1, "description", "string", False), (2, "parent_file", "string", False),
        (3, "instructions", ".tongasm.neff.DebugInstruction", True), (4, "engine", "uint64", False),
        (5, "source_file", "string", False),
    ),
}
#: DebugInfo.engine (V/I): the debug layer's own engine numbering.
DEBUG_ENGINES: Mapping[int, str] = {1: "PE", 2: "Activation", 3: "Pool", 4: "DMA", 5: "DVE", 6: "SP"}

_CLASSES: dict[str, Any] = {}


def message_class(name: str = "DebugInfo") -> Any:
    """The generated protobuf message class of a :data:`SCHEMA` message (built on first use)."""
    if not _CLASSES:
        try:
            from google.protobuf import (
                descriptor_pb2,
                descriptor_pool,
                message_factory,
            )
        except ImportError:  # pragma: no cover - a declared dependency
            raise NeffError("decoding NEFF .dbg members needs the 'protobuf' package (pip install protobuf)") from None
        fdp = descriptor_pb2.FileDescriptorProto(name="tongasm_neff_debuginfo.proto", package="tongasm.neff",
                                                 syntax="proto3")
        F = descriptor_pb2.FieldDescriptorProto
        scalar = {"uint64": F.TYPE_UINT64, "string": F.TYPE_STRING}
        for msg, fields in SCHEMA.items():
            m = fdp.message_type.add(name=msg)
            for number, fname, ftype, repeated in fields:
                fd = m.field.add(name=fname, number=number,
                                 label=F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL)
                if ftype.startswith("."):
                    fd.type, fd.type_name = F.TYPE_MESSAGE, ftype
                else:
                    fd.type = scalar[ftype]
        pool = descriptor_pool.DescriptorPool()
        pool.AddSerializedFile(fdp.SerializeToString())
        for msg in SCHEMA:
            desc = pool.FindMessageTypeByName(f"tongasm.neff.{msg}")
            get = getattr(message_factory, "GetMessageClass", None)
            _CLASSES[msg] = get(desc) if get else message_factory.MessageFactory(pool).GetPrototype(desc)
    return _CLASSES[name]


#: bytes that end a varint (high bit clear): deleting the others counts the varints in a packed table
_VARINT_CONTINUES = bytes(range(0x80, 0x100))
#: bytes that end a varint (deleting them counts the bytes that do not)
_VARINT_ENDS = bytes(range(0x80))
#: DebugInfo's repeated entry field, as its one-byte wire tag (field 3, length-delimited)
_ENTRY_FIELD = SCHEMA["DebugInfo"][2][0]


def _varint(b: bytes, i: int, where: str) -> tuple[int, int]:
    """The base-128 varint at ``b[i]`` and the offset after it."""
    v = shift = 0
    while True:
        if i >= len(b) or shift > 63:
            raise NeffError(f"{where}: not a debug-info protobuf: truncated or overlong varint at byte {i}")
        c = b[i]
        v |= (c & 0x7F) << shift
        i += 1
        shift += 7
        if c < 0x80:
            return v, i


def _fields(b: bytes, where: str) -> Iterator[tuple[int, int, int, int]]:
    """(field number, wire type, start, end) of each field of one message's wire bytes; the value is
    ``b[start:end]`` (a varint's bytes, or a length-delimited payload). Groups and bad wire types are
    left for the protobuf parser to refuse (the scan stops there)."""
    i = 0
    while i < len(b):
        tag, i = _varint(b, i, where)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            _, j = _varint(b, i, where)
        elif wire == 2:
            n, i = _varint(b, i, where)
            j = i + n
            if j > len(b):
                raise NeffError(f"{where}: not a debug-info protobuf: field {number} declares {n} bytes at byte "
                                 f"{i}, {len(b) - i} remain")
        elif wire in (1, 5):
            j = i + (8 if wire == 1 else 4)
        else:
            return
        yield number, wire, i, j
        i = j


#: the DebugInstruction fields that are id tables (parent ids, dependencies and their kinds)
_ID_TABLES = frozenset(f[0] for f in SCHEMA["DebugInstruction"] if f[3] and f[2] == "uint64")


def count_entries(data: bytes, path: str = ".dbg") -> int:
    """The number of entries (instructions) of a ``.dbg`` member, counted on the wire without
    parsing them (and bounded by :data:`~tongasm.neff.limits.MAX_DBG_ENTRIES`)."""
    where = f"NEFF member {path}"
    MAX_DBG_BYTES.check(len(data), where, "bytes")
    max_entries = MAX_DBG_ENTRIES.value()
    entries = 0
    for number, wire, _, _ in _fields(data, where):
        if number == _ENTRY_FIELD and wire == 2:
            entries += 1
            if entries > max_entries:
                raise MAX_DBG_ENTRIES.error(f"at least {entries}", where, "entries")
    return entries


def check_debug_info_size(data: bytes, path: str) -> None:
    """Refuse a ``.dbg`` member that would cost more than its limits before the protobuf parser
    builds it: its size (:data:`~tongasm.neff.limits.MAX_DBG_BYTES`), its entry count
    (:data:`~tongasm.neff.limits.MAX_DBG_ENTRIES`, counted on the wire), per entry the ids of each
    parent-id / dependency table (:data:`~tongasm.neff.limits.MAX_DBG_IDS`) and the ids of all its
    tables together (:data:`~tongasm.neff.limits.MAX_DBG_TOTAL_IDS`). Every varint ends in a byte
    below 0x80, so a member with fewer such bytes than a limit cannot pass it: only the entries
    (or members) that could are scanned."""
    where = f"NEFF member {path}"
    MAX_DBG_BYTES.check(len(data), where, "bytes")
    max_entries, max_ids, max_total = MAX_DBG_ENTRIES.value(), MAX_DBG_IDS.value(), MAX_DBG_TOTAL_IDS.value()
    scan_all = len(data) - len(bytes(data).translate(None, _VARINT_ENDS)) > max_total
    entries = total = 0
    for number, wire, start, end in _fields(data, where):
        if number != _ENTRY_FIELD or wire != 2:
            continue
        entries += 1
        if entries > max_entries:
            raise MAX_DBG_ENTRIES.error(f"at least {entries}", where, "entries")
        if end - start <= max_ids and not scan_all:
            continue
        entry = data[start:end]
        counts: dict[int, int] = {}
        for n2, w2, s2, e2 in _fields(entry, f"{where}: entry {entries - 1}"):
            k = 1 if w2 != 2 else len(entry[s2:e2].translate(None, _VARINT_CONTINUES))
            counts[n2] = counts.get(n2, 0) + k
        for n2, k in counts.items():
            if k > max_ids:
                name = next((f[1] for f in SCHEMA["DebugInstruction"] if f[0] == n2), f"field {n2}")
                raise MAX_DBG_IDS.error(k, f"{where}: entry {entries - 1}: {name}", "ids")
            if n2 in _ID_TABLES:
                total += k
        if total > max_total:
            raise MAX_DBG_TOTAL_IDS.error(f"at least {total}", where, "ids")


def parse_debug_info(data: bytes, path: str = ".dbg") -> Any:
    """Decode one ``.dbg`` member into a ``DebugInfo`` message (unknown fields kept), after
    :func:`check_debug_info_size` has bounded what it may cost."""
    from google.protobuf.message import DecodeError

    check_debug_info_size(bytes(data), path)

    cls = message_class("DebugInfo")
    msg = cls()
    try:
        msg.ParseFromString(bytes(data))
    except DecodeError as e:
        raise NeffError(f"NEFF member {path}: not a debug-info protobuf: {e}") from None
    return msg


@dataclass(frozen=True)
class BirInstruction:
    """One BIR instruction of a ``debug_info_backend_<E>.dbg``."""

    id: int
    name: str
    parent_ids: tuple[int, ...]
    deps: tuple[int, ...]
    sync_deps: tuple[int, ...]
    attributes: tuple[tuple[str, str], ...]


def backend_instructions(data: bytes, path: str = ".dbg") -> dict[int, BirInstruction]:
    """id → :class:`BirInstruction` of a backend ``.dbg`` member."""
    msg = parse_debug_info(data, path)
    return {i.id: BirInstruction(i.id, i.name, tuple(i.parent_ids), tuple(i.deps), tuple(i.sync_deps),
                                 tuple((a.key, a.value) for a in i.attributes)) for i in msg.instructions}


def bundle_parent_ids(data: bytes, path: str = ".dbg") -> list[tuple[int, ...]]:
    """Per entry of an asm ``.dbg`` member (one per bundle), the backend ids it points at."""
    return [tuple(e.parent_ids) for e in parse_debug_info(data, path).instructions]


def bundle_names(asm_dbg: bytes, backends: Sequence[Mapping[int, BirInstruction]], path: str = ".dbg") -> list[str | None]:
    """The BIR instruction name of every bundle (None where the entry is empty, e.g. the 0xB1/0xCC
    prologue); several ids give the names joined with ``+``; an id no backend file has, ``#id``."""
    table: dict[int, BirInstruction] = {}
    for b in backends:
        table.update(b)
    out: list[str | None] = []
    for ids in bundle_parent_ids(asm_dbg, path):
        if not ids:
            out.append(None)
            continue
        out.append("+".join(table[i].name if i in table else f"#{i}" for i in ids))
    return out
