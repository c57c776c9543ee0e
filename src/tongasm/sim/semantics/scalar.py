"""What the scalar family's bundles do: TensorScalar (0x43/0x44/0x53/0x54/0x93, the caches 0x9A/0xE6) and
ScalarTensorTensor (0x9D/0x9E, the scan 0xE5). :mod:`tongasm.sim.execute` merges :data:`SCALAR_HANDLERS`
into its table.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...isa.decisions.scalar import (
    TscacheReverse0,
)
from ...isa.decisions.semantics import FusedReduceSemantics, ScanCarry
from ...isa.enums import ACC_WIRE, AccType, AluOp
from ...isa.layout import Sem
from ...isa.opcodes import (
    STT_BITVEC,
    TS_BITVEC,
    TS_CACHE_CUMULATIVE,
    TS_CACHE_REDUCE,
    TS_PTR_BITVEC,
    TT_SCAN,
)
from .. import kernels as fn
from .. import numeric
from ..context import Ctx, _alu, _flat, _store
from ..machine import SimError
from .operands import F32_WIRE, acc_command, lane_slice, refuse_transposed, scalar_bits, scalar_column

_TS_BITVEC = frozenset({TS_BITVEC.byte, TS_PTR_BITVEC.byte})


def tensor_scalar(c: Ctx) -> None:
    refuse_transposed(c)
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    P = src.shape[0]
    x = _flat(np.ascontiguousarray(src))
    if x.size != dst.size:
        raise SimError(f"{c.where()}: operands have different element counts ({x.size}, {dst.size})")
    bitvec = c.d.opcode in _TS_BITVEC
    wt = ws if bitvec else F32_WIRE  # S-26: the value t lives at the input's width (bit-vector) or in float32
    op0, op1 = _alu(c, c.f["op0"]), _alu(c, c.f["op1"])
    s0, w0 = scalar_column(c, "s0_kind", "s0_value", "src", wt, P)
    if c.d.opcode == TS_CACHE_CUMULATIVE.byte:
        _cumulative(c, x, ws, s0, w0, op0, op1, dst, wd, P)
        return
    t = fn.scalar_op(op0, x, ws, s0, w0, wt, bool(c.f["reverse0"]), bitvec)
    fused = c.d.opcode == TS_CACHE_REDUCE.byte
    if (not fused and op1 != AluOp.bypass) or (fused and c.ds.get(FusedReduceSemantics).op1_elementwise
                                               and c.f["acc"] == ACC_WIRE[AccType.LoadAccumulate]):
        s1, w1 = scalar_column(c, "s1_kind", "s1_value", "src", wt, P)
        t = fn.scalar_op(op1, t, wt, s1, w1, wt, bool(c.f["reverse1"]), bitvec)
    out = numeric.bits_to(wd, numeric.bits_view(np.ascontiguousarray(t)).astype(np.uint64)) if bitvec else \
        numeric.from_fp32(t, wd)
    _store(dst, out)
    if not fused:
        return
    cmd = acc_command(c, "acc")
    init = None
    if cmd == AccType.LoadAccumulate:
        init = numeric.to_fp32(scalar_column(c, "s1_kind", "s1_value", "src", F32_WIRE, P)[0], F32_WIRE).reshape(-1)
    state = c.m.engines[c.engine].accumulator
    lanes = lane_slice(c, "src", P)
    acc = state[lanes].copy()
    fn.accumulate(acc, cmd, op1, numeric.to_fp32(t, wt).astype(np.float32), init)
    state[lanes] = acc


def _cumulative(c: Ctx, x: np.ndarray, ws: int, s0: np.ndarray, w0: int, op0: AluOp, op1: AluOp, dst: np.ndarray,
                wd: int, P: int) -> None:
    """0xE6 (S-36): t = op0(x, s0), scanned with op1 through the accumulator; N-28 says what reverse0 does."""
    backwards = c.ds.get(TscacheReverse0).reverses_scan
    rev0 = bool(c.f["reverse0"]) and not backwards
    t = fn.scalar_op(op0, x, ws, s0, w0, F32_WIRE, rev0, False)
    cmd = acc_command(c, "acc")
    init = None
    if cmd == AccType.LoadAccumulate:
        init = numeric.to_fp32(scalar_column(c, "s1_kind", "s1_value", "src", F32_WIRE, P)[0], F32_WIRE).reshape(-1)
    state = c.m.engines[c.engine].accumulator
    lanes = lane_slice(c, "src", P)
    acc = state[lanes].copy()
    out = fn.scan(acc, cmd, op1, numeric.to_fp32(t, F32_WIRE).astype(np.float32), init,
                  backwards=backwards and bool(c.f["reverse0"]))
    state[lanes] = acc
    _store(dst, numeric.from_fp32(out, wd))


def scalar_tensor_tensor(c: Ctx) -> None:
    if c.f["acc"]:
        raise SimError(f"{c.where()}: an accumulator command ({c.f['acc']}) on {c.d.opcode:#04x} is decoded but not "
                       "simulated: the fused form's fold is not documented (S-37)")
    t0, w0 = c.ap("tensor0")
    t1, w1 = c.ap("tensor1")
    out, wo = c.ap("out")
    x0, x1 = _flat(np.ascontiguousarray(t0)), _flat(np.ascontiguousarray(t1))
    if not x0.size == x1.size == out.size:
        raise SimError(f"{c.where()}: operands have different element counts (tensor0 {x0.size}, tensor1 {x1.size}, "
                       f"out {out.size})")
    x1 = x1.reshape(x0.shape)
    P = x0.shape[0]
    bitvec = c.d.opcode == STT_BITVEC.byte
    ws = w0 if bitvec else c.f["scalar_dtype"]  # S-37: a bit-vector scalar is cut to tensor0's width
    if "scalar_kind" in c.f:
        s, ws = scalar_column(c, "scalar_kind", "scalar_value", "tensor0", ws, P)
    else:  # N-21=one-byte-scalar: the byte is an immediate's bit pattern
        s = np.full((P, 1), scalar_bits(c.f["scalar_byte"], ws), dtype=numeric.element_type(ws))
    op0, op1 = _alu(c, c.f["op0"]), _alu(c, c.f["op1"])
    rev0, rev1 = bool(c.f["reverse0"]), bool(c.f["reverse1"])
    if c.d.opcode == TT_SCAN.byte:  # S-38: the scalar is the scan's initial value
        init = numeric.to_fp32(s, ws).astype(np.float32).reshape(-1)
        r = fn.tensor_tensor_scan(op0, op1, x0, w0, init, x1, w1, wo, rev0, rev1,
                                  c.ds.get(ScanCarry).rounds_carry)
    else:
        r = fn.scalar_tensor_tensor(op0, op1, x0, w0, s, ws, x1, w1, wo, rev0, rev1, bitvec)
    _store(out, r)


SCALAR_HANDLERS: dict[Sem, Callable[[Ctx], None]] = {
    Sem.TENSOR_SCALAR: tensor_scalar,
    Sem.SCALAR_TENSOR_TENSOR: scalar_tensor_tensor,
}
