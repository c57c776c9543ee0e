"""The IR reference interpreter's semantics of the next families (``next-families.md``).

Independent of the bundle path like :mod:`tongasm.sim.reference` (which calls these): it reads the BIR
instruction — operands, attributes, the decisions' meanings — never a bundle, and imports nothing
from codegen, decode, text, check or the bundle simulator. What it shares is the numeric kernels
(:mod:`tongasm.sim.numeric`, :mod:`tongasm.sim.kernels`) and the decisions.

A two-output Activation runs here as one instruction (the encoder splits it into 0x21 + 0x24, N-40),
the fused TensorScalar likewise (0x9A + 0x9B, N-19): the agreement test then checks that split.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

import numpy as np

from ...isa.decisions.scalar import (
    ActivationLoadAccumulate, ActivationRoles, ActivationTwoOutputs, CrossLaneMean, IotaBand, ShortActivationArgs,
    TscacheReverse0, TsTwoOutputsIdle,
)
from ...isa.decisions.semantics import FusedReduceSemantics, ScanCarry
from ...isa.enums import ALU_WIRE, DTYPE_INFO, AccType, AluClass, AluOp, Dtype
from ...isa.vector_enums import ActFunc, AxisList, PoolFunc, TSCMode
from ...ir.act import Activation, ActivationReadAccumulator, DveReadAccumulator
from ...ir.scalar import ScalarTensorTensor, TensorScalar, TensorScalarCache, TensorScalarPtr, is_scalar_tensor_tensor
from ...ir.reduce import BNStats, BNStatsAggregate, Iota, Pool, TensorReduce
from ...ir.instructions import Instruction
from ...ir.operands import Immediate, Operand, PhysicalAP, RegisterAccess, RegisterAP
from ...numeric import NumericError, bit_pattern
from .. import kernels as fn
from .. import numeric

if TYPE_CHECKING:
    from . import _Interpreter

F32 = np.float32
_W_F32 = DTYPE_INFO[Dtype.float32].wire


class FamilyInterpretError(ValueError):
    """Raised with a message; the interpreter reports it as its own error."""


def _bitvec(op: AluOp) -> bool:
    return ALU_WIRE[op][1] is AluClass.BITVEC


def _alu(v: Any, role: str) -> AluOp:
    if isinstance(v, AluOp) and v in ALU_WIRE:
        return v
    raise FamilyInterpretError(f"{role}: ALU op {getattr(v, 'name', v)} has no meaning on the ALU")


def _imm_bits(op: Immediate) -> tuple[int, int]:
    """(bit pattern, wire dtype) of an immediate."""
    assert isinstance(op.dtype, Dtype)
    try:
        return bit_pattern(op.value, op.dtype), DTYPE_INFO[op.dtype].wire
    except NumericError as e:
        raise FamilyInterpretError(str(e)) from None


def _of_bits(bits: int, w: int, count: int) -> np.ndarray:
    size = numeric.size_of(w)
    u = np.array([bits & ((1 << (8 * size)) - 1)], dtype={1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size])
    return np.repeat(u.view(numeric.element_type(w)), count).reshape(count, 1)


def scalar(it: _Interpreter, op: Operand | None, engine: str, role: str, count: int, w: int | None) -> np.ndarray:
    """A scalar operand's per-lane column [count, 1] in wire dtype ``w`` (None: the operand's own):
    an immediate's value, a register's 32 bits, a [P,1] pointer's elements (S-35)."""
    if isinstance(op, Immediate):
        bits, wi = _imm_bits(op)
        col = _of_bits(bits, wi, count)
        return col if w is None or w == wi else numeric.convert(col, wi, w)
    if isinstance(op, (RegisterAccess, RegisterAP)) and op.register is not None:
        return _of_bits(it.s.reg(engine, op.register.lo), w if w is not None else _W_F32, count)
    if isinstance(op, PhysicalAP):
        t = it.s.tile(op, engine, role)
        col = it.s.read(t).reshape(t.count, -1)[:, :1]
        return col if w is None or w == t.w else numeric.convert(col, t.w, w)
    raise FamilyInterpretError(f"{role}: {getattr(op, 'kind', 'nothing')} is no scalar operand")


def _f32(col: np.ndarray) -> np.ndarray:
    return col.astype(F32) if col.dtype != F32 else col


def _lanes(t: Any) -> slice:
    return slice(t.partition, t.partition + t.count)


# --- TensorReduce, Reciprocal -------------------------------------------------------------------------------

def tensor_reduce(it: _Interpreter, inst: TensorReduce, engine: str) -> None:
    if inst.stream_family() == "pool":
        cross_lane(it, inst, engine)
        return
    if inst.attr("apply_transpose"):
        raise FamilyInterpretError("apply_transpose has no known meaning (chapter §5.1)")
    op = _alu(inst.attr("op"), "op")
    axis = inst.attr("axis")
    if not isinstance(axis, AxisList) or not axis.free_pairs:
        raise FamilyInterpretError(f"axis {getattr(axis, 'name', axis)} is not a free-axis reduce")
    src = it.s.tile(inst.src, engine, "src")
    dst = it.s.tile(inst.dst, engine, "dst")
    it.same_partitions(src, dst)
    assert isinstance(inst.src, (PhysicalAP, RegisterAP))
    nums = [n for _s, n in inst.src.ap[1:]]
    a = axis.free_pairs
    inner = math.prod(nums[len(nums) - a:])
    x = it.s.read(src).reshape(src.count, -1, inner)  # S-28: row-major over the reduced pairs
    if x.shape[1] != dst.n:
        raise FamilyInterpretError(f"dst has {dst.n} elements per partition; the reduce leaves {x.shape[1]}")
    if _bitvec(op):
        it.s.write(dst, numeric.bits_to(dst.w, fn.fold(op, x, bitvec=True, w=src.w)))
        return
    acc = fn.fold(op, x, w=src.w)
    if inst.attr("negate"):
        acc = -acc
    it.s.write(dst, numeric.from_fp32(acc, dst.w))


_CROSS = {AluOp.add: 0, AluOp.average: 1, AluOp.max: 2, AluOp.bitwise_or: 3, AluOp.bitwise_and: 4,
          AluOp.bitwise_xor: 5}  # §2.5


def cross_lane(it: _Interpreter, inst: TensorReduce, engine: str) -> None:
    """S-29 from the IR: C folds each free element over the partitions, XYZWC everything; average is
    the sum times 1/N (N-23)."""
    op = inst.attr("op")
    if op not in _CROSS or inst.attr("negate"):
        raise FamilyInterpretError(f"cross-lane reduce {getattr(op, 'name', op)} has no meaning")
    src = it.s.tile(inst.src, engine, "src")
    dst = it.s.tile(inst.dst, engine, "dst")
    whole = inst.attr("axis") is AxisList.XYZWC
    n = it.ds.get(CrossLaneMean).count(src.count, src.n, whole)
    scale = float(np.float32(1.0) / np.float32(n))
    r = fn.cross_lane(it.s.read(src), _CROSS[op], not whole, scale, src.w)
    out = numeric.bits_to(dst.w, r) if _CROSS[op] >= 3 else numeric.from_fp32(r, dst.w)
    if out.size != dst.elements:
        raise FamilyInterpretError(f"dst has {dst.elements} elements; the reduce leaves {out.size}")
    it.s.write(dst, out)


def pool(it: _Interpreter, inst: Pool, engine: str) -> None:
    func = inst.attr("func")
    if not isinstance(func, PoolFunc):
        raise FamilyInterpretError(f"pool function {func} has no meaning")
    src = it.s.tile(inst.src, engine, "src")
    dst = it.s.tile(inst.dst, engine, "dst")
    it.same_partitions(src, dst)
    assert isinstance(inst.src, (PhysicalAP, RegisterAP))
    window = inst.src.ap[-1][1] * inst.src.ap[-2][1]
    x = numeric.to_fp32(it.s.read(src), src.w).astype(F32).reshape(src.count, -1, window)
    scale = 1.0 if func is PoolFunc.Max else float(np.float32(1.0) / np.float32(window))
    r = fn.pool(x, func is PoolFunc.Max, scale)
    if r.size != dst.elements:
        raise FamilyInterpretError(f"dst has {dst.elements} elements; the windows are {r.size}")
    it.s.write(dst, numeric.from_fp32(r, dst.w))


def iota(it: _Interpreter, inst: Iota, engine: str) -> None:
    if not it.ds.get(IotaBand).enabled:
        raise FamilyInterpretError("Iota is off (N-22)")
    dst = it.s.tile(inst.dst, engine, "dst")
    pattern = [(s, n) for s, n in inst.pattern_pairs() if n != 1]
    v = fn.iota(dst.count, int(inst.attr("base") or 0), int(inst.attr("channel_multiplier") or 0), pattern)
    if v.shape[1] != dst.n:
        raise FamilyInterpretError(f"the pattern has {v.shape[1]} elements, dst {dst.n}")
    it.s.write(dst, numeric.convert(v, DTYPE_INFO[Dtype.int32].wire, dst.w))


def reciprocal(it: _Interpreter, inst: Instruction, engine: str) -> None:
    src = it.s.tile(inst.ins[0] if inst.ins else None, engine, "src")
    dst = it.s.tile(inst.outs[0] if inst.outs else None, engine, "dst")
    it.same_partitions(src, dst)
    it.same_elements(src, dst)
    it.s.write(dst, fn.reciprocal(it.s.read(src), src.w, dst.w))


# --- Activation and the read-outs ----------------------------------------------------------------------------

def _activation_args(it: _Interpreter, inst: Activation) -> list[Operand | None]:
    n = len(inst.ins)
    if n == 4:
        return [inst.arg(1), inst.arg(2), inst.arg(3)]
    if n not in (1, 2) or not it.ds.get(ShortActivationArgs).synthesizes:
        raise FamilyInterpretError("an Activation takes 4 ins (N-8)")
    roles = it.ds.get(ActivationRoles).roles()
    out: list[Operand | None] = []
    for k in (1, 2, 3):
        if k < n:
            out.append(inst.arg(k))
            continue
        role = roles[k - 1]
        v = {"scale": inst.attr("scale"), "alpha": inst.attr("alpha") or 0.0}.get(role, 0.0)
        if v is None:
            raise FamilyInterpretError("a synthesised scale needs the 'scale' key (N-8)")
        out.append(Immediate(Dtype.float32, float(v)))
    return out


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
    vals = {role: _f32(scalar(it, a, engine, role, src.count, _W_F32)) for role, a in zip(roles, args)}
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
    lanes = _lanes(src)
    cur = acc[lanes].copy()
    fn.accumulate(cur, cmd, AluOp.add, y, init)  # N-30, S-22
    acc[lanes] = cur
    if two:
        read_out(it, inst.outs[1], engine, False)


def read_out(it: _Interpreter, op: Operand | None, engine: str, negated: bool) -> None:
    """S-25: dst[p, 0] = the engine's accumulator of lane p (negated on 0x9B)."""
    dst = it.s.tile(op, engine, "dst")
    if dst.n != 1:
        raise FamilyInterpretError("an accumulator read-out writes one element per partition")
    a = it.s.accumulators[engine][_lanes(dst)].astype(F32)
    it.s.write(dst, numeric.from_fp32((-a if negated else a).reshape(dst.count, 1), dst.w))


def act_read(it: _Interpreter, inst: ActivationReadAccumulator, engine: str) -> None:
    read_out(it, inst.dst, engine, False)


def dve_read(it: _Interpreter, inst: DveReadAccumulator, engine: str) -> None:
    read_out(it, inst.dst, engine, bool(inst.attr("negated")))


# --- TensorScalarPtr / TensorScalar (S-26, S-27, N-19, N-20) ------------------------------------------------

def _ts_scalar(it: _Interpreter, op: Operand | None, engine: str, role: str, count: int, w: int,
               bitvec: bool) -> np.ndarray:
    """A TensorScalar scalar at the value's width: float32, or for a bit-vector op the bits of the
    input's dtype (an immediate's bit pattern cut to that width, S-26)."""
    if bitvec and isinstance(op, Immediate):
        return _of_bits(_imm_bits(op)[0], w, count)
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
    op0 = _alu(inst.attr("op0"), "op0")
    op1 = _alu(inst.attr("op1") if inst.attr("op1") is not None else AluOp.bypass, "op1")
    bitvec = _bitvec(op0)
    wt = data.w if bitvec else _W_F32
    x = it.s.read(data)
    a = _ts_scalar(it, s0_op, engine, "s0", data.count, wt, bitvec)
    if mode is not None and mode is not TSCMode.Reduce:  # the cumulative scan (S-36, N-28)
        backwards = it.ds.get(TscacheReverse0).reverses_scan and bool(inst.attr("reverse0"))
        rev0 = bool(inst.attr("reverse0")) and not it.ds.get(TscacheReverse0).reverses_scan
        t = fn.scalar_op(op0, x, data.w, a, wt, wt, rev0, False)
        init = _f32(scalar(it, s1_op, engine, "s1", data.count, _W_F32)).reshape(-1) \
            if acc == AccType.LoadAccumulate else None
        state = it.s.accumulators[engine]
        cur = state[_lanes(data)].copy()
        out = fn.scan(cur, acc, op1, numeric.to_fp32(t, wt).astype(F32), init, backwards=backwards)
        state[_lanes(data)] = cur
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
        init = _f32(scalar(it, s1_op, engine, "s1", data.count, _W_F32)).reshape(-1)
    state = it.s.accumulators[engine]
    lanes = _lanes(data)
    cur = state[lanes].copy()
    fn.accumulate(cur, acc, op1, numeric.to_fp32(t, wt).astype(F32), init)  # N-30 with op1 (S-27)
    state[lanes] = cur
    if two:
        read_out(it, inst.outs[1], engine, bool(inst.attr("negate_second_output")))


# --- ScalarTensorTensor (S-37) and the tensor-tensor scan (S-38, S-39) ------------------------------------

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
    op0 = _alu(inst.attr("op0"), "op0")
    op1 = _alu(inst.attr("op1") if inst.attr("op1") is not None else AluOp.bypass, "op1")
    bitvec = _bitvec(op0)
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


# --- BNStats / BNStatsAggregate (S-31, S-32) -------------------------------------------------------------

def bn_stats(it: _Interpreter, inst: BNStats, engine: str) -> None:
    if inst.attr("apply_transpose"):
        raise FamilyInterpretError("apply_transpose has no known meaning (chapter §7.1)")
    src = it.s.tile(inst.src, engine, "src")
    dst = it.s.tile(inst.dst, engine, "dst")
    it.same_partitions(src, dst)
    if dst.n != 6:
        raise FamilyInterpretError("BNStats writes 6 elements per partition")
    it.s.write(dst, numeric.from_fp32(fn.bn_stats(numeric.to_fp32(it.s.read(src), src.w).astype(F32)), dst.w))


def bn_aggregate(it: _Interpreter, inst: BNStatsAggregate, engine: str) -> None:
    src = it.s.tile(inst.src, engine, "src")
    dst = it.s.tile(inst.dst, engine, "dst")
    it.same_partitions(src, dst)
    if src.n % 3 or dst.n != 2:
        raise FamilyInterpretError("BNStatsAggregate reads triples and writes 2 elements per partition")
    it.s.write(dst, numeric.from_fp32(fn.bn_aggregate(numeric.to_fp32(it.s.read(src), src.w).astype(F32)), dst.w))


#: IR class → handler (the interpreter dispatches on the class, then on the BIR opcode for declared ones).
HANDLERS: dict[type[Instruction], Callable[..., None]] = {
    TensorReduce: tensor_reduce,
    Activation: activation,
    ActivationReadAccumulator: act_read,
    DveReadAccumulator: dve_read,
    TensorScalarPtr: tensor_scalar,
    TensorScalarCache: tensor_scalar,
    ScalarTensorTensor: scalar_tensor_tensor,
    Pool: pool,
    Iota: iota,
    TensorScalar: tensor_scalar,
    BNStats: bn_stats,
    BNStatsAggregate: bn_aggregate,
}
#: BIR opcode → handler, for the instructions whose class a layout record declares.
BY_OPCODE: dict[str, Callable[..., None]] = {
    "Reciprocal": reciprocal,
    "LoadActFuncSet": lambda it, inst, engine: None,  # no data effect (SIMACT: a no-op validity gate; N-35)
}

__all__ = ["BY_OPCODE", "FamilyInterpretError", "HANDLERS"]
