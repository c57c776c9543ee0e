"""Lowering of the next families' two-bundle instructions (``next-families.md``).

* An Activation with two outputs becomes the 0x21 Activate of ``outs[0]`` followed by the 0x24 read-out
  of the Activation accumulator into ``outs[1]`` (N-40; under N-40=instead only the read-out).
* A TensorReduce over the partitions (axis C or XYZWC) becomes a :class:`CrossLaneReduce`, so that an
  Unassigned one goes to the Pool stream (N-16) and its codegen is the cross-lane layout's.
* A TensorScalarPtr with ``is_scalar_tensor_tensor`` or ``is_tensor_tensor_scan`` becomes a
  :class:`ScalarTensorTensor` (its operands have their own roles and TENSOR2D slots, N-21); its codegen
  refuses what it cannot encode (two outputs included).
* A TensorScalarPtr with two outputs (the fused reduce, N-19) becomes its 0x9A bundle for ``outs[0]``
  followed by the 0x9B DVE read-out into ``outs[1]``, negated when ``negate_second_output`` is set;
  with acc Idle it is refused ('Reduce Accum result is not outputed', N-18) or encoded as ZeroAccumulate.

Sync as for Select (D-24, N-10): the wait on the first bundle, the update on the last. The first part
of a lowered instruction is marked (:data:`LOWERED_PART` in its ``extra``) so that the IR checks,
which run on the source instruction, do not run again on it.
"""

from __future__ import annotations

from ..errors import EncodeError
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.decisions.scalar import ActivationTwoOutputs, TsTwoOutputsIdle
from ..isa.enums import AccType
from ..ir.scalar import (
    Activation, ActivationReadAccumulator, CrossLaneReduce, DveReadAccumulator, ScalarTensorTensor, TensorReduce,
    TensorScalarCache, TensorScalarPtr, is_scalar_tensor_tensor,
)
from ..ir.instructions import Instruction
from ..ir.operands import FrozenMap
from .lower_select import split_sync

#: The key of ``extra`` that marks the first part of a lowered instruction (its value: the source opcode).
LOWERED_PART = "_lowered_part_of"
REDUCE_IDLE_MSG = "Reduce Accum result is not outputed"
_NO_ATTRS = FrozenMap()
_NEGATED = {b: FrozenMap({"negated": b}) for b in (False, True)}
_MARK = {n: FrozenMap({LOWERED_PART: n}) for n in ("Activation", "TensorScalarPtr", "TensorScalarCache",
                                                    "TensorReduce")}
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
    return [inst]


def is_lowered_part(inst: Instruction) -> bool:
    """Whether ``inst`` is the first part of a lowered instruction (the IR checks ran on its source)."""
    return LOWERED_PART in inst.extra


#: The instruction types :func:`lower_family` may split.
LOWERED_TYPES = frozenset({Activation, TensorScalarPtr, TensorScalarCache, TensorReduce})
