"""IR instructions of the search family (MatchReplace and the two bundles it lowers to)."""

from __future__ import annotations

from .instructions import Attr, Instruction


class MatchReplace(Instruction):
    """SRCH / JSON (IT90): ``imm_value`` (float, required); ins = [vals, data] (the 8 values per
    partition to strike, the data), outs = [dst]. Lowered to MatchValueLoad 0x6D of vals, then
    MatchReplace8 0x6F of data (SRCH: COLLECT inserts 0x6D then 0x6F)."""

    __slots__ = ()

    OPCODE = "MatchReplace"
    ROLES = {"vals": (False, 0), "data": (False, 1), "dst": (True, 0)}
    ATTRS = (Attr("imm_value", float, required=True),)


class MatchValueLoadPart(MatchReplace):
    """The 0x6D bundle of a lowered MatchReplace (latch vals)."""

    __slots__ = ()


class MatchReplacePart(MatchReplace):
    """The 0x6F bundle of a lowered MatchReplace (strike the latched values in data)."""

    __slots__ = ()
