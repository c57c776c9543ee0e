"""Lowering of the next families' two-bundle instructions (``next-families.md``).

* An Activation with two outputs becomes the 0x21 Activate of ``outs[0]`` followed by the 0x24 read-out
  of the Activation accumulator into ``outs[1]`` (N-40; under N-40=instead only the read-out).
* A TensorReduce over the partitions (axis C or XYZWC) becomes a :class:`CrossLaneReduce`, so that an
  Unassigned one goes to the Pool stream (N-16) and its codegen is the cross-lane layout's.
* A TensorScalarPtr with ``is_tensor_scalar_addr`` becomes a :class:`TensorScalarAddr` (the Pool engine's 0x74,
  so that an Unassigned one goes to the Pool stream).
* A TensorScalarPtr with ``is_scalar_tensor_tensor`` or ``is_tensor_tensor_scan`` becomes a
  :class:`ScalarTensorTensor` (its operands have their own roles and TENSOR2D slots, N-21); its codegen
  refuses what it cannot encode (two outputs included).
* A TensorScalarPtr with two outputs (the fused reduce, N-19) becomes its 0x9A bundle for ``outs[0]``
  followed by the 0x9B DVE read-out into ``outs[1]``, negated when ``negate_second_output`` is set;
  with acc Idle it is refused ('Reduce Accum result is not outputed', N-18) or encoded as ZeroAccumulate.

* The families of real compiler output that are two bundles (the mask or latch first, R-52): a
  StreamShuffle becomes the LoadMaskSelect 0x69 of its mask and the 0x6A move; a StreamTranspose whose
  dst has fewer than 32 partitions the 0x69 of a mask enabling those lanes and the 0x6B with its mask
  flag (R-55), any other one the 0x6B alone; a MatchReplace the MatchValueLoad 0x6D of its values and
  the MatchReplace8 0x6F; a BNBackprop the BatchNormParamLoad 0x64 and the BatchNormBackProp 0x65.

Sync as for Select (D-24, N-10): the wait on the first bundle, the update on the last. The first part
of a lowered instruction is marked (:data:`LOWERED_PART` in its ``extra``) so that the IR checks,
which run on the source instruction, do not run again on it.
"""

from __future__ import annotations

from typing import Any

from ..errors import EncodeError
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.decisions.act import ActivationTwoOutputs
from ..isa.decisions.scalar import TsTwoOutputsIdle
from ..isa.enums import AccType
from ..ir.act import Activation, ActivationReadAccumulator, DveReadAccumulator
from ..ir.scalar import (
    ScalarTensorTensor,
    TensorScalarAddr,
    TensorScalarCache,
    TensorScalarPtr,
    is_scalar_tensor_tensor,
)
from ..ir.reduce import CrossLaneReduce, TensorReduce
from ..ir.batchnorm import BNBackprop, BNBackpropPart, BNParamLoadPart
from ..ir.search import MatchReplace, MatchReplacePart, MatchValueLoadPart
from ..ir.move import LaneMaskLoad, StreamShuffle, StreamShuffleMove, StreamTranspose, StreamTransposeMove
from ..ir.operands import PhysicalAP, RegisterAP
from ..ir.instructions import Instruction
from ..ir.operands import FrozenMap
from .lower_select import split_sync

#: The key of ``extra`` that marks the first part of a lowered instruction (its value: the source opcode).
LOWERED_PART = "_lowered_part_of"
REDUCE_IDLE_MSG = "Reduce Accum result is not outputed"
_NO_ATTRS = FrozenMap()
_NEGATED = {b: FrozenMap({"negated": b}) for b in (False, True)}
_MARK = {n: FrozenMap({LOWERED_PART: n}) for n in ("Activation", "TensorScalarPtr", "TensorScalarCache",
                                                    "TensorReduce", "StreamShuffle", "StreamTranspose",
                                                    "MatchReplace", "BNBackprop")}
#: id(source attrs) → (source attrs, the 0x9A part's attrs): the reader shares attribute maps, so do the parts
_TS_ATTRS: dict[int, tuple[object, FrozenMap]] = {}


def lower_family(inst: Instruction, decisions: DecisionSet = DEFAULT_DECISIONS) -> list[Instruction]:
    """The bundles' instructions of one instruction of these families (itself when it needs no lowering)."""
    if type(inst) is Activation and len(inst.outs) == 2:
        first, last = split_sync(inst.sync)
        read: Instruction = ActivationReadAccumulator(inst.name, inst.engine, (), (inst.outs[1],), _NO_ATTRS, last)
        if not decisions.get(ActivationTwoOutputs).appends:
            return [read]
        act = Activation(inst.name, inst.engine, inst.ins, (inst.outs[0],), inst.attrs, first, _MARK["Activation"])
        return [act, read]
    if type(inst) is TensorReduce and inst.stream_family() == "pool":  # axis C / XYZWC: the cross-lane datapath
        return [CrossLaneReduce(inst.name, inst.engine, inst.ins, inst.outs, inst.attrs, inst.sync,
                                _MARK["TensorReduce"])]
    if type(inst) is TensorScalarCache and len(inst.outs) == 2:  # its acc is never Idle (refused by codegen)
        first, last = split_sync(inst.sync)
        return [TensorScalarCache(inst.name, inst.engine, inst.ins, (inst.outs[0],), inst.attrs, first,
                                  _MARK["TensorScalarCache"]),
                DveReadAccumulator(inst.name, inst.engine, (), (inst.outs[1],), _NEGATED[False], last)]
    if type(inst) is TensorScalarPtr and inst.attr("is_tensor_scalar_addr"):  # the dispatcher tests it first (§4)
        return [TensorScalarAddr(inst.name, inst.engine, inst.ins, inst.outs, inst.attrs, inst.sync, inst.extra)]
    if type(inst) is TensorScalarPtr and is_scalar_tensor_tensor(inst):  # §4.4: the S2S2D2 struct
        # not marked as a lowered part: its IR checks (stt.*) are its own, the source's ts.* skip it
        return [ScalarTensorTensor(inst.name, inst.engine, inst.ins, inst.outs, inst.attrs, inst.sync, inst.extra)]
    if type(inst) is TensorScalarPtr and len(inst.outs) == 2:
        if inst.attr("acc") in (None, AccType.Idle) and decisions.get(TsTwoOutputsIdle).refuses:
            raise EncodeError(REDUCE_IDLE_MSG + " (two outputs need an accumulating acc, N-18)", field="acc",
                              value="Idle", check="ts.reduce_idle")
        hit = _TS_ATTRS.get(id(inst.attrs))
        if hit is None or hit[0] is not inst.attrs:
            attrs = dict(inst.attrs)
            if inst.attr("acc") in (None, AccType.Idle):
                attrs["acc"] = AccType.ZeroAccumulate  # N-18=zero-accumulate: the compiler forces acc = 3
            attrs.pop("negate_second_output", None)
            if len(_TS_ATTRS) > 10_000:
                _TS_ATTRS.clear()
            hit = _TS_ATTRS[id(inst.attrs)] = (inst.attrs, FrozenMap(attrs))
        first, last = split_sync(inst.sync)
        ts = TensorScalarPtr(inst.name, inst.engine, inst.ins, (inst.outs[0],), hit[1], first, _MARK["TensorScalarPtr"])
        read = DveReadAccumulator(inst.name, inst.engine, (), (inst.outs[1],),
                                  _NEGATED[bool(inst.attr("negate_second_output"))], last)
        return [ts, read]
    if type(inst) in _PAIRS:
        return _PAIRS[type(inst)](inst, decisions)
    return [inst]


#: the lanes of a DVE quadrant (one LoadMaskSelect byte each)
QUADRANT = 32


def _shared(memo: dict[Any, FrozenMap], key: Any, make: Any) -> FrozenMap:
    """One read-only attribute map per value (the plans key on it)."""
    hit = memo.get(key)
    if hit is None:
        if len(memo) > 10_000:
            memo.clear()
        hit = memo[key] = FrozenMap(make())
    return hit


_MASKS: dict[Any, FrozenMap] = {}
_MOVES: dict[Any, FrozenMap] = {}


def _parts(op: object) -> int | None:
    if isinstance(op, (PhysicalAP, RegisterAP)) and op.ap:
        return int(op.ap[0][1])
    return None


def _channels(*parts: int | None) -> int | None:
    """DMOV: the partitions streamed, rounded up to whole 32-lane quadrants."""
    known = [p for p in parts if p is not None]
    return -(-min(known) // QUADRANT) * QUADRANT if known else None


def _shuffle(inst: Instruction, decisions: DecisionSet) -> list[Instruction]:
    first, last = split_sync(inst.sync)
    raw = inst.attr("mask")
    load = LaneMaskLoad(inst.name, inst.engine, (), (), _shared(_MASKS, repr(raw), lambda: {"mask": raw}), first,
                        _MARK["StreamShuffle"])
    # DMOV: num_active_channels = (min(src, dst partitions) + 31) & ~31
    ch = _channels(_parts(inst.ins[0] if inst.ins else None), _parts(inst.outs[0] if inst.outs else None))
    attrs = _shared(_MOVES, (ch, False), lambda: {"num_active_channels": ch})
    return [load, StreamShuffleMove(inst.name, inst.engine, inst.ins, inst.outs, attrs, last)]


def transpose_lanes(inst: Instruction) -> int | None:
    """The dst lanes a StreamTranspose writes when it needs a mask (R-55: a dst of fewer than 32
    partitions), else None."""
    k = _parts(inst.outs[0] if inst.outs else None)
    return k if k is not None and 0 < k < QUADRANT else None


def _transpose(inst: Instruction, decisions: DecisionSet) -> list[Instruction]:
    # DMOV: num_active_channels = (dst partitions + 31) & ~31
    parts = _parts(inst.outs[0] if inst.outs else None)
    if parts is not None and parts > QUADRANT and parts % QUADRANT:
        raise EncodeError(f"StreamTranspose dst has {parts} partitions: a transpose writes whole 32-lane quadrants, "
                          "or the first k < 32 lanes of one (R-55)", field="dst.ap", value=parts,
                          limit="1..31 or a multiple of 32", check="dmov.transpose_counts")
    ch = _channels(parts)
    k = transpose_lanes(inst)
    if k is None:
        attrs = _shared(_MOVES, (ch, False), lambda: {"num_active_channels": ch, "use_mask": False})
        return [StreamTransposeMove(inst.name, inst.engine, inst.ins, inst.outs, attrs, inst.sync)]
    first, last = split_sync(inst.sync)
    mask = [0] * k + [0xFF] * (QUADRANT - k)  # the first k lanes written, the others kept
    load = LaneMaskLoad(inst.name, inst.engine, (), (), _shared(_MASKS, repr(mask), lambda: {"mask": mask}), first,
                        _MARK["StreamTranspose"])
    attrs = _shared(_MOVES, (ch, True), lambda: {"num_active_channels": ch, "use_mask": True})
    return [load, StreamTransposeMove(inst.name, inst.engine, inst.ins, inst.outs, attrs, last)]


def _match_replace(inst: Instruction, decisions: DecisionSet) -> list[Instruction]:
    first, last = split_sync(inst.sync)
    return [MatchValueLoadPart(inst.name, inst.engine, inst.ins, inst.outs, inst.attrs, first, _MARK["MatchReplace"]),
            MatchReplacePart(inst.name, inst.engine, inst.ins, inst.outs, inst.attrs, last)]


def _bn_backprop(inst: Instruction, decisions: DecisionSet) -> list[Instruction]:
    first, last = split_sync(inst.sync)
    return [BNParamLoadPart(inst.name, inst.engine, inst.ins, inst.outs, inst.attrs, first, _MARK["BNBackprop"]),
            BNBackpropPart(inst.name, inst.engine, inst.ins, inst.outs, inst.attrs, last)]


_PAIRS = {StreamShuffle: _shuffle, StreamTranspose: _transpose, MatchReplace: _match_replace,
          BNBackprop: _bn_backprop}


def is_lowered_part(inst: Instruction) -> bool:
    """Whether ``inst`` is the first part of a lowered instruction (the IR checks ran on its source)."""
    return LOWERED_PART in inst.extra


#: The instruction types :func:`lower_family` may split.
LOWERED_TYPES = frozenset({Activation, TensorScalarPtr, TensorScalarCache, TensorReduce, *_PAIRS})
