"""Codegen of the search family's MatchReplace: MatchValueLoad 0x6D of the values, then
MatchReplace8 0x6F of the data (lowered first by :mod:`tongasm.passes.lower_compound`).
"""

from __future__ import annotations

from ..errors import EncodeError
from ..ir.instructions import Instruction
from ..ir.search import MatchReplace, MatchReplacePart, MatchValueLoadPart
from .common import (
    DVE_ONLY,
    DVE_STREAM_WHY,
    Context,
    Selection,
    counts,
    f32_bits,
    lowered_only,
    no_indirect,
    one_opcode,
    pair_opcodes,
    require_engine,
)
from .plan import Family


def match_value_load_select(inst: MatchValueLoadPart, ctx: Context) -> Selection:
    """0x6D: the 8 values of vals (binding: slot, dtype, partitions)."""
    counts("MatchReplace", inst, (2,), (1,), "ins = [vals, data] and outs = [dst]")
    require_engine(inst, "MatchReplace", DVE_ONLY, DVE_STREAM_WHY)
    no_indirect({"vals": inst.ins[0]})
    fmt = ctx.formats.by_name["MatchValueLoad"]
    return fmt, {"opcode": next(iter(fmt.opcodes))}


def match_replace_select(inst: MatchReplacePart, ctx: Context) -> Selection:
    """0x6F: data and dst from the binding, imm_value the float32 at +0x28."""
    counts("MatchReplace", inst, (2,), (1,), "ins = [vals, data] and outs = [dst]")
    require_engine(inst, "MatchReplace", DVE_ONLY, DVE_STREAM_WHY)
    no_indirect({"data": inst.ins[1], "dst": inst.outs[0]})
    imm = inst.attr("imm_value")
    if isinstance(imm, bool) or not isinstance(imm, (int, float)):
        raise EncodeError(f"MatchReplace imm_value must be a number, got {imm!r}", field="imm_value", value=imm,
                          check="operands.shape")
    fmt = ctx.formats.by_name["MatchReplace8"]
    return fmt, {"opcode": next(iter(fmt.opcodes)), "imm": f32_bits(imm)}


#: The 0x6D and 0x6F bundles a MatchReplace is lowered to.
PARTS: dict[type[Instruction], Family] = {
    MatchValueLoadPart: Family("MatchReplace", match_value_load_select, one_opcode("MatchValueLoad")),
    MatchReplacePart: Family("MatchReplace", match_replace_select, one_opcode("MatchReplace8")),
}


FAMILIES: dict[type[Instruction], Family] = {
    MatchReplace: Family("MatchReplace", lowered_only("MatchReplace"), pair_opcodes(PARTS)),
    **PARTS,
}
