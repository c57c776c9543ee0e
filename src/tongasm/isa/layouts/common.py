"""What every layout shares: the header and the sync band (SPEC §3.2), and small helpers to
declare the common kinds of fields."""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Mapping

from ..decisions import DecisionSet
from ..decisions.spec import HeaderWordLength
from ..fields import Conf, EnumTable, Field, Kind
from ..tables import WAIT_TABLE, WIRE_DTYPE_TABLE, update_table

C, H, I, D, V = Conf.C, Conf.H, Conf.I, Conf.D, Conf.V  # noqa: E741

#: The field names of the shared sync band.
SYNC_FIELDS = ("wait_mode", "wait_idx", "update_mode", "update_idx", "sync_value")


def u8(name: str, off: int, conf: Conf, doc: str, **kw: Any) -> Field:
    return Field(name, off, 1, conf=conf, doc=doc, **kw)


def dtype(name: str, off: int, conf: Conf, doc: str, **kw: Any) -> Field:
    """A one-byte wire dtype field."""
    return Field(name, off, 1, Kind.ENUM, enum=WIRE_DTYPE_TABLE, conf=conf, doc=doc, **kw)


def nibble(name: str, off: int, hi: bool, conf: Conf, doc: str) -> Field:
    """A wire dtype in the low (or high) nibble of a byte."""
    return Field(name, off, 1, Kind.ENUM, shift=4 if hi else 0, bits=4, enum=WIRE_DTYPE_TABLE, conf=conf, doc=doc)


def reg(name: str, off: int, conf: Conf, doc: str, decision: str | None = None) -> Field:
    """A register-id byte."""
    return Field(name, off, 1, Kind.REGISTER, conf=conf, decision=decision, doc=doc)


def reserved(name: str, off: int, size: int, conf: Conf = C, doc: str = "reserved") -> Field:
    """A field that must hold zero."""
    return Field(name, off, size, Kind.CONSTANT, const=0, conf=conf, doc=doc)


def header_fields(ds: DecisionSet, sp_op: bool, opcodes: EnumTable) -> list[Field]:
    """+0x00..+0x03 (``opcodes``: the names of every opcode byte with a layout). D-1: +0x01 is 0x10
    on every opcode (alternative: 0 on SP register-lane ops)."""
    return [
        Field("opcode", 0x00, 1, Kind.ENUM, enum=opcodes, conf=C, doc="opcode"),
        Field("inst_word_len", 0x01, 1, Kind.CONSTANT, const=ds.get(HeaderWordLength).word_len(sp_op), conf=C,
              decision="D-1", doc="instruction length in dwords (16 = 64 bytes)"),
        Field("reserved_02", 0x02, 2, Kind.CONSTANT, const=0, conf=C, doc="reserved"),
    ]


def sync_fields(ds: DecisionSet) -> list[Field]:
    """+0x04..+0x0B: the sync band; +0x08 is shared by the wait and the update (D-4)."""
    return [
        Field("wait_mode", 0x04, 1, Kind.ENUM, enum=WAIT_TABLE, conf=C, doc="sync wait mode (0 = no wait)"),
        u8("wait_idx", 0x05, C, "semaphore waited on"),
        Field("update_mode", 0x06, 1, Kind.ENUM, enum=update_table(ds), conf=H, decision="D-2",
              doc="sync update mode (0 = no update)"),
        u8("update_idx", 0x07, C, "semaphore updated"),
        Field("sync_value", 0x08, 4, conf=C, decision="D-4",
              doc="wait threshold, wait register id, or update value (shared)"),
    ]


def product(prefix: str, n: int) -> Callable[[Mapping[str, int]], int]:
    """The product of a descriptor slot's counts (an implied element count)."""
    def implied(v: Mapping[str, int]) -> int:
        out = 1
        for i in range(n):
            out *= v.get(f"{prefix}.num{i}", 1)
        return out
    return implied


def const(value: int) -> Callable[[Mapping[str, int]], int]:
    return lambda _v: value


def copy_of(name: str) -> Callable[[Mapping[str, int]], int]:
    """A field that repeats another (``dst_lo`` of a 64-bit RegisterAlu repeats ``dst``)."""
    return lambda v: v.get(name, 0)


# --- helpers of the PE, DMA and sync/control records -------------------------------------------

#: Chunk widths a run of bytes is split into (a field's carrier is 1, 2, 4 or 8 bytes).
_CHUNKS = (8, 4, 2, 1)


def _chunks(off: int, size: int) -> list[tuple[int, int]]:
    out, pos, end = [], off, off + size
    while pos < end:
        w = next(c for c in _CHUNKS if c <= end - pos and pos % c == 0) if pos % 2 == 0 else 1
        out.append((pos, w))
        pos += w
    return out


def zero_run(off: int, size: int, conf: Conf, doc: str, decision: str | None = None) -> list[Field]:
    """A run of reserved-zero bytes (named ``reserved_<hex offset>`` per chunk): the checker flags a
    non-zero value and ``explain`` says what is known (``doc``: the provenance, e.g. "observed zero in
    all 8,712 real bundles; the book: lw_reserved_zero")."""
    return [Field(f"reserved_{o:02x}", o, w, Kind.CONSTANT, const=0, conf=conf, decision=decision, doc=doc)
            for o, w in _chunks(off, size)]


def ascii_run(name: str, off: int, size: int, conf: Conf, doc: str) -> list[Field]:
    """A NUL-padded ASCII name of ``size`` bytes, as fields ``<name>.b<k>`` (k = byte offset in the name)."""
    return [Field(f"{name}.b{o - off}", o, w, conf=conf, doc=f"{doc} (bytes {o - off}..{o - off + w - 1})")
            for o, w in _chunks(off, size)]


def u16(name: str, off: int, conf: Conf, doc: str, **kw: Any) -> Field:
    return Field(name, off, 2, conf=conf, doc=doc, **kw)


def u32(name: str, off: int, conf: Conf, doc: str, **kw: Any) -> Field:
    return Field(name, off, 4, conf=conf, doc=doc, **kw)
