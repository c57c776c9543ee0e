"""The IR reference interpreter's semantics of the PE instructions: ``Matmult`` and the
``LoadStationary`` / ``MultiplyMoving`` pair it lowers to.

Independent of the bundle path like :mod:`tongasm.sim.reference` (which calls these): it reads the BIR
instruction, never a bundle, and imports nothing from codegen, decode, text, check or the bundle
simulator. The meaning is plain numpy matrix multiplication as BIR means it (NKI ``nc_matmul``):
``dst[M, N] = stationary[K, M]^T @ moving[K, N]``, the K rows of both on the partitions, M and N in
access-pattern order; with the simulator's own rounding decisions, read here from the same classes:
S-41 (products and the K-sum in float64 rounded once to float32, or a float32 product), S-42 (one
stationary held per PE engine, loaded by LoadStationary, used by every MultiplyMoving until the next
one; a Matmult loads it too), S-43 (``start_tensor_calc`` overwrites the PSUM destination, otherwise
the old value as float32 plus the float32 result, rounded once) and R-12 (a transpose writes PSUM in
the input dtype, any other product float32). The wire's column order of the stationary (R-10) and the
accumulation-flag byte (R-11) are the encoder's and the simulator's business: the IR names neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from collections.abc import Callable

import numpy as np

from ...isa.decisions.pe import PeEvaluation, PeTranspose
from ...isa.decisions.semantics import PeArithmetic
from ...isa.enums import DTYPE_INFO, Dtype
from ...ir.instructions import Instruction, LoadStationary, Matmult, MultiplyMoving
from .. import numeric
from .operands import FamilyInterpretError

if TYPE_CHECKING:
    from . import _Interpreter

_W_F32 = DTYPE_INFO[Dtype.float32].wire


def _load(it: _Interpreter, op: object, engine: str) -> tuple[np.ndarray, int]:
    """S-42: read the stationary [K, M] tile and hold it as the engine's stationary."""
    t = it.s.tile(op, engine, "stationary")  # type: ignore[arg-type]
    w = it.s.read(t)
    it.s.stationary[engine] = (w, t.w)
    return w, t.w


def _multiply(it: _Interpreter, inst: Instruction, moving_op: object, dst_op: object, engine: str,
              weights: np.ndarray) -> None:
    """``dst = W^T @ moving`` (S-41), written (start) or added (S-43) in the PSUM dtype of R-12."""
    mv = it.s.tile(moving_op, engine, "moving")  # type: ignore[arg-type]
    dst = it.s.tile(dst_op, engine, "dst")  # type: ignore[arg-type]
    k, m = weights.shape
    if mv.count != k:
        raise FamilyInterpretError(f"the moving tensor has {mv.count} partitions, the stationary K = {k} (S-42)")
    if dst.count != m or dst.n != mv.n:
        raise FamilyInterpretError(f"dst is {dst.count} x {dst.n}; W^T @ moving is {m} x {mv.n}")
    want = it.ds.get(PeTranspose).psum_wire(bool(inst.attr("is_transpose")), mv.w, _W_F32)
    if dst.w != want:
        raise FamilyInterpretError(f"dst dtype wire {dst.w:#x}: the PE writes PSUM in wire dtype {want:#x} (R-12)")
    x = it.s.read(mv)
    with np.errstate(all="ignore"):  # inf * 0 and inf - inf are NaN, as IEEE says
        # S-41: float64 products and sum, one rounding to float32 (S-120=f32-accumulate: in float32, as the bundles)
        if it.ds.get(PeArithmetic).wide and it.ds.get(PeEvaluation).exact:
            result = (weights.astype(np.float64).T @ x.astype(np.float64)).astype(np.float32)
        else:
            result = weights.astype(np.float32).T @ x.astype(np.float32)
        if not inst.attr("start_tensor_calc"):  # S-43: accumulate in float32, one rounding
            result = numeric.to_fp32(it.s.read(dst), dst.w) + result
    it.s.write(dst, numeric.from_fp32(result, dst.w))


def matmult(it: _Interpreter, inst: Matmult, engine: str) -> None:
    if len(inst.ins) != 2 or len(inst.outs) != 1:
        raise FamilyInterpretError("Matmult has ins = [stationary, moving] and outs = [dst]")
    weights, _w = _load(it, inst.stationary, engine)
    _multiply(it, inst, inst.moving, inst.outs[0], engine, weights)


def load_stationary(it: _Interpreter, inst: LoadStationary, engine: str) -> None:
    if len(inst.ins) != 1 or inst.outs:
        raise FamilyInterpretError("LoadStationary has ins = [stationary] and no output")
    _load(it, inst.stationary, engine)


def multiply_moving(it: _Interpreter, inst: MultiplyMoving, engine: str) -> None:
    if len(inst.ins) != 1 or len(inst.outs) != 1:
        raise FamilyInterpretError("MultiplyMoving has ins = [moving] and outs = [dst]")
    held = it.s.stationary.get(engine)
    if held is None:
        raise FamilyInterpretError("a MultiplyMoving with no stationary loaded on its engine (S-42)")
    _multiply(it, inst, inst.moving, inst.dst, engine, held[0])


#: IR class → handler (merged into the interpreter's table).
HANDLERS: dict[type[Instruction], Callable[..., None]] = {
    Matmult: matmult,
    LoadStationary: load_stationary,
    MultiplyMoving: multiply_moving,
}

__all__ = ["HANDLERS"]
