"""The IR reference interpreter's semantics of the scalar family: TensorScalarPtr, TensorScalar,
TensorScalarCache and ScalarTensorTensor.

The fused TensorScalar runs here as one instruction (the encoder splits it into 0x9A + 0x9B, N-19): the
agreement test then checks that split. The interpreter merges :data:`HANDLERS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ...ir.instructions import Instruction
from ...ir.operands import Immediate, Operand
from ...ir.scalar import ScalarTensorTensor, TensorScalar, TensorScalarCache, TensorScalarPtr, is_scalar_tensor_tensor
from ...isa.decisions.scalar import (
    TscacheReverse0,
    TsTwoOutputsIdle,
)
from ...isa.decisions.semantics import FusedReduceSemantics, ScanCarry
from ...isa.enums import DTYPE_INFO, AccType, AluOp, Dtype
from ...isa.vector_enums import TSCMode
from .. import kernels as fn
from .. import numeric
from .operands import (
    F32,
    W_F32,
    FamilyInterpretError,
    alu_op,
    as_f32,
    column_of_bits,
    imm_bits,
    is_bitvec,
    lane_slice,
    read_out,
    scalar,
)

if TYPE_CHECKING:
    from . import _Interpreter


def _ts_scalar(it: _Interpreter, op: Operand | None, engine: str, role: str, count: int, w: int,
               bitvec: bool) -> np.ndarray:
    """A TensorScalar scalar at the value's width: float32, or for a bit-vector op the bits of the
    input's dtype (an immediate's bit pattern cut to that width, S-26)."""
    if bitvec and isinstance(op, Immediate):
        return column_of_bits(imm_bits(op)[0], w, count)
    return scalar(it, op, engine, role, count, w)


def tensor_scalar(it: _Interpreter, inst: TensorScalarPtr | TensorScalar | TensorScalarCache, engine: str) -> None:
    if isinstance(inst, TensorScalarPtr) and is_scalar_tensor_tensor(inst):  # §4.4 (the encoder lowers it)
        scalar_tensor_tensor(it, inst, engine)
        return
    mode = inst.attr("mode") if isinstance(inst, TensorScalarCache) else None
    if isinstance(inst, (TensorScalarPtr, TensorScalarCache)):
        if inst.attr("apply_transpose"):
            raise FamilyInterpretError("apply_transpose has no known meaning (chapter §4.1)")
        s0_op = inst.ins[1] if len(inst.ins) > 1 else None
        s1_op = inst.ins[2] if len(inst.ins) > 2 else None
        acc = inst.attr("acc")
    else:  # IT28: float32 constants (N-20); op1's constant matters only when op1 is not bypass
        s0_op = Immediate(Dtype.float32, float(inst.attr("const0") or 0.0))
        s1_op = Immediate(Dtype.float32, float(inst.attr("const1") or 0.0))
        acc = None
    two = len(inst.outs) == 2
    if two and acc in (None, AccType.Idle):
        if it.ds.get(TsTwoOutputsIdle).refuses:
            raise FamilyInterpretError("Reduce Accum result is not outputed (N-18)")
        acc = AccType.ZeroAccumulate
    fused = acc not in (None, AccType.Idle)
    data = it.s.tile(inst.ins[0] if inst.ins else None, engine, "data")
    dst = it.s.tile(inst.outs[0] if inst.outs else None, engine, "dst")
    it.same_partitions(data, dst)
    it.same_elements(data, dst)
    op0 = alu_op(inst.attr("op0"), "op0")
    op1 = alu_op(inst.attr("op1") if inst.attr("op1") is not None else AluOp.bypass, "op1")
    bitvec = is_bitvec(op0)
    wt = data.w if bitvec else W_F32
    x = it.s.read(data)
    a = _ts_scalar(it, s0_op, engine, "s0", data.count, wt, bitvec)
    if mode is not None and mode is not TSCMode.Reduce:  # the cumulative scan (S-36, N-28)
        backwards = it.ds.get(TscacheReverse0).reverses_scan and bool(inst.attr("reverse0"))
        rev0 = bool(inst.attr("reverse0")) and not it.ds.get(TscacheReverse0).reverses_scan
        t = fn.scalar_op(op0, x, data.w, a, wt, wt, rev0, False)
        init = as_f32(scalar(it, s1_op, engine, "s1", data.count, W_F32)).reshape(-1) \
            if acc == AccType.LoadAccumulate else None
        state = it.s.accumulators[engine]
        cur = state[lane_slice(data)].copy()
        out = fn.scan(cur, acc, op1, numeric.to_fp32(t, wt).astype(F32), init, backwards=backwards)
        state[lane_slice(data)] = cur
        it.s.write(dst, numeric.from_fp32(out, dst.w))
        if two:
            read_out(it, inst.outs[1], engine, False)
        return
    t = fn.scalar_op(op0, x, data.w, a, wt, wt, bool(inst.attr("reverse0")), bitvec)
    elementwise = (not fused and op1 is not AluOp.bypass) or (
        fused and s1_op is not None and it.ds.get(FusedReduceSemantics).op1_elementwise)
    if elementwise:
        b = _ts_scalar(it, s1_op, engine, "s1", data.count, wt, bitvec)
        t = fn.scalar_op(op1, t, wt, b, wt, wt, bool(inst.attr("reverse1")), bitvec)
    out = numeric.bits_to(dst.w, numeric.bits_view(np.ascontiguousarray(t)).astype(np.uint64)) if bitvec else \
        numeric.from_fp32(t, dst.w)
    it.s.write(dst, out)
    if not fused:
        return
    init = None
    if acc == AccType.LoadAccumulate:
        init = as_f32(scalar(it, s1_op, engine, "s1", data.count, W_F32)).reshape(-1)
    state = it.s.accumulators[engine]
    lanes = lane_slice(data)
    cur = state[lanes].copy()
    fn.accumulate(cur, acc, op1, numeric.to_fp32(t, wt).astype(F32), init)  # N-30 with op1 (S-27)
    state[lanes] = cur
    if two:
        read_out(it, inst.outs[1], engine, bool(inst.attr("negate_second_output")))


def scalar_tensor_tensor(it: _Interpreter, inst: TensorScalarPtr | ScalarTensorTensor, engine: str) -> None:
    """A TensorScalarPtr with is_scalar_tensor_tensor / is_tensor_tensor_scan, from the IR: ins =
    [tensor0, scalar, tensor1], outs = [out]."""
    if inst.attr("is_tensor_scalar_addr"):
        raise FamilyInterpretError("TensorScalarAddr has no known meaning (chapter §4.5)")
    if len(inst.ins) != 3 or len(inst.outs) != 1:
        raise FamilyInterpretError("a ScalarTensorTensor has ins = [tensor0, scalar, tensor1] and one output")
    if inst.attr("apply_transpose") or inst.attr("acc") not in (None, AccType.Idle):
        raise FamilyInterpretError("a ScalarTensorTensor with apply_transpose or an accumulator command has no known "
                                   "meaning (S-37)")
    t0 = it.s.tile(inst.ins[0], engine, "tensor0")
    t1 = it.s.tile(inst.ins[2], engine, "tensor1")
    out = it.s.tile(inst.outs[0], engine, "out")
    it.same_partitions(t0, t1, out)
    it.same_elements(t0, t1, out)
    op0 = alu_op(inst.attr("op0"), "op0")
    op1 = alu_op(inst.attr("op1") if inst.attr("op1") is not None else AluOp.bypass, "op1")
    bitvec = is_bitvec(op0)
    sop = inst.ins[1]
    sd = getattr(sop, "dtype", None)
    if not isinstance(sd, Dtype):
        raise FamilyInterpretError(f"scalar: {getattr(sop, 'kind', 'nothing')} has no dtype")
    ws = t0.w if bitvec else DTYPE_INFO[sd].wire  # S-37: a bit-vector scalar at tensor0's width, else its own
    s = _ts_scalar(it, sop, engine, "scalar", t0.count, ws, bitvec)
    x0, x1 = it.s.read(t0), it.s.read(t1)
    rev0, rev1 = bool(inst.attr("reverse0")), bool(inst.attr("reverse1"))
    if inst.attr("is_tensor_tensor_scan"):  # S-38: the scalar is the initial value; S-39: the carry
        init = numeric.to_fp32(s, ws).astype(F32).reshape(-1)
        r = fn.tensor_tensor_scan(op0, op1, x0, t0.w, init, x1, t1.w, out.w, rev0, rev1,
                                  it.ds.get(ScanCarry).rounds_carry)
    else:
        r = fn.scalar_tensor_tensor(op0, op1, x0, t0.w, s, ws, x1, t1.w, out.w, rev0, rev1, bitvec)
    it.s.write(out, r)


HANDLERS: dict[type[Instruction], Callable[..., None]] = {
    TensorScalarPtr: tensor_scalar,
    TensorScalarCache: tensor_scalar,
    ScalarTensorTensor: scalar_tensor_tensor,
    TensorScalar: tensor_scalar,
}
