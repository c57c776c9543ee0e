"""The enum tables of the wire format: the names of the values an enum field can hold.

Decoders, checks, explain and the text form read these; they are built from the enums and LUTs of
:mod:`tongasm.isa.enums` (one source) and, for the update-mode byte, from decision D-2.
"""

from __future__ import annotations

from functools import cache
from collections.abc import Iterable

from .decisions import DecisionSet
from .decisions.spec import UpdateModeWire
from .enums import ACC_WIRE, ALU_WIRE_NAMES, WAIT_WIRE, WireDtype
from .fields import EnumTable
from .opcodes import Op

WIRE_DTYPE_TABLE = EnumTable("wire dtype", {w.value: w.name for w in WireDtype})
ALU_TABLE = EnumTable("ALU op", ALU_WIRE_NAMES)
ACC_TABLE = EnumTable("accumulation", {w: a.name for a, w in ACC_WIRE.items()})
WAIT_TABLE = EnumTable("wait mode", {0: "none", **{w: m.name for m, w in WAIT_WIRE.items()}})


def opcode_table(ops: Iterable[Op]) -> EnumTable:
    """Names of the opcode bytes tongasm has a layout for (their mnemonics)."""
    return EnumTable("opcode", {o.byte: o.mnemonic for o in ops})


def update_table(ds: DecisionSet) -> EnumTable:
    """Names of the update-mode byte. D-2: LUT (default) or the raw ordinal."""
    return _update_table(ds.get(UpdateModeWire))


@cache
def _update_table(d2: UpdateModeWire) -> EnumTable:
    return EnumTable("update mode", d2.names())
