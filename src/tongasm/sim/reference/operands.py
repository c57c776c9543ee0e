"""What the IR reference interpreter's family handlers share: their error, the scalar operand column
(an immediate, a register, a [P,1] pointer; S-35) and small value helpers.

Like every family module of :mod:`tongasm.sim.reference`, independent of the bundle path: it reads the BIR
instruction — operands, attributes, the decisions' meanings — never a bundle, and imports nothing from
codegen, decode, text, check or the bundle simulator. What it shares is the numeric kernels
(:mod:`tongasm.sim.numeric`, :mod:`tongasm.sim.kernels`) and the decisions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...ir.operands import Immediate, Operand, PhysicalAP, RegisterAccess, RegisterAP
from ...isa.enums import ALU_WIRE, DTYPE_INFO, AluClass, AluOp, Dtype
from ...numeric import NumericError, bit_pattern
from .. import numeric

if TYPE_CHECKING:
    from . import _Interpreter


F32 = np.float32


W_F32 = DTYPE_INFO[Dtype.float32].wire


class FamilyInterpretError(ValueError):
    """Raised with a message; the interpreter reports it as its own error."""


def is_bitvec(op: AluOp) -> bool:
    return ALU_WIRE[op][1] is AluClass.BITVEC


def alu_op(v: Any, role: str) -> AluOp:
    if isinstance(v, AluOp) and v in ALU_WIRE:
        return v
    raise FamilyInterpretError(f"{role}: ALU op {getattr(v, 'name', v)} has no meaning on the ALU")


def imm_bits(op: Immediate) -> tuple[int, int]:
    """(bit pattern, wire dtype) of an immediate."""
    assert isinstance(op.dtype, Dtype)
    try:
        return bit_pattern(op.value, op.dtype), DTYPE_INFO[op.dtype].wire
    except NumericError as e:
        raise FamilyInterpretError(str(e)) from None


def column_of_bits(bits: int, w: int, count: int) -> np.ndarray:
    size = numeric.size_of(w)
    u = np.array([bits & ((1 << (8 * size)) - 1)], dtype={1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size])
    return np.repeat(u.view(numeric.element_type(w)), count).reshape(count, 1)


def scalar(it: _Interpreter, op: Operand | None, engine: str, role: str, count: int, w: int | None) -> np.ndarray:
    """A scalar operand's per-lane column [count, 1] in wire dtype ``w`` (None: the operand's own):
    an immediate's value, a register's 32 bits, a [P,1] pointer's elements (S-35)."""
    if isinstance(op, Immediate):
        bits, wi = imm_bits(op)
        col = column_of_bits(bits, wi, count)
        return col if w is None or w == wi else numeric.convert(col, wi, w)
    if isinstance(op, (RegisterAccess, RegisterAP)) and op.register is not None:
        return column_of_bits(it.s.reg(engine, op.register.lo), w if w is not None else W_F32, count)
    if isinstance(op, PhysicalAP):
        t = it.s.tile(op, engine, role)
        col = it.s.read(t).reshape(t.count, -1)[:, :1]
        return col if w is None or w == t.w else numeric.convert(col, t.w, w)
    raise FamilyInterpretError(f"{role}: {getattr(op, 'kind', 'nothing')} is no scalar operand")


def as_f32(col: np.ndarray) -> np.ndarray:
    return col.astype(F32) if col.dtype != F32 else col


def lane_slice(t: Any) -> slice:
    return slice(t.partition, t.partition + t.count)


def read_out(it: _Interpreter, op: Operand | None, engine: str, negated: bool) -> None:
    """S-25: dst[p, 0] = the engine's accumulator of lane p (negated on 0x9B)."""
    dst = it.s.tile(op, engine, "dst")
    if dst.n != 1:
        raise FamilyInterpretError("an accumulator read-out writes one element per partition")
    a = it.s.accumulators[engine][lane_slice(dst)].astype(F32)
    it.s.write(dst, numeric.from_fp32((-a if negated else a).reshape(dst.count, 1), dst.w))
