"""IR instructions of the DVE data-movement family (StreamShuffle, StreamTranspose and the LoadMaskSelect they lower to); encoded by their records' BIR forms (:mod:`tongasm.codegen.declared`)."""

from __future__ import annotations

from .instructions import Attr, Instruction, UnaryInstruction


class StreamShuffle(UnaryInstruction):
    """DMOV / JSON (IT39): ``mask`` (32 lane entries: 0..31 the src lane of each dst lane of every
    32-partition quadrant, 255 = leave the dst lane alone); ins = [src], outs = [dst]. Lowered to the
    LoadMaskSelect 0x69 of the mask, then the 0x6A move (R-52: the mask first)."""

    __slots__ = ()

    OPCODE = "StreamShuffle"
    ROLES = {"src": (False, 0), "dst": (True, 0)}
    ATTRS = (Attr("mask", list, required=True),)



class StreamShuffleMove(StreamShuffle):
    """The 0x6A bundle of a lowered StreamShuffle (it reads the mask the 0x69 before it loaded);
    ``num_active_channels`` is the lowering's (DMOV: the partitions rounded up to whole quadrants)."""

    __slots__ = ()

    ATTRS = (Attr("num_active_channels", int),)


class LaneMaskLoad(Instruction):
    """The LoadMaskSelect 0x69 bundle a StreamShuffle or a partial StreamTranspose is lowered to first:
    ``mask`` (32 lane bytes); no operands. Not a BIR opcode of its own (DMOV: no visitor)."""

    __slots__ = ()

    OPCODE = "LoadMaskSelect"
    ATTRS = (Attr("mask", list, required=True),)


class StreamTranspose(UnaryInstruction):
    """DMOV / JSON (IT40, no keys): ``dst[i, j] = src[j, i]`` within a 32 x 32 block; ins = [src] (32
    elements per partition), outs = [dst] (one element per src partition). A dst of fewer than 32
    partitions is lowered to a LoadMaskSelect of its lanes, then the 0x6B with its mask flag (R-55)."""

    __slots__ = ()

    OPCODE = "StreamTranspose"
    ROLES = {"src": (False, 0), "dst": (True, 0)}



class StreamTransposeMove(StreamTranspose):
    """The 0x6B bundle of a lowered StreamTranspose: ``use_mask`` says whether a mask was loaded for it,
    ``num_active_channels`` is the lowering's (DMOV: the dst partitions rounded up to whole quadrants)."""

    __slots__ = ()

    ATTRS = (Attr("num_active_channels", int), Attr("use_mask", bool, False))
