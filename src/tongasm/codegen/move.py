"""Codegen of the DVE data-movement family: the LoadMaskSelect 0x69 of a StreamShuffle or a partial
StreamTranspose, then the 0x6A/0x6B move (R-50..R-55). The two-bundle forms are lowered first
(:mod:`tongasm.passes.lower_compound`).
"""

from __future__ import annotations

from ..errors import EncodeError
from ..ir.instructions import Instruction
from ..ir.move import LaneMaskLoad, StreamShuffle, StreamShuffleMove, StreamTranspose, StreamTransposeMove
from ..ir.operands import PhysicalAP, RegisterAP, SymbolicAP
from .common import (
    DVE_ONLY,
    DVE_STREAM_WHY,
    Context,
    Selection,
    counts,
    lowered_only,
    no_indirect,
    one_opcode,
    pair_opcodes,
    require_engine,
)
from .plan import Family

MASK_SIZE_MSG = "Mask.size() == 32"


KEEP_LANE = 0xFF


def lane_mask_select(inst: LaneMaskLoad, ctx: Context) -> Selection:
    """0x69 (R-50, R-51): the 32 lane bytes, 0..31 a src lane, 0xFF the lane kept."""
    require_engine(inst, "LoadMaskSelect", DVE_ONLY, DVE_STREAM_WHY)
    mask = inst.attr("mask")
    if not isinstance(mask, list) or len(mask) != 32:
        n = len(mask) if isinstance(mask, list) else type(mask).__name__
        raise EncodeError(f"StreamShuffle mask must list 32 lanes ({MASK_SIZE_MSG}); got {n}", field="mask", value=n,
                          limit="32 entries", check="dmov.mask_lanes")
    fmt = ctx.formats.by_name["LoadMaskSelect"]
    values: dict[str, int] = {"opcode": next(iter(fmt.opcodes))}
    for i, v in enumerate(mask):
        if type(v) is not int or not (0 <= v < 32 or v == KEEP_LANE):
            raise EncodeError(f"StreamShuffle mask[{i}] = {v!r}: a lane is 0..31 (the src lane) or 255 (left alone, "
                              "R-51)", field=f"mask[{i}]", value=v, limit="0..31 or 255", check="dmov.mask_lanes")
        values[f"lane{i}"] = v
    return fmt, values


def _channels(inst: Instruction, what: str) -> int:
    ch = inst.attr("num_active_channels")
    if type(ch) is not int or ch <= 0:
        raise EncodeError(f"{what}: src and dst must be access patterns with a partition pair (the channel count "
                          "is their partitions)", field="num_active_channels", value=ch, check="operands.shape")
    return ch


def shuffle_select(inst: StreamShuffleMove, ctx: Context) -> Selection:
    """0x6A: the dtypes and slots from the binding, the channel count the lowering worked out."""
    counts("StreamShuffle", inst, (1,), (1,), "ins = [src] and outs = [dst]")
    require_engine(inst, "StreamShuffle", DVE_ONLY, DVE_STREAM_WHY)
    no_indirect({"src": inst.src, "dst": inst.dst})
    fmt = ctx.formats.by_name["StreamShuffle"]
    return fmt, {"opcode": next(iter(fmt.opcodes)), "num_active_channels": _channels(inst, "StreamShuffle")}


def transpose_select(inst: StreamTransposeMove, ctx: Context) -> Selection:
    """0x6B: as 0x6A plus the mask flag (R-53: 1 right after the lowering's LoadMaskSelect)."""
    counts("StreamTranspose", inst, (1,), (1,), "ins = [src] and outs = [dst]")
    require_engine(inst, "StreamTranspose", DVE_ONLY, DVE_STREAM_WHY)
    src = inst.src
    if isinstance(src, (PhysicalAP, RegisterAP, SymbolicAP)) and "indirect_dim" in src.extra:
        raise EncodeError("STREAM_TRANSPOSE cannot have TensorIndirect AP as src", field="src", value="indirect_dim",
                          check="family.indirect")
    no_indirect({"dst": inst.dst})
    fmt = ctx.formats.by_name["StreamTranspose"]
    return fmt, {"opcode": next(iter(fmt.opcodes)), "num_active_channels": _channels(inst, "StreamTranspose"),
                 "use_mask": int(bool(inst.attr("use_mask")))}


#: The 0x69 and 0x6A/0x6B bundles the two-bundle forms are lowered to.
PARTS: dict[type[Instruction], Family] = {
    LaneMaskLoad: Family("StreamShuffle", lane_mask_select, one_opcode("LoadMaskSelect")),
    StreamShuffleMove: Family("StreamShuffle", shuffle_select, one_opcode("StreamShuffle")),
    StreamTransposeMove: Family("StreamTranspose", transpose_select, one_opcode("StreamTranspose")),
}


FAMILIES: dict[type[Instruction], Family] = {
    StreamShuffle: Family("StreamShuffle", lowered_only("StreamShuffle"), pair_opcodes(PARTS)),
    StreamTranspose: Family("StreamTranspose", lowered_only("StreamTranspose"), pair_opcodes(PARTS)),
    **PARTS,
}
