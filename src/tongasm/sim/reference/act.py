"""The IR reference interpreter's semantics of the act family: Activation and the accumulator read-outs.

A two-output Activation runs here as one instruction (the encoder splits it into 0x21 + 0x24, N-40): the
agreement test then checks that split. The interpreter merges :data:`HANDLERS` and :data:`BY_OPCODE`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ...ir.act import Activation, ActivationArgsError, ActivationReadAccumulator, DveReadAccumulator
from ...ir.instructions import Instruction
from ...ir.operands import Operand
from ...isa.decisions.act import (
    ActivationAccumulatorLanes,
    ActivationLoadAccumulate,
    ActivationRoles,
    ActivationTwoOutputs,
    ShortActivationArgs,
)
from ...isa.enums import AccType, AluOp
from ...isa.vector_enums import ActFunc
from .. import kernels as fn
from .. import numeric
from .operands import F32, W_F32, FamilyInterpretError, as_f32, lane_slice, read_out, scalar

if TYPE_CHECKING:
    from . import _Interpreter


def _activation_args(it: _Interpreter, inst: Activation) -> list[Operand | None]:
    try:
        return inst.args(it.ds.get(ActivationRoles).roles(), it.ds.get(ShortActivationArgs).synthesizes)
    except ActivationArgsError as e:
        raise FamilyInterpretError("a synthesised scale needs the 'scale' key (N-8)" if e.why == "scale"
                                   else "an Activation takes 4 ins (N-8)") from None


def activation(it: _Interpreter, inst: Activation, engine: str) -> None:
    func = inst.attr("func")
    if not isinstance(func, ActFunc) or func is ActFunc.Unknown:
        raise FamilyInterpretError(f"activation function {getattr(func, 'name', func)} has no meaning")
    acc = it.s.accumulators[engine]
    two = len(inst.outs) == 2
    if two and not it.ds.get(ActivationTwoOutputs).appends:  # N-40=instead: only the read-out
        read_out(it, inst.outs[1], engine, False)
        return
    src = it.s.tile(inst.src, engine, "src")
    dst = it.s.tile(inst.dst, engine, "dst")
    it.same_partitions(src, dst)
    it.same_elements(src, dst)
    roles = it.ds.get(ActivationRoles).roles()
    args = _activation_args(it, inst)
    vals = {role: as_f32(scalar(it, a, engine, role, src.count, W_F32)) for role, a in zip(roles, args)}
    x = numeric.to_fp32(it.s.read(src), src.w).astype(F32)
    v = fn.prescale(x, vals["scale"], vals["bias"], it.ds)  # S-20
    y = fn.activation_value(func, v, vals["alpha"], it.ds)  # S-21
    it.s.write(dst, numeric.from_fp32(y, dst.w))
    cmd = inst.attr("acc")
    cmd = AccType.ZeroAccumulate if cmd in (None, AccType.Idle) else cmd  # N-29
    init = None
    if cmd == AccType.LoadAccumulate:
        if func is not ActFunc.Prelu and it.ds.get(ActivationLoadAccumulate).prelu_only:
            raise FamilyInterpretError("LoadAccumulate with a function other than Prelu (N-41)")
        if func is not ActFunc.Prelu:
            raise FamilyInterpretError("LoadAccumulate with a function other than Prelu has no IR meaning (S-24)")
        init = vals[roles[2]].reshape(-1)
    lanes = lane_slice(dst if it.ds.get(ActivationAccumulatorLanes).follows_dst else src)  # S-98
    cur = acc[lanes].copy()
    fn.accumulate(cur, cmd, AluOp.add, y, init)  # N-30, S-22
    acc[lanes] = cur
    if two:
        read_out(it, inst.outs[1], engine, False)


def act_read(it: _Interpreter, inst: ActivationReadAccumulator, engine: str) -> None:
    read_out(it, inst.dst, engine, False)


def dve_read(it: _Interpreter, inst: DveReadAccumulator, engine: str) -> None:
    read_out(it, inst.dst, engine, bool(inst.attr("negated")))


HANDLERS: dict[type[Instruction], Callable[..., None]] = {
    Activation: activation,
    ActivationReadAccumulator: act_read,
    DveReadAccumulator: dve_read,
}


BY_OPCODE: dict[str, Callable[..., None]] = {
    "LoadActFuncSet": lambda it, inst, engine: None,  # no data effect (SIMACT: a no-op validity gate; N-35)
}
