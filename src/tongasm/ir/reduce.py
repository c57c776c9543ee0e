"""IR instructions of the reduce family: TensorReduce (free-axis and cross-lane), Pool, Iota and the batch-norm statistics (BNStats, BNStatsAggregate)."""

from __future__ import annotations

from ..isa.enums import AluOp
from ..isa.vector_enums import AxisList, PoolFunc
from .instructions import Attr, Instruction, UnaryInstruction
from .operands import Operand


class TensorReduce(UnaryInstruction):
    """§5.1: ``op``, ``axis``; ins = [src], outs = [dst]."""

    __slots__ = ()

    OPCODE = "TensorReduce"
    ROLES = {"src": (False, 0), "dst": (True, 0)}
    ATTRS = (Attr("op", AluOp, required=True), Attr("axis", AxisList, required=True),
             Attr("apply_transpose", bool, False), Attr("negate", bool, False))


    def stream_family(self) -> str:
        axis = self.attr("axis")
        return "pool" if isinstance(axis, AxisList) and not axis.free_pairs else self.FAMILY


class CrossLaneReduce(TensorReduce):
    """A TensorReduce over the partitions (axis C or XYZWC), as the lowering hands it to codegen: the
    cross-lane datapath 0x7C/0x7D of the Pool engine (N-12, N-16)."""

    __slots__ = ()

    FAMILY = "pool"


class Pool(UnaryInstruction):
    """§5.4: ``func`` (Max, Avg); ins = [src] (the window: its two innermost pairs), outs = [dst]."""

    __slots__ = ()

    OPCODE = "Pool"
    ROLES = {"src": (False, 0), "dst": (True, 0)}
    ATTRS = (Attr("func", PoolFunc, required=True),)



class Iota(Instruction):
    """§6: ``base``, ``pattern`` (pairs {"step", "num"} or [step, num], outermost first), ``channel_multiplier``;
    ins = [], outs = [dst]. GpSimd (Pool)."""

    __slots__ = ()

    OPCODE = "Iota"
    FAMILY = "pool"
    ROLES = {"dst": (True, 0)}
    ATTRS = (Attr("base", int, required=True), Attr("pattern", list, required=True),
             Attr("channel_multiplier", int, 0))

    @property
    def dst(self) -> Operand | None:
        return self._out(0)

    def pattern_pairs(self) -> list[tuple[int, int]]:
        """The pattern as (step, num) pairs, outermost first (KLR's {"step", "num"} objects or pairs)."""
        out = []
        for p in self.attr("pattern") or ():
            if isinstance(p, dict):
                out.append((int(p["step"]), int(p["num"])))
            else:
                step, num = p
                out.append((int(step), int(num)))
        return out


class BNStats(UnaryInstruction):
    """§7.1: ins = [src] (at most 512 elements per partition), outs = [stats] (6 per partition)."""

    __slots__ = ()

    OPCODE = "BNStats"
    ROLES = {"src": (False, 0), "dst": (True, 0)}
    ATTRS = (Attr("apply_transpose", bool, False),)



class BNStatsAggregate(UnaryInstruction):
    """§7.2: ins = [stats] (K triples per partition), outs = [mean, variance] per partition."""

    __slots__ = ()

    OPCODE = "BNStatsAggregate"
    ROLES = {"src": (False, 0), "dst": (True, 0)}

