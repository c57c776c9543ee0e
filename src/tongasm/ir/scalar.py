"""IR instructions of the next families (``next-families.md``) whose encoding needs selection logic
(their codegen is :mod:`tongasm.codegen.scalar`). Reciprocal and LoadActFuncSet are declared by
their layout records (:class:`~tongasm.isa.layout.BirForm`) and need no class here.

BIR keys and operand lists follow the verification's §7 (JSON page, KLR-BIR): ``Activation`` ``func``,
``acc``, ``scale``, ``alpha`` ..., ``ins = [in, args[1], args[2], args[3]]`` (what each args[k] is, is
N-4), ``outs = [out, reduce_res?]``; ``TensorScalarPtr`` ``op0``, ``op1``, ``reverse0``, ``reverse1``,
``acc`` ..., ``ins = [data, s0, s1?]`` (with ``is_scalar_tensor_tensor`` /
``is_tensor_tensor_scan``: ``ins = [tensor0, scalar, tensor1]``, lowered to
:class:`ScalarTensorTensor`); ``TensorScalar`` (IT28) ``op0``, ``const0``, ``reverse0``, ``op1``,
``const1``, ``reverse1``; ``TensorReduce`` ``op``, ``axis``, ``apply_transpose``, ``negate``; ``BNStats``
``apply_transpose``; ``BNStatsAggregate`` and the read-accumulator opcodes take no key but
``DveReadAccumulator``'s ``negated``.
"""

from __future__ import annotations

from ..isa.enums import AccType, AluOp
from ..isa.vector_enums import ActFunc, AxisList, PoolFunc, TSCMode
from .instructions import INSTRUCTION_CLASSES, Attr, Instruction
from .operands import Operand


class TensorReduce(Instruction):
    """§5.1: ``op``, ``axis``; ins = [src], outs = [dst]."""

    __slots__ = ()

    OPCODE = "TensorReduce"
    ROLES = {"src": (False, 0), "dst": (True, 0)}
    ATTRS = (Attr("op", AluOp, required=True), Attr("axis", AxisList, required=True),
             Attr("apply_transpose", bool, False), Attr("negate", bool, False))

    @property
    def src(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)

    def stream_family(self) -> str:
        axis = self.attr("axis")
        return "pool" if isinstance(axis, AxisList) and not axis.free_pairs else self.FAMILY


class CrossLaneReduce(TensorReduce):
    """A TensorReduce over the partitions (axis C or XYZWC), as the lowering hands it to codegen: the
    cross-lane datapath 0x7C/0x7D of the Pool engine (N-12, N-16)."""

    __slots__ = ()

    FAMILY = "pool"


class Pool(Instruction):
    """§5.4: ``func`` (Max, Avg); ins = [src] (the window: its two innermost pairs), outs = [dst]."""

    __slots__ = ()

    OPCODE = "Pool"
    ROLES = {"src": (False, 0), "dst": (True, 0)}
    ATTRS = (Attr("func", PoolFunc, required=True),)

    @property
    def src(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


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


class Activation(Instruction):
    """§3.1: ``out = f(in*scale + bias; alpha)`` on the Activation engine; ins = [in, args[1],
    args[2], args[3]] (N-4 says which is the bias, the scale and alpha), outs = [out, reduce_res?]."""

    __slots__ = ()

    OPCODE = "Activation"
    FAMILY = "act"
    ROLES = {"src": (False, 0), "arg1": (False, 1), "arg2": (False, 2), "arg3": (False, 3), "dst": (True, 0),
             "reduce_res": (True, 1)}
    ATTRS = (
        Attr("func", ActFunc, required=True),
        Attr("acc", AccType, AccType.Idle),
        Attr("scale", float),
        Attr("alpha", float),
        Attr("can_read_uninit", bool, False),
        Attr("is_activate2", bool, False),
        Attr("op0", AluOp, AluOp.bypass),
        Attr("op1", AluOp, AluOp.bypass),
        Attr("reverse0", bool, False),
        Attr("reverse1", bool, False),
        Attr("reduce_op", AluOp, AluOp.bypass),
    )

    @property
    def src(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)

    @property
    def reduce_res(self) -> Operand | None:
        return self._out(1)

    def arg(self, k: int) -> Operand | None:
        """args[k] (1..3)."""
        return self._in(k)


class ActivationReadAccumulator(Instruction):
    """§3.2 (IT101): dst[p, 0] = the Activation engine's accumulator; ins = [], outs = [dst]."""

    __slots__ = ()

    OPCODE = "ActivationReadAccumulator"
    FAMILY = "act"
    ROLES = {"dst": (True, 0)}

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


class ReadActivationAccumulator(ActivationReadAccumulator):
    """§3.2 (IT5): the same instruction under its other BIR name."""

    __slots__ = ()

    OPCODE = "ReadActivationAccumulator"


class DveReadAccumulator(Instruction):
    """§4.2: dst[p, 0] = (negated ? -1 : 1) x the DVE accumulator; ins = [], outs = [dst]."""

    __slots__ = ()

    OPCODE = "DveReadAccumulator"
    ROLES = {"dst": (True, 0)}
    ATTRS = (Attr("negated", bool, False),)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


class TensorScalarPtr(Instruction):
    """§4.1 (IT29): ``out = op1(op0(data, s0), s1)``; ins = [data, s0, s1?] (each scalar an
    immediate, a register or a [P,1] pointer), outs = [dst, reduce_res?] (the fused reduce, N-19)."""

    __slots__ = ()

    OPCODE = "TensorScalarPtr"
    ROLES = {"data": (False, 0), "s0": (False, 1), "s1": (False, 2), "dst": (True, 0), "reduce_res": (True, 1)}
    ATTRS = (
        Attr("op0", AluOp, required=True),
        Attr("reverse0", bool, False),
        Attr("op1", AluOp, AluOp.bypass),
        Attr("reverse1", bool, False),
        Attr("apply_transpose", bool, False),
        Attr("is_tensor_scalar_addr", bool, False),
        Attr("is_scalar_tensor_tensor", bool, False),
        Attr("is_tensor_tensor_scan", bool, False),
        Attr("negate_second_output", bool, False),
        Attr("acc", AccType, AccType.Idle),
    )

    @property
    def data(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)

    @property
    def reduce_res(self) -> Operand | None:
        return self._out(1)


class TensorScalarAddr(TensorScalarPtr):
    """A TensorScalarPtr with ``is_tensor_scalar_addr`` set, as the lowering hands it to codegen: the Pool
    engine's address arithmetic 0x74 (R-70, R-71): ins = [data, s0, s1?] (each scalar an immediate or a
    [P,1] pointer), outs = [dst]. The BIR writer gives it back as the TensorScalarPtr it came from."""

    __slots__ = ()

    FAMILY = "pool"


class ScalarTensorTensor(Instruction):
    """§4.4: a TensorScalarPtr with ``is_scalar_tensor_tensor`` or ``is_tensor_tensor_scan`` set, as the
    lowering hands it to codegen (its operands have their own roles and slots, N-21): ins = [tensor0,
    scalar, tensor1] (the scalar an immediate, a register or a [P,1] pointer; tensor1 an access
    pattern), outs = [out]; ``out = op1(op0(tensor0, scalar), tensor1)`` (0x9D / 0x9E), or the scan
    0xE5 ``out[i] = op1(op0(tensor0[i], out[i-1]), tensor1[i])`` from the scalar (S-38). The BIR
    writer gives it back as the TensorScalarPtr it came from."""

    __slots__ = ()

    OPCODE = "TensorScalarPtr"
    ROLES = {"tensor0": (False, 0), "scalar": (False, 1), "tensor1": (False, 2), "out": (True, 0)}
    ATTRS = TensorScalarPtr.ATTRS

    @property
    def tensor0(self) -> Operand | None:
        return self._in(0)

    @property
    def scalar(self) -> Operand | None:
        return self._in(1)

    @property
    def tensor1(self) -> Operand | None:
        return self._in(2)

    @property
    def out(self) -> Operand | None:
        return self._out(0)

    @property
    def scan(self) -> bool:
        """The tensor-tensor scan 0xE5 (``is_tensor_tensor_scan``)."""
        return bool(self.attr("is_tensor_tensor_scan"))


def is_scalar_tensor_tensor(inst: Instruction) -> bool:
    """Whether a TensorScalarPtr is the ScalarTensorTensor form (§4.4: the book's dispatcher takes
    ``is_scalar_tensor_tensor`` or the scan tag ``is_tensor_tensor_scan``)."""
    return bool(inst.attr("is_scalar_tensor_tensor") or inst.attr("is_tensor_tensor_scan"))


class TensorScalarCache(Instruction):
    """§4.3: ``mode`` Reduce → 0x9A, Cumulative / TensorScan → 0xE6; ins = [data, s0, s1?] (s1 only with
    LoadAccumulate), outs = [dst, reduce_res?]. DVE only."""

    __slots__ = ()

    OPCODE = "TensorScalarCache"
    ROLES = {"data": (False, 0), "s0": (False, 1), "s1": (False, 2), "dst": (True, 0), "reduce_res": (True, 1)}
    ATTRS = (
        Attr("op0", AluOp, required=True),
        Attr("op1", AluOp, required=True),
        Attr("reverse0", bool, False),
        Attr("reverse1", bool, False),
        Attr("mode", TSCMode, TSCMode.Reduce),
        Attr("acc", AccType, AccType.Idle),
    )

    @property
    def data(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)

    @property
    def reduce_res(self) -> Operand | None:
        return self._out(1)


class TensorScalar(Instruction):
    """§4.1 (IT28): immediate constants; ins = [data], outs = [dst]. Encoded as TensorScalarPtr
    with float32 immediates (N-20)."""

    __slots__ = ()

    OPCODE = "TensorScalar"
    ROLES = {"data": (False, 0), "dst": (True, 0)}
    ATTRS = (
        Attr("op0", AluOp, required=True),
        Attr("const0", float, 0.0),
        Attr("reverse0", bool, False),
        Attr("op1", AluOp, AluOp.bypass),
        Attr("const1", float, 0.0),
        Attr("reverse1", bool, False),
    )

    @property
    def data(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


class BNStats(Instruction):
    """§7.1: ins = [src] (at most 512 elements per partition), outs = [stats] (6 per partition)."""

    __slots__ = ()

    OPCODE = "BNStats"
    ROLES = {"src": (False, 0), "dst": (True, 0)}
    ATTRS = (Attr("apply_transpose", bool, False),)

    @property
    def src(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


class BNStatsAggregate(Instruction):
    """§7.2: ins = [stats] (K triples per partition), outs = [mean, variance] per partition."""

    __slots__ = ()

    OPCODE = "BNStatsAggregate"
    ROLES = {"src": (False, 0), "dst": (True, 0)}

    @property
    def src(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


# --- the families real compiler output is made of: data movement, search, batch-norm backward ---------

class StreamShuffle(Instruction):
    """DMOV / JSON (IT39): ``mask`` (32 lane entries: 0..31 the src lane of each dst lane of every
    32-partition quadrant, 255 = leave the dst lane alone); ins = [src], outs = [dst]. Lowered to the
    LoadMaskSelect 0x69 of the mask, then the 0x6A move (R-52: the mask first)."""

    __slots__ = ()

    OPCODE = "StreamShuffle"
    ROLES = {"src": (False, 0), "dst": (True, 0)}
    ATTRS = (Attr("mask", list, required=True),)

    @property
    def src(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


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


class StreamTranspose(Instruction):
    """DMOV / JSON (IT40, no keys): ``dst[i, j] = src[j, i]`` within a 32 x 32 block; ins = [src] (32
    elements per partition), outs = [dst] (one element per src partition). A dst of fewer than 32
    partitions is lowered to a LoadMaskSelect of its lanes, then the 0x6B with its mask flag (R-55)."""

    __slots__ = ()

    OPCODE = "StreamTranspose"
    ROLES = {"src": (False, 0), "dst": (True, 0)}

    @property
    def src(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


class StreamTransposeMove(StreamTranspose):
    """The 0x6B bundle of a lowered StreamTranspose: ``use_mask`` says whether a mask was loaded for it,
    ``num_active_channels`` is the lowering's (DMOV: the dst partitions rounded up to whole quadrants)."""

    __slots__ = ()

    ATTRS = (Attr("num_active_channels", int), Attr("use_mask", bool, False))


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


class BNGradients(Instruction):
    """BN (IT36, no keys): ins = [x, dy, mean, varfactor] (mean and varfactor [P,1] SBUF/PSUM pointers of
    one dtype), outs = [out] (the three sums per partition). One bundle, 0x63."""

    __slots__ = ()

    OPCODE = "BNGradients"
    ROLES = {"x": (False, 0), "dy": (False, 1), "mean": (False, 2), "varfactor": (False, 3), "out": (True, 0)}


class BNBackprop(Instruction):
    """BN (IT37): ``total_elements`` (float N, required); ins = [x, dy, coeff, mean] (coeff = [scale, A,
    Bc] per partition, mean a [P,1] pointer), outs = [dx]. Lowered to BatchNormParamLoad 0x64 (coeff,
    N, mean), then BatchNormBackProp 0x65 (x, dy, dx): BN pins the param load first."""

    __slots__ = ()

    OPCODE = "BNBackprop"
    ROLES = {"x": (False, 0), "dy": (False, 1), "coeff": (False, 2), "mean": (False, 3), "dx": (True, 0)}
    ATTRS = (Attr("total_elements", float, required=True),)


class BNParamLoadPart(BNBackprop):
    """The 0x64 bundle of a lowered BNBackprop."""

    __slots__ = ()


class BNBackpropPart(BNBackprop):
    """The 0x65 bundle of a lowered BNBackprop."""

    __slots__ = ()


FAMILY_CLASSES: tuple[type[Instruction], ...] = (
    TensorReduce, Pool, Iota, Activation, ActivationReadAccumulator, ReadActivationAccumulator, DveReadAccumulator,
    TensorScalarPtr, TensorScalarCache, TensorScalar, BNStats, BNStatsAggregate,
    StreamShuffle, StreamTranspose, MatchReplace, BNGradients, BNBackprop)
INSTRUCTION_CLASSES.update({c.OPCODE: c for c in FAMILY_CLASSES})
