"""The IR reference interpreter's semantics of the reduce family: TensorReduce (free-axis and cross-lane),
Reciprocal, Pool, Iota and the batch-norm statistics. The interpreter merges :data:`HANDLERS` and
:data:`BY_OPCODE`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ...ir.instructions import Instruction
from ...ir.operands import PhysicalAP, RegisterAP
from ...ir.reduce import BNStats, BNStatsAggregate, Iota, Pool, TensorReduce
from ...isa.decisions.reduce import (
    CrossLaneMean,
    IotaBand,
)
from ...isa.enums import DTYPE_INFO, AluOp, Dtype
from ...isa.vector_enums import AxisList, PoolFunc
from .. import kernels as fn
from .. import numeric
from .operands import F32, FamilyInterpretError, alu_op, is_bitvec

if TYPE_CHECKING:
    from . import _Interpreter


def tensor_reduce(it: _Interpreter, inst: TensorReduce, engine: str) -> None:
    if inst.stream_family() == "pool":
        cross_lane(it, inst, engine)
        return
    if inst.attr("apply_transpose"):
        raise FamilyInterpretError("apply_transpose has no known meaning (chapter §5.1)")
    op = alu_op(inst.attr("op"), "op")
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
    if is_bitvec(op):
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


HANDLERS: dict[type[Instruction], Callable[..., None]] = {
    TensorReduce: tensor_reduce,
    Pool: pool,
    Iota: iota,
    BNStats: bn_stats,
    BNStatsAggregate: bn_aggregate,
}


BY_OPCODE: dict[str, Callable[..., None]] = {"Reciprocal": reciprocal}
