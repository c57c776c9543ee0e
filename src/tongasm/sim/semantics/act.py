"""What the act family's bundles do: Activation 0x21 and the accumulator read-outs (0x24 of the ACT, 0x9B
of the DVE). :mod:`tongasm.sim.execute` merges :data:`ACT_HANDLERS` into its table.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...isa.decisions.act import (
    ActivationAccumulatorLanes,
    ActivationRoles,
)
from ...isa.enums import AccType, AluOp
from ...isa.layout import Sem
from ...isa.vector_enums import ACT_FUNC_FROM_WIRE
from .. import kernels as fn
from .. import numeric
from ..context import Ctx, _flat, _store
from ..machine import SimError
from .operands import acc_command, lane_slice, scalar_column

#: Activation roles whose argument has no value on the wire take these (the encoder refused anything else).
_NEUTRAL = {"bias": 0.0, "scale": 1.0, "alpha": 0.0}


_PRELU_WIRE = 4


def _column_f32(c: Ctx, kind: str, value: str | None, w: int | None, count: int) -> np.ndarray:
    col, wc = scalar_column(c, kind, value, "src", w, count)
    return numeric.to_fp32(col, wc).astype(np.float32)


def activate(c: Ctx) -> None:
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    P = src.shape[0]
    X = numeric.to_fp32(_flat(np.ascontiguousarray(src)), ws).astype(np.float32)
    if X.size != dst.size:
        raise SimError(f"{c.where()}: operands have different element counts ({X.size}, {dst.size})")
    func = ACT_FUNC_FROM_WIRE.get(c.f["func"])
    if func is None:
        raise SimError(f"{c.where()}: unknown activation function byte {c.f['func']:#04x}")
    roles = c.ds.get(ActivationRoles).roles()
    vals: dict[str, np.ndarray] = {}
    for k, role in enumerate(roles, start=1):
        if k == 1:
            vals[role] = _column_f32(c, "arg1_kind", "arg1_value", c.f["arg1_dtype"], P)
        elif k == 2 and "arg2_value" in c.f:
            vals[role] = _column_f32(c, "arg2_kind", "arg2_value", None, P)
        elif k == 3 and c.f["func"] == _PRELU_WIRE:
            vals[role] = _column_f32(c, "arg3_kind", "arg3_value", None, P)
        else:  # no value on the wire: the role's neutral value (N-5, the +0x2C gate)
            vals[role] = np.full((P, 1), _NEUTRAL[role], np.float32)
    v = fn.prescale(X, vals["scale"], vals["bias"], c.ds)  # S-20
    y = fn.activation_value(func, v, vals["alpha"], c.ds)  # S-21
    _store(dst, numeric.from_fp32(y, wd))
    cmd = acc_command(c, "acc")  # N-29: an Idle Activation arrives as ZeroAccumulate (wire 3)
    init = None
    if cmd == AccType.LoadAccumulate:  # S-24: imm1, the +0x2C word read by its +0x0C kind
        init = _column_f32(c, "arg3_kind", "arg3_value", None, P).reshape(-1)
    state = c.m.engines[c.engine].accumulator
    lanes = lane_slice(c, "dst" if c.ds.get(ActivationAccumulatorLanes).follows_dst else "src", P)  # S-98: the output lanes
    acc = state[lanes].copy()
    fn.accumulate(acc, cmd, AluOp.add, y, init)  # N-30 with the Activation engine's add (S-22)
    state[lanes] = acc


def read_accumulator(c: Ctx) -> None:
    dst, wd = c.ap("dst")
    P = dst.shape[0]
    state = c.m.engines[c.engine].accumulator
    acc = state[lane_slice(c, "dst", P)].astype(np.float32)
    if c.f.get("negated"):  # S-25: 0x9B's flag
        acc = -acc
    _store(dst, numeric.from_fp32(np.repeat(acc.reshape(P, 1), dst.size // max(P, 1), axis=1), wd))


ACT_HANDLERS: dict[Sem, Callable[[Ctx], None]] = {
    Sem.ACTIVATE: activate,
    Sem.READ_ACCUMULATOR: read_accumulator,
}
